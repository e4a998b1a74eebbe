//! Errors as values: every invalid input names the field it came from.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One problem with one input field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FieldError {
    /// Dotted path of the field, e.g. `attention.num_kv_heads` or `workload.seq_len`.
    pub field: String,
    /// What is wrong and, where possible, how to fix it.
    pub message: String,
    /// Other fields the problem involves (a conflict between two fields names the second
    /// here): a form shows the message at each of them. Paths as `field`'s.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<String>,
}

impl FieldError {
    /// A new error for `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self { field: field.into(), message: message.into(), related: Vec::new() }
    }

    /// The same error, also involving the fields at `paths`.
    #[must_use]
    pub fn related_to(mut self, paths: &[&str]) -> Self {
        self.related.extend(paths.iter().map(|p| (*p).to_string()));
        self
    }

    /// Whether the error concerns the field at `path`: it is the error's field or one of its
    /// related fields.
    #[must_use]
    pub fn concerns(&self, path: &str) -> bool {
        self.field == path || self.related.iter().any(|r| r == path)
    }

    /// The error with `prefix.` before its field and its related fields.
    #[must_use]
    pub fn prefixed(self, prefix: &str) -> Self {
        let under = |p: String| if p.is_empty() { prefix.to_string() } else { format!("{prefix}.{p}") };
        Self { field: under(self.field), message: self.message, related: self.related.into_iter().map(under).collect() }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// `x` as the shortest text that reads back to it, for messages: integers without a fraction
/// (`4096`), others through serde_json's float writer (`0.99`, `1e+300`), `NaN`, `inf`.
/// Used instead of `{}` on an f64 so that pages do not ship core's float printing twice (the
/// web pages already carry serde_json's for their links).
#[must_use]
pub fn number_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else if x.fract() == 0.0 && x.abs() < 9.0e15 {
        // Integral and below 2^53: the cast is exact.
        (x as i64).to_string()
    } else {
        serde_json::to_string(&x).unwrap_or_default()
    }
}

/// A non-empty list of field errors, returned by validation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Invalid(pub Vec<FieldError>);

impl Invalid {
    /// A single error.
    pub fn one(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self(vec![FieldError::new(field, message)])
    }

    /// The errors that concern `field` (exact match or a sub-field of it).
    #[must_use]
    pub fn for_field(&self, field: &str) -> Vec<&FieldError> {
        self.0
            .iter()
            .filter(|e| e.field == field || (e.field.starts_with(field) && e.field[field.len()..].starts_with('.')))
            .collect()
    }

    /// Prefix every field path with `prefix.` (used when a model sits inside a scenario),
    /// related fields' too.
    #[must_use]
    pub fn prefixed(self, prefix: &str) -> Self {
        Self(self.0.into_iter().map(|e| e.prefixed(prefix)).collect())
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Invalid {}

/// Collects field errors while validating; turns into `Result` at the end.
#[derive(Debug, Default)]
pub struct Checker {
    errors: Vec<FieldError>,
}

impl Checker {
    /// A checker with no errors yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Record an error.
    pub fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.errors.push(FieldError::new(field, message));
    }

    /// Record an error of `field` that also involves the fields at `related` (a conflict
    /// between them; the message says how to fix it).
    pub fn push_related(&mut self, field: &str, related: &[&str], message: impl Into<String>) {
        self.errors.push(FieldError::new(field, message).related_to(related));
    }

    /// Require `lo <= value <= hi` for an integer field.
    pub fn range(&mut self, field: &str, value: u64, lo: u64, hi: u64) {
        if value < lo {
            if lo == 1 {
                self.push(field, format!("must be at least 1 (got {value})"));
            } else {
                self.push(field, format!("must be at least {lo} (got {value})"));
            }
        } else if value > hi {
            self.push(field, format!("must be at most {hi} (got {value})"));
        }
    }

    /// Require a finite number in `[lo, hi]`.
    pub fn range_f64(&mut self, field: &str, value: f64, lo: f64, hi: f64) {
        // The texts only when there is an error: validation runs on every keystroke.
        let v = || number_text(value);
        if !value.is_finite() {
            self.push(field, format!("must be a finite number (got {})", v()));
        } else if value < lo {
            self.push(field, format!("must be at least {} (got {})", number_text(lo), v()));
        } else if value > hi {
            self.push(field, format!("must be at most {} (got {})", number_text(hi), v()));
        }
    }

    /// Record an error when `cond` is false.
    pub fn ensure(&mut self, cond: bool, field: &str, message: impl FnOnce() -> String) {
        if !cond {
            self.push(field, message());
        }
    }

    /// Record an error of `field` involving `related` too, when `cond` is false.
    pub fn ensure_related(&mut self, cond: bool, field: &str, related: &[&str], message: impl FnOnce() -> String) {
        if !cond {
            self.push_related(field, related, message());
        }
    }

    /// Merge errors from a nested validation, prefixing their paths.
    pub fn merge(&mut self, prefix: &str, result: Result<(), Invalid>) {
        if let Err(e) = result {
            self.errors.extend(e.prefixed(prefix).0);
        }
    }

    /// Record every error of `e` as it is (paths and related fields unchanged).
    pub fn extend(&mut self, e: Invalid) {
        self.errors.extend(e.0);
    }

    /// Whether any error was recorded so far.
    #[must_use]
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// `Ok(())` when nothing was recorded.
    ///
    /// # Errors
    /// Returns every recorded field error.
    pub fn finish(self) -> Result<(), Invalid> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(Invalid(self.errors))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_field_matches_sub_fields_only() {
        let e = Invalid(vec![FieldError::new("attention.num_kv_heads", "x"), FieldError::new("attention_layout", "y")]);
        assert_eq!(e.for_field("attention").len(), 1);
        assert_eq!(e.for_field("attention.num_kv_heads").len(), 1);
    }

    #[test]
    fn display_names_the_field() {
        assert_eq!(
            [number_text(4096.0), number_text(0.99), number_text(1e300), number_text(-0.5)],
            ["4096", "0.99", "1e+300", "-0.5"]
        );
        assert_eq!([number_text(f64::NAN), number_text(f64::NEG_INFINITY)], ["NaN", "-inf"]);
        let e = Invalid::one("d_model", "must be at least 1 (got 0)");
        assert_eq!(e.to_string(), "d_model: must be at least 1 (got 0)");
    }
}
