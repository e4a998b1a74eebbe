//! A free-text input (the model's name, the layer pattern).

use leptos::prelude::*;

use super::field_message::{field_messages, FieldMessage};
use crate::dom::event_value;
use crate::field_spec::field_id;
use crate::state::{use_app_state, Draft};

/// A labelled, uncontrolled text input whose every keystroke goes to `set`.
#[component]
pub fn TextField(
    /// Scenario path, e.g. `model.name`; the input's id is the path with dots as dashes.
    path: &'static str,
    /// Label text.
    label: &'static str,
    /// One-line hint.
    hint: &'static str,
    /// The current text.
    get: fn(&Draft) -> String,
    /// Stores typed text (recording any problem in `Draft::unreadable`).
    set: fn(&mut Draft, &str),
) -> impl IntoView {
    let state = use_app_state();
    let id = field_id(path);
    let initial = state.draft.with_untracked(|d| d.text_of(path, Some(get(d))));
    let messages = field_messages(state, path);
    let invalid = move || messages.with(|m| !m.is_empty());
    let on_input = move |ev: leptos::ev::Event| {
        let text = event_value(&ev);
        state.edit(|d| {
            d.text.insert(path.to_string(), text.clone());
            set(d, &text);
        });
    };
    view! {
        <div class="field" class:invalid=invalid>
            <label for=id.clone()>{label}</label>
            <input
                id=id.clone()
                type="text"
                autocomplete="off"
                spellcheck="false"
                value=initial
                aria-invalid=move || if invalid() { "true" } else { "false" }
                aria-describedby=format!("{id}-hint {id}-error")
                on:input=on_input
            />
            <p class="hint" id=format!("{id}-hint")>{hint}</p>
            <FieldMessage path=path messages=messages />
        </div>
    }
}
