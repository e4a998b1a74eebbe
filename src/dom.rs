//! Small browser helpers that never panic: reading event targets, finding elements, and
//! downloading generated files (no network: Blob and data URLs only).

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, Event, HtmlAnchorElement, HtmlInputElement};

/// The value of the `<input>`, `<textarea>` or `<select>` an event came from ("" otherwise).
#[must_use]
pub fn event_value(ev: &Event) -> String {
    let Some(target) = ev.target() else {
        return String::new();
    };
    if let Some(input) = target.dyn_ref::<HtmlInputElement>() {
        input.value()
    } else if let Some(area) = target.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        area.value()
    } else if let Some(select) = target.dyn_ref::<web_sys::HtmlSelectElement>() {
        select.value()
    } else {
        String::new()
    }
}

/// Whether the checkbox an event came from is checked (false for anything else).
#[must_use]
pub fn event_checked(ev: &Event) -> bool {
    ev.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()).is_some_and(|i| i.checked())
}

/// Offers `text` as a file download named `filename` with MIME type `mime`.
///
/// # Errors
/// Whatever the browser reports (no window, Blob or object URL refused).
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let result = download_url(filename, &url);
    // The download starts asynchronously; release the blob once it surely has.
    leptos::prelude::set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(60),
    );
    result
}

/// Offers the resource at `url` (a `data:` or `blob:` URL) as a download named `filename`.
///
/// # Errors
/// Whatever the browser reports.
pub fn download_url(filename: &str, url: &str) -> Result<(), JsValue> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or_else(|| JsValue::from_str("no document"))?;
    let anchor: HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
    anchor.set_href(url);
    anchor.set_download(filename);
    anchor.click();
    Ok(())
}

/// Logs a browser error to the console (used where a failed download or draw should not
/// disturb the page).
pub fn log_error(context: &str, err: &JsValue) {
    leptos::logging::error!("shardcalc: {context}: {err:?}");
}

/// The element with this id, as an `HtmlElement`, if the page has one.
#[must_use]
pub fn element_by_id(id: &str) -> Option<web_sys::HtmlElement> {
    web_sys::window()?.document()?.get_element_by_id(id)?.dyn_into::<web_sys::HtmlElement>().ok()
}
