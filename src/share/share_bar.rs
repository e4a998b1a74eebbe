//! "Save & share" in every page's header: save the scenario in this browser under a name,
//! download it as JSON, open a JSON file (or a file holding a link).

use leptos::prelude::*;
use leptos::task::spawn_local;
use shardcalc_core::scenario::MAX_SCENARIO_BYTES;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::HtmlInputElement;

use super::{document, storage};
use crate::state::{use_app_state, AppState};

/// A message under the bar: what happened, or what went wrong.
#[derive(Clone, Debug, PartialEq)]
enum Message {
    Done(String),
    Failed(String),
}

/// The "Save & share" panel: `#save-name` + `#save-button` save the current scenario in
/// browser storage (under the typed name, else the model's name, shown as the placeholder);
/// `#download-json` downloads it (`shardcalc-scenario.json`); `#open-json` (a file input)
/// loads a scenario file; `#share-message` says what happened.
#[component]
pub fn ShareBar() -> impl IntoView {
    let state = use_app_state();
    let name = NodeRef::<leptos::html::Input>::new();
    let message = RwSignal::new(None::<Message>);
    let model_name = move || state.scenario.with(|s| s.model.resolve().map(|m| m.name).unwrap_or_default());
    let save = move |_| {
        let typed = name.get_untracked().map(|i| i.value()).unwrap_or_default();
        let name = if typed.trim().is_empty() { untrack(model_name) } else { typed };
        let scenario = state.shown.get_untracked();
        message.set(Some(match storage::save_new(&name, &scenario, state.sections()) {
            Ok(_) if untrack(|| state.is_stale()) => Message::Done(format!(
                "Saved “{}” with the last valid inputs (the form has problems). The Saved page lists it.",
                name.trim()
            )),
            Ok(_) => Message::Done(format!("Saved “{}” in this browser. The Saved page lists it.", name.trim())),
            Err(e) => Message::Failed(format!("Not saved: {e}.")),
        }));
    };
    let download = move |_| {
        if let Err(e) = state.shown.with_untracked(|s| document::download(s, state.sections())) {
            message.set(Some(Message::Failed(format!("The download failed: {e}"))));
        }
    };
    let open = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        // Cleared so that choosing the same file again loads it again.
        input.set_value("");
        spawn_local(async move {
            let outcome = open_file(state, &file).await;
            message.try_set(Some(outcome));
        });
    };
    let shown = move || {
        message.get().map(|m| match m {
            Message::Done(text) => {
                view! { <p id="share-message" class="share-message ok" role="status">{text}</p> }.into_any()
            }
            Message::Failed(text) => {
                view! { <p id="share-message" class="share-message field-error" role="status">{text}</p> }.into_any()
            }
        })
    };
    view! {
        <details class="share" id="share">
            <summary>"Save & share"</summary>
            <div class="share-body">
                <div class="share-row">
                    <label for="save-name">"Name"</label>
                    <input type="text" id="save-name" maxlength="120" node_ref=name placeholder=model_name />
                    <button type="button" id="save-button" on:click=save>"Save in this browser"</button>
                </div>
                <div class="share-row">
                    <button type="button" id="download-json" on:click=download>"Download JSON"</button>
                    <label for="open-json">"Open a JSON file"</label>
                    <input type="file" id="open-json" accept=".json,application/json,text/plain" on:change=open />
                </div>
                {shown}
            </div>
        </details>
    }
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
