//! A note, not an error, where the sequence length and the local attention span meet: a
//! sliding window or chunk at least as long as the sequence makes local layers attend to the
//! whole sequence, so they cost what global layers cost. Valid (a short sequence on Gemma or
//! Mistral is a fair question), but worth saying at both fields, with what to change.

use leptos::prelude::*;
use shardcalc_charts::format::thousands;
use shardcalc_core::model::{LayerKind, LocalAttention};

use crate::state::{use_app_state, Draft};

/// The note for `d`, when its local layers span the whole sequence.
#[must_use]
pub fn span_note(d: &Draft) -> Option<String> {
    if !d.model.layout.pattern.contains(&LayerKind::Local) {
        return None;
    }
    let (what, span) = match d.model.layout.local? {
        LocalAttention::SlidingWindow { window } => ("sliding window", window),
        LocalAttention::Chunked { chunk } => ("chunk", chunk),
    };
    let seq = d.workload.seq_len;
    (seq > 0 && span >= seq).then(|| {
        format!(
            "Note: the {what} ({} tokens) is at least the sequence length ({} tokens), so local layers \
             attend to the whole sequence and cost what global layers cost. Lengthen the sequence or \
             shorten the {what} to see what local attention saves.",
            thousands(span),
            thousands(seq)
        )
    })
}

/// [`span_note`] under the field whose element id is `field`, as `#<field>-note` (a polite
/// status: it does not block the results).
#[component]
pub fn SpanNote(
    /// Element id of the field the note follows, e.g. `workload-seq_len`.
    field: &'static str,
) -> impl IntoView {
    let state = use_app_state();
    let note = Memo::new(move |_| state.draft.with(span_note));
    view! {
        <p class="field-note" id=format!("{field}-note") role="status">{note}</p>
    }
}
