//! A text field of a section the model form does not own (hardware, training, inference):
//! its text lives here, and every keystroke goes to an `apply` callback that reads it and
//! writes the value into the scenario (usually through [`crate::state::AppState::try_update`]).

use leptos::prelude::*;

use crate::dom::event_value;

/// A labelled text input with its unit, a one-line hint and its message.
///
/// The input is uncontrolled (the caret never jumps) and keeps whatever was typed (`initial`
/// is set as the `value` property, not the attribute, so that a form rebuilt in place shows
/// the new value even after typing): when
/// `apply` refuses the text, its message shows next to the field, the scenario keeps its last
/// valid value, and the text stays for the user to fix. Element ids: `id` for the input,
/// `{id}-hint`, `{id}-error`.
#[component]
pub fn SectionField(
    /// Element id of the input, e.g. `training-global_batch`.
    #[prop(into)]
    id: String,
    /// Label text.
    label: &'static str,
    /// Unit shown after the input ("" for none).
    #[prop(optional)]
    unit: &'static str,
    /// One-line hint under the input.
    #[prop(optional)]
    hint: &'static str,
    /// Text the input starts with.
    #[prop(into)]
    initial: String,
    /// Reads the text and applies it; `Err(message)` is shown next to the field.
    apply: Callback<String, Result<(), String>>,
    /// `inputmode` (`decimal`, `numeric` or `text`).
    #[prop(default = "decimal")]
    input_mode: &'static str,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let on_input = move |ev: leptos::ev::Event| {
        let text = event_value(&ev);
        error.set(apply.run(text).err());
    };
    let invalid = move || error.with(Option::is_some);
    view! {
        <div class="field" class:invalid=invalid>
            <label for=id.clone()>{label}</label>
            <div class="input-row">
                <input
                    id=id.clone()
                    type="text"
                    inputmode=input_mode
                    autocomplete="off"
                    spellcheck="false"
                    prop:value=initial
                    aria-invalid=move || if invalid() { "true" } else { "false" }
                    aria-describedby=format!("{id}-hint {id}-error")
                    on:input=on_input
                />
                <span class="unit">{unit}</span>
            </div>
            <p class="hint" id=format!("{id}-hint")>{hint}</p>
            <div class="field-error" id=format!("{id}-error") aria-live="polite">
                {move || error.get().map(|m| view! { <p>{m}</p> })}
            </div>
        </div>
    }
}

/// The messages of `err` for fields under `prefix` (e.g. `hardware.topology`), joined for one
/// field message; every message when none is under it (a conflict elsewhere still shows).
#[must_use]
pub fn messages_under(err: &shardcalc_core::error::Invalid, prefix: &str) -> String {
    let under: Vec<String> = err.0.iter().filter(|e| e.field.starts_with(prefix)).map(ToString::to_string).collect();
    if under.is_empty() {
        err.0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    } else {
        under.join("; ")
    }
}
