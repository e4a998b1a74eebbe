//! The page's side of the background worker (`src/bin/worker.rs`): started on the first
//! request, then kept. Requests sent before the worker is ready wait in a queue. If the worker
//! fails (its script does not load, or a bug stops it) or takes longer than [`TIMEOUT`],
//! every pending request gets a [`Reply::Failed`] saying so, and the next request starts a
//! fresh worker: the page itself is never affected.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

use crate::worker_protocol::READY;
pub use crate::worker_protocol::{Reply, Request};

/// The worker's loader script (trunk's loader shim), next to the page.
pub const WORKER_URL: &str = "./worker_loader.js";

/// How long a request may take, loading the worker included.
pub const TIMEOUT: Duration = Duration::from_secs(30);

type Callback = Box<dyn FnOnce(Reply)>;

struct Client {
    worker: Worker,
    ready: bool,
    queue: Vec<String>,
    pending: Vec<(u32, Callback)>,
    // Kept alive as long as the worker.
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(web_sys::Event)>,
}

thread_local! {
    static CLIENT: RefCell<Option<Client>> = const { RefCell::new(None) };
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
    static LOCAL: Cell<Option<Handler>> = const { Cell::new(None) };
}

/// Answers a request message with a reply message (what the worker runs).
pub type Handler = fn(&str) -> Option<String>;

/// From now on, answers requests on this thread with `handler` instead of a worker (still
/// asynchronously, through the same messages). For the wasm tests, which have no worker
/// script to load: `answer_locally(shardcalc::worker_handler::answer)`.
pub fn answer_locally(handler: Handler) {
    LOCAL.with(|l| l.set(Some(handler)));
}

/// Sends `request` to the worker; `done` gets the reply (or a [`Reply::Failed`] explaining
/// why there is none), later, from the event loop.
pub fn call(request: Request, done: impl FnOnce(Reply) + 'static) {
    if let Some(handler) = LOCAL.with(Cell::get) {
        let text = request.encode(1);
        leptos::task::spawn_local(async move {
            match handler(&text).as_deref().and_then(Reply::decode) {
                Some((_, reply)) => done(reply),
                None => done(Reply::Failed(vec!["Failed: no reply.".into()])),
            }
        });
        return;
    }
    let mut done: Option<Callback> = Some(Box::new(done));
    // Ids are unique for the page's life, so a late timeout never hits a newer request.
    let id = NEXT_ID.with(|n| {
        let id = n.get();
        n.set(id.wrapping_add(1));
        id
    });
    let sent = CLIENT.with(|cell| {
        let mut slot = cell.try_borrow_mut().map_err(|_| "the background worker is busy; try again".to_string())?;
        if slot.is_none() {
            *slot = Some(start()?);
        }
        let client = slot.as_mut().ok_or_else(|| "the background worker could not start".to_string())?;
        let text = request.encode(id);
        if let Some(done) = done.take() {
            client.pending.push((id, done));
        }
        if client.ready {
            let _ = client.worker.post_message(&JsValue::from_str(&text));
        } else {
            client.queue.push(text);
        }
        Ok::<(), String>(())
    });
    match sent {
        Ok(()) => {
            leptos::prelude::set_timeout(
                move || fail_one(id, "the background worker took too long; it was restarted"),
                TIMEOUT,
            );
        }
        Err(message) => {
            if let Some(done) = done {
                done(Reply::Failed(vec![format!("Failed: {message}.")]));
            }
        }
    }
}

/// Starts the worker and wires its events.
fn start() -> Result<Client, String> {
    let worker = Worker::new(WORKER_URL).map_err(|_| "the background worker could not start".to_string())?;
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(|event: MessageEvent| {
        if let Some(text) = event.data().as_string() {
            received(&text);
        }
    });
    let on_error = Closure::<dyn Fn(web_sys::Event)>::new(|event: web_sys::Event| {
        // Keep the page's console quiet about it: the failure is reported where it matters.
        event.prevent_default();
        fail_all("the background worker stopped (reload the page to try again if this repeats)");
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(Client {
        worker,
        ready: false,
        queue: Vec::new(),
        pending: Vec::new(),
        _on_message: on_message,
        _on_error: on_error,
    })
}

/// A message from the worker: "ready", or a reply.
fn received(text: &str) {
    if text == READY {
        CLIENT.with(|cell| {
            if let Ok(mut slot) = cell.try_borrow_mut() {
                if let Some(client) = slot.as_mut() {
                    client.ready = true;
                    for message in client.queue.drain(..) {
                        let _ = client.worker.post_message(&JsValue::from_str(&message));
                    }
                }
            }
        });
        return;
    }
    match Reply::decode(text) {
        Some((id, reply)) => {
            if let Some(done) = take(id) {
                done(reply);
            }
        }
        None => leptos::logging::error!("shardcalc: unreadable reply from the background worker"),
    }
}

/// Removes and returns the callback of request `id` (the borrow ends before it runs).
fn take(id: u32) -> Option<Callback> {
    CLIENT.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        let pending = &mut slot.as_mut()?.pending;
        let at = pending.iter().position(|(i, _)| *i == id)?;
        Some(pending.swap_remove(at).1)
    })
}

/// If request `id` is still pending, fails it and every other pending request, and drops the
/// worker (the next request starts a new one).
fn fail_one(id: u32, message: &str) {
    let pending = CLIENT.with(|cell| {
        cell.try_borrow()
            .ok()
            .is_some_and(|slot| slot.as_ref().is_some_and(|c| c.pending.iter().any(|(i, _)| *i == id)))
    });
    if pending {
        fail_all(message);
    }
}

/// Fails every pending request and drops the worker.
fn fail_all(message: &str) {
    let pending = stop();
    for (_, done) in pending {
        done(Reply::Failed(vec![format!("Failed: {message}.")]));
    }
}

/// Terminates the worker (the next request starts a new one); returns its pending callbacks.
fn stop() -> Vec<(u32, Callback)> {
    let client = CLIENT.with(|cell| cell.try_borrow_mut().ok().and_then(|mut slot| slot.take()));
    match client {
        Some(client) => {
            client.worker.terminate();
            client.pending
        }
        None => Vec::new(),
    }
}
