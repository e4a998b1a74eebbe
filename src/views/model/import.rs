//! Importing a Hugging Face `config.json` or a MaxText model YAML, pasted or uploaded, with
//! every warning shown and errors naming the key; a failed import leaves the model alone.
//!
//! The importers run in the background worker (`crate::worker_client`): they are ~34 KB of
//! gzipped wasm that a page showing its first result does not need (docs/size.md).

use leptos::html::Textarea;
use leptos::prelude::*;
use shardcalc_core::model::ModelConfig;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::dom::event_value;
use crate::state::use_app_state;
use crate::worker_client::{self, Reply, Request};

/// Largest config accepted (real ones are a few KB).
pub const MAX_CONFIG_BYTES: usize = 1 << 20;

/// The result of the last import.
enum Outcome {
    Importing,
    Imported { name: String, warnings: Vec<String> },
    Failed(Vec<String>),
}

/// `items` as a list.
fn list(class: &'static str, items: Vec<String>) -> impl IntoView {
    view! { <ul class=class>{items.into_iter().map(|i| view! { <li>{i}</li> }).collect_view()}</ul> }
}

/// What the last import did (`#import-result`'s content).
fn outcome_view(o: &Outcome) -> AnyView {
    match o {
        Outcome::Importing => view! { <p class="import-busy">"Importing…"</p> }.into_any(),
        Outcome::Imported { name, warnings } => view! {
            <div class="import-ok">
                <p>{format!("Imported “{name}” with {} warning(s).", warnings.len())}</p>
                {list("warnings", warnings.clone())}
            </div>
        }
        .into_any(),
        Outcome::Failed(errors) => view! {
            <div class="import-failed field-error" role="alert">
                <p>"Could not import; the current model is unchanged:"</p>
                {list("", errors.clone())}
            </div>
        }
        .into_any(),
    }
}

/// The paste box, the upload button and the import result.
#[component]
pub fn ImportConfig() -> impl IntoView {
    let state = use_app_state();
    let text = RwSignal::new(String::new());
    let outcome = RwSignal::new(None::<Outcome>);
    let area = NodeRef::<Textarea>::new();

    let import = move |source: String| {
        let result = if source.trim().is_empty() {
            Outcome::Failed(vec!["Nothing to import: paste a config.json or MaxText YAML, or upload one.".into()])
        } else if source.len() > MAX_CONFIG_BYTES {
            Outcome::Failed(vec![format!(
                "The config is {} bytes; the limit is {MAX_CONFIG_BYTES} bytes.",
                source.len()
            )])
        } else {
            // Before the call: a worker that cannot start answers at once.
            outcome.set(Some(Outcome::Importing));
            worker_client::call(Request::Import { text: source }, move |reply| {
                // The reply comes later: the form may be gone by then (tests unmount pages).
                if outcome.is_disposed() {
                    return;
                }
                let result = match reply {
                    Reply::Imported { model, warnings } => {
                        match shardcalc_core::json::from_str::<ModelConfig>(&model) {
                            Ok(model) => {
                                let name = model.name.clone();
                                state.load_model(model);
                                Outcome::Imported { name, warnings }
                            }
                            Err(e) => Outcome::Failed(vec![format!("The imported model could not be read: {e}")]),
                        }
                    }
                    Reply::Failed(errors) => Outcome::Failed(errors),
                    Reply::Svg(_) | Reply::Run { .. } | Reply::Compared { .. } | Reply::Searched { .. } => {
                        Outcome::Failed(vec!["The importer answered something else; try again.".into()])
                    }
                };
                outcome.try_set(Some(result));
            });
            return;
        };
        outcome.set(Some(result));
    };

    let on_file = move |ev: leptos::ev::Event| {
        let file = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .and_then(|input| input.files())
            .and_then(|files| files.get(0));
        let Some(file) = file else { return };
        if file.size() > MAX_CONFIG_BYTES as f64 {
            outcome.set(Some(Outcome::Failed(vec![format!(
                "{} is {} bytes; the limit is {MAX_CONFIG_BYTES} bytes.",
                file.name(),
                shardcalc_core::decimal::shortest(file.size())
            )])));
            return;
        }
        leptos::task::spawn_local(async move {
            match JsFuture::from(file.text()).await.ok().and_then(|v| v.as_string()) {
                Some(content) => {
                    if let Some(el) = area.get_untracked() {
                        el.set_value(&content);
                    }
                    text.set(content.clone());
                    import(content);
                }
                None => outcome.set(Some(Outcome::Failed(vec![format!("{} could not be read as text.", file.name())]))),
            }
        });
    };

    view! {
        <div class="import">
            <label for="import-text">"Import a Hugging Face config.json or a MaxText model YAML"</label>
            <textarea
                id="import-text"
                node_ref=area
                rows="4"
                spellcheck="false"
                placeholder="{\"model_type\": \"llama\", \"hidden_size\": 4096, ...}"
                on:input=move |ev| text.set(event_value(&ev))
            ></textarea>
            <div class="actions">
                <button type="button" id="import-button" on:click=move |_| import(text.get_untracked())>
                    "Import"
                </button>
                <label class="file" for="import-file">"or upload a file"</label>
                <input type="file" id="import-file" accept=".json,.yml,.yaml,application/json,text/yaml" on:change=on_file />
            </div>
            <div id="import-result" aria-live="polite">{move || outcome.with(|o| o.as_ref().map(outcome_view))}</div>
        </div>
    }
}
