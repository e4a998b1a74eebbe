//! Summary statistics of prediction errors: median and 90th percentile of the absolute
//! MFU error (percentage points) and of the absolute step-time error (% of the measured
//! step), per chip generation and side of the split.

use serde::{Deserialize, Serialize};

/// One prediction's error.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PredictionError {
    /// Predicted MFU − measured MFU, in percentage points (today's MaxText convention).
    pub mfu_pts: f64,
    /// (Predicted − measured) step time, in % of the measured one.
    pub step_pct: f64,
}

/// Statistics of a set of errors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorStats {
    /// How many predictions.
    pub count: usize,
    /// Median |MFU error|, points.
    pub median_abs_mfu_pts: f64,
    /// 90th percentile |MFU error|, points.
    pub p90_abs_mfu_pts: f64,
    /// Median |step-time error|, %.
    pub median_abs_step_pct: f64,
    /// 90th percentile |step-time error|, %.
    pub p90_abs_step_pct: f64,
    /// Mean signed MFU error, points (positive: the prediction is optimistic).
    pub mean_mfu_pts: f64,
}

/// The median of `v` (the mean of the two middle values for an even count; 0 when empty).
#[must_use]
pub fn median(v: &[f64]) -> f64 {
    let s = sorted(v);
    let n = s.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => s.get(n / 2).copied().unwrap_or(0.0),
        _ => (s.get(n / 2 - 1).copied().unwrap_or(0.0) + s.get(n / 2).copied().unwrap_or(0.0)) / 2.0,
    }
}

/// The `q`-quantile of `v` by the nearest-rank method: the smallest value with at least
/// `q` of the values at or below it (0 when empty).
#[must_use]
pub fn nearest_rank(v: &[f64], q: f64) -> f64 {
    let s = sorted(v);
    let rank = (q * s.len() as f64).ceil().max(1.0) as usize;
    s.get(rank - 1).or(s.last()).copied().unwrap_or(0.0)
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    s.sort_unstable_by(f64::total_cmp);
    s
}

impl ErrorStats {
    /// The statistics of `errors`.
    #[must_use]
    pub fn of(errors: &[PredictionError]) -> Self {
        let mfu: Vec<f64> = errors.iter().map(|e| e.mfu_pts.abs()).collect();
        let step: Vec<f64> = errors.iter().map(|e| e.step_pct.abs()).collect();
        let n = errors.len();
        Self {
            count: n,
            median_abs_mfu_pts: median(&mfu),
            p90_abs_mfu_pts: nearest_rank(&mfu, 0.9),
            median_abs_step_pct: median(&step),
            p90_abs_step_pct: nearest_rank(&step, 0.9),
            mean_mfu_pts: if n == 0 { 0.0 } else { errors.iter().map(|e| e.mfu_pts).sum::<f64>() / n as f64 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_nearest_rank() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(nearest_rank(&ten, 0.9), 9.0);
        assert_eq!(nearest_rank(&ten, 1.0), 10.0);
        assert_eq!(nearest_rank(&[5.0], 0.9), 5.0);
        let e = [PredictionError { mfu_pts: -4.0, step_pct: 8.0 }, PredictionError { mfu_pts: 2.0, step_pct: -3.0 }];
        let s = ErrorStats::of(&e);
        assert_eq!(
            (s.count, s.median_abs_mfu_pts, s.p90_abs_mfu_pts, s.median_abs_step_pct, s.mean_mfu_pts),
            (2, 3.0, 4.0, 5.5, -1.0)
        );
    }
}
