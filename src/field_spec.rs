//! Describing a form field as data: its scenario path (the same dotted path core's
//! validation uses, e.g. `model.attention.num_kv_heads`), label, unit, hint, how its text is
//! read and where the value goes in the [`Draft`]. Views list specs; the field components
//! render them.

use crate::parse::{parse_count, parse_optional_count, parse_positive_real};
use crate::state::Draft;

/// Largest value of a count field unless the spec says otherwise.
pub const ANY_COUNT: NumberKind = NumberKind::Count { max: crate::parse::MAX_COUNT };

/// How a number field's text is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberKind {
    /// A whole number ≥ 0, at most `max`.
    Count {
        /// Largest accepted value (checked while reading, before core's validation).
        max: u64,
    },
    /// A whole number at most `max`, or empty for "not set".
    OptionalCount {
        /// Largest accepted value.
        max: u64,
    },
    /// A finite number > 0, fractions allowed.
    PositiveReal,
}

/// A value read from a number field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// A whole number.
    Count(u64),
    /// Empty text in an optional field.
    Unset,
    /// A real number.
    Real(f64),
}

impl NumberKind {
    /// Reads `text`.
    ///
    /// # Errors
    /// What is wrong with the text, without the field path.
    pub fn read(self, text: &str) -> Result<Number, String> {
        match self {
            NumberKind::Count { max } => at_most(parse_count(text)?, max).map(Number::Count),
            NumberKind::OptionalCount { max } => match parse_optional_count(text)? {
                Some(n) => at_most(n, max).map(Number::Count),
                None => Ok(Number::Unset),
            },
            NumberKind::PositiveReal => parse_positive_real(text).map(Number::Real),
        }
    }

    /// The `inputmode` attribute that brings up the right on-screen keyboard.
    #[must_use]
    pub fn input_mode(self) -> &'static str {
        match self {
            NumberKind::PositiveReal => "decimal",
            _ => "numeric",
        }
    }
}

fn at_most(n: u64, max: u64) -> Result<u64, String> {
    if n > max {
        Err(format!("must be at most {max} (got {n})"))
    } else {
        Ok(n)
    }
}

/// A number field.
#[derive(Clone, Copy, Debug)]
pub struct NumberSpec {
    /// Scenario path, e.g. `model.d_model`; also the element id with dots as dashes.
    pub path: &'static str,
    /// Label text.
    pub label: &'static str,
    /// Unit shown after the input ("" for none).
    pub unit: &'static str,
    /// One-line hint under the input.
    pub hint: &'static str,
    /// How the text is read.
    pub kind: NumberKind,
    /// The current value as text, when the field applies to the draft.
    pub get: fn(&Draft) -> Option<String>,
    /// Stores a value read from the text.
    pub set: fn(&mut Draft, Number),
}

/// A checkbox.
#[derive(Clone, Copy, Debug)]
pub struct CheckSpec {
    /// Scenario path.
    pub path: &'static str,
    /// Label text.
    pub label: &'static str,
    /// One-line hint.
    pub hint: &'static str,
    /// Current state.
    pub get: fn(&Draft) -> bool,
    /// Stores the new state.
    pub set: fn(&mut Draft, bool),
}

/// A drop-down list of fixed options.
#[derive(Clone, Copy, Debug)]
pub struct SelectSpec {
    /// Scenario path.
    pub path: &'static str,
    /// Label text.
    pub label: &'static str,
    /// One-line hint.
    pub hint: &'static str,
    /// `(value, label)` pairs.
    pub options: &'static [(&'static str, &'static str)],
    /// The selected value.
    pub get: fn(&Draft) -> &'static str,
    /// Applies a selected value (unknown values are ignored).
    pub set: fn(&mut Draft, &str),
}

/// The element id of the field at `path`: dots become dashes (`model-d_model`).
#[must_use]
pub fn field_id(path: &str) -> String {
    path.replace('.', "-")
}

/// A whole-number field stored at a plain place of the draft:
/// `count_spec!(D_MODEL, "model.d_model", [model.d_model], "label", "unit", "hint", ANY_COUNT);`
macro_rules! count_spec {
    ($name:ident, $path:literal, [$($place:tt)+], $label:literal, $unit:literal, $hint:literal, $kind:expr $(,)?) => {
        static $name: $crate::field_spec::NumberSpec = $crate::field_spec::NumberSpec {
            path: $path,
            label: $label,
            unit: $unit,
            hint: $hint,
            kind: $kind,
            get: |d| Some(d.$($place)+.to_string()),
            set: |d, n| {
                if let $crate::field_spec::Number::Count(n) = n {
                    d.$($place)+ = n;
                }
            },
        };
    };
}
pub(crate) use count_spec;
