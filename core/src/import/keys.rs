//! Typed, strict reads of the keys of one configuration object, shared by both importers.
//!
//! Every read marks its key as used; [`Keys::warn_unknown`] then names every key that was
//! neither read nor on the caller's allow-list. Every error names the key as spelled in
//! the file (with a `text_config.` style prefix for nested objects).

use super::{ImportError, ImportWarning};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Largest integer accepted from a file: every count stays exact in an `f64`.
const MAX_INTEGER: u64 = 1 << 53;

/// Reads keys from one JSON/YAML object.
pub(crate) struct Keys<'a> {
    map: &'a Map<String, Value>,
    used: BTreeSet<&'a str>,
    prefix: String,
    /// [`crate::model::ModelConfig`] field path → key it was read from.
    pub origins: Vec<(&'static str, String)>,
}

impl<'a> Keys<'a> {
    /// A reader over `map`; `prefix` (e.g. `"text_config."`) is put in front of every key
    /// named in errors and warnings.
    pub fn new(map: &'a Map<String, Value>, prefix: &str) -> Self {
        Self { map, used: BTreeSet::new(), prefix: prefix.to_owned(), origins: Vec::new() }
    }

    /// The key as the user should see it.
    pub fn name(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// Whether `key` is present (even as `null`); does not mark it used.
    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// Mark `key` as read without interpreting it.
    pub fn touch(&mut self, key: &str) {
        if let Some((k, _)) = self.map.get_key_value(key) {
            self.used.insert(k.as_str());
        }
    }

    /// The value of `key`, `None` when absent or `null`; marks it used.
    pub fn value(&mut self, key: &str) -> Option<&'a Value> {
        let (k, v) = self.map.get_key_value(key)?;
        self.used.insert(k.as_str());
        if v.is_null() {
            None
        } else {
            Some(v)
        }
    }

    /// Record that the model field `field` came from `key`.
    pub fn origin(&mut self, field: &'static str, key: &str) {
        let name = self.name(key);
        self.origins.push((field, name));
    }

    /// A non-negative integer, or `None` when absent or `null`.
    pub fn u64(&mut self, key: &str) -> Result<Option<u64>, ImportError> {
        match self.value(key) {
            None => Ok(None),
            Some(v) => integer(v).map(Some).map_err(|m| ImportError::field(self.name(key), m)),
        }
    }

    /// A required non-negative integer.
    pub fn req_u64(&mut self, key: &str) -> Result<u64, ImportError> {
        self.u64(key)?.ok_or_else(|| self.missing(key))
    }

    /// A non-negative integer with a default for absent or `null`.
    pub fn u64_or(&mut self, key: &str, default: u64) -> Result<u64, ImportError> {
        Ok(self.u64(key)?.unwrap_or(default))
    }

    /// A boolean, or `None` when absent or `null`.
    pub fn bool(&mut self, key: &str) -> Result<Option<bool>, ImportError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => {
                Err(ImportError::field(self.name(key), format!("must be true or false (got {})", show(other))))
            }
        }
    }

    /// A string, or `None` when absent or `null`.
    pub fn str(&mut self, key: &str) -> Result<Option<&'a str>, ImportError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(ImportError::field(self.name(key), format!("must be a string (got {})", show(other)))),
        }
    }

    /// A list, or `None` when absent or `null`.
    pub fn array(&mut self, key: &str) -> Result<Option<&'a [Value]>, ImportError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::Array(items)) => Ok(Some(items.as_slice())),
            Some(other) => Err(ImportError::field(self.name(key), format!("must be a list (got {})", show(other)))),
        }
    }

    /// A list of non-negative integers, or `None` when absent or `null`.
    pub fn u64_list(&mut self, key: &str) -> Result<Option<Vec<u64>>, ImportError> {
        let Some(items) = self.array(key)? else {
            return Ok(None);
        };
        items
            .iter()
            .enumerate()
            .map(|(i, v)| integer(v).map_err(|m| ImportError::field(format!("{}[{i}]", self.name(key)), m)))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// A nested object, or `None` when absent or `null`.
    pub fn object(&mut self, key: &str) -> Result<Option<&'a Map<String, Value>>, ImportError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(other) => Err(ImportError::field(self.name(key), format!("must be an object (got {})", show(other)))),
        }
    }

    /// Every present key read so far.
    pub fn used(&self) -> impl Iterator<Item = &str> + '_ {
        self.used.iter().copied()
    }

    /// The error for a required key that is absent.
    pub fn missing(&self, key: &str) -> ImportError {
        ImportError::field(self.name(key), "is required but missing (or null)")
    }

    /// Warn about every key that was not read and is not in any of the `allowed` lists.
    pub fn warn_unknown(&self, allowed: &[&[&str]], warnings: &mut Vec<ImportWarning>) {
        for key in self.map.keys() {
            let known = self.used.contains(key.as_str()) || allowed.iter().any(|list| list.contains(&key.as_str()));
            if !known {
                warnings.push(ImportWarning::new(
                    self.name(key),
                    "unknown key, ignored; if it changes the architecture the counts are wrong",
                ));
            }
        }
    }
}

/// A non-negative integer no larger than 2^53, from a JSON number.
fn integer(v: &Value) -> Result<u64, String> {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                if u <= MAX_INTEGER {
                    return Ok(u);
                }
            } else if let Some(f) = n.as_f64() {
                // `4096.0` is accepted; a fraction, a negative or a huge number is not.
                if f.fract() == 0.0 && (0.0..=MAX_INTEGER as f64).contains(&f) {
                    return Ok(f as u64);
                }
            }
            Err(format!("must be a whole number from 0 to 2^53 (got {n})"))
        }
        other => Err(format!("must be a whole number (got {})", show(other))),
    }
}

/// A short rendering of a value for error messages.
pub(crate) fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string {:?}", truncate(s, 40)),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
        other => truncate(&other.to_string(), 40),
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(n).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::object as map;
    use serde_json::json;

    #[test]
    fn integers_are_strict() {
        let m = map(json!({
            "a": 4096, "b": 4096.0, "c": -1, "d": 1e300, "e": "4096", "f": 0.5, "g": null,
            "h": 18446744073709551615u64
        }));
        let mut k = Keys::new(&m, "text_config.");
        assert_eq!(k.u64("a").unwrap(), Some(4096));
        assert_eq!(k.u64("b").unwrap(), Some(4096));
        for bad in ["c", "d", "e", "f", "h"] {
            let e = k.u64(bad).unwrap_err();
            assert!(e.to_string().starts_with(&format!("text_config.{bad}:")), "{e}");
        }
        assert_eq!(k.u64("g").unwrap(), None);
        assert!(k.req_u64("g").unwrap_err().to_string().contains("required"));
    }

    #[test]
    fn unknown_keys_are_named_once() {
        let m = map(json!({"hidden_size": 1, "rope_theta": 1e4, "mystery": true}));
        let mut k = Keys::new(&m, "");
        k.u64("hidden_size").unwrap();
        let mut w = Vec::new();
        k.warn_unknown(&[&["rope_theta"]], &mut w);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].key, "mystery");
    }

    #[test]
    fn type_errors_name_the_key() {
        let m = map(json!({"t": "yes", "l": 3, "s": 1}));
        let mut k = Keys::new(&m, "");
        assert!(k.bool("t").unwrap_err().to_string().starts_with("t:"));
        assert!(k.array("l").unwrap_err().to_string().starts_with("l:"));
        assert!(k.str("s").unwrap_err().to_string().starts_with("s:"));
    }
}
