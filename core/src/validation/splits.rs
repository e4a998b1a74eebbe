//! Validation on held-back runs, grouped so that a near-duplicate of a fitted run never
//! counts as held back (issue 16, "Calibration and validation").
//!
//! | split | folds | what each fold holds back |
//! |---|---|---|
//! | interleaved | 1 | every other group of near-duplicates in the table's order, starting with the second |
//! | leave one chip generation out | 4 | every run on one chip (v5p, v5e, v4, H100) |
//! | leave one model family out | 2 | every run of one model family (the 2023 MaxText base model; Llama 2 7B) |
//!
//! A group of near-duplicates is the runs of one chip and one model shape (width, depth,
//! MLP, heads, batch per device, sequence), which differ only in slice count or size: the
//! same model on 1 and 2 slices is one group, never split across the fitted and held-back
//! sides. Each fold refits the calibration ([`super::fit`]) without its held-back runs and
//! predicts them; a split's statistics pool every fold's held-back predictions (in the
//! leave-one-out splits each run is held back exactly once).

use super::calibration::Residuals;
use super::fit::{fit, FitRun, Split};
use super::runs::PublishedRun;
use super::setups::bundled;
use super::stats::{nearest_rank, ErrorStats, PredictionError};
use super::table::{Predicted, PredictionCell};
use crate::efficiency::Calibration;
use serde::{Deserialize, Serialize};

/// A way to hold runs back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitKind {
    /// Every other group of near-duplicates.
    Interleaved,
    /// One chip generation at a time.
    LeaveChipOut,
    /// One model family at a time.
    LeaveFamilyOut,
}

impl SplitKind {
    /// Every split, in display order.
    pub const ALL: [SplitKind; 3] = [SplitKind::Interleaved, SplitKind::LeaveChipOut, SplitKind::LeaveFamilyOut];

    /// Identifier.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            SplitKind::Interleaved => "interleaved",
            SplitKind::LeaveChipOut => "leave_chip_out",
            SplitKind::LeaveFamilyOut => "leave_family_out",
        }
    }

    /// Display name.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            SplitKind::Interleaved => "interleaved groups",
            SplitKind::LeaveChipOut => "leave one chip generation out",
            SplitKind::LeaveFamilyOut => "leave one model family out",
        }
    }

    /// What it holds back, in words.
    #[must_use]
    pub fn rule(self) -> &'static str {
        match self {
            SplitKind::Interleaved => {
                "the runs are grouped into near-duplicates (one chip and one model shape, differing only in slices); \
                 every other group in the table's order, starting with the first, is fitted, the others held back"
            }
            SplitKind::LeaveChipOut => "one fold per chip generation: its runs held back, every other run fitted",
            SplitKind::LeaveFamilyOut => "one fold per model family: its runs held back, every other run fitted",
        }
    }
}

/// The near-duplicate group of a run: its chip and model shape.
#[must_use]
pub fn group_of(r: &PublishedRun) -> String {
    format!(
        "{}|{}|{}|{}|{}|{}|{}|{}|{}",
        r.chip,
        family_of(r),
        r.d_model,
        r.layers,
        r.d_ff,
        r.heads,
        r.head_dim,
        r.per_device_batch,
        r.seq_len
    )
}

/// The model family of a run: its setup's model template (`maxtext-2023-base`, `llama-2-7b`).
#[must_use]
pub fn family_of(r: &PublishedRun) -> String {
    bundled().setup_of(&r.id).map_or_else(|| r.id.clone(), |(s, _)| s.model.clone())
}

/// Values in order of first appearance.
fn distinct(keys: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for k in keys {
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The side of the interleaved split of every run, in the table's order.
#[must_use]
pub fn interleaved_sides(runs: &[PublishedRun]) -> Vec<Split> {
    let groups = distinct(runs.iter().map(group_of));
    runs.iter()
        .map(|r| {
            let g = group_of(r);
            match groups.iter().position(|x| *x == g) {
                Some(i) if i % 2 == 1 => Split::HeldBack,
                _ => Split::Fit,
            }
        })
        .collect()
}

/// The folds of a split: a name and the indices of the runs it holds back.
#[must_use]
pub fn folds(kind: SplitKind, runs: &[PublishedRun]) -> Vec<(String, Vec<usize>)> {
    let by = |key: &dyn Fn(&PublishedRun) -> String| -> Vec<(String, Vec<usize>)> {
        distinct(runs.iter().map(key))
            .into_iter()
            .map(|k| {
                let held = runs.iter().enumerate().filter(|(_, r)| key(r) == k).map(|(i, _)| i).collect();
                (k, held)
            })
            .collect()
    };
    match kind {
        SplitKind::Interleaved => {
            let sides = interleaved_sides(runs);
            let held = sides.iter().enumerate().filter(|(_, s)| **s == Split::HeldBack).map(|(i, _)| i).collect();
            vec![("interleaved".to_string(), held)]
        }
        SplitKind::LeaveChipOut => by(&|r| bundled().catalog_chip(&r.chip).unwrap_or(&r.chip).to_string()),
        SplitKind::LeaveFamilyOut => by(&family_of),
    }
}

/// One fold: what it held back and the calibration fitted without it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FoldReport {
    /// The chip, family or `interleaved`.
    pub name: String,
    /// Run ids held back.
    pub held_back: Vec<String>,
    /// Runs fitted.
    pub fitted: usize,
    /// The calibration fitted without the held-back runs ([`Calibration::values`]).
    pub calibration: [f64; crate::efficiency::calibration::PARAMETERS],
}

/// One held-back prediction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldBackPrediction {
    /// Run id.
    pub run: String,
    /// Its fold.
    pub fold: String,
    /// The prediction by the fold's calibration.
    pub prediction: Predicted,
}

/// A split evaluated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SplitReport {
    /// Which split.
    pub kind: SplitKind,
    /// Its folds.
    pub folds: Vec<FoldReport>,
    /// Every held-back prediction.
    pub predictions: Vec<HeldBackPrediction>,
    /// Statistics of the held-back predictions (refused ones left out).
    pub stats: ErrorStats,
    /// Held-back runs the planner refused.
    pub refused: usize,
}

impl SplitReport {
    /// The statistics of the held-back predictions of one fold.
    #[must_use]
    pub fn fold_stats(&self, fold: &str) -> ErrorStats {
        let e: Vec<PredictionError> = self
            .predictions
            .iter()
            .filter(|p| p.fold == fold)
            .filter_map(|p| p.prediction.as_ref().ok().map(|c| c.error))
            .collect();
        ErrorStats::of(&e)
    }

    /// The held-back prediction of a run, if this split holds it back.
    #[must_use]
    pub fn prediction_of(&self, run: &str) -> Option<&Predicted> {
        self.predictions.iter().find(|p| p.run == run).map(|p| &p.prediction)
    }
}

/// Evaluate one split on the prepared runs (in the table's order).
#[must_use]
pub fn evaluate(kind: SplitKind, prepared: &[FitRun]) -> SplitReport {
    let runs: Vec<PublishedRun> = prepared.iter().map(|(r, _)| (*r).clone()).collect();
    let mut folds_out = Vec::new();
    let mut predictions = Vec::new();
    for (name, held) in folds(kind, &runs) {
        let fitted: Vec<&FitRun> =
            prepared.iter().enumerate().filter(|(i, _)| !held.contains(i)).map(|(_, r)| r).collect();
        let c: Calibration = fit(&fitted);
        for i in &held {
            let Some((run, p)) = prepared.get(*i) else { continue };
            let prediction = p
                .plan(Some(&c))
                .map(|r| PredictionCell::of(&r, run.mfu_maxtext_now_pct, Some(run.step_time_s)))
                .map_err(|e| e.to_string());
            predictions.push(HeldBackPrediction { run: run.id.clone(), fold: name.clone(), prediction });
        }
        folds_out.push(FoldReport {
            name,
            held_back: held.iter().filter_map(|i| runs.get(*i).map(|r| r.id.clone())).collect(),
            fitted: fitted.len(),
            calibration: c.values(),
        });
    }
    let errors: Vec<PredictionError> =
        predictions.iter().filter_map(|p| p.prediction.as_ref().ok().map(|c| c.error)).collect();
    SplitReport {
        kind,
        folds: folds_out,
        refused: predictions.len() - errors.len(),
        stats: ErrorStats::of(&errors),
        predictions,
    }
}

/// Every split.
#[must_use]
pub fn evaluate_all(prepared: &[FitRun]) -> Vec<SplitReport> {
    SplitKind::ALL.iter().map(|k| evaluate(*k, prepared)).collect()
}

/// The signed step-time errors of a split's held-back predictions at the 10th and 90th
/// percentiles: what `calibration.json` stores as `residuals` (from the leave-one-chip-out
/// split: each run predicted by a fit that never saw its chip).
#[must_use]
pub fn residuals(split: &SplitReport) -> Residuals {
    let e: Vec<f64> =
        split.predictions.iter().filter_map(|p| p.prediction.as_ref().ok().map(|c| c.error.step_pct)).collect();
    Residuals { runs: e.len(), step_pct_p10: nearest_rank(&e, 0.1), step_pct_p90: nearest_rank(&e, 0.9) }
}

/// One fold's statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FoldSummary {
    /// The chip, family or `interleaved`.
    pub fold: String,
    /// Runs held back.
    pub held_back: usize,
    /// Runs fitted.
    pub fitted: usize,
    /// Held-back statistics.
    pub stats: ErrorStats,
    /// The calibration the fold fitted, by parameter id.
    pub calibration: Vec<(String, f64)>,
}

/// One split's statistics: what the Validation page and `shardcalc validation` show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SplitSummary {
    /// Which split.
    pub split: SplitKind,
    /// Its name.
    pub label: String,
    /// What it holds back.
    pub rule: String,
    /// Held-back statistics, every fold pooled.
    pub stats: ErrorStats,
    /// Whether the median |MFU error| meets the goal of 5 points.
    pub meets_goal: bool,
    /// Its folds.
    pub folds: Vec<FoldSummary>,
}

/// The goal: median |MFU error| of held-back runs, points.
pub const GOAL_MEDIAN_MFU_PTS: f64 = 5.0;

/// The statistics of evaluated splits.
#[must_use]
pub fn summaries(splits: &[SplitReport]) -> Vec<SplitSummary> {
    let named = |v: &[f64]| -> Vec<(String, f64)> {
        crate::efficiency::calibration::PARAMETER_IDS.iter().map(|s| s.to_string()).zip(v.iter().copied()).collect()
    };
    splits
        .iter()
        .map(|s| SplitSummary {
            split: s.kind,
            label: s.kind.label().to_string(),
            rule: s.kind.rule().to_string(),
            stats: s.stats,
            meets_goal: s.stats.median_abs_mfu_pts <= GOAL_MEDIAN_MFU_PTS,
            folds: s
                .folds
                .iter()
                .map(|f| FoldSummary {
                    fold: f.name.clone(),
                    held_back: f.held_back.len(),
                    fitted: f.fitted,
                    stats: s.fold_stats(&f.name),
                    calibration: named(&f.calibration),
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::runs;

    #[test]
    fn near_duplicates_share_a_side_of_the_interleaved_split() {
        let all = runs::all();
        let sides = interleaved_sides(all);
        for (a, sa) in all.iter().zip(&sides) {
            for (b, sb) in all.iter().zip(&sides) {
                if group_of(a) == group_of(b) {
                    assert_eq!(sa, sb, "{} and {} are near-duplicates", a.id, b.id);
                }
            }
        }
        // The same model on 1 and 2 slices is one group.
        let g = |id: &str| group_of(runs::get(id).unwrap());
        assert_eq!(g("v5p-readme-32b-1xv5p-128"), g("v5p-readme-32b-2xv5p-128"));
        assert_eq!(g("v5p-readme-1024b-1xv5p-2048"), g("v5p-readme-1024b-2xv5p-4096"));
        assert_ne!(g("v5p-readme-32b-1xv5p-128"), g("v5p-readme-64b-1xv5p-128"));
        assert!(sides.contains(&Split::Fit) && sides.contains(&Split::HeldBack));
    }

    #[test]
    fn leave_one_out_folds_cover_every_run_once() {
        let all = runs::all();
        for kind in [SplitKind::LeaveChipOut, SplitKind::LeaveFamilyOut] {
            let f = folds(kind, all);
            let mut seen: Vec<usize> = f.iter().flat_map(|(_, h)| h.clone()).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..all.len()).collect::<Vec<_>>(), "{kind:?}");
        }
        let chips: Vec<String> = folds(SplitKind::LeaveChipOut, all).into_iter().map(|(n, _)| n).collect();
        assert_eq!(chips, ["tpu-v5p", "tpu-v5e", "tpu-v4", "h100-sxm"]);
        let families: Vec<String> = folds(SplitKind::LeaveFamilyOut, all).into_iter().map(|(n, _)| n).collect();
        assert_eq!(families, ["maxtext-2023-base", "llama-2-7b"]);
    }
}
