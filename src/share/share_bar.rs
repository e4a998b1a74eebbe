//! "Save & share" in every page's header: save the scenario in this browser under a name,
//! download it as JSON, open a JSON file (or a file holding a link).

use leptos::prelude::*;
use leptos::task::spawn_local;
use shardcalc_core::scenario::MAX_SCENARIO_BYTES;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::HtmlInputElement;

use super::{document, storage};
use crate::delegated::register;
use crate::dom::input_by_id;
use crate::state::{use_app_state, AppState};

/// A message under the bar: what happened, or what went wrong.
#[derive(Clone, Debug, PartialEq)]
enum Message {
    Done(String),
    Failed(String),
}

/// The panel's markup: static, so written once; its buttons and file input are handled by
/// the page's delegated handler ([`crate::delegated`]).
const SHARE_HTML: &str = concat!(
    r#"<summary>Save &amp; share</summary><div class="share-body"><div class="share-row">"#,
    r#"<label for="save-name">Name</label><input type="text" id="save-name" maxlength="120"/>"#,
    r#"<button type="button" id="save-button">Save in this browser</button></div>"#,
    r#"<div class="share-row"><button type="button" id="download-json">Download JSON</button>"#,
    r#"<label for="open-json">Open a JSON file</label>"#,
    r#"<input type="file" id="open-json" accept=".json,application/json,text/plain"/></div></div>"#,
);

/// The "Save & share" panel: `#save-name` + `#save-button` save the current scenario in
/// browser storage (under the typed name, else the model's name, shown as the placeholder);
/// `#download-json` downloads it (`shardcalc-scenario.json`); `#open-json` (a file input)
/// loads a scenario file; `#share-message` says what happened. Written as HTML text and
/// handled by the page's one delegated handler ([`crate::delegated`]).
#[component]
pub fn ShareBar() -> impl IntoView {
    let state = use_app_state();
    let model_name = move || state.scenario.with(|s| s.model.resolve().map(|m| m.name).unwrap_or_default());
    // The placeholder follows the model (the typed name is never touched).
    Effect::new(move |shown: Option<String>| {
        let name = model_name();
        if shown.as_ref() != Some(&name) {
            if let Some(input) = input_by_id("save-name") {
                let _ = input.set_attribute("placeholder", &name);
            }
        }
        name
    });
    let ids = ["save-button", "download-json", "open-json"].map(String::from).to_vec();
    register(ids, move |el| match el.id().as_str() {
        "save-button" => {
            let typed = input_by_id("save-name").map(|i| i.value()).unwrap_or_default();
            let name = if typed.trim().is_empty() { untrack(model_name) } else { typed };
            let scenario = state.shown.get_untracked();
            show(match storage::save_new(&name, &scenario, state.sections()) {
                Ok(_) if untrack(|| state.is_stale()) => Message::Done(format!(
                    "Saved “{}” with the last valid inputs (the form has problems). The Saved page lists it.",
                    name.trim()
                )),
                Ok(_) => Message::Done(format!("Saved “{}” in this browser. The Saved page lists it.", name.trim())),
                Err(e) => Message::Failed(format!("Not saved: {e}.")),
            });
        }
        "download-json" => {
            if let Err(e) = state.shown.with_untracked(|s| document::download(s, state.sections())) {
                show(Message::Failed(format!("The download failed: {e}")));
            }
        }
        // A change (a click finds no file: the input is cleared after each one).
        "open-json" => {
            let Some(input) = el.dyn_ref::<HtmlInputElement>() else { return };
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            // Cleared so that choosing the same file again loads it again.
            input.set_value("");
            spawn_local(async move {
                let outcome = open_file(state, &file).await;
                show(outcome);
            });
        }
        _ => {}
    });
    view! { <details class="share" id="share" inner_html=SHARE_HTML></details> }
}

/// Shows `message` in `#share-message` (made, at the end of the panel, on the first message).
fn show(message: Message) {
    let (class, text) = match &message {
        Message::Done(text) => ("share-message ok", text),
        Message::Failed(text) => ("share-message field-error", text),
    };
    let document = leptos::prelude::document();
    let p = match document.get_element_by_id("share-message") {
        Some(p) => p,
        None => {
            // The panel's body: the parent of the row that holds the save button.
            let row = document.get_element_by_id("save-button").and_then(|b| b.parent_node());
            let Some(body) = row.and_then(|r| r.parent_node()) else { return };
            let Ok(p) = document.create_element("p") else { return };
            p.set_id("share-message");
            let _ = p.set_attribute("role", "status");
            let _ = body.append_child(&p);
            p
        }
    };
    p.set_class_name(class);
    p.set_text_content(Some(text));
}

/// Reads a chosen file and loads its scenario; the message says how it went.
async fn open_file(state: AppState, file: &web_sys::File) -> Message {
    let name = file.name();
    // A byte count, printed without core's float printing (see core::decimal).
    let size = shardcalc_core::decimal::shortest(file.size());
    if file.size() > MAX_SCENARIO_BYTES as f64 {
        return Message::Failed(format!(
            "{name} was not opened: it is {size} bytes; a scenario file is at most {MAX_SCENARIO_BYTES} bytes."
        ));
    }
    let text = match JsFuture::from(file.text()).await.ok().and_then(|t| t.as_string()) {
        Some(t) => t,
        None => return Message::Failed(format!("{name} could not be read as text.")),
    };
    let scenario = match document::read_text(&text) {
        Ok(s) => s,
        Err(e) => return Message::Failed(format!("{name} is not a shardcalc scenario: {e}")),
    };
    match document::load(state, scenario) {
        Ok(None) => Message::Done(format!("Opened {name}.")),
        Ok(Some(note)) => Message::Done(format!("Opened {name}; {note}")),
        Err(problems) => Message::Failed(format!("{name} was not opened (nothing changed): {problems}")),
    }
}
