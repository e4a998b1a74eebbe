//! Problems the planner finds only when it combines fields (TP against the model's heads
//! and widths, a mesh against the chip count, the batch against the data-parallel
//! degree, a microbatch count against the batch): each message names the fields that
//! conflict and how to fix them (core writes it), and shows next to every field it
//! concerns and in a summary at the top of the results.

use leptos::prelude::*;
use shardcalc_core::error::FieldError;

use super::derived::Derived;

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
pub fn plan_errors(d: &Derived) -> Vec<FieldError> {
    let mut out: Vec<FieldError> = Vec::new();
    for memo in [d.best, d.explored] {
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

/// The planner's messages for exactly the paths in `paths`, in `{id}-conflict`.
#[component]
pub fn ConflictMessage(
    /// Element id of the field (the message box is `{id}-conflict`).
    id: &'static str,
    /// Scenario paths whose planning problems belong to this field (exact matches).
    paths: &'static [&'static str],
) -> impl IntoView {
    let derived = use_context::<Derived>();
    let messages = Memo::new(move |_| {
        let Some(d) = derived else { return Vec::new() };
        plan_errors(&d).into_iter().filter(|e| paths.contains(&e.field.as_str())).map(|e| e.to_string()).collect::<Vec<_>>()
    });
    view! {
        <div
            class="field-error conflict"
            id=format!("{id}-conflict")
            aria-live="polite"
            inner_html=move || messages.with(|m| m.iter().map(|m| format!("<p>{}</p>", super::html::escape(m))).collect::<String>())
        ></div>
    }
}

/// All planning problems, each linked to its field, above the results.
#[component]
pub fn ConflictSummary(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let errors = Memo::new(move |_| plan_errors(&derived));
    view! {
        <Show when=move || errors.with(|e| !e.is_empty())>
            <div class="error-summary" id="training-conflicts" role="status" aria-live="polite">
                <p>"These inputs cannot be planned together; the results below are for the last plan that worked:"</p>
                <ul>
                    {move || {
                        errors
                            .get()
                            .into_iter()
                            .map(|e| {
                                let (id, label) = field_of(&e.field);
                                // A button, not a `#id` link: the fragment holds the scenario.
                                let focus = move |_| {
                                    if let Some(el) = crate::dom::element_by_id(id) {
                                        let _ = el.focus();
                                    }
                                };
                                view! {
                                    <li>
                                        <button type="button" class="link" on:click=focus>{label}</button>
                                        ": "
                                        {e.to_string()}
                                    </li>
                                }
                            })
                            .collect_view()
                    }}
                </ul>
            </div>
        </Show>
    }
}
