//! A plotters coordinate whose tick marks are exactly the ones the chart data computed
//! (plotters' own key-point algorithms would pick different ones), linear or logarithmic.

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use std::ops::Range;

/// An f64 axis from `lo` to `hi` with fixed ticks.
#[derive(Clone, Debug, PartialEq)]
pub struct TickedAxis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    log: bool,
}

impl TickedAxis {
    /// A linear axis.
    #[must_use]
    pub fn linear(lo: f64, hi: f64, ticks: Vec<f64>) -> Self {
        Self { lo, hi, ticks, log: false }
    }

    /// A logarithmic axis; `lo` and `hi` must be positive (else values map to the start).
    #[must_use]
    pub fn log(lo: f64, hi: f64, ticks: Vec<f64>) -> Self {
        Self { lo, hi, ticks, log: true }
    }

    /// The tick values.
    #[must_use]
    pub fn ticks(&self) -> &[f64] {
        &self.ticks
    }

    /// Where `value` falls between the ends: 0 at `lo`, 1 at `hi` (outside for values
    /// beyond them); 0 for anything that does not map (NaN, non-positive on a log axis).
    #[must_use]
    pub fn fraction(&self, value: f64) -> f64 {
        let f = if self.log {
            (value.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (value - self.lo) / (self.hi - self.lo)
        };
        if f.is_finite() {
            f
        } else {
            0.0
        }
    }
}

/// Tick labels the chart does not format itself (every chart here gives its own formatter):
/// `decimal::shortest`, not plotters' default `format!("{:?}")`, which would link core's
/// float printer into the page (docs/size.md).
impl ValueFormatter<f64> for TickedAxis {
    fn format(value: &f64) -> String {
        shardcalc_core::decimal::shortest(*value)
    }
}

impl Ranged for TickedAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let (a, b) = (f64::from(limit.0), f64::from(limit.1));
        // `as i32` saturates, so far-off values clamp instead of wrapping.
        (a + (b - a) * self.fraction(*value)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // Bold points only: the light grid would be noise.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::coord::ranged1d::BoldPoints;

    #[test]
    fn linear_and_log_mapping() {
        let lin = TickedAxis::linear(0.0, 10.0, vec![0.0, 5.0, 10.0]);
        assert_eq!(lin.map(&5.0, (0, 100)), 50);
        assert_eq!(lin.key_points(BoldPoints(10)), vec![0.0, 5.0, 10.0]);
        assert!(lin.key_points(10usize).is_empty());
        let log = TickedAxis::log(1.0, 1000.0, vec![1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(log.map(&10.0, (0, 300)), 100);
        assert_eq!(log.map(&-1.0, (0, 300)), 0);
        assert_eq!(log.map(&f64::NAN, (10, 300)), 10);
        assert_eq!(log.map(&1e300, (0, 300)), 30_000);
    }
}
