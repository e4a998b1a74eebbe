//! Quantities as the hardware page shows and reads them: bytes with a suffix (`34MB`,
//! `32 MiB`), rates and times with units, numbers written back into inputs.

use shardcalc_charts::collective_times::seconds_label;
use shardcalc_charts::format::{si, significant};

use crate::parse::parse_positive_real;

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

/// An array size: `33554432`, `34MB`, `32 MiB`, `8.4e6 B`, `1.5 GB` (kB/MB/GB are powers
/// of ten, KiB/MiB/GiB of two).
///
/// # Errors
/// A message saying what is wrong with the text.
pub fn parse_bytes(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    let (number, scale) = BYTE_SUFFIXES
        .iter()
        .find_map(|(suffix, scale)| lower.strip_suffix(suffix).map(|n| (n.trim_end().to_string(), *scale)))
        .unwrap_or((lower.clone(), 1.0));
    if number.ends_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(format!("unknown unit in {trimmed:?}; use B, kB, MB, GB, TB or KiB, MiB, GiB, TiB"));
    }
    let x = parse_positive_real(&number)?;
    let bytes = x * scale;
    if bytes.is_finite() && bytes <= 1e30 {
        Ok(bytes)
    } else {
        Err("is too large (at most 1e30 bytes)".into())
    }
}

/// A number for an input: up to six decimals, no exponent below 1e15, no grouping
/// (`197`, `0.045`, `8960`).
#[must_use]
pub fn plain(x: f64) -> String {
    if !x.is_finite() {
        return String::new();
    }
    if x != 0.0 && (x.abs() >= 1e15 || x.abs() < 1e-6) {
        return shardcalc_core::decimal::exponent(x);
    }
    // Not format!: core's float printing costs every page ~10 KB (core::decimal).
    let text = shardcalc_core::decimal::fixed(x, 6);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.to_string()
    }
}

/// `x` in SI form followed by `unit`: `33.6 MB`, `512 B`.
fn si_unit(x: f64, unit: &str) -> String {
    let text = si(x);
    if text.contains(' ') {
        format!("{text}{unit}")
    } else {
        format!("{text} {unit}")
    }
}

/// `3.36e7` → `33.6 MB`.
#[must_use]
pub fn bytes(b: f64) -> String {
    si_unit(b, "B")
}

/// `8.1e11` → `810 GB/s`.
#[must_use]
pub fn rate(b_per_s: f64) -> String {
    si_unit(b_per_s, "B/s")
}

/// `1.97e14` → `197 TFLOP/s`.
#[must_use]
pub fn flops_rate(f: f64) -> String {
    si_unit(f, "FLOP/s")
}

/// Seconds with a readable unit (`560 µs`).
#[must_use]
pub fn seconds(s: f64) -> String {
    seconds_label(s)
}

/// An intensity in FLOP per byte, four significant digits (`243.2`, `5,111`).
#[must_use]
pub fn intensity(x: f64) -> String {
    significant(x, 4)
}

/// An exact byte count for an input, with the largest suffix that divides it:
/// `33554432` → `32MiB`, `3.4e7` → `34MB`, `1000.5` → `1000.5`.
#[must_use]
pub fn bytes_input(b: f64) -> String {
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
