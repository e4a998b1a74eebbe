//! What every page's wasm-bindgen tests share: a page mounted in its own `<div>` (removed at
//! the end), finding and reading elements, and typing, choosing and clicking as a user does.
//! Each `tests/web*.rs` file is its own test crate and uses what it needs (`mod support;`).
#![allow(dead_code)]

use std::any::Any;

use leptos::prelude::AnyView;
use wasm_bindgen::JsCast;
use web_sys::{Event, EventInit, HtmlElement, HtmlInputElement, HtmlSelectElement};

pub fn document() -> web_sys::Document {
    web_sys::window().and_then(|w| w.document()).expect("a browser document")
}

/// A page mounted in a fresh `<div>`; unmounted and removed on drop.
pub struct Page {
    root: HtmlElement,
    _handle: Box<dyn Any>,
    /// Ticks of the executor after mounting and after every action, so that effects the
    /// action schedules (a form rebuilt in place, a redraw) have run.
    ticks: u32,
}

impl Drop for Page {
    fn drop(&mut self) {
        self.root.remove();
    }
}

impl Page {
    /// Mounts `render` (the `<App>` around a view) and lets it settle for `ticks` ticks.
    pub async fn mount(render: impl FnOnce() -> AnyView + 'static, ticks: u32) -> Self {
        let doc = document();
        let root: HtmlElement = doc.create_element("div").unwrap().unchecked_into();
        doc.body().expect("a <body>").append_child(&root).unwrap();
        let handle = leptos::mount::mount_to(root.clone(), render);
        let page = Self { root, _handle: Box::new(handle), ticks };
        page.settle().await;
        page
    }

    /// Lets effects run.
    pub async fn settle(&self) {
        for _ in 0..self.ticks {
            leptos::task::tick().await;
        }
    }

    pub fn find<T: JsCast>(&self, selector: &str) -> T {
        self.root
            .query_selector(selector)
            .unwrap()
            .unwrap_or_else(|| panic!("no element matches {selector}"))
            .unchecked_into()
    }

    pub fn exists(&self, selector: &str) -> bool {
        self.root.query_selector(selector).unwrap().is_some()
    }

    /// Every element matching `selector`.
    pub fn all(&self, selector: &str) -> web_sys::NodeList {
        self.root.query_selector_all(selector).unwrap()
    }

    pub fn count(&self, selector: &str) -> u32 {
        self.all(selector).length()
    }

    pub fn text(&self, selector: &str) -> String {
        self.find::<HtmlElement>(selector).text_content().unwrap_or_default()
    }

    pub fn html(&self, selector: &str) -> String {
        self.find::<HtmlElement>(selector).inner_html()
    }

    pub fn attr(&self, selector: &str, name: &str) -> String {
        self.find::<HtmlElement>(selector).get_attribute(name).unwrap_or_default()
    }

    /// How often the canvas at `canvas` was drawn (`ChartCanvas` counts in `data-draws`).
    pub fn draws(&self, canvas: &str) -> u32 {
        self.find::<HtmlElement>(canvas).get_attribute("data-draws").and_then(|d| d.parse().ok()).unwrap_or(0)
    }

    /// Types `value` into the input at `selector` (replacing its text) and lets effects run.
    pub async fn type_into(&self, selector: &str, value: &str) {
        let input: HtmlInputElement = self.find(selector);
        input.set_value(value);
        fire(&input, "input");
        self.settle().await;
    }

    /// Chooses `value` in the `<select>` at `selector`.
    pub async fn choose(&self, selector: &str, value: &str) {
        let select: HtmlSelectElement = self.find(selector);
        select.set_value(value);
        fire(&select, "change");
        self.settle().await;
    }

    /// Clicks the element at `selector` (checkboxes and radios toggle and fire `change`).
    pub async fn click(&self, selector: &str) {
        self.find::<HtmlElement>(selector).click();
        self.settle().await;
    }
}

/// Dispatches a bubbling event of `kind` at `target`.
pub fn fire(target: &web_sys::EventTarget, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    let event = Event::new_with_event_init_dict(kind, &init).unwrap();
    target.dispatch_event(&event).unwrap();
}

/// Waits `ms` milliseconds (a timer on the event loop).
pub async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}
