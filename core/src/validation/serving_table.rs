//! The serving validation: every published serving run predicted by the serving model,
//! ideal and calibrated, with its errors; the split of the runs into fitted and held-back
//! engine × chip groups; and the error statistics per group and per side. One evaluator,
//! [`serving_validation`], returns all of it (what the Validation page and
//! `shardcalc validate serving` show).

use super::fit::Split;
use super::serving::{predict, run_scenario, ServingPrediction};
use super::serving_runs::{self, LoadKind, ServingRun};
use super::stats::{median, nearest_rank};
use crate::efficiency::serving::ServingCalibration;
use crate::hardware::query::ChipSource;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

/// A prediction, or why the run is not modelled.
pub type Predicted = Result<ServingPrediction, String>;

/// One run in the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServingRow {
    /// Run id.
    pub id: String,
    /// Its source, in words.
    pub source: String,
    /// Publication date.
    pub date: String,
    /// Engine.
    pub engine: String,
    /// Catalog chip id.
    pub chip: String,
    /// Chips in the measured system.
    pub chips: f64,
    /// The model as the source names it.
    pub model: String,
    /// Engine × chip: the unit of the split.
    pub group: String,
    /// Side of the calibration split.
    pub split: Split,
    /// How the engine was loaded.
    pub load: LoadKind,
    /// What was measured (also for runs the model cannot predict).
    pub measured: Measured,
    /// The roofline's prediction.
    pub ideal: Predicted,
    /// The calibrated prediction.
    pub calibrated: Predicted,
    /// The run as a scenario on the catalog chip (ideal mode), for opening it on the
    /// Serving page; `None` when it is not modelled.
    pub scenario: Option<Scenario>,
}

/// What a run measured, in the units the predictions use.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Throughput per chip ([`ServingRun::throughput_per_chip`]), tokens/s.
    pub throughput_per_chip: Option<f64>,
    /// Time to first token, seconds.
    pub ttft_s: Option<f64>,
    /// Time per output token, seconds.
    pub tpot_s: Option<f64>,
}

/// The split, in words (what `serving-calibration.json` and the page state).
pub const SPLIT_RULE: &str = "runs are grouped by engine × chip (a group's runs are near-duplicates: same software on \
     the same hardware); the group with the most runs is fitted and every other group is held back, so no \
     held-back run shares both engine and chip with a fitted one";

/// The engine × chip groups, largest first (ties by name).
#[must_use]
pub fn groups(runs: &[ServingRun]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for r in runs {
        let g = r.group();
        match out.iter_mut().find(|(name, _)| *name == g) {
            Some((_, n)) => *n += 1,
            None => out.push((g, 1)),
        }
    }
    out.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// The groups the fit sees ([`SPLIT_RULE`]).
#[must_use]
pub fn fitted_groups(runs: &[ServingRun]) -> Vec<String> {
    groups(runs).into_iter().take(1).map(|(g, _)| g).collect()
}

/// The side of the split `run` is on.
#[must_use]
pub fn split_of(run: &ServingRun, fitted: &[String]) -> Split {
    if fitted.contains(&run.group()) {
        Split::Fit
    } else {
        Split::HeldBack
    }
}

/// The row of one run.
#[must_use]
pub fn serving_row(run: &ServingRun, fitted: &[String], calibration: &ServingCalibration) -> ServingRow {
    let calibrated = predict(run, calibration);
    // Opened on the Serving page at the batch the prediction used.
    let batch = calibrated.as_ref().ok().map(|p| p.batch).or(run.batch).map(|b| b.round() as u64);
    ServingRow {
        id: run.id.clone(),
        source: run.source.clone(),
        date: run.date.clone(),
        engine: run.engine.clone(),
        chip: run.chip.clone(),
        chips: run.chips(),
        model: run.model.clone(),
        group: run.group(),
        split: split_of(run, fitted),
        load: run.scenario,
        measured: Measured { throughput_per_chip: run.throughput_per_chip(), ttft_s: run.ttft_s, tpot_s: run.tpot_s },
        ideal: predict(run, &ServingCalibration::IDEAL),
        calibrated,
        scenario: run_scenario(run, ChipSource::Preset(run.chip.clone()), batch).ok(),
    }
}

/// Statistics of one metric's errors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricStats {
    /// Comparisons.
    pub count: usize,
    /// Median |error|, %.
    pub median_abs_pct: f64,
    /// 90th percentile |error| (nearest rank), %.
    pub p90_abs_pct: f64,
    /// Mean signed error, % (positive: predicted faster for a throughput, slower for a latency).
    pub mean_pct: f64,
}

impl MetricStats {
    /// The statistics of signed errors in %.
    #[must_use]
    pub fn of(errors: &[f64]) -> Self {
        let abs: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
        let n = errors.len();
        Self {
            count: n,
            median_abs_pct: median(&abs),
            p90_abs_pct: nearest_rank(&abs, 0.9),
            mean_pct: if n == 0 { 0.0 } else { errors.iter().sum::<f64>() / n as f64 },
        }
    }
}

/// Error statistics of a set of predictions, per measured quantity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorSummary {
    /// Runs with a prediction.
    pub modelled: usize,
    /// Throughput per chip.
    pub throughput: MetricStats,
    /// Time to first token.
    pub ttft: MetricStats,
    /// Time per output token.
    pub tpot: MetricStats,
}

impl ErrorSummary {
    /// The statistics of `predictions` (refused ones are not counted).
    #[must_use]
    pub fn of<'a>(predictions: impl Iterator<Item = &'a Predicted>) -> Self {
        let ok: Vec<&ServingPrediction> = predictions.filter_map(|p| p.as_ref().ok()).collect();
        let errors = |f: fn(&ServingPrediction) -> Option<f64>| {
            MetricStats::of(&ok.iter().filter_map(|p| f(p)).collect::<Vec<_>>())
        };
        Self {
            modelled: ok.len(),
            throughput: errors(|p| p.throughput.map(|c| c.error_pct)),
            ttft: errors(|p| p.ttft.map(|c| c.error_pct)),
            tpot: errors(|p| p.tpot.map(|c| c.error_pct)),
        }
    }
}

/// One engine × chip group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupSummary {
    /// `engine × chip`.
    pub group: String,
    /// Side of the split.
    pub split: Split,
    /// Runs in the group.
    pub runs: usize,
    /// The roofline's errors.
    pub ideal: ErrorSummary,
    /// The calibrated errors.
    pub calibrated: ErrorSummary,
}

/// One side of the split (or both), ideal and calibrated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SideSummary {
    /// The side, or `None` for every run.
    pub split: Option<Split>,
    /// Runs on it.
    pub runs: usize,
    /// The roofline's errors.
    pub ideal: ErrorSummary,
    /// The calibrated errors.
    pub calibrated: ErrorSummary,
}

/// Everything the serving validation shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServingValidation {
    /// The calibration the calibrated predictions use.
    pub calibration: ServingCalibration,
    /// How the runs are split.
    pub split_rule: String,
    /// The fitted groups.
    pub fitted_groups: Vec<String>,
    /// Every run.
    pub rows: Vec<ServingRow>,
    /// Per group, in order of size.
    pub groups: Vec<GroupSummary>,
    /// Held back, fitted, all.
    pub sides: Vec<SideSummary>,
}

impl ServingValidation {
    /// The summary of one side (`None`: every run).
    #[must_use]
    pub fn side(&self, split: Option<Split>) -> Option<&SideSummary> {
        self.sides.iter().find(|s| s.split == split)
    }
}

/// The serving validation under `calibration`: every run of `serving-runs.csv`.
#[must_use]
pub fn serving_validation(calibration: &ServingCalibration) -> ServingValidation {
    let runs = serving_runs::all();
    let fitted = fitted_groups(runs);
    let rows: Vec<ServingRow> = runs.iter().map(|r| serving_row(r, &fitted, calibration)).collect();
    let summary = |chosen: &[&ServingRow]| {
        (ErrorSummary::of(chosen.iter().map(|r| &r.ideal)), ErrorSummary::of(chosen.iter().map(|r| &r.calibrated)))
    };
    let groups = groups(runs)
        .into_iter()
        .map(|(g, n)| {
            let chosen: Vec<&ServingRow> = rows.iter().filter(|r| r.group == g).collect();
            let (ideal, calibrated) = summary(&chosen);
            let split = chosen.first().map_or(Split::HeldBack, |r| r.split);
            GroupSummary { group: g, split, runs: n, ideal, calibrated }
        })
        .collect();
    let sides = [Some(Split::HeldBack), Some(Split::Fit), None]
        .into_iter()
        .map(|split| {
            let chosen: Vec<&ServingRow> = rows.iter().filter(|r| split.is_none_or(|s| r.split == s)).collect();
            let (ideal, calibrated) = summary(&chosen);
            SideSummary { split, runs: chosen.len(), ideal, calibrated }
        })
        .collect();
    ServingValidation {
        calibration: *calibration,
        split_rule: SPLIT_RULE.to_string(),
        fitted_groups: fitted,
        rows,
        groups,
        sides,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A group is on one side of the split, whole; at least one group is held back.
    #[test]
    fn groups_are_never_split() {
        let v = serving_validation(&ServingCalibration::IDEAL);
        for g in &v.groups {
            assert!(v.rows.iter().filter(|r| r.group == g.group).all(|r| r.split == g.split), "{}", g.group);
        }
        assert_eq!(v.fitted_groups.len(), 1);
        assert!(v.groups.iter().any(|g| g.split == Split::HeldBack));
        assert_eq!(v.side(None).unwrap().runs, serving_runs::all().len());
        // Every modelled row opens as a scenario the serving evaluator accepts.
        for r in v.rows.iter().filter(|r| r.calibrated.is_ok()) {
            let s = r.scenario.as_ref().unwrap_or_else(|| panic!("{}: no scenario", r.id));
            let m = s.validate().unwrap();
            assert!(crate::scenario::inference_report(&m, s).unwrap().is_some(), "{}", r.id);
        }
    }

    #[test]
    fn metric_stats_by_hand() {
        let s = MetricStats::of(&[10.0, -30.0, 20.0]);
        assert_eq!((s.count, s.median_abs_pct, s.p90_abs_pct, s.mean_pct), (3, 20.0, 30.0, 0.0));
    }
}
