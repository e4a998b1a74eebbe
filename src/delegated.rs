//! One document-level handler for the buttons every page shares: the tables' and charts'
//! downloads ([`crate::components::CsvButton`], [`crate::components::ChartCanvas`]) and
//! "Save & share" ([`crate::share::ShareBar`]).
//!
//! Why: those controls are written as HTML text (`inner_html`) instead of a `view!` tree with
//! a closure per button; each `view!` tree and each `on:` closure is its own code in the wasm
//! (docs/size.md, "Exports and share bar, session 14"). A component [`register`]s one action
//! for the element ids it wrote while it is mounted; a `click` or `change` on an element with
//! one of those ids calls the newest action registered for it with the element. Nothing read
//! from the page is used as markup here.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, Node};

/// What a control does when clicked (or, for a file input, changed): gets the element.
type Action = Rc<dyn Fn(&Element)>;

thread_local! {
    static ACTIONS: RefCell<Vec<(u32, Vec<String>, Action)>> = const { RefCell::new(Vec::new()) };
    static NEXT_KEY: Cell<u32> = const { Cell::new(0) };
    static INSTALLED: Cell<bool> = const { Cell::new(false) };
}

/// Calls `action` for clicks and changes on the elements with these `ids` (buttons and
/// inputs without child elements: the event's target is the element itself), until the
/// calling component is cleaned up. Installs the document's handler on first use.
pub fn register(ids: Vec<String>, action: impl Fn(&Element) + 'static) {
    install();
    let key = NEXT_KEY.with(|k| {
        let key = k.get();
        k.set(key.wrapping_add(1));
        key
    });
    ACTIONS.with(|a| a.borrow_mut().push((key, ids, Rc::new(action))));
    leptos::prelude::on_cleanup(move || ACTIONS.with(|a| a.borrow_mut().retain(|e| e.0 != key)));
}

/// Listens to `click` and `change` on the document, once per page.
fn install() {
    if INSTALLED.with(|i| i.replace(true)) {
        return;
    }
    let listener = Closure::<dyn Fn(Event)>::new(dispatch);
    let document = leptos::prelude::document();
    for kind in ["click", "change"] {
        let _ = document.add_event_listener_with_callback(kind, listener.as_ref().unchecked_ref());
    }
    // Kept for the page's lifetime: the document outlives every component.
    listener.forget();
}

/// Runs the action registered for the id of the element the event came from, if any.
fn dispatch(ev: Event) {
    let Some(el) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
    let id = el.id();
    if id.is_empty() {
        return;
    }
    // Cloned out first: an action may mount or clean up components, which (un)registers.
    let action = ACTIONS.with(|a| a.borrow().iter().rev().find(|e| e.1.contains(&id)).map(|e| Rc::clone(&e.2)));
    if let Some(action) = action {
        action(&el);
    }
}

/// Shows `text` in the element `#<id>`, or removes it when `text` is `None`. When there is
/// none yet, makes a `<tag class="field-error" id="<id>">` (with `role="alert"` when
/// `alert`) and inserts it into `parent` before `before` (at the end when `None`). The text
/// is set as text, never parsed as markup.
pub fn show_failure(id: &str, tag: &str, alert: bool, text: Option<&str>, parent: Option<Node>, before: Option<Node>) {
    let document = leptos::prelude::document();
    match (document.get_element_by_id(id), text) {
        (Some(e), Some(t)) => e.set_text_content(Some(t)),
        (Some(e), None) => e.remove(),
        (None, Some(t)) => {
            let (Some(parent), Ok(e)) = (parent, document.create_element(tag)) else { return };
            e.set_class_name("field-error");
            e.set_id(id);
            if alert {
                let _ = e.set_attribute("role", "alert");
            }
            e.set_text_content(Some(t));
            let _ = parent.insert_before(&e, before.as_ref());
        }
        (None, None) => {}
    }
}
