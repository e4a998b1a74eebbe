//! The page's form controls as data, written as HTML (same markup and classes as
//! `SectionField`), plus the DOM helpers that show a control's message.
//!
//! Why not one Leptos component per control: each distinct `view!` tree is its own code in
//! the wasm; this page has about sixty controls, and as HTML text with one delegated event
//! handler (`inputs.rs`) they cost a fraction (docs/size.md). Every text goes through
//! [`escape`]; ids are stable (README, tests).

use wasm_bindgen::JsCast;

use super::html::escape;

/// What a control is.
pub enum Kind {
    /// A text input with its unit and hint.
    Text {
        /// Unit after the input.
        unit: &'static str,
        /// One line under the input.
        hint: String,
        /// `inputmode`: `decimal`, `numeric` or `text`.
        mode: &'static str,
    },
    /// A drop-down of `(value, label)`.
    Select(Vec<(String, String)>),
    /// A checkbox.
    Check,
    /// A button (`label` is its text).
    Button,
    /// A line of explanation (`label` is the text).
    Note,
    /// A sub-heading (`label` is the text).
    Heading,
}

/// One control: element id, label, kind and current value (text, selected value, or
/// `"true"` for a checked box).
pub struct Control {
    /// Element id.
    pub id: String,
    /// Label (or text).
    pub label: String,
    /// Kind.
    pub kind: Kind,
    /// Current value.
    pub value: String,
}

/// A text input.
#[must_use]
pub fn text(id: impl Into<String>, label: impl Into<String>, unit: &'static str, hint: impl Into<String>, value: impl Into<String>) -> Control {
    Control { id: id.into(), label: label.into(), kind: Kind::Text { unit, hint: hint.into(), mode: "decimal" }, value: value.into() }
}

/// A text input that takes words, not only numbers.
#[must_use]
pub fn words(id: impl Into<String>, label: impl Into<String>, hint: impl Into<String>, value: impl Into<String>) -> Control {
    Control { id: id.into(), label: label.into(), kind: Kind::Text { unit: "", hint: hint.into(), mode: "text" }, value: value.into() }
}

/// A drop-down.
#[must_use]
pub fn select(id: impl Into<String>, label: impl Into<String>, options: Vec<(String, String)>, value: impl Into<String>) -> Control {
    Control { id: id.into(), label: label.into(), kind: Kind::Select(options), value: value.into() }
}

/// A checkbox.
#[must_use]
pub fn check(id: impl Into<String>, label: impl Into<String>, checked: bool) -> Control {
    Control { id: id.into(), label: label.into(), kind: Kind::Check, value: if checked { "true".into() } else { String::new() } }
}

/// A button.
#[must_use]
pub fn button(id: impl Into<String>, label: impl Into<String>) -> Control {
    Control { id: id.into(), label: label.into(), kind: Kind::Button, value: String::new() }
}

/// A line of explanation.
#[must_use]
pub fn note(label: impl Into<String>) -> Control {
    Control { id: String::new(), label: label.into(), kind: Kind::Note, value: String::new() }
}

/// A sub-heading.
#[must_use]
pub fn heading(id: impl Into<String>, label: impl Into<String>) -> Control {
    Control { id: id.into(), label: label.into(), kind: Kind::Heading, value: String::new() }
}

fn error_div(id: &str) -> String {
    format!("<div class=\"field-error\" id=\"{id}-error\" aria-live=\"polite\"></div>")
}

/// The controls as HTML.
#[must_use]
pub fn render(controls: &[Control]) -> String {
    let mut out = String::new();
    for c in controls {
        let (id, label, value) = (escape(&c.id), escape(&c.label), escape(&c.value));
        match &c.kind {
            Kind::Text { unit, hint, mode } => {
                out += &format!(
                    "<div class=\"field\" id=\"{id}-field\"><label for=\"{id}\">{label}</label><div class=\"input-row\"><input id=\"{id}\" type=\"text\" inputmode=\"{mode}\" autocomplete=\"off\" spellcheck=\"false\" value=\"{value}\" aria-describedby=\"{id}-hint {id}-error\"/><span class=\"unit\">{}</span></div><p class=\"hint\" id=\"{id}-hint\">{}</p>{}</div>",
                    escape(unit),
                    escape(hint),
                    error_div(&id)
                );
            }
            Kind::Select(options) => {
                let options: String = options
                    .iter()
                    .map(|(v, l)| {
                        let selected = if *v == c.value { " selected" } else { "" };
                        format!("<option value=\"{}\"{selected}>{}</option>", escape(v), escape(l))
                    })
                    .collect();
                out += &format!(
                    "<div class=\"field\" id=\"{id}-field\"><label for=\"{id}\">{label}</label><select id=\"{id}\" aria-describedby=\"{id}-error\">{options}</select>{}</div>",
                    error_div(&id)
                );
            }
            Kind::Check => {
                let checked = if c.value.is_empty() { "" } else { " checked" };
                out += &format!(
                    "<div class=\"field check\" id=\"{id}-field\"><label for=\"{id}\"><input id=\"{id}\" type=\"checkbox\"{checked}/> {label}</label>{}</div>",
                    error_div(&id)
                );
            }
            Kind::Button => out += &format!("<div class=\"actions\"><button type=\"button\" id=\"{id}\">{label}</button></div>{}", error_div(&id)),
            Kind::Note => out += &format!("<p class=\"hint\">{label}</p>"),
            Kind::Heading => out += &format!("<p class=\"axis-title\" id=\"{id}\"><strong>{label}</strong></p>"),
        }
    }
    out
}

/// Shows `message` next to the control `id` (or clears it), and marks its field invalid.
pub fn show_message(id: &str, message: Option<&str>) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    if let Some(el) = document.get_element_by_id(&format!("{id}-error")) {
        el.set_inner_html(&message.map(|m| format!("<p>{}</p>", escape(m))).unwrap_or_default());
    }
    if let Some(field) = document.get_element_by_id(&format!("{id}-field")) {
        let base = field.class_name().replace(" invalid", "");
        field.set_class_name(&if message.is_some() { format!("{base} invalid") } else { base });
    }
    if let Some(input) = document.get_element_by_id(id) {
        let _ = input.set_attribute("aria-invalid", if message.is_some() { "true" } else { "false" });
    }
}

/// The current value of the `<input>` or `<select>` with this id ("" when there is none).
#[must_use]
pub fn value_of(id: &str) -> String {
    let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) else {
        return String::new();
    };
    if let Some(input) = el.dyn_ref::<web_sys::HtmlInputElement>() {
        input.value()
    } else if let Some(select) = el.dyn_ref::<web_sys::HtmlSelectElement>() {
        select.value()
    } else {
        String::new()
    }
}
