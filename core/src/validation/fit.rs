//! Fitting the calibration (offline: `cargo run --release -p shardcalc-core --example
//! fit_calibration -- --write` writes `core/data/calibration.json`; a test checks the
//! bundled values are this fit's), and the splits that validate it ([`super::splits`]).
//!
//! **Objective.** The mean absolute MFU error, in points, over the fitted runs (a run the
//! planner refuses counts 100 points).
//!
//! **Search.** Deterministic: Nelder–Mead from the nominal values (every rate at its peak,
//! no straggler), restarted from its best point with a fresh simplex ([`RESTARTS`] runs of
//! at most [`EVALUATIONS`] evaluations; the objective has valleys along which a coordinate
//! search stalls: DCN bandwidth against overlap against stragglers), then coordinate moves
//! of ±0.005 while they help, rounded to 0.001. Rates stay in [0.05, 1], the straggler
//! spread in [0, 0.5].
//!
//! **Prior.** The objective adds `PRIOR_WEIGHT · Σ (v − nominal)²`: where the runs cannot
//! tell calibrations apart (a flat objective: DCN bandwidth against overlap against
//! stragglers on runs whose DCN traffic is small), the one nearest the hardware's nominal
//! rates wins, rather than whichever the search met first.
//!
//! **One set for every chip.** Each parameter is shared by every chip (the sustained
//! kernel fraction too: what differs between chip kinds is measured and lives in
//! [`crate::efficiency::rates`]), so every fit identifies all of them and its values carry
//! to chips it never saw. The bundled calibration is fitted on every run; the grouped
//! splits refit without what they hold back.

use super::predict::Prepared;
use super::runs::PublishedRun;
use crate::efficiency::calibration::{NOMINAL, PARAMETERS, UPPER};
use crate::efficiency::Calibration;

/// Which side of the interleaved split a run is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Seen by the fit.
    Fit,
    /// Never seen by the fit.
    HeldBack,
}

impl Split {
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

/// Smallest value a rate may take.
pub const LOWER_BOUND: f64 = 0.05;

/// A published run resolved for planning.
pub type FitRun = (&'static PublishedRun, Prepared);

/// Every published run resolved, in the table's order.
///
/// # Errors
/// A run whose scenario does not validate (a test rules it out).
pub fn prepared_runs() -> Result<Vec<FitRun>, crate::error::Invalid> {
    super::runs::all().iter().map(|r| Ok((r, Prepared::run(r)?))).collect()
}

/// Mean absolute MFU error in points of `runs` under `c`; a run the planner refuses
/// counts as a 100-point error.
#[must_use]
pub fn mean_abs_mfu_error(runs: &[&FitRun], c: &Calibration) -> f64 {
    if runs.is_empty() {
        return 0.0;
    }
    let total: f64 = runs
        .iter()
        .map(|(run, p)| match p.mfu(Some(c)) {
            Ok(mfu) => (mfu * 100.0 - run.mfu_maxtext_now_pct).abs(),
            Err(_) => 100.0,
        })
        .sum();
    total / runs.len() as f64
}

/// Points of MFU error the fit trades for a parameter's whole range: the prior that
/// every parameter is nominal ([`NOMINAL`]), `PRIOR_WEIGHT · Σ (v − nominal)²` added to the
/// objective. It decides between calibrations the runs cannot tell apart (a flat
/// objective), and costs a fitted value a fraction of a point (0.09 for an MXU fraction of
/// 0.79). Chosen for folds that agree: at 1 the leave-v5p-out fold found a far corner (HBM
/// at 0.37, overlap at 0.47) the other folds do not; from 2 every fold's parameters agree
/// (MXU 0.77-0.81, DCN 0.98, overlap 0.68-0.82) and the held-back medians are the best
/// (leave-one-chip-out 2.3 points against 2.8 at 1 and 2.7 at 10).
pub const PRIOR_WEIGHT: f64 = 2.0;

/// The fit's objective: [`mean_abs_mfu_error`] plus the prior.
#[must_use]
pub fn objective(runs: &[&FitRun], c: &Calibration) -> f64 {
    let prior: f64 = c.values().iter().zip(NOMINAL).map(|(v, n)| (v - n) * (v - n)).sum();
    mean_abs_mfu_error(runs, c) + PRIOR_WEIGHT * prior
}

/// Fit the parameters on `runs`.
#[must_use]
pub fn fit(runs: &[&FitRun]) -> Calibration {
    let f = |v: &[f64; PARAMETERS]| objective(runs, &Calibration::from_values(clamp(v)));
    let mut best = NOMINAL;
    for _ in 0..RESTARTS {
        best = clamp(&nelder_mead(&f, &best));
    }
    best = polish(&f, best);
    Calibration::from_values(best.map(|x| (x * 1000.0).round() / 1000.0))
}

/// Nelder–Mead runs, each from the last one's best point with a fresh simplex.
pub const RESTARTS: usize = 3;
/// Objective evaluations per Nelder–Mead run.
pub const EVALUATIONS: usize = 300;

/// `v` inside each parameter's range.
fn clamp(v: &[f64; PARAMETERS]) -> [f64; PARAMETERS] {
    let mut out = NOMINAL;
    for i in 0..PARAMETERS {
        let lower = if NOMINAL[i] == 0.0 { 0.0 } else { LOWER_BOUND };
        out[i] = v[i].clamp(lower, UPPER[i]);
    }
    out
}

type Point = [f64; PARAMETERS];

/// `a + t·(b − a)`.
fn combine(a: &Point, b: &Point, t: f64) -> Point {
    let mut out = *a;
    for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(b)) {
        *o = x + t * (y - x);
    }
    out
}

/// Nelder–Mead (reflection 1, expansion 2, contraction ½, shrink ½) from `start`, the
/// first simplex stepping each parameter 0.1 towards the inside of its range; the
/// objective sees every point clamped to the ranges.
fn nelder_mead(f: &dyn Fn(&Point) -> f64, start: &Point) -> Point {
    let mut simplex: Vec<(Point, f64)> = vec![(*start, f(start))];
    for i in 0..PARAMETERS {
        let mut p = *start;
        p[i] += if p[i] >= 0.5 { -0.1 } else { 0.1 };
        simplex.push((p, f(&p)));
    }
    let mut evaluations = simplex.len();
    while evaluations < EVALUATIONS && simplex.len() > 1 {
        simplex.sort_by(|a, b| a.1.total_cmp(&b.1));
        let n = simplex.len() - 1;
        let (f_best, f_second, (worst, f_worst)) = (simplex[0].1, simplex[n - 1].1, simplex[n]);
        if f_worst - f_best < 1e-6 {
            break;
        }
        let mut centroid = [0.0; PARAMETERS];
        for (p, _) in simplex.iter().take(n) {
            for (c, x) in centroid.iter_mut().zip(p) {
                *c += x / n as f64;
            }
        }
        let reflected = combine(&centroid, &worst, -1.0);
        let f_r = f(&reflected);
        evaluations += 1;
        if f_r < f_best {
            let expanded = combine(&centroid, &worst, -2.0);
            let f_e = f(&expanded);
            evaluations += 1;
            simplex[n] = if f_e < f_r { (expanded, f_e) } else { (reflected, f_r) };
        } else if f_r < f_second {
            simplex[n] = (reflected, f_r);
        } else {
            let contracted = combine(&centroid, &worst, 0.5);
            let f_c = f(&contracted);
            evaluations += 1;
            if f_c < f_worst {
                simplex[n] = (contracted, f_c);
            } else {
                let best = simplex[0].0;
                for entry in simplex.iter_mut().skip(1) {
                    let p = combine(&best, &entry.0, 0.5);
                    *entry = (p, f(&p));
                    evaluations += 1;
                }
            }
        }
    }
    simplex.sort_by(|a, b| a.1.total_cmp(&b.1));
    simplex.first().map_or(*start, |b| b.0)
}

/// Coordinate moves of ±0.005 while they lower the objective.
fn polish(f: &dyn Fn(&Point) -> f64, mut v: Point) -> Point {
    let mut best = f(&v);
    loop {
        let mut improved = false;
        for i in 0..PARAMETERS {
            for dir in [-1.0, 1.0] {
                let mut t = v;
                t[i] += dir * 0.005;
                let t = clamp(&t);
                let e = f(&t);
                if e + 1e-9 < best {
                    (v, best, improved) = (t, e, true);
                }
            }
        }
        if !improved {
            return v;
        }
    }
}
