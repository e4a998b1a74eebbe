//! Problems the planner finds only when it combines fields (TP against the model's heads and
//! widths, a mesh against the chip count, the batch against the data-parallel degree, a
//! microbatch count against the batch): each names the fields that conflict (its field and
//! its related fields, as data) and how to fix them (core writes it). The fields show them
//! ([`crate::components::PlanProblems`]); this is the summary at the top of the results.

use leptos::prelude::*;
use shardcalc_core::error::FieldError;
use shardcalc_core::field::{hardware, training};

use super::derived::Derived;
use crate::components::element_id;

/// Where a problem of a path that is not one field's shows: a group's box or a section's
/// first field, with a label.
const GROUPS: [(&str, &str, &str); 7] = [
    ("model", "preset", "model"),
    ("hardware", "hw-chip", "chip"),
    ("training", "training-global_batch", "batch and topology"),
    ("training.mesh", "training-explore", "explored mesh"),
    ("training.search.remat", "training-search-remat", "policies searched"),
    ("training.search.zero_stages", "training-search-zero", "ZeRO stages searched"),
    ("training.search.schedules", "training-search-schedules", "schedules searched"),
];

/// The element id and label of the input a problem belongs to: its field's, else the group's
/// its path is (or is under).
#[must_use]
pub fn place_of(e: &FieldError) -> (String, String) {
    // This page's fields only (`field::find` would link every page's fields into this one).
    let fields = training::GROUPS.iter().flat_map(|g| g.iter()).chain(hardware::PICKER.iter());
    if let Some(f) = fields.into_iter().find(|f| f.path == e.field) {
        return (element_id(f.path), f.label.to_string());
    }
    GROUPS
        .iter()
        .filter(|(p, _, _)| e.field == *p || e.field.strip_prefix(p).is_some_and(|rest| rest.starts_with('.')))
        .max_by_key(|(p, _, _)| p.len())
        .map_or_else(
            || ("training-global_batch".into(), "training".into()),
            |(_, id, label)| ((*id).into(), (*label).into()),
        )
}

/// Moves the focus to the field `id`, or to the first control of the group `id`.
fn focus(id: &str) {
    use leptos::wasm_bindgen::JsCast;
    let Some(el) = crate::dom::element_by_id(id) else { return };
    let first = el
        .query_selector("input, select, button")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    let _ = first.unwrap_or(el).focus();
}

/// All planning problems, each with a button focusing its field, above the results (in a
/// live region that stays, so a change of problems is announced): `#training-conflicts`.
#[component]
pub fn ConflictSummary(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let list = move || {
        derived.conflicts.with(|errors| {
            (!errors.is_empty()).then(|| {
                let items = errors
                    .iter()
                    .map(|e| {
                        let (id, label) = place_of(e);
                        let target = id.clone();
                        view! {
                            <li>
                                <button type="button" class="link" data-focus=id on:click=move |_| focus(&target)>{label}</button>
                                ": " {e.to_string()}
                            </li>
                        }
                    })
                    .collect_view();
                view! {
                    <div class="error-summary" id="training-conflicts">
                        <p>"These inputs cannot be planned together; the results below are for the last plan that worked:"</p>
                        <ul>{items}</ul>
                    </div>
                }
            })
        })
    };
    view! { <div role="status" aria-live="polite">{list}</div> }
}
