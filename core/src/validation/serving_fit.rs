//! Fitting the serving calibration (offline: `cargo run --release -p shardcalc-core
//! --example fit_serving_calibration` writes `core/data/serving-calibration.json`; a test
//! checks the bundled values are this fit's). The fit sees the fitted groups only
//! ([`super::serving_table::SPLIT_RULE`]). The objective is the mean, over the fitted runs
//! the model can predict, of the mean `|ln(predicted / measured)|` of each run's measured
//! quantities (throughput, TTFT, TPOT): a symmetric relative error, so a 2× miss counts
//! the same either way. The search is a deterministic pattern search: each parameter in
//! turn moves by its coarse step, then finer steps, while that lowers the objective,
//! from the roofline (fractions 1, overheads 0), until no move helps.

use super::fit::Split;
use super::serving::predict;
use super::serving_runs::ServingRun;
use super::serving_table::{fitted_groups, split_of};
use crate::efficiency::serving::ServingCalibration;

/// Each parameter's range and steps, in [`crate::efficiency::serving::PARAMETER_IDS`]
/// order: fractions of a peak in [0.05, 1]; overheads per pass in [0, 20 ms] and per
/// layer in [0, 0.5 ms].
const SEARCH: [(f64, f64, [f64; 3]); 4] = [
    (0.05, 1.0, [0.1, 0.02, 0.005]),
    (0.05, 1.0, [0.1, 0.02, 0.005]),
    (0.0, 0.02, [1e-3, 2e-4, 5e-5]),
    (0.0, 5e-4, [5e-5, 1e-5, 2e-6]),
];

/// A run the model refuses under a candidate counts as a 20× miss.
const REFUSED: f64 = 3.0;

/// The runs on the fitted side whose roofline prediction exists (the others cannot
/// inform the fit whatever the parameters).
#[must_use]
pub fn fitted_runs(runs: &[ServingRun]) -> Vec<&ServingRun> {
    let fitted = fitted_groups(runs);
    runs.iter()
        .filter(|r| split_of(r, &fitted) == Split::Fit && predict(r, &ServingCalibration::IDEAL).is_ok())
        .collect()
}

/// The objective: mean over `runs` of the mean `|ln(predicted / measured)|` of each
/// run's comparisons.
#[must_use]
pub fn objective(runs: &[&ServingRun], c: &ServingCalibration) -> f64 {
    if runs.is_empty() {
        return 0.0;
    }
    let total: f64 = runs
        .iter()
        .map(|r| match predict(r, c) {
            Ok(p) => {
                let e: Vec<f64> = p.compared().map(|x| x.abs_log_error()).collect();
                if e.is_empty() {
                    0.0
                } else {
                    e.iter().sum::<f64>() / e.len() as f64
                }
            }
            Err(_) => REFUSED,
        })
        .sum();
    total / runs.len() as f64
}

/// Fit the parameters on `runs` (the fitted side).
#[must_use]
pub fn fit(runs: &[&ServingRun]) -> ServingCalibration {
    let mut v = ServingCalibration::IDEAL.values();
    let mut best = objective(runs, &ServingCalibration::from_values(v));
    for level in 0..3 {
        loop {
            let mut improved = false;
            for (i, (lo, hi, steps)) in SEARCH.iter().enumerate() {
                let step = steps[level];
                for dir in [-1.0, 1.0] {
                    loop {
                        let mut t = v;
                        let Some(slot) = t.get_mut(i) else { break };
                        // On the step's grid, to nine decimals (no 0.30000000000000004).
                        let next = ((((*slot + dir * step) / step).round() * step) * 1e9).round() / 1e9;
                        if !(*lo..=*hi).contains(&next) {
                            break;
                        }
                        *slot = next;
                        let e = objective(runs, &ServingCalibration::from_values(t));
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
    ServingCalibration::from_values(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::efficiency::serving::bundled;
    use crate::validation::serving_runs;

    /// The bundled values are this fit's: no move of one parameter by its finest step
    /// lowers the objective (where the pattern search stops), and they beat the roofline.
    #[test]
    fn bundled_calibration_is_a_minimum_of_the_fit() {
        let runs = fitted_runs(serving_runs::all());
        assert!(runs.len() >= 10, "the fit needs runs, has {}", runs.len());
        let c = bundled();
        let at = objective(&runs, &c);
        assert!(at < 0.5 * objective(&runs, &ServingCalibration::IDEAL), "{at}");
        for (i, (lo, hi, steps)) in SEARCH.iter().enumerate() {
            for dir in [-1.0, 1.0] {
                let mut v = c.values();
                v[i] += dir * steps[2];
                if (*lo..=*hi).contains(&v[i]) {
                    let e = objective(&runs, &ServingCalibration::from_values(v));
                    assert!(
                        e + 1e-9 >= at,
                        "moving parameter {i} by {} lowers the objective: {e} < {at}",
                        dir * steps[2]
                    );
                }
            }
        }
    }
}
