//! Quantities as the hardware page shows them: rates and times with units, numbers written
//! back into inputs (reading them is `shardcalc_core::text`'s).

use shardcalc_charts::collective_times::seconds_label;
use shardcalc_charts::format::{si, significant};

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
