//! The page's form controls as data, written as HTML: text fields, options and message
//! blocks through [`crate::form_html`] (the markup the pickers and the other pages' forms
//! use), whose `show_message` and `value_of` this page's handler uses too.
//!
//! Why not one Leptos component per control: each distinct `view!` tree is its own code in
//! the wasm; this page has about sixty controls, and as HTML text with one delegated event
//! handler (`inputs.rs`) they cost a fraction (docs/size.md). Every text goes through
//! [`escape`]; ids are stable (README, tests).

use super::html::escape;
use crate::form_html::{error_div, option_html, text_html};
pub use crate::form_html::{show_message, value_of};

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
pub fn text(
    id: impl Into<String>,
    label: impl Into<String>,
    unit: &'static str,
    hint: impl Into<String>,
    value: impl Into<String>,
) -> Control {
    Control {
        id: id.into(),
        label: label.into(),
        kind: Kind::Text { unit, hint: hint.into(), mode: "decimal" },
        value: value.into(),
    }
}

/// A text input that takes words, not only numbers.
#[must_use]
pub fn words(
    id: impl Into<String>,
    label: impl Into<String>,
    hint: impl Into<String>,
    value: impl Into<String>,
) -> Control {
    Control {
        id: id.into(),
        label: label.into(),
        kind: Kind::Text { unit: "", hint: hint.into(), mode: "text" },
        value: value.into(),
    }
}

/// A drop-down.
#[must_use]
pub fn select(
    id: impl Into<String>,
    label: impl Into<String>,
    options: Vec<(String, String)>,
    value: impl Into<String>,
) -> Control {
    Control { id: id.into(), label: label.into(), kind: Kind::Select(options), value: value.into() }
}

/// A checkbox.
#[must_use]
pub fn check(id: impl Into<String>, label: impl Into<String>, checked: bool) -> Control {
    Control {
        id: id.into(),
        label: label.into(),
        kind: Kind::Check,
        value: if checked { "true".into() } else { String::new() },
    }
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

/// The controls as HTML.
#[must_use]
pub fn render(controls: &[Control]) -> String {
    let mut out = String::new();
    for c in controls {
        let (id, label) = (escape(&c.id), escape(&c.label));
        match &c.kind {
            Kind::Text { unit, hint, mode } => out += &text_html(&id, &c.label, unit, hint, mode, &c.value, false),
            Kind::Select(options) => {
                let options: String = options.iter().map(|(v, l)| option_html(v, l, *v == c.value)).collect();
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
            Kind::Button => {
                out += &format!(
                    "<div class=\"actions\"><button type=\"button\" id=\"{id}\">{label}</button></div>{}",
                    error_div(&id)
                )
            }
            Kind::Note => out += &format!("<p class=\"hint\">{label}</p>"),
            Kind::Heading => out += &format!("<p class=\"axis-title\" id=\"{id}\"><strong>{label}</strong></p>"),
        }
    }
    out
}
