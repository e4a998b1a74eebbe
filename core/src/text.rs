//! Reading what people type into a field, and writing values back as text. Every reader
//! takes the raw text and returns the value or a message (without the field path, which
//! [`crate::field::Field::apply`] adds) saying what is wrong: empty, not a number, negative,
//! fractional, too large, not finite.
//!
//! Numbers are read with serde_json's float reader, which the web pages already ship for
//! their links: `str::parse::<f64>` would link a second exact parser and its tables into every
//! page (about 5 KB gzip, docs/size.md).

use crate::model::LayerKind;

/// Largest integer accepted anywhere: 2^53, above which f64 counts stop being exact.
pub const MAX_COUNT: u64 = 1 << 53;

/// Longest text accepted for a layer pattern.
pub const MAX_PATTERN_TEXT: usize = 4096;

/// The text without thousands separators (`,` and `_`) and surrounding space.
fn cleaned(text: &str) -> String {
    text.trim().chars().filter(|c| *c != ',' && *c != '_').collect()
}

/// A whole number ≥ 0. Accepts `4096`, ` 4,096 `, `4_096` and exact scientific forms such as
/// `8e3`.
///
/// # Errors
/// A message naming the problem with `text`.
pub fn count(text: &str) -> Result<u64, String> {
    let cleaned = cleaned(text);
    if cleaned.is_empty() {
        return Err("is empty; enter a whole number".into());
    }
    if cleaned.bytes().all(|b| b.is_ascii_digit()) {
        return match cleaned.parse::<u64>() {
            Ok(n) if n <= MAX_COUNT => Ok(n),
            _ => Err(too_large()),
        };
    }
    let x = real(&cleaned)?;
    if x < 0.0 {
        Err(format!("must not be negative (got {})", text.trim()))
    } else if x.fract() != 0.0 {
        Err(format!("must be a whole number (got {})", text.trim()))
    } else if x > MAX_COUNT as f64 {
        Err(too_large())
    } else {
        // Non-negative, integral and at most 2^53: the conversion is exact.
        Ok(x as u64)
    }
}

/// Like [`count`], but empty text means "not set".
///
/// # Errors
/// As [`count`] for non-empty text.
pub fn optional_count(text: &str) -> Result<Option<u64>, String> {
    if text.trim().is_empty() {
        Ok(None)
    } else {
        count(text).map(Some)
    }
}

/// A finite number greater than 0 (fractions allowed), e.g. a per-device batch of `0.5`.
///
/// # Errors
/// A message naming the problem with `text`.
pub fn positive_real(text: &str) -> Result<f64, String> {
    let cleaned = cleaned(text);
    if cleaned.is_empty() {
        return Err("is empty; enter a number greater than 0".into());
    }
    let x = real(&cleaned)?;
    if x <= 0.0 {
        Err(format!("must be greater than 0 (got {})", text.trim()))
    } else {
        Ok(x)
    }
}

/// A finite number ≥ 0 (fractions allowed), e.g. a latency or a price that may be zero.
///
/// # Errors
/// A message naming the problem with `text`.
pub fn nonnegative_real(text: &str) -> Result<f64, String> {
    let cleaned = cleaned(text);
    if cleaned.is_empty() {
        return Err("is empty; enter a number (0 or more)".into());
    }
    let x = real(&cleaned)?;
    if x < 0.0 {
        Err(format!("must not be negative (got {})", text.trim()))
    } else {
        // -0 reads as 0.
        Ok(x.abs())
    }
}

/// Empty text: not set; otherwise as `read`.
///
/// # Errors
/// As `read` for non-empty text.
pub fn optional<T>(text: &str, read: fn(&str) -> Result<T, String>) -> Result<Option<T>, String> {
    if text.trim().is_empty() {
        Ok(None)
    } else {
        read(text).map(Some)
    }
}

/// A finite f64 from text without separators, with messages for the usual ways text is not
/// one.
///
/// # Errors
/// NaN, infinities, text that is not a decimal number, numbers beyond f64's range.
pub fn real(cleaned: &str) -> Result<f64, String> {
    let lower = cleaned.to_ascii_lowercase();
    if lower.contains("nan") {
        return Err("is not a number (NaN)".into());
    }
    if lower.contains("inf") {
        return Err("must be finite".into());
    }
    let Some(json) = as_json_number(cleaned) else {
        return Err(format!("is not a number ({:?})", shorten(cleaned)));
    };
    match serde_json::from_str::<f64>(&json) {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("is too large to be a number ({cleaned})")),
    }
}

/// `text` in JSON's number grammar, or `None` when it is not a decimal number at all: an
/// optional sign (`+` dropped), digits with an optional point (`.5` and `5.` gain their zero,
/// leading zeros go), an optional exponent (`e`/`E`, optional sign, digits).
fn as_json_number(text: &str) -> Option<String> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'-' => ("-", text.get(1..)?),
        b'+' => ("", text.get(1..)?),
        _ => ("", text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (rest.get(..i)?, Some(rest.get(i + 1..)?)),
        None => (rest, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() && frac.is_empty() || !digits(int) || !digits(frac) {
        return None;
    }
    let int = int.trim_start_matches('0');
    let mut out = format!("{sign}{}", if int.is_empty() { "0" } else { int });
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if let Some(e) = exponent {
        let unsigned = e.strip_prefix(['+', '-']).unwrap_or(e);
        if unsigned.is_empty() || !digits(unsigned) {
            return None;
        }
        out.push('e');
        out.push_str(e);
    }
    Some(out)
}

/// `x` as the shortest text that reads back to it (`0.4`, `1.2e-7`), integers without a
/// fraction (`4096`).
#[must_use]
pub fn shortest(x: f64) -> String {
    crate::error::number_text(x)
}

/// `1234567` → `1,234,567`.
#[must_use]
pub fn thousands(n: u64) -> String {
    group_digits(&n.to_string())
}

/// A comma every three digits from the right of a string of ASCII digits.
#[must_use]
pub fn group_digits(digits: &str) -> String {
    let len = digits.chars().count();
    let mut out = String::with_capacity(len + len / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (len - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// An optional number as a field shows it ("" for none).
#[must_use]
pub fn optional_text(x: Option<f64>) -> String {
    x.map(shortest).unwrap_or_default()
}

/// An optional count as a field shows it ("" for none).
#[must_use]
pub fn optional_count_text(n: Option<u64>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

fn too_large() -> String {
    format!("is too large (the limit is {MAX_COUNT})")
}

/// At most 24 characters of `text`, for quoting it in a message.
fn shorten(text: &str) -> String {
    let mut out: String = text.chars().take(24).collect();
    if text.chars().nth(24).is_some() {
        out.push('…');
    }
    out
}

/// Names typed as `x, y` or `x y`; empty text is none.
#[must_use]
pub fn name_list(text: &str) -> Vec<String> {
    text.split([',', ' ', ';']).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// A layer pattern written as letters: `L` local, `G` global, case-insensitive; spaces,
/// commas and dashes are ignored. `LLLLLG` is Gemma 3's five local layers per global one.
///
/// # Errors
/// The first unexpected character, or an empty or too long pattern.
pub fn pattern(text: &str) -> Result<Vec<LayerKind>, String> {
    if text.len() > MAX_PATTERN_TEXT {
        return Err(format!("is {} characters; the limit is {MAX_PATTERN_TEXT}", text.len()));
    }
    let mut out = Vec::new();
    for (i, c) in text.chars().enumerate() {
        match c {
            'L' | 'l' => out.push(LayerKind::Local),
            'G' | 'g' => out.push(LayerKind::Global),
            ' ' | ',' | '-' | '\t' => {}
            other => {
                return Err(format!("has {other:?} at position {}; use L (local) and G (global), e.g. LLLLLG", i + 1))
            }
        }
    }
    if out.is_empty() {
        Err("is empty; use G for all-global or e.g. LLLLLG".into())
    } else {
        Ok(out)
    }
}

/// The letters of a pattern: `[Local, Local, Global]` → `"LLG"`.
#[must_use]
pub fn pattern_text(pattern: &[LayerKind]) -> String {
    pattern
        .iter()
        .map(|k| match k {
            LayerKind::Local => 'L',
            LayerKind::Global => 'G',
        })
        .collect()
}

/// Byte suffixes accepted after a number, longest first (decimal and binary).
const BYTE_SUFFIXES: [(&str, f64); 10] = [
    ("kib", 1024.0),
    ("mib", 1_048_576.0),
    ("gib", 1_073_741_824.0),
    ("tib", 1_099_511_627_776.0),
    ("kb", 1e3),
    ("mb", 1e6),
    ("gb", 1e9),
    ("tb", 1e12),
    ("k", 1e3),
    ("b", 1.0),
];

/// An array size: `33554432`, `34MB`, `32 MiB`, `8.4e6 B`, `1.5 GB` (kB/MB/GB are powers of
/// ten, KiB/MiB/GiB of two).
///
/// # Errors
/// An unknown unit, text that is not a positive number, more than 1e30 bytes.
pub fn bytes(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    let (number, scale) = BYTE_SUFFIXES
        .iter()
        .find_map(|(suffix, scale)| lower.strip_suffix(suffix).map(|n| (n.trim_end().to_string(), *scale)))
        .unwrap_or((lower.clone(), 1.0));
    if number.ends_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(format!("unknown unit in {trimmed:?}; use B, kB, MB, GB, TB or KiB, MiB, GiB, TiB"));
    }
    let x = positive_real(&number)?;
    let bytes = x * scale;
    if bytes.is_finite() && bytes <= 1e30 {
        Ok(bytes)
    } else {
        Err("is too large (at most 1e30 bytes)".into())
    }
}

/// A number for an input, in a display unit: up to six decimals, no exponent between 1e-6
/// and 1e15, no grouping (`197`, `0.045`, `8960`); "" for a non-finite number.
#[must_use]
pub fn plain(x: f64) -> String {
    if !x.is_finite() {
        return String::new();
    }
    if x != 0.0 && (x.abs() >= 1e15 || x.abs() < 1e-6) {
        return crate::decimal::exponent(x);
    }
    let text = crate::decimal::fixed(x, 6);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.to_string()
    }
}

/// A number read by `read` in a display unit, times `scale` (its base unit): refused when
/// the product overflows, so that an input never stores an infinity (JSON would write it
/// as `null`, "absent").
///
/// # Errors
/// `read`'s message, or "is too large" with the limit in the display unit.
pub fn scaled(text: &str, scale: f64, read: fn(&str) -> Result<f64, String>) -> Result<f64, String> {
    let x = read(text)? * scale;
    if x.is_finite() {
        Ok(x)
    } else {
        Err(format!("is too large (the limit is {} in these units)", shortest(f64::MAX / scale)))
    }
}

/// An exact byte count for an input, with the largest suffix that divides it:
/// `33554432` → `32MiB`, `3.4e7` → `34MB`, `1000.5` → `1000.5` ([`bytes`] reads it back).
#[must_use]
pub fn bytes_text(b: f64) -> String {
    const UNITS: [(f64, &str); 6] = [
        (1_099_511_627_776.0, "TiB"),
        (1_073_741_824.0, "GiB"),
        (1_048_576.0, "MiB"),
        (1e12, "TB"),
        (1e9, "GB"),
        (1e6, "MB"),
    ];
    UNITS
        .iter()
        .find(|(scale, _)| b >= *scale && (b / scale).fract() == 0.0)
        .map_or_else(|| plain(b), |(scale, unit)| format!("{}{unit}", plain(b / scale)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_with_separators_and_exact_exponents() {
        assert_eq!(count(" 4,096 "), Ok(4096));
        assert_eq!(count("4_096"), Ok(4096));
        assert_eq!(count("8e3"), Ok(8000));
        for (text, says) in [
            ("", "is empty"),
            ("abc", "is not a number"),
            ("-3", "must not be negative"),
            ("2.5", "whole number"),
            ("1e400", "too large"),
            ("NaN", "NaN"),
            ("inf", "finite"),
            ("18446744073709551616", "too large"),
        ] {
            let e = count(text).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
        assert_eq!(optional_count("  "), Ok(None));
    }

    #[test]
    fn reals_read_as_rust_reads_them() {
        for text in ["0.5", ".5", "5.", "+3", "1e-7", "1.2E+3", "007.25"] {
            let want: f64 = text.parse().unwrap();
            assert_eq!(positive_real(text), Ok(want), "{text}");
        }
        assert!(positive_real("0").unwrap_err().contains("greater than 0"));
        assert_eq!(nonnegative_real("-0"), Ok(0.0));
        assert!(nonnegative_real("-1").unwrap_err().contains("negative"));
        assert_eq!(shortest(0.1 + 0.2), "0.30000000000000004");
    }

    #[test]
    fn patterns_and_bytes() {
        assert_eq!(pattern_text(&pattern("llllg").unwrap()), "LLLLG");
        assert!(pattern("LXG").unwrap_err().contains("position 2"));
        assert_eq!(bytes("32 MiB"), Ok(33_554_432.0));
        assert_eq!(bytes("34MB"), Ok(34e6));
        assert!(bytes("3 parsecs").unwrap_err().contains("unknown unit"));
        assert_eq!(name_list("x, y;z"), ["x", "y", "z"]);
        assert_eq!((thousands(1_234_567), thousands(999)), ("1,234,567".into(), "999".into()));
    }
}
