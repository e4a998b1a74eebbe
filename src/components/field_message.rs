//! The problems with one field, shown next to it.

use leptos::prelude::*;

use crate::field_spec::field_id;
use crate::state::{use_app_state, AppState};

/// The messages (`path: problem`) for the field at `path`: its own, and those of other fields
/// that name it (a cross-field conflict such as "model.attention.num_kv_heads: must divide
/// attention.num_heads ..." shows at both fields). Recomputed only when the problems change.
#[must_use]
pub fn field_messages(state: AppState, path: &'static str) -> Memo<Vec<String>> {
    Memo::new(move |_| {
        state.errors.with(|errors| {
            errors
                .iter()
                .filter(|e| e.field == path || names_field(&e.message, path))
                .map(ToString::to_string)
                .collect()
        })
    })
}

/// Whether `message` names the field at `path` (`model.attention.num_heads`), in full or
/// relative to its section (`attention.num_heads`, `num_layers`: as core's model messages
/// write them; a relative name must look like one, with a `.` or `_`, so that plain words such
/// as "name" never count), as a whole path: not as part of a longer one.
#[must_use]
pub fn names_field(message: &str, path: &str) -> bool {
    let relative = path.split_once('.').map_or(path, |(_, rest)| rest);
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let names: &[&str] = if relative.contains(['.', '_']) { &[path, relative] } else { &[path] };
    names.iter().any(|name| {
        message.match_indices(name).any(|(at, _)| {
            let before = message[..at].chars().next_back();
            let after = message[at + name.len()..].chars().next();
            !before.is_some_and(part) && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
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
