//! What happens when the page's Rust code panics (a bug: core and the views are written and
//! tested never to). Release builds use `panic = "abort"`, so the failing call stops and the
//! browser logs "unreachable"; the hook installed here runs first and shows a banner saying
//! what happened, with a link that reloads the page with the user's inputs (the scenario's
//! permalink, kept up to date without the URL's 200 ms debounce) and a "Dismiss" button.
//!
//! The banner is built with plain DOM calls, and its button and link work without the wasm
//! (the button's handler is a JavaScript function), because the panic may have left the Rust
//! side unable to run. What still runs keeps running: the rest of the page stays on screen,
//! and parts the panic did not touch keep answering.
//!
//! Element ids: `#panic-banner` (`role="alert"`), `#panic-message`, `#panic-reload` (the link),
//! `#panic-dismiss`. Tests force a panic with the exported [`debug_panic`]
//! (`window.wasmBindings.debug_panic("...")` on a page built by trunk): harmless, it does only that.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    /// The fragment of the current scenario (`#s=...`), set as soon as the scenario changes.
    static FRAGMENT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records the current scenario's fragment for the banner's reload link (and updates the link
/// of a banner already shown, for a page that kept working after the panic).
pub fn remember_fragment(fragment: &str) {
    FRAGMENT.with(|f| {
        if let Ok(mut f) = f.try_borrow_mut() {
            f.replace(fragment.to_string());
        }
    });
    let Some(window) = web_sys::window() else { return };
    if let Some(link) = window.document().and_then(|d| d.get_element_by_id("panic-reload")) {
        let _ = link.set_attribute("href", &reload_link(&window));
    }
}

/// Installs the hook: log the panic to the console, then show the banner.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&JsValue::from_str(&format!("shardcalc: {message}")));
        show(&message);
    }));
}

/// Panics with `message`, to test the hook and the banner. Exported to JavaScript; nothing in
/// the page calls it.
#[wasm_bindgen]
pub fn debug_panic(message: &str) {
    panic!("debug_panic: {message}");
}

/// The page's address with the latest scenario in its fragment.
fn reload_link(window: &web_sys::Window) -> String {
    let location = window.location();
    let href = location.href().unwrap_or_default();
    let base = href.split('#').next().unwrap_or_default().to_string();
    let fragment = FRAGMENT
        .with(|f| f.try_borrow().ok().and_then(|f| f.clone()))
        .or_else(|| location.hash().ok())
        .unwrap_or_default();
    format!("{base}{fragment}")
}

/// Puts the banner at the top of `<body>` (once; a second panic updates its message).
fn show(message: &str) {
    let Some(window) = web_sys::window() else { return };
    let Some(document) = window.document() else { return };
    let Some(body) = document.body() else { return };
    let text = format!(
        "shardcalc hit a bug and part of the page may have stopped responding ({}). \
         Your inputs are in the link below: reloading with it restores them.",
        message.chars().take(300).collect::<String>()
    );
    if let Some(existing) = document.get_element_by_id("panic-message") {
        existing.set_text_content(Some(&text));
        return;
    }
    let build = || -> Result<(), JsValue> {
        let banner = document.create_element("div")?;
        banner.set_id("panic-banner");
        banner.set_class_name("panic-banner");
        banner.set_attribute("role", "alert")?;
        let p = document.create_element("p")?;
        p.set_id("panic-message");
        p.set_text_content(Some(&text));
        banner.append_child(&p)?;
        let link = document.create_element("a")?;
        link.set_id("panic-reload");
        link.set_attribute("href", &reload_link(&window))?;
        link.set_text_content(Some("Reload with your inputs"));
        // A plain link would only change the fragment (no reload) on the same page.
        let reload = js_sys::Function::new_with_args(
            "event",
            "event.preventDefault(); location.replace(this.href); location.reload();",
        );
        link.add_event_listener_with_callback("click", &reload)?;
        banner.append_child(&link)?;
        let dismiss = document.create_element("button")?;
        dismiss.set_id("panic-dismiss");
        dismiss.set_attribute("type", "button")?;
        dismiss.set_text_content(Some("Dismiss"));
        let close = js_sys::Function::new_no_args("document.getElementById('panic-banner').remove();");
        dismiss.add_event_listener_with_callback("click", &close)?;
        banner.append_child(&dismiss)?;
        body.insert_before(&banner, body.first_child().as_ref())?;
        if let Some(link) = link.dyn_ref::<web_sys::HtmlElement>() {
            let _ = link.focus();
        }
        Ok(())
    };
    let _ = build();
}
