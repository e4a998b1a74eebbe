//! Typed reads of a run's merged keys ([`super::config::Merged`]) that record which keys
//! were read and, for those the user gave, which scenario field each one set.

use super::config::Merged;
use crate::import::{ImportError, ImportWarning};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;

/// A key the user gave that was read, and what it set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KeyRead {
    /// The MaxText key.
    pub key: String,
    /// Its value, as MaxText reads it.
    pub value: String,
    /// The scenario fields (or the part of the model) it sets.
    pub sets: String,
}

/// A value as a person writes it: strings bare, everything else as YAML/JSON.
#[must_use]
pub fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Reads keys and keeps the record.
pub(super) struct Reader<'a> {
    pub merged: &'a Merged,
    pub used: BTreeSet<String>,
    pub read: Vec<KeyRead>,
    pub warnings: Vec<ImportWarning>,
}

impl<'a> Reader<'a> {
    pub fn new(merged: &'a Merged) -> Self {
        Self { merged, used: BTreeSet::new(), read: Vec::new(), warnings: Vec::new() }
    }

    /// The value of `key` (given, or base.yml's default when bundled); marks it read and,
    /// when given, records `sets` against it.
    pub fn value(&mut self, key: &str, sets: &str) -> Option<&'a Value> {
        self.used.insert(key.to_owned());
        let v = self.merged.values.get(key).filter(|v| !v.is_null())?;
        if self.merged.given(key) && !self.read.iter().any(|r| r.key == key) {
            self.read.push(KeyRead { key: key.to_owned(), value: show(v), sets: sets.to_owned() });
        }
        Some(v)
    }

    /// Whether the user gave `key`.
    pub fn given(&self, key: &str) -> bool {
        self.merged.given(key)
    }

    pub fn warn(&mut self, key: &str, message: impl Into<String>) {
        self.warnings.push(ImportWarning::new(key, message));
    }

    pub fn f64(&mut self, key: &str, default: f64, sets: &str) -> Result<f64, ImportError> {
        match self.value(key, sets) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .filter(|x| x.is_finite())
                .ok_or_else(|| ImportError::field(key, format!("must be a number (got {})", show(v)))),
        }
    }

    /// A whole number (`-1` allowed where MaxText uses it for "the rest" or "unset").
    pub fn int(&mut self, key: &str, default: i64, sets: &str) -> Result<i64, ImportError> {
        match self.value(key, sets) {
            None => Ok(default),
            Some(v) => v
                .as_i64()
                .or_else(|| v.as_f64().filter(|x| x.fract() == 0.0 && x.abs() < 9e15).map(|x| x as i64))
                .ok_or_else(|| ImportError::field(key, format!("must be a whole number (got {})", show(v)))),
        }
    }

    /// A positive whole number.
    pub fn count(&mut self, key: &str, default: u64, sets: &str) -> Result<u64, ImportError> {
        let n = self.int(key, i64::try_from(default).unwrap_or(i64::MAX), sets)?;
        u64::try_from(n)
            .ok()
            .filter(|n| (1..=1 << 30).contains(n))
            .ok_or_else(|| ImportError::field(key, format!("must be a whole number from 1 to 2^30 (got {n})")))
    }

    pub fn bool(&mut self, key: &str, default: bool, sets: &str) -> Result<bool, ImportError> {
        match self.value(key, sets) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            // OmegaConf reads `key=True` on a command line as a boolean; a quoted one is text.
            Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
            Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
            Some(v) => Err(ImportError::field(key, format!("must be true or false (got {})", show(v)))),
        }
    }

    pub fn string(&mut self, key: &str, default: &str, sets: &str) -> Result<String, ImportError> {
        match self.value(key, sets) {
            None => Ok(default.to_owned()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v @ (Value::Number(_) | Value::Bool(_))) => Ok(show(v)),
            Some(v) => Err(ImportError::field(key, format!("must be text (got {})", show(v)))),
        }
    }

    /// A list of strings (`mesh_axes`).
    pub fn strings(&mut self, key: &str, sets: &str) -> Result<Option<Vec<String>>, ImportError> {
        match self.value(key, sets) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map(Some)
                .ok_or_else(|| ImportError::field(key, "must be a list of names")),
            Some(v) => Err(ImportError::field(key, format!("must be a list (got {})", show(v)))),
        }
    }
}
