//! One line under a headline number: its uncertainty band (issue 8,
//! `shardcalc_core::validation::bands`). The training and serving views' headline cards
//! show it as `#<card id>-band`.

use shardcalc_core::validation::bands::Band;
use shardcalc_core::validation::PredictionMode;

/// The band in words, each number through `number` (the headline's own formatter, so
/// the calibrated value reads exactly as the headline does in calibrated mode):
/// `calibrated 1.23 s (1.10 s–1.41 s, p10–p90 of held-back runs); roofline 0.95 s;
/// dominant: matmul efficiency`. Without a residual spread (serving: no published serving
/// runs calibrate it) the range is the roofline-to-calibrated one and says so, or, when the
/// calibration does not move the number (HBM-bound), says that.
#[must_use]
pub fn band_text(b: &Band, mode: PredictionMode, number: fn(f64) -> String) -> String {
    let range = match b.spread {
        Some((lo, hi)) => format!("{}–{}, p10–p90 of held-back runs", number(lo), number(hi)),
        // HBM-bound: the calibration scales no HBM term, so the band has no width.
        None if b.high - b.low <= 1e-9 * b.high.abs() => "the calibration does not move it".to_string(),
        None => format!("{}–{}, roofline to calibrated; no published runs to widen it", number(b.low), number(b.high)),
    };
    let other = match mode {
        PredictionMode::Calibrated => format!("roofline {}", number(b.ideal)),
        PredictionMode::Ideal => format!("roofline {} shown", number(b.ideal)),
    };
    format!("calibrated {} ({range}); {other}; dominant: {}", number(b.calibrated), b.dominant.label())
}
