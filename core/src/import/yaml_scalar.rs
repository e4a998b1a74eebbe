//! Scalars of the YAML subset in [`super::yaml`]: quoted strings, and plain scalars
//! resolved to null, booleans, integers (with `_` separators), floats or strings the way
//! YAML 1.1 loaders (PyYAML, which MaxText uses) resolve them.

use super::yaml::syntax;
use super::ImportError;
use serde_json::{Number, Value};

/// A quoted or plain scalar, resolved to null, bool, integer, float or string.
pub(super) fn scalar(text: &str, line: usize) -> Result<Value, ImportError> {
    if let Some(body) = text.strip_prefix('"') {
        return double_quoted(body, line).map(Value::String);
    }
    if let Some(body) = text.strip_prefix('\'') {
        let end = single_quote_end(body).ok_or_else(|| syntax(line, "unterminated '...' string"))?;
        if !body.get(end + 1..).unwrap_or_default().trim().is_empty() {
            return Err(syntax(line, "unexpected text after a quoted string"));
        }
        return Ok(Value::String(body.get(..end).unwrap_or_default().replace("''", "'")));
    }
    // An empty flow mapping (base.yml's `vllm_hf_overrides: {}`); others are refused below.
    if text == "{}" {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    if text.starts_with(['[', ']', '{', '}', ',', '&', '*', '!', '|', '>', '%', '@', '`']) {
        return Err(syntax(
            line,
            format!("unsupported YAML in `{text}` (anchors, aliases, tags, block scalars, mappings)"),
        ));
    }
    if text.starts_with("- ") || text.contains(": ") || text.ends_with(':') {
        return Err(syntax(line, format!("`{text}`: nested lists or mappings are not supported")));
    }
    Ok(plain(text))
}

fn double_quoted(body: &str, line: usize) -> Result<String, ImportError> {
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let rest: String = chars.collect();
                if !rest.trim().is_empty() {
                    return Err(syntax(line, "unexpected text after a quoted string"));
                }
                return Ok(out);
            }
            '\\' => match chars.next() {
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some('/') => out.push('/'),
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                _ => return Err(syntax(line, "unsupported escape in a \"...\" string")),
            },
            c => out.push(c),
        }
    }
    Err(syntax(line, "unterminated \"...\" string"))
}

/// Index of the closing `'` (a doubled `''` is an escaped quote).
fn single_quote_end(body: &str) -> Option<usize> {
    let bytes = body.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'\'' {
            if bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Resolve a plain scalar the way YAML 1.1 loaders do for the types MaxText uses.
fn plain(text: &str) -> Value {
    match text {
        "null" | "Null" | "NULL" | "~" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    let is_int =
        digits.starts_with(|c: char| c.is_ascii_digit()) && digits.chars().all(|c| c.is_ascii_digit() || c == '_');
    let cleaned: String = text.chars().filter(|&c| c != '_').collect();
    if is_int {
        if let Ok(u) = cleaned.parse::<u64>() {
            return Value::from(u);
        }
        if let Ok(i) = cleaned.parse::<i64>() {
            return Value::from(i);
        }
    }
    if is_int || looks_like_float(digits) {
        if let Some(n) = cleaned.parse::<f64>().ok().and_then(Number::from_f64) {
            return Value::Number(n);
        }
    }
    Value::String(text.to_owned())
}

/// `1.5`, `1.`, `.5`, `1e-05`, `1.0e+3`, with `_` separators.
fn looks_like_float(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(at) => (s.get(..at).unwrap_or_default(), s.get(at + 1..)),
        None => (s, None),
    };
    let mantissa_ok = mantissa.chars().any(|c| c.is_ascii_digit())
        && mantissa.chars().all(|c| c.is_ascii_digit() || c == '_' || c == '.')
        && mantissa.matches('.').count() <= 1
        && (mantissa.contains('.') || exponent.is_some());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && e.chars().all(|c| c.is_ascii_digit())
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> serde_json::Map<String, Value> {
        super::super::yaml::parse(text).unwrap()
    }

    #[test]
    fn numbers_that_do_not_fit() {
        let m = parse("big: 18446744073709551616\ninf: 1e999\nhex: 0x10\n");
        assert!(m["big"].is_f64());
        assert_eq!(m["inf"], json!("1e999"));
        assert_eq!(m["hex"], json!("0x10"));
        assert_eq!(parse("empty: {}\n")["empty"], json!({}));
    }

    #[test]
    fn plain_scalars() {
        assert_eq!(plain("~"), Value::Null);
        assert_eq!(plain("TRUE"), json!(true));
        assert_eq!(plain("+5"), json!(5));
        assert_eq!(plain("-0"), json!(0));
        assert_eq!(plain(".5"), json!(0.5));
        assert_eq!(plain("1.5.2"), json!("1.5.2"));
        assert_eq!(plain(".inf"), json!(".inf"));
        assert_eq!(plain("_1"), json!("_1"));
        assert_eq!(plain("yes"), json!("yes"));
    }
}
