//! Problems the planner finds only when it combines fields (TP against the model's heads
//! and widths, a mesh against the chip count, the batch against the data-parallel
//! degree, a microbatch count against the batch): each message names the fields that
//! conflict and how to fix them (core writes it), and shows next to every field it
//! concerns and in a summary at the top of the results.

use leptos::prelude::*;
use leptos::wasm_bindgen::JsCast;
use shardcalc_core::error::FieldError;

use super::derived::{text_of, Derived, PlanMemo};
use crate::html_text::escape;

/// Where each planner path shows in the page: the element id of its input and a label.
/// A path matches its own entry or the longest entry it is under.
const FIELDS: &[(&str, &str, &str)] = &[
    ("model", "preset", "model"),
    ("hardware", "hw-chip", "chip"),
    ("hardware.topology", "hw-shape", "topology"),
    ("training", "training-global_batch", "batch and topology"),
    ("training.global_batch", "training-global_batch", "global batch"),
    ("training.seq_len", "training-seq_len", "sequence length"),
    ("training.token_budget", "training-token_budget", "token budget"),
    ("training.price_per_chip_hour_usd", "training-price_per_chip_hour_usd", "price per chip-hour"),
    ("training.dtypes", "training-dtypes-compute", "number formats"),
    ("training.remat", "training-remat", "remat policy"),
    ("training.search", "training-search-remat", "search options"),
    ("training.pipeline", "training-pipeline-schedule", "pipeline"),
    ("training.microbatches", "training-microbatches", "microbatches"),
    ("training.mesh", "training-explore", "explored mesh"),
    ("training.mesh.dp", "training-mesh-dp", "DP degree"),
    ("training.mesh.fsdp", "training-mesh-fsdp", "FSDP degree"),
    ("training.mesh.tp", "training-mesh-tp", "TP degree"),
    ("training.mesh.ep", "training-mesh-ep", "EP degree"),
    ("training.mesh.cp", "training-mesh-cp", "CP degree"),
    ("training.mesh.pp", "training-mesh-pp", "PP degree"),
];

/// The element id and label of the input a planner path belongs to.
#[must_use]
pub fn field_of(path: &str) -> (&'static str, &'static str) {
    FIELDS
        .iter()
        .filter(|(p, _, _)| path == *p || path.strip_prefix(p).is_some_and(|rest| rest.starts_with('.')))
        .max_by_key(|(p, _, _)| p.len())
        .map_or(("training-global_batch", "training"), |(_, id, label)| (*id, *label))
}

/// Every planning problem of the best and the explored plan, without repeats.
#[must_use]
pub fn plan_errors(best: PlanMemo, explored: PlanMemo) -> Vec<FieldError> {
    let mut out: Vec<FieldError> = Vec::new();
    for memo in [best, explored] {
        memo.with(|r| {
            if let Some(Err(e)) = r {
                for f in &e.0 {
                    if !out.contains(f) {
                        out.push(f.clone());
                    }
                }
            }
        });
    }
    out
}

/// The messages of `errors` for exactly the paths in `paths`, as `<p>` elements (escaped).
#[must_use]
pub fn messages_html(errors: &[FieldError], paths: &[&str]) -> String {
    errors
        .iter()
        .filter(|e| paths.contains(&e.field.as_str()))
        .map(|e| format!("<p>{}</p>", escape(&e.to_string())))
        .collect()
}

/// The summary's content as HTML text: nothing without problems, else `#training-conflicts`
/// with every problem, each after a button (`data-focus`: the element id of its field)
/// that focuses the field ([`on_summary_click`]).
fn summary_html(d: &Derived) -> String {
    d.conflicts.with(|errors| {
        if errors.is_empty() {
            return String::new();
        }
        let mut out = String::from(
            "<div class=\"error-summary\" id=\"training-conflicts\"><p>These inputs cannot be planned together; the results below are for the last plan that worked:</p><ul>",
        );
        for e in errors {
            let (id, label) = field_of(&e.field);
            out += &format!("<li><button type=\"button\" class=\"link\" data-focus=\"{id}\">{}</button>: {}</li>", escape(label), escape(&e.to_string()));
        }
        out + "</ul></div>"
    })
}

/// A click on a summary's button focuses the field it names, or the first control of the
/// group it names (a button, not a `#id` link: the fragment holds the scenario).
fn on_summary_click(ev: &leptos::ev::MouseEvent) {
    let id =
        ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).and_then(|e| e.get_attribute("data-focus"));
    let Some(el) = id.and_then(|id| crate::dom::element_by_id(&id)) else { return };
    // A group (the explored mesh's fieldset): its first control.
    let first = el
        .query_selector("input, select, button")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    let _ = first.unwrap_or(el).focus();
}

/// All planning problems, each linked to its field, above the results (in a live region
/// that stays, so a change of problems is announced).
#[component]
pub fn ConflictSummary(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    view! { <div role="status" aria-live="polite" inner_html=text_of(derived, summary_html) on:click=|ev| on_summary_click(&ev)></div> }
}
