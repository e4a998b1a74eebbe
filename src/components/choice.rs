//! Checkboxes and drop-downs driven by specs.

use leptos::prelude::*;

use super::field_message::{field_messages, FieldMessage};
use crate::dom::{event_checked, event_value};
use crate::field_spec::{field_id, CheckSpec, SelectSpec};
use crate::state::use_app_state;

/// A labelled checkbox with a hint and its messages.
#[component]
pub fn CheckField(
    /// Which flag and where it goes.
    spec: &'static CheckSpec,
) -> impl IntoView {
    let state = use_app_state();
    let id = field_id(spec.path);
    let initial = state.draft.with_untracked(|d| (spec.get)(d));
    let messages = field_messages(state, spec.path);
    let on_change = move |ev: leptos::ev::Event| {
        let on = event_checked(&ev);
        state.edit(|d| (spec.set)(d, on));
    };
    view! {
        <div class="field check">
            <div class="input-row">
                <input
                    id=id.clone()
                    type="checkbox"
                    checked=initial
                    aria-describedby=format!("{id}-hint {id}-error")
                    on:change=on_change
                />
                <label for=id.clone()>{spec.label}</label>
            </div>
            <p class="hint" id=format!("{id}-hint")>{spec.hint}</p>
            <FieldMessage path=spec.path messages=messages />
        </div>
    }
}

/// A labelled drop-down with a hint and its messages.
#[component]
pub fn SelectField(
    /// Which choice, its options and where the value goes.
    spec: &'static SelectSpec,
) -> impl IntoView {
    let state = use_app_state();
    let id = field_id(spec.path);
    let initial = state.draft.with_untracked(|d| (spec.get)(d));
    let messages = field_messages(state, spec.path);
    let on_change = move |ev: leptos::ev::Event| {
        let value = event_value(&ev);
        state.edit(|d| (spec.set)(d, &value));
    };
    let options = spec
        .options
        .iter()
        .map(|&(value, label)| view! { <option value=value selected=value == initial>{label}</option> })
        .collect_view();
    view! {
        <div class="field">
            <label for=id.clone()>{spec.label}</label>
            <select id=id.clone() aria-describedby=format!("{id}-hint {id}-error") on:change=on_change>
                {options}
            </select>
            <p class="hint" id=format!("{id}-hint")>{spec.hint}</p>
            <FieldMessage path=spec.path messages=messages />
        </div>
    }
}
