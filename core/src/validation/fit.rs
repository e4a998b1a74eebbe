//! Fitting the calibration (offline: `cargo run -p shardcalc-core --example
//! fit_calibration` writes `core/data/calibration.json`; a test checks the bundled
//! values are this fit's). The split is fixed: every other row of the table, starting
//! with the first, is fitted; the other rows are held back and never seen by the fit.
//! The objective is the mean absolute MFU error, in points, over the fitted runs. The
//! search is a deterministic pattern search on a grid: each parameter in turn moves
//! by ±0.1, then ±0.02, then ±0.005 while that lowers the objective, from the roofline
//! (every parameter 1.0), until no move helps.

use super::calibration::Calibration;
use super::predict::Prepared;
use super::runs::PublishedRun;

/// Which side of the split a run is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Seen by the fit.
    Fit,
    /// Never seen by the fit.
    HeldBack,
}

impl Split {
    /// The side of the run at `index` (0-based) in the table's order.
    #[must_use]
    pub fn of_index(index: usize) -> Split {
        if index.is_multiple_of(2) {
            Split::Fit
        } else {
            Split::HeldBack
        }
    }

    /// Identifier (as in JSON).
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            Split::Fit => "fit",
            Split::HeldBack => "held_back",
        }
    }

    /// Display name.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Split::Fit => "fitted",
            Split::HeldBack => "held back",
        }
    }
}

/// The split, in words (what `calibration.json` and the page state).
pub const SPLIT_RULE: &str =
    "every other row of published-runs.csv, starting with the first (rows 1, 3, 5, ...), is fitted; \
     the other rows are held back: the fit never sees them";

/// Smallest value a parameter may take.
pub const LOWER_BOUND: f64 = 0.05;

/// A published run resolved for planning.
pub type FitRun = (&'static PublishedRun, Prepared);

/// Every published run resolved, with its side of the split.
///
/// # Errors
/// A run whose scenario does not validate (a test rules it out).
pub fn prepared_runs() -> Result<Vec<(Split, FitRun)>, crate::error::Invalid> {
    super::runs::all().iter().enumerate().map(|(i, r)| Ok((Split::of_index(i), (r, Prepared::run(r)?)))).collect()
}

/// The runs on one side of the split.
#[must_use]
pub fn side(runs: &[(Split, FitRun)], split: Split) -> Vec<FitRun> {
    runs.iter().filter(|(s, _)| *s == split).map(|(_, r)| r.clone()).collect()
}

/// Mean absolute MFU error in points of `runs` under `c`; a run the planner refuses
/// counts as a 100-point error.
#[must_use]
pub fn mean_abs_mfu_error(runs: &[FitRun], c: &Calibration) -> f64 {
    if runs.is_empty() {
        return 0.0;
    }
    let total: f64 = runs
        .iter()
        .map(|(run, p)| match p.plan(c) {
            Ok(p) => (p.mfu * 100.0 - run.mfu_maxtext_now_pct).abs(),
            Err(_) => 100.0,
        })
        .sum();
    total / runs.len() as f64
}

/// Fit the five parameters on `runs` (the fitted side of the split).
#[must_use]
pub fn fit(runs: &[FitRun]) -> Calibration {
    let mut v = Calibration::IDEAL.values();
    let mut best = mean_abs_mfu_error(runs, &Calibration::from_values(v));
    for step in [0.1, 0.02, 0.005] {
        loop {
            let mut improved = false;
            for i in 0..v.len() {
                for dir in [-1.0, 1.0] {
                    loop {
                        let mut t = v;
                        let Some(slot) = t.get_mut(i) else { break };
                        let next = ((*slot + dir * step) * 1000.0).round() / 1000.0;
                        if !(LOWER_BOUND..=1.0).contains(&next) {
                            break;
                        }
                        *slot = next;
                        let e = mean_abs_mfu_error(runs, &Calibration::from_values(t));
                        if e + 1e-9 < best {
                            (v, best, improved) = (t, e, true);
                        } else {
                            break;
                        }
                    }
                }
            }
            if !improved {
                break;
            }
        }
    }
    Calibration::from_values(v)
}
