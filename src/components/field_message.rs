//! The problems with one field, shown next to it.

use leptos::prelude::*;

use crate::field_spec::field_id;
use crate::state::{use_app_state, AppState};

/// The messages (`path: problem`) for exactly the field at `path`, recomputed only when the
/// draft's problems change.
#[must_use]
pub fn field_messages(state: AppState, path: &'static str) -> Memo<Vec<String>> {
    Memo::new(move |_| {
        state.errors.with(|errors| {
            errors
                .iter()
                .filter(|e| e.field == path)
                .map(ToString::to_string)
                .collect()
        })
    })
}

/// Alias for the memo [`field_messages`] returns.
pub type FieldMessages = Memo<Vec<String>>;

/// The problems with the field at `path`, each as `path: message`, in an element with id
/// `<field id>-error` (which the input's `aria-describedby` names). Empty when all is well.
#[component]
pub fn FieldMessage(
    /// Scenario path of the field, e.g. `model.attention.num_kv_heads`.
    path: &'static str,
    /// The messages, when the caller already has the memo; otherwise one is made.
    #[prop(optional)]
    messages: Option<FieldMessages>,
) -> impl IntoView {
    let messages = messages.unwrap_or_else(|| field_messages(use_app_state(), path));
    view! {
        <div class="field-error" id=format!("{}-error", field_id(path)) aria-live="polite">
            {move || {
                messages.get().into_iter().map(|m| view! { <p>{m}</p> }).collect_view()
            }}
        </div>
    }
}
