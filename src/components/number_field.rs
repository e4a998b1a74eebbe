//! A number input driven by a [`NumberSpec`].

use leptos::prelude::*;

use super::field_message::{field_messages, FieldMessage};
use crate::dom::event_value;
use crate::field_spec::{field_id, NumberSpec};
use crate::state::{use_app_state, Draft};

/// A labelled text input for a number, with its unit, a one-line hint and its messages.
///
/// The input is uncontrolled (Leptos never writes its value back, which would move the caret
/// while typing): it starts from the draft's text for the field and every keystroke goes to
/// [`Draft::type_number`], which keeps the text even when it does not read as a number.
#[component]
pub fn NumberField(
    /// Which field, how to read it and where the value goes.
    spec: &'static NumberSpec,
    /// Runs inside the same draft update after the value was stored (e.g. to keep a linked
    /// field in step).
    #[prop(optional)]
    then: Option<fn(&mut Draft)>,
) -> impl IntoView {
    let state = use_app_state();
    let id = field_id(spec.path);
    let initial = state.draft.with_untracked(|d| d.text_of(spec.path, (spec.get)(d)));
    let messages = field_messages(state, spec.path);
    let invalid = move || messages.with(|m| !m.is_empty());
    let on_input = move |ev: leptos::ev::Event| {
        let text = event_value(&ev);
        state.edit(|d| {
            d.type_number(spec, &text);
            if let Some(then) = then {
                then(d);
            }
        });
    };
    view! {
        <div class="field" class:invalid=invalid>
            <label for=id.clone()>{spec.label}</label>
            <div class="input-row">
                <input
                    id=id.clone()
                    type="text"
                    inputmode=spec.kind.input_mode()
                    autocomplete="off"
                    spellcheck="false"
                    value=initial
                    aria-invalid=move || if invalid() { "true" } else { "false" }
                    aria-describedby=format!("{id}-hint {id}-error")
                    on:input=on_input
                />
                <span class="unit">{spec.unit}</span>
            </div>
            <p class="hint" id=format!("{id}-hint")>{spec.hint}</p>
            <FieldMessage path=spec.path messages=messages />
        </div>
    }
}
