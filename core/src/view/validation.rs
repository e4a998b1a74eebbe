//! What the validation page shows: how far the training planner and the serving model are
//! from published measurements, in the scenario's prediction mode (the only input the page
//! reads). Everything comes from bundled tables computed natively by the same code and kept
//! current by core's tests: the training runs, guide points and grouped splits
//! ([`crate::validation::bundled_table`]) and the serving validation
//! ([`crate::validation::bundled_serving`]), so the page plans nothing on load.
//! `shardcalc eval --view validation` prints [`evaluate`].
//!
//! Held back means predicted by a calibration fitted without the run: the headline is the
//! leave-one-chip-generation-out split (each run predicted by a fit that never saw its
//! chip); the roofline fits nothing, so every run is held back from it.

use serde::{Deserialize, Serialize};

use crate::scenario::Scenario;
use crate::validation::bundled_table::{self, BundledTable};
use crate::validation::serving_table::ServingValidation;
use crate::validation::splits::{summaries, SplitKind, SplitSummary};
use crate::validation::stats::{ErrorStats, PredictionError};
use crate::validation::table::{generations, RunRow};
use crate::validation::PredictionMode;

/// The split the headline states for the calibrated prediction.
pub const HEADLINE_SPLIT: SplitKind = SplitKind::LeaveChipOut;

/// Errors of one prediction mode on runs held back from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldBack {
    /// The prediction.
    pub mode: PredictionMode,
    /// Which predictions these are, in words.
    pub basis: String,
    /// Their statistics.
    pub stats: ErrorStats,
    /// Runs the planner refused (not in the statistics).
    pub refused: usize,
}

/// The errors on one chip generation (or every chip).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationErrors {
    /// Catalog chip id, or `None` for every chip.
    pub chip: Option<String>,
    /// Published runs on it.
    pub runs: usize,
    /// The roofline's errors.
    pub ideal: ErrorStats,
    /// The bundled calibration's errors (fitted on every run: in sample).
    pub calibrated: ErrorStats,
    /// The errors of the calibration fitted without this chip generation (the
    /// leave-one-chip-generation-out split; every fold's for all chips).
    pub held_back: ErrorStats,
}

/// Everything the validation page shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationEval {
    /// The prediction shown.
    pub mode: PredictionMode,
    /// Held-back errors of the prediction shown (the headline cards).
    pub held_back: HeldBack,
    /// Held-back errors of the other prediction, for comparison.
    pub held_back_other: HeldBack,
    /// The grouped validation splits (interleaved groups, leave one chip generation out,
    /// leave one model family out): each refits the calibration without what it holds
    /// back; their held-back errors per fold and over all folds, against issue 16's goal.
    pub splits: Vec<SplitSummary>,
    /// Per chip generation, then every chip: the roofline, the calibration in sample, and
    /// held back.
    pub by_generation: Vec<GenerationErrors>,
    /// Published runs in the table.
    pub runs: usize,
    /// Design points of the guides in the table.
    pub guide_points: usize,
    /// The Ironwood guide's case studies, each change planned before and after with the
    /// calibrated model, beside the step-time change the guide measured.
    #[serde(default)]
    pub case_studies: Vec<crate::validation::case_studies::CaseStudyRow>,
    /// The serving model against published serving measurements (issue 17).
    pub serving: ServingValidation,
}

/// The other prediction mode.
#[must_use]
pub fn other(mode: PredictionMode) -> PredictionMode {
    match mode {
        PredictionMode::Ideal => PredictionMode::Calibrated,
        PredictionMode::Calibrated => PredictionMode::Ideal,
    }
}

/// The statistics of `rows`' predictions in `mode`, and how many were refused.
fn stats_of<'a>(predictions: impl Iterator<Item = &'a crate::validation::table::Predicted>) -> (ErrorStats, usize) {
    let (mut errors, mut refused) = (Vec::<PredictionError>::new(), 0);
    for p in predictions {
        match p {
            Ok(c) => errors.push(c.error),
            Err(_) => refused += 1,
        }
    }
    (ErrorStats::of(&errors), refused)
}

/// The held-back errors of `mode` in `table` ([`HEADLINE_SPLIT`] for the calibration, every
/// run for the roofline).
#[must_use]
pub fn held_back(table: &BundledTable, mode: PredictionMode) -> HeldBack {
    match mode {
        PredictionMode::Ideal => {
            let (stats, refused) = stats_of(table.runs.iter().map(|r| &r.ideal));
            HeldBack { mode, basis: "every published run (the roofline fits nothing)".into(), stats, refused }
        }
        PredictionMode::Calibrated => {
            let split = table.split(HEADLINE_SPLIT);
            HeldBack {
                mode,
                basis: format!("{}: each run predicted by a fit that never saw its chip", HEADLINE_SPLIT.label()),
                stats: split.map(|s| s.stats).unwrap_or_default(),
                refused: split.map_or(0, |s| s.refused),
            }
        }
    }
}

/// The errors per chip generation, then for every chip.
#[must_use]
pub fn by_generation(table: &BundledTable) -> Vec<GenerationErrors> {
    let held = table.split(HEADLINE_SPLIT);
    let mut chips: Vec<Option<String>> = generations(&table.runs).into_iter().map(Some).collect();
    chips.push(None);
    chips
        .into_iter()
        .map(|chip| {
            let rows: Vec<&RunRow> = table.runs.iter().filter(|r| chip.as_ref().is_none_or(|c| *c == r.chip)).collect();
            let held_back = rows.iter().filter_map(|r| held.and_then(|s| s.prediction_of(&r.id)));
            GenerationErrors {
                runs: rows.len(),
                ideal: stats_of(rows.iter().map(|r| &r.ideal)).0,
                calibrated: stats_of(rows.iter().map(|r| &r.calibrated)).0,
                held_back: stats_of(held_back).0,
                chip,
            }
        })
        .collect()
}

/// Everything the validation page shows for `s`'s prediction mode (the rows themselves are
/// the bundled tables').
#[must_use]
pub fn evaluate(s: &Scenario) -> ValidationEval {
    let mode = s.conventions.prediction;
    let table = bundled_table::bundled();
    ValidationEval {
        mode,
        held_back: held_back(table, mode),
        held_back_other: held_back(table, other(mode)),
        splits: summaries(&table.splits),
        by_generation: by_generation(table),
        runs: table.runs.len(),
        guide_points: table.guides.len(),
        case_studies: table.case_studies.clone(),
        serving: crate::validation::bundled_serving::bundled().clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calibration_is_closer_than_the_roofline_on_runs_it_never_saw() {
        // The calibrated prediction is the default headline (issue 16).
        let eval = evaluate(&Scenario::default());
        assert_eq!(eval.mode, PredictionMode::Calibrated);
        assert_eq!(eval.held_back.stats.count + eval.held_back.refused, eval.runs, "every run held back once");
        assert!(eval.held_back.stats.median_abs_mfu_pts < eval.held_back_other.stats.median_abs_mfu_pts);
        let ids: Vec<&str> = eval.splits.iter().map(|s| s.split.id()).collect();
        assert_eq!(ids, ["interleaved", "leave_chip_out", "leave_family_out"]);
        // The chip-out split's pooled statistics are the headline's and the last row's.
        let all = eval.by_generation.last().unwrap();
        assert_eq!((all.chip.as_deref(), all.runs), (None, eval.runs));
        // (The bundled numbers have six significant digits: the mean of rounded errors is not
        // quite the rounded mean.)
        let (a, b) = (all.held_back, eval.held_back.stats);
        assert_eq!(
            (a.count, a.median_abs_mfu_pts, a.p90_abs_step_pct),
            (b.count, b.median_abs_mfu_pts, b.p90_abs_step_pct)
        );
        assert!((a.mean_mfu_pts - b.mean_mfu_pts).abs() < 1e-4);
        assert_eq!(
            eval.by_generation.iter().take(eval.by_generation.len() - 1).map(|g| g.runs).sum::<usize>(),
            eval.runs
        );
        assert!(eval.serving.rows.len() >= 30);
        assert_eq!(eval.case_studies.len(), crate::validation::case_studies::CASES.len());
    }
}
