//! Form fields written as HTML text (the markup and classes of `SectionField`), for forms
//! shown with `inner_html` and one delegated `input`/`change` handler reading the element id
//! of the field an event came from: the serving form (`views/serving/form.rs`), its
//! speculative inputs, and the shared chip and preset pickers (`components/hardware_picker.rs`,
//! `components/preset_picker.rs`).
//!
//! Why: every distinct `view!` tree is its own code in the wasm (docs/size.md, "Serving page,
//! session 13" and "Shared pickers, session 14"). Every text goes through
//! [`crate::html_text::escape`]. A field `id` has the element ids `id` (the input), `{id}-field`
//! (its wrapper, `invalid` while refused), `{id}-hint` and `{id}-error` (the message).

use leptos::prelude::document;
use wasm_bindgen::JsCast;
use web_sys::{Event, HtmlInputElement, HtmlSelectElement};

use crate::html_text::escape;

/// The empty message block of field `id` (`{id}-error`, read by screen readers when it changes).
#[must_use]
pub fn error_div(id: &str) -> String {
    format!(r#"<div class="field-error" id="{id}-error" aria-live="polite"></div>"#)
}

/// A text field: label, input with its unit, hint and message (the markup of `SectionField`).
#[must_use]
pub fn text_html(id: &str, label: &str, unit: &str, hint: &str, mode: &str, value: &str, hidden: bool) -> String {
    let hidden = if hidden { " hidden" } else { "" };
    format!(
        r#"<div class="field" id="{id}-field"{hidden}><label for="{id}">{}</label><div class="input-row"><input id="{id}" type="text" inputmode="{mode}" autocomplete="off" spellcheck="false" value="{}" aria-invalid="false" aria-describedby="{id}-hint {id}-error"/><span class="unit">{}</span></div><p class="hint" id="{id}-hint">{}</p>{}</div>"#,
        escape(label),
        escape(value),
        escape(unit),
        escape(hint),
        error_div(id)
    )
}

/// A drop-down of `(value, label)` options with `value` selected, its hint and message.
pub fn select_html<'a>(
    id: &str,
    label: &str,
    hint: &str,
    options: impl Iterator<Item = (&'a str, &'a str)>,
    value: &str,
) -> String {
    let options: String = options.map(|(v, l)| option_html(v, l, v == value)).collect();
    format!(
        r#"<div class="field" id="{id}-field"><label for="{id}">{}</label><select id="{id}" aria-describedby="{id}-hint {id}-error">{options}</select><p class="hint" id="{id}-hint">{}</p>{}</div>"#,
        escape(label),
        escape(hint),
        error_div(id)
    )
}

/// `<option value="value">label</option>`, with the `selected` attribute when `selected`.
#[must_use]
pub fn option_html(value: &str, label: &str, selected: bool) -> String {
    let selected = if selected { " selected" } else { "" };
    format!(r#"<option value="{}"{selected}>{}</option>"#, escape(value), escape(label))
}

/// The value of the `<input>` or `<select>` with element id `id` ("" when there is none).
#[must_use]
pub fn value_of(id: &str) -> String {
    let Some(el) = document().get_element_by_id(id) else { return String::new() };
    if let Some(input) = el.dyn_ref::<HtmlInputElement>() {
        input.value()
    } else if let Some(select) = el.dyn_ref::<HtmlSelectElement>() {
        select.value()
    } else {
        String::new()
    }
}

/// Shows `message` next to the field `id` (or clears it), and marks the field invalid.
pub fn show_message(id: &str, message: Option<&str>) {
    let document = document();
    if let Some(el) = document.get_element_by_id(&format!("{id}-error")) {
        el.set_inner_html(&message.map(|m| format!("<p>{}</p>", escape(m))).unwrap_or_default());
    }
    if let Some(field) = document.get_element_by_id(&format!("{id}-field")) {
        let _ = field.class_list().toggle_with_force("invalid", message.is_some());
    }
    if let Some(input) = document.get_element_by_id(id) {
        let _ = input.set_attribute("aria-invalid", if message.is_some() { "true" } else { "false" });
    }
}

/// The element id and value of the `<input>` (for `input` events) or `<select>` (for
/// `change` events) an event came from. (A drop-down's `input` event and a text input's
/// `change` on leaving it give `None`: each edit is handled once.)
pub fn target_of(ev: &Event) -> Option<(String, String)> {
    let target = ev.target()?;
    if ev.type_() == "input" {
        let input = target.dyn_ref::<HtmlInputElement>()?;
        Some((input.id(), input.value()))
    } else {
        let select = target.dyn_ref::<HtmlSelectElement>()?;
        Some((select.id(), select.value()))
    }
}
