//! Reading what people type into the form. Every function takes the raw text and returns
//! the value or a message (without the field path, which the caller prepends) saying what is
//! wrong with the text: empty, not a number, negative, fractional, too large, not finite.

use shardcalc_core::model::LayerKind;

/// Largest integer accepted anywhere: 2^53, above which f64 counts stop being exact.
pub const MAX_COUNT: u64 = 1 << 53;

/// Longest text accepted for a layer pattern.
pub const MAX_PATTERN_TEXT: usize = 4096;

/// A whole number ≥ 0. Accepts `4096`, ` 4,096 `, `4_096` and exact scientific forms
/// such as `8e3`; refuses everything else with a reason.
///
/// # Errors
/// A message naming the problem with `text`.
pub fn parse_count(text: &str) -> Result<u64, String> {
    let cleaned: String = text.trim().chars().filter(|c| *c != ',' && *c != '_').collect();
    if cleaned.is_empty() {
        return Err("is empty; enter a whole number".into());
    }
    if cleaned.bytes().all(|b| b.is_ascii_digit()) {
        return match cleaned.parse::<u64>() {
            Ok(n) if n <= MAX_COUNT => Ok(n),
            _ => Err(too_large()),
        };
    }
    let x = parse_real(&cleaned)?;
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

/// Like [`parse_count`], but empty text means "not set".
///
/// # Errors
/// As [`parse_count`] for non-empty text.
pub fn parse_optional_count(text: &str) -> Result<Option<u64>, String> {
    if text.trim().is_empty() {
        Ok(None)
    } else {
        parse_count(text).map(Some)
    }
}

/// A finite number greater than 0 (fractions allowed), e.g. a per-device batch of `0.5`.
///
/// # Errors
/// A message naming the problem with `text`.
pub fn parse_positive_real(text: &str) -> Result<f64, String> {
    let cleaned: String = text.trim().chars().filter(|c| *c != ',' && *c != '_').collect();
    if cleaned.is_empty() {
        return Err("is empty; enter a number greater than 0".into());
    }
    let x = parse_real(&cleaned)?;
    if x <= 0.0 {
        Err(format!("must be greater than 0 (got {})", text.trim()))
    } else {
        Ok(x)
    }
}

/// A finite number ≥ 0 (fractions allowed), e.g. a latency that may be zero.
///
/// # Errors
/// A message naming the problem with `text`.
pub fn parse_nonnegative_real(text: &str) -> Result<f64, String> {
    let cleaned: String = text.trim().chars().filter(|c| *c != ',' && *c != '_').collect();
    if cleaned.is_empty() {
        return Err("is empty; enter a number (0 or more)".into());
    }
    let x = parse_real(&cleaned)?;
    if x < 0.0 {
        Err(format!("must not be negative (got {})", text.trim()))
    } else {
        // -0 reads as 0.
        Ok(x.abs())
    }
}

/// A finite f64, with messages for the usual ways text is not one. Read with serde_json's
/// float reader (after [`json_number`]), which every page already ships for the link:
/// `str::parse::<f64>` would add core's decimal-to-float code and tables (about 5 KB gzip).
pub fn parse_real(cleaned: &str) -> Result<f64, String> {
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
    // serde_json reads the number exactly (its `float_roundtrip` feature, which scenarios need
    // anyway); `str::parse::<f64>` would link a second exact parser into the page, ~10 KB of
    // gzipped wasm with its table (docs/size.md).
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
        b'-' => ("-", &text[1..]),
        b'+' => ("", &text[1..]),
        _ => ("", text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
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
/// fraction (`4096`): `shardcalc_core::error::number_text`, which prints through serde_json's
/// float writer (every page already ships it) instead of core's float formatting.
#[must_use]
pub fn shortest(x: f64) -> String {
    shardcalc_core::error::number_text(x)
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

/// A layer pattern written as letters: `L` local, `G` global, case-insensitive; spaces,
/// commas and dashes are ignored. `LLLLLG` is Gemma 3's five local layers per global one.
///
/// # Errors
/// A message naming the first unexpected character, or saying the pattern is empty or too long.
pub fn parse_pattern(text: &str) -> Result<Vec<LayerKind>, String> {
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
pub fn format_pattern(pattern: &[LayerKind]) -> String {
    pattern
        .iter()
        .map(|k| match k {
            LayerKind::Local => 'L',
            LayerKind::Global => 'G',
        })
        .collect()
}

/// `n` when the pattern repeats n local layers then one global layer (`LLLLLG` → 5,
/// `G` → 0, `LGLG` → 1, since it repeats `LG`).
#[must_use]
pub fn locals_per_global(pattern: &[LayerKind]) -> Option<u64> {
    let unit = pattern.get(..minimal_period(pattern))?;
    let (last, rest) = unit.split_last()?;
    (*last == LayerKind::Global && rest.iter().all(|k| *k == LayerKind::Local)).then_some(rest.len() as u64)
}

/// Length of the shortest prefix whose repetition is the pattern (layer `i` has kind
/// `pattern[i % len]`, so repeating a pattern changes nothing).
#[must_use]
pub fn minimal_period(pattern: &[LayerKind]) -> usize {
    let n = pattern.len();
    (1..=n)
        .find(|&p| n.is_multiple_of(p) && pattern.iter().zip(pattern.iter().cycle().skip(p)).all(|(a, b)| a == b))
        .unwrap_or(n)
}
