//! What the validation page shows: how far the training planner is from published runs, in
//! the scenario's prediction mode (the only input the page reads). The rows come from the
//! bundled table ([`crate::validation::bundled_table`], computed natively by the planner and
//! kept current by core's tests); `shardcalc eval --view validation` prints [`evaluate`].

use serde::{Deserialize, Serialize};

use crate::scenario::Scenario;
use crate::validation::bundled_table;
use crate::validation::fit::Split;
use crate::validation::splits::{summaries, SplitSummary};
use crate::validation::table::{generations, group_stats, GroupStats};
use crate::validation::PredictionMode;

/// The headline errors and the errors per chip generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationEval {
    /// The prediction shown.
    pub mode: PredictionMode,
    /// Held-back errors of the prediction shown (the headline cards).
    pub held_back: GroupStats,
    /// Held-back errors of the other prediction, for comparison.
    pub held_back_other: GroupStats,
    /// Per chip generation (then every chip), held back, fitted and both, in the mode shown.
    pub by_generation: Vec<GroupStats>,
    /// Published runs in the table.
    pub runs: usize,
    /// Design points of the guides in the table.
    pub guide_points: usize,
    /// The grouped validation splits (interleaved groups, leave one chip generation out,
    /// leave one model family out): each refits the calibration without what it holds
    /// back; their held-back errors per fold and over all folds, against issue 16's goal.
    pub splits: Vec<SplitSummary>,
    /// The Ironwood guide's case studies, each change planned before and after with the
    /// calibrated model, beside the step-time change the guide measured.
    #[serde(default)]
    pub case_studies: Vec<crate::validation::case_studies::CaseStudyRow>,
}

/// The other prediction mode.
#[must_use]
pub fn other(mode: PredictionMode) -> PredictionMode {
    match mode {
        PredictionMode::Ideal => PredictionMode::Calibrated,
        PredictionMode::Calibrated => PredictionMode::Ideal,
    }
}

/// The statistics per chip generation (then `None` for all), held back, fitted and both.
#[must_use]
pub fn by_generation(mode: PredictionMode) -> Vec<GroupStats> {
    let rows = &bundled_table::bundled().runs;
    let mut chips: Vec<Option<String>> = generations(rows).into_iter().map(Some).collect();
    chips.push(None);
    chips
        .iter()
        .flat_map(|chip| {
            [Some(Split::HeldBack), Some(Split::Fit), None]
                .into_iter()
                .map(move |split| group_stats(rows, chip.as_deref(), split, mode))
        })
        .collect()
}

/// Held-back errors in `mode`.
#[must_use]
pub fn held_back(mode: PredictionMode) -> GroupStats {
    group_stats(&bundled_table::bundled().runs, None, Some(Split::HeldBack), mode)
}

/// Everything the validation page shows for `s`'s prediction mode (the rows themselves are
/// the bundled table's).
#[must_use]
pub fn evaluate(s: &Scenario) -> ValidationEval {
    let mode = s.conventions.prediction;
    let table = bundled_table::bundled();
    ValidationEval {
        mode,
        held_back: held_back(mode),
        held_back_other: held_back(other(mode)),
        by_generation: by_generation(mode),
        runs: table.runs.len(),
        guide_points: table.guides.len(),
        splits: summaries(&table.splits),
        case_studies: table.case_studies.clone(),
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
        assert!(eval.held_back.stats.count > 0);
        assert!(eval.held_back.stats.median_abs_mfu_pts < eval.held_back_other.stats.median_abs_mfu_pts);
        let ids: Vec<&str> = eval.splits.iter().map(|s| s.split.id()).collect();
        assert_eq!(ids, ["interleaved", "leave_chip_out", "leave_family_out"]);
        let all = eval.by_generation.last().unwrap();
        assert_eq!((all.chip.as_deref(), all.split), (None, None));
        assert_eq!(all.stats.count + all.refused, eval.runs);
        assert_eq!(eval.case_studies.len(), crate::validation::case_studies::CASES.len());
    }
}
