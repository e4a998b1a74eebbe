//! Predicted against measured serving throughput per chip for every published serving run
//! that measured one (issue 17; `shardcalc_core::validation::serving_table`), log-log: one
//! series per side of the split (the fitted engine × chip group, the held-back ones), with
//! y = x (a perfect prediction) and ±15% around it (the goal for the held-back
//! median). A [`ScatterChart`], drawn as the training runs' scatter is.

use crate::scatter::{log_axis, Band, ScatterChart, ScatterSeries};
use crate::theme;
use shardcalc_core::validation::fit::Split;
use shardcalc_core::validation::serving_table::ServingValidation;
use shardcalc_core::validation::PredictionMode;

/// The goal: held-back median |throughput error|, as a fraction.
pub const GOAL: f64 = 0.15;

/// `(measured, predicted)` throughput per chip of the runs on `split`'s side, in `mode`.
#[must_use]
pub fn throughput_points(v: &ServingValidation, split: Split, mode: PredictionMode) -> Vec<(f64, f64)> {
    v.rows
        .iter()
        .filter(|r| r.split == split)
        .filter_map(|r| {
            let p = match mode {
                PredictionMode::Ideal => &r.ideal,
                PredictionMode::Calibrated => &r.calibrated,
            };
            let c = p.as_ref().ok()?.throughput?;
            Some((c.measured, c.predicted))
        })
        .collect()
}

/// The chart in `mode`: the fitted group filled, the held-back ones open.
#[must_use]
pub fn throughput_scatter(v: &ServingValidation, mode: PredictionMode) -> ScatterChart {
    let fitted_name = match v.fitted_groups.as_slice() {
        [one] => format!("fitted: {one}"),
        _ => "fitted groups".to_string(),
    };
    let side = |split, held: bool| throughput_points(v, split, mode).into_iter().map(move |(a, b)| (a, b, held));
    let series = vec![
        ScatterSeries { name: fitted_name, color: theme::BLUE, points: side(Split::Fit, false).collect() },
        ScatterSeries {
            name: "held back".into(),
            color: theme::VERMILLION,
            points: side(Split::HeldBack, true).collect(),
        },
    ];
    ScatterChart {
        title: format!("Serving throughput per chip, predicted vs measured — {}", mode.label()),
        mode,
        axis: log_axis(&series, "measured output tokens/s per chip (log scale)"),
        band: Band::Ratio(GOAL),
        series,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardcalc_core::validation::bundled_serving;

    #[test]
    fn every_measured_throughput_is_a_point_on_the_axes() {
        let v = bundled_serving::bundled();
        let c = throughput_scatter(v, PredictionMode::Calibrated);
        let measured = v.rows.iter().filter(|r| r.calibrated.as_ref().is_ok_and(|p| p.throughput.is_some())).count();
        assert_eq!(c.points(), measured);
        assert!(measured >= 20, "{measured}");
        let a = &c.axis;
        assert!(a.log && a.min > 0.0);
        for &(x, y, _) in c.series.iter().flat_map(|s| &s.points) {
            assert!(x >= a.min && x <= a.max && y >= a.min && y <= a.max, "({x}, {y}) outside {}..{}", a.min, a.max);
        }
        // The roofline is optimistic: most of its throughputs lie above y = x.
        let ideal = throughput_scatter(v, PredictionMode::Ideal);
        let points: Vec<_> = ideal.series.iter().flat_map(|s| s.points.clone()).collect();
        assert!(points.iter().filter(|p| p.1 > p.0).count() * 2 > points.len());
    }
}
