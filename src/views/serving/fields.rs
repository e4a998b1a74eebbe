//! The serving form's fields as data: an [`InferenceSpec`] names a field of the scenario's
//! `inference` section (its path is also its element id, dots as dashes), and says how its
//! text is shown and read into the section. [`super::form`] writes them as HTML; every edit
//! goes through [`apply_to_inference`], which reads the text into a copy of the section and
//! writes it with `AppState::try_update`, so a refused value keeps the text and shows why
//! next to the field while the results keep the last valid plan.

use leptos::prelude::*;
use shardcalc_core::inference::defaults::default_section;
use shardcalc_core::inference::InferenceSection;
use shardcalc_core::scenario::Scenario;

use crate::components::messages_under;
use crate::parse::{parse_count, parse_optional_count, parse_positive_real, parse_real, shortest};
use crate::state::AppState;

/// Reads a field's text into the section (the message has no field path).
pub type Setter = fn(&str, &mut InferenceSection) -> Result<(), String>;
/// Shows the section's value as the field's text.
pub type Getter = fn(&InferenceSection) -> String;

/// One field of `inference`.
#[derive(Clone, Copy)]
pub struct InferenceSpec {
    /// Scenario path, e.g. `inference.prompt_len`.
    pub path: &'static str,
    /// Element id: the path with dots as dashes (`inference-prompt_len`).
    pub id: &'static str,
    /// Label text.
    pub label: &'static str,
    /// Unit after the input ("" for none).
    pub unit: &'static str,
    /// One-line hint.
    pub hint: &'static str,
    /// `inputmode`.
    pub input_mode: &'static str,
    /// The text for a section.
    pub get: Getter,
    /// Reads text into a section.
    pub set: Setter,
}

/// The fields whose text the scenario refused, so the results can say they are for the last
/// valid inputs. Provided by the serving view; components capture it when created.
#[derive(Clone, Copy)]
pub struct Refused(RwSignal<Vec<String>>);

impl Refused {
    /// An empty set, provided as context.
    pub fn provide() -> Self {
        let r = Self(RwSignal::new(Vec::new()));
        provide_context(r);
        r
    }

    /// Records whether the field at `path` was refused, and passes `result` on.
    pub fn record(self, path: &str, result: Result<(), String>) -> Result<(), String> {
        let refused = result.is_err();
        let listed = self.0.with_untracked(|v| v.iter().any(|p| p == path));
        if refused && !listed {
            self.0.update(|v| v.push(path.to_string()));
        } else if !refused && listed {
            self.0.update(|v| v.retain(|p| p != path));
        }
        result
    }

    /// Whether any field is refused.
    #[must_use]
    pub fn any(self) -> bool {
        self.0.with(|v| !v.is_empty())
    }
}

/// The view's [`Refused`] (a detached one outside the serving view).
#[must_use]
pub fn use_refused() -> Refused {
    use_context::<Refused>().unwrap_or_else(|| Refused(RwSignal::new(Vec::new())))
}

/// `inference.prompt_len` → `inference-prompt_len`.
#[must_use]
pub fn element_id(path: &str) -> String {
    path.replace('.', "-")
}

/// The scenario's `inference` section (the defaults while there is none).
#[must_use]
pub fn current_section(state: AppState) -> InferenceSection {
    state.scenario.try_with_untracked(|s| s.inference.clone()).flatten().unwrap_or_else(default_section)
}

/// Reads `text` with `set` into a copy of the section and writes it to the scenario.
///
/// # Errors
/// `path: problem` when the text does not read, or the scenario's own messages for `path`
/// (all of them when none names it) when the new section does not validate.
pub fn apply_to_inference(state: AppState, path: &str, text: &str, set: Setter) -> Result<(), String> {
    let mut section = current_section(state);
    set(text, &mut section).map_err(|m| format!("{path}: {m}"))?;
    state.try_update(|s| s.inference = Some(section)).map_err(|e| messages_under(&e, path))
}

/// A drop-down of `inference`.
#[derive(Clone, Copy)]
pub struct ChoiceSpec {
    /// Scenario path (element id with dots as dashes).
    pub path: &'static str,
    /// Label text.
    pub label: &'static str,
    /// One-line hint.
    pub hint: &'static str,
    /// `(value, label)` of every option.
    pub options: &'static [(&'static str, &'static str)],
    /// The current value for a section.
    pub get: Getter,
    /// Reads a value into a section.
    pub set: Setter,
}

/// One input of a [`Group`].
pub enum Field {
    /// A text field.
    Text(&'static InferenceSpec),
    /// A text field shown only while the scenario satisfies the predicate.
    TextIf(&'static InferenceSpec, fn(&Scenario) -> bool),
    /// A drop-down.
    Choice(&'static ChoiceSpec),
    /// A text field whose edit needs more than the section (the prefill slice, read on the
    /// scenario's chip): its `set` is not used, [`super::form`] applies it.
    Special(&'static InferenceSpec),
}

/// A fieldset of the form, as data: every group is written as HTML by [`super::form`].
pub struct Group {
    /// Legend.
    pub legend: &'static str,
    /// Class of the fieldset (`serving-<name>`).
    pub class: &'static str,
    /// The inputs, in order.
    pub fields: &'static [Field],
}

/// A whole number ≥ 1.
///
/// # Errors
/// Empty, not a number, fractional, negative or zero.
pub fn positive_count(text: &str) -> Result<u64, String> {
    match parse_count(text)? {
        0 => Err("must be at least 1".into()),
        n => Ok(n),
    }
}

/// A whole number ≥ 1, or empty for "not set".
///
/// # Errors
/// As [`positive_count`] for non-empty text.
pub fn optional_positive_count(text: &str) -> Result<Option<u64>, String> {
    match parse_optional_count(text)? {
        Some(0) => Err("must be at least 1 (leave it empty for none)".into()),
        n => Ok(n),
    }
}

/// A finite number > 0, or empty for "not set".
///
/// # Errors
/// As `parse_positive_real` for non-empty text.
pub fn optional_positive_real(text: &str) -> Result<Option<f64>, String> {
    if text.trim().is_empty() {
        Ok(None)
    } else {
        parse_positive_real(text).map(Some)
    }
}

/// A finite number ≥ 0.
///
/// # Errors
/// Empty, not a number, negative, not finite.
pub fn non_negative_real(text: &str) -> Result<f64, String> {
    let cleaned: String = text.trim().chars().filter(|c| *c != ',' && *c != '_').collect();
    match parse_real(&cleaned) {
        Ok(0.0) => Ok(0.0),
        _ => parse_positive_real(text).map_err(|m| m.replace("greater than 0", "at least 0")),
    }
}

/// A finite number ≥ 0, or empty for "not set".
///
/// # Errors
/// As [`non_negative_real`] for non-empty text.
pub fn optional_non_negative_real(text: &str) -> Result<Option<f64>, String> {
    if text.trim().is_empty() {
        Ok(None)
    } else {
        non_negative_real(text).map(Some)
    }
}

/// A number as the form shows it (shortest exact text; "" for none).
#[must_use]
pub fn real_text(x: Option<f64>) -> String {
    x.map(shortest).unwrap_or_default()
}

/// A count as the form shows it ("" for none).
#[must_use]
pub fn count_text(n: Option<u64>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

/// Axis names typed as `x, y` or `x y`; empty text is no axes.
#[must_use]
pub fn axis_list(text: &str) -> Vec<String> {
    text.split([',', ' ', ';']).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}
