//! The background worker: what pages need only on request (importing a config, rendering a
//! chart as SVG), in its own wasm, loaded the first time a page asks (`crate::worker_client`
//! in the lib). Pages stay smaller (docs/size.md), and a bug here cannot take a page down:
//! the page sees the worker fail and says so.
//!
//! It answers each [`Request`] with a [`Reply`] carrying the request's id (both plain text,
//! `worker_protocol`). It does not link the Leptos app: the shared modules are included by `#[path]`.
//! Built by `scripts/build-pages.sh` from `workers/worker.html` (trunk `data-type="worker"`).
#![forbid(unsafe_code)]

#[path = "../svg_export.rs"]
mod svg_export;
#[path = "../worker_handler.rs"]
mod worker_handler;
// The page uses the other half (requests out, replies in).
#[allow(dead_code)]
#[path = "../worker_protocol.rs"]
mod worker_protocol;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};
use worker_protocol::READY;

fn main() {
    // With panic = "abort" the worker's wasm stops; the page sees the error event.
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&JsValue::from_str(&format!("shardcalc worker: {info}")));
    }));
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let replies = scope.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let Some(text) = event.data().as_string() else { return };
        let Some(reply) = worker_handler::answer(&text) else { return };
        let _ = replies.post_message(&JsValue::from_str(&reply));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The worker lives as long as the page: the handler is never dropped.
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(READY));
}
