//! A note, not an error, where the sequence length and the local attention span meet
//! (`shardcalc_core::view::model::span_note`), shown under both fields.

use leptos::prelude::*;
use shardcalc_core::field::Field;
use shardcalc_core::view::model::span_note;

use crate::components::element_id;
use crate::state::use_app_state;

/// The note under `field` as `#<field's id>-note` (a polite status: it does not block the
/// results), while the field applies.
#[component]
pub fn SpanNote(
    /// The field the note follows (the sequence length, the window, the chunk).
    field: &'static Field,
) -> impl IntoView {
    let state = use_app_state();
    let note = Memo::new(move |_| {
        state.draft.with(|d| d.scenario.model.resolve().ok().and_then(|m| span_note(&m, d.scenario.workload.seq_len)))
    });
    let applies = Memo::new(move |_| state.draft.with(|d| field.applies_to(&d.scenario)));
    let id = format!("{}-note", element_id(field.path));
    view! {
        <Show when=move || applies.get()>
            <p class="field-note" id=id.clone() role="status">{note}</p>
        </Show>
    }
}
