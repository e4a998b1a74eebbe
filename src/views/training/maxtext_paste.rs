//! MaxText on the training page (issue 19): paste a MaxText command line, launch script or
//! config and it becomes the scenario (its own mesh explored, the search beside it); paste
//! lines of a MaxText log and see them against the plan, term by term, with the predicted
//! step's terms as shares of the measured step.
//!
//! Core does the reading and the comparison (`shardcalc_core::maxtext`, the same functions as
//! `shardcalc maxtext` and `shardcalc.maxtext`), in the background worker
//! (`crate::worker_handler`), which carries MaxText's base.yml and model files: this
//! component only sends the text and renders the reply.

use leptos::prelude::*;
use shardcalc_charts::table::Table;

use crate::components::DataTable;
use crate::dom::event_value;
use crate::state::{use_app_state, AppState};
use crate::worker_client::{self, Reply, Request};

/// What the last paste did (one type for both boxes: each new signal type costs the page wasm).
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Busy,
    Done(Vec<String>),
    Failed(Vec<String>),
    /// A log against the plan: measured against predicted, the breakdown, notes.
    Compared(Box<Table>, Box<Table>, Vec<String>),
}

fn lines(id: &'static str, class: &'static str, items: Vec<String>) -> impl IntoView {
    view! { <ul id=id class=class>{items.into_iter().map(|i| view! { <li>{i}</li> }).collect_view()}</ul> }
}

fn outcome_view(id: &'static str, o: Option<Outcome>) -> AnyView {
    match o {
        None => ().into_any(),
        Some(Outcome::Busy) => view! { <p id=id class="import-busy">"Working…"</p> }.into_any(),
        Some(Outcome::Done(notes)) => {
            view! { <div id=id class="import-ok">{lines("", "warnings", notes)}</div> }.into_any()
        }
        Some(Outcome::Failed(errors)) => view! {
            <div id=id class="import-failed field-error" role="alert">
                <p>"Nothing changed:"</p>
                {lines("", "", errors)}
            </div>
        }
        .into_any(),
        Some(Outcome::Compared(terms, breakdown, notes)) => {
            view! {
            <div id=id class="maxtext-compared">
                {lines("maxtext-compare-notes", "hint", notes)}
                <DataTable id="maxtext-terms" table=*terms caption="Measured against predicted" />
                <DataTable id="maxtext-breakdown" table=*breakdown caption="The predicted step, term by term, as a share of the measured step" />
            </div>
            }
            .into_any()
        }
    }
}

/// Sends `text` (with the shown scenario's permalink) to the worker as `make` builds the
/// request, and puts what comes back into `out`: a run loads into the page, a comparison is
/// shown.
fn submit(
    state: AppState,
    text: String,
    empty: &'static str,
    out: RwSignal<Option<Outcome>>,
    make: fn(String, String) -> Request,
) {
    if text.trim().is_empty() {
        out.set(Some(Outcome::Failed(vec![empty.into()])));
        return;
    }
    out.set(Some(Outcome::Busy));
    // The page's own sections from their fields, the others as the text they came in
    // (docs/size.md: a page never links every section's code).
    let link = state.permalink(&state.shown.get_untracked());
    worker_client::call(make(text, link), move |reply| {
        if out.is_disposed() {
            return;
        }
        let outcome = match reply {
            // Read as a link is: the page's sections read and checked, the others kept as text.
            Reply::Run { link, mut notes } => {
                let loaded = shardcalc_core::permalink::parse_kept(&link).map_err(|e| e.to_string());
                match loaded.and_then(|s| crate::share::document::load(state, s)) {
                    Ok(problems) => {
                        notes.extend(problems.map(|p| format!("Loaded, but {p}")));
                        Outcome::Done(notes)
                    }
                    Err(e) => Outcome::Failed(vec![e]),
                }
            }
            Reply::Compared { terms, breakdown, notes } => Outcome::Compared(terms, breakdown, notes),
            Reply::Failed(errors) => Outcome::Failed(errors),
            _ => Outcome::Failed(vec!["The worker answered something else; try again.".into()]),
        };
        out.try_set(Some(outcome));
    });
}

/// One paste box: what it is for, its element ids and texts, and the request it sends.
struct PasteBox {
    /// The text area's id.
    area: &'static str,
    /// The text area's label.
    label: &'static str,
    /// An example in the empty text area.
    placeholder: &'static str,
    /// One line under it.
    hint: &'static str,
    /// The button's id.
    button_id: &'static str,
    /// What the button says.
    button: &'static str,
    /// The id of what the last paste did.
    result: &'static str,
    /// The message when the box is empty.
    empty: &'static str,
    /// The worker's request for the pasted text and the shown scenario's permalink.
    request: fn(String, String) -> Request,
}

/// A MaxText run in: it becomes the scenario.
const RUN: PasteBox = PasteBox {
    area: "maxtext-command",
    label: "Paste a MaxText command line, launch script or config",
    placeholder: "python3 -m MaxText.train src/maxtext/configs/base.yml model_name=llama3-8b per_device_batch_size=4 ici_fsdp_parallelism=-1",
    hint: "Runs on the chip and slice above unless it sets compile_topology; every key is listed: read, warned about, unknown or ignored.",
    button_id: "maxtext-apply",
    button: "Use this run",
    result: "maxtext-result",
    empty: "Paste a MaxText command line (key=value ...) or a config first.",
    request: |text, link| Request::MaxText { text, link },
};

/// A MaxText log in: its steps against the plan shown.
const LOG: PasteBox = PasteBox {
    area: "maxtext-log",
    label: "Paste lines of its MaxText log",
    placeholder: "completed step: 5, seconds: 9.920, TFLOP/s/device: 328.000, Tokens/s/device: 1651.613, ...",
    hint: "Measured against the plan shown above: seconds per step, TFLOP/s and tokens/s per device, MFU.",
    button_id: "maxtext-compare",
    button: "Compare with the plan",
    result: "maxtext-compare-result",
    empty: "Paste lines of a MaxText log first.",
    request: |text, link| Request::MaxTextLog { text, link },
};

/// A paste box's text area, button and outcome (one function for both boxes).
fn paste_box(state: AppState, b: &'static PasteBox) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let outcome = RwSignal::new(None::<Outcome>);
    let send = move |_| submit(state, text.get_untracked(), b.empty, outcome, b.request);
    view! {
        <label for=b.area>{b.label}</label>
        <textarea
            id=b.area
            rows="3"
            spellcheck="false"
            placeholder=b.placeholder
            on:input=move |ev| text.set(event_value(&ev))
        ></textarea>
        <p class="hint">{b.hint}</p>
        <div class="actions">
            <button type="button" id=b.button_id on:click=send>{b.button}</button>
        </div>
        <div aria-live="polite">{move || outcome_view(b.result, outcome.get())}</div>
    }
}

/// The two paste boxes: a MaxText run in, a MaxText log against the plan.
#[component]
pub fn MaxTextPaste() -> impl IntoView {
    let state = use_app_state();
    view! {
        <fieldset class="maxtext-paste">
            <legend>"MaxText"</legend>
            {paste_box(state, &RUN)}
            {paste_box(state, &LOG)}
        </fieldset>
    }
}
