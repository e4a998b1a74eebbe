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
use crate::state::use_app_state;
use crate::worker_client::{self, Reply, Request};

/// What the last paste did.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Busy,
    Done(Vec<String>),
    Failed(Vec<String>),
}

/// A log against the plan.
#[derive(Clone, Debug, PartialEq)]
struct Comparison {
    terms: Table,
    breakdown: Table,
    notes: Vec<String>,
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
    }
}

/// The two paste boxes: a MaxText run in, a MaxText log against the plan.
#[component]
pub fn MaxTextPaste() -> impl IntoView {
    let state = use_app_state();
    let command = RwSignal::new(String::new());
    let log = RwSignal::new(String::new());
    let run = RwSignal::new(None::<Outcome>);
    let compared = RwSignal::new(None::<Result<Comparison, Outcome>>);
    let link = move || shardcalc_core::permalink::encode(&state.shown.get_untracked());

    let apply = move |_| {
        let text = command.get_untracked();
        if text.trim().is_empty() {
            run.set(Some(Outcome::Failed(vec![
                "Paste a MaxText command line (key=value ...) or a config first.".into()
            ])));
            return;
        }
        run.set(Some(Outcome::Busy));
        worker_client::call(Request::MaxText { text, link: link() }, move |reply| {
            if run.is_disposed() {
                return;
            }
            let outcome = match reply {
                Reply::Run { link, notes } => match shardcalc_core::permalink::decode(&link).map(|s| state.load(s)) {
                    Ok(Ok(())) => Outcome::Done(notes),
                    Ok(Err(e)) | Err(e) => Outcome::Failed(e.0.iter().map(ToString::to_string).collect()),
                },
                Reply::Failed(errors) => Outcome::Failed(errors),
                _ => Outcome::Failed(vec!["The worker answered something else; try again.".into()]),
            };
            run.try_set(Some(outcome));
        });
    };

    let compare = move |_| {
        let text = log.get_untracked();
        if text.trim().is_empty() {
            compared.set(Some(Err(Outcome::Failed(vec!["Paste lines of a MaxText log first.".into()]))));
            return;
        }
        compared.set(Some(Err(Outcome::Busy)));
        worker_client::call(Request::MaxTextLog { text, link: link() }, move |reply| {
            if compared.is_disposed() {
                return;
            }
            let result = match reply {
                Reply::Compared { terms, breakdown, notes } => {
                    match (Table::from_csv(&terms), Table::from_csv(&breakdown)) {
                        (Ok(terms), Ok(breakdown)) => Ok(Comparison { terms, breakdown, notes }),
                        (Err(e), _) | (_, Err(e)) => Err(Outcome::Failed(vec![e])),
                    }
                }
                Reply::Failed(errors) => Err(Outcome::Failed(errors)),
                _ => Err(Outcome::Failed(vec!["The worker answered something else; try again.".into()])),
            };
            compared.try_set(Some(result));
        });
    };

    let table = move |pick: fn(&Comparison) -> Table| {
        Signal::derive(move || {
            compared.with(|c| c.as_ref().and_then(|c| c.as_ref().ok()).map_or_else(|| Table::new(["-"]), pick))
        })
    };
    let comparison = move || {
        compared.get().map(|c| match c {
            Ok(c) => view! {
                <div class="maxtext-compared">
                    {lines("maxtext-compare-notes", "hint", c.notes)}
                    <DataTable id="maxtext-terms" table=table(|c| c.terms.clone()) caption="Measured against predicted" />
                    <DataTable id="maxtext-breakdown" table=table(|c| c.breakdown.clone()) caption="The predicted step, term by term, as a share of the measured step" />
                </div>
            }
            .into_any(),
            Err(o) => outcome_view("maxtext-compare-result", Some(o)),
        })
    };

    view! {
        <fieldset class="maxtext-paste">
            <legend>"MaxText"</legend>
            <label for="maxtext-command">"Paste a MaxText command line, launch script or config"</label>
            <textarea
                id="maxtext-command"
                rows="3"
                spellcheck="false"
                placeholder="python3 -m MaxText.train src/maxtext/configs/base.yml model_name=llama3-8b per_device_batch_size=4 ici_fsdp_parallelism=-1"
                on:input=move |ev| command.set(event_value(&ev))
            ></textarea>
            <p class="hint">"Runs on the chip and slice above unless it sets compile_topology; every key is listed: read, warned about, unknown or ignored."</p>
            <div class="actions">
                <button type="button" id="maxtext-apply" on:click=apply>"Use this run"</button>
            </div>
            <div aria-live="polite">{move || outcome_view("maxtext-result", run.get())}</div>
            <label for="maxtext-log">"Paste lines of its MaxText log"</label>
            <textarea
                id="maxtext-log"
                rows="3"
                spellcheck="false"
                placeholder="completed step: 5, seconds: 9.920, TFLOP/s/device: 328.000, Tokens/s/device: 1651.613, ..."
                on:input=move |ev| log.set(event_value(&ev))
            ></textarea>
            <div class="actions">
                <button type="button" id="maxtext-compare" on:click=compare>"Compare with the plan"</button>
            </div>
            <div aria-live="polite">{comparison}</div>
        </fieldset>
    }
}
