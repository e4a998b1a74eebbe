//! Quantities as the hardware page shows them: sizes, rates and times with units.

use shardcalc_charts::collective_times::seconds_label;
use shardcalc_charts::format::{si, significant};

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
