//! What the serving page shows, evaluated from a scenario: the serving plan (book chapters
//! 7–8) in the scenario's prediction mode, and its headline numbers' bands (the same section
//! evaluated once more in the other mode, without the charts' sweeps). A thin composition of
//! [`crate::inference::evaluate`] and [`crate::validation::bands`]; `shardcalc eval --view
//! serving` prints [`evaluate`].
//!
//! A scenario without `inference` or `hardware` is shown with the page's defaults
//! ([`with_defaults`]: the book's chapter 8 workload on a TPU v5e, the smallest slice that
//! fits); they are not written into the scenario until the user edits something.

use serde::{Deserialize, Serialize};

use crate::error::Invalid;
use crate::inference::InferenceReport;
use crate::model::ModelConfig;
use crate::scenario::{inference_report, inference_report_without_curves};
use crate::scenario::{Scenario, Sections};
use crate::validation::bands::{serving_bands_of, ServingBands};
use crate::validation::PredictionMode;

pub use crate::scenario::with_serving_defaults as with_defaults;

/// Everything the serving page shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ServingEval {
    /// The serving plan (the keys of the report's `inference`).
    #[serde(flatten)]
    pub plan: InferenceReport,
    /// The headline numbers' bands: the plan as the roofline and as calibrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bands: Option<ServingBands>,
}

/// The bands of `shown`, the plan of `s` in its prediction mode: `s` evaluated once more in
/// the other mode (no charts' sweeps).
#[must_use]
pub fn bands(model: &ModelConfig, s: &Scenario, shown: &InferenceReport) -> Option<ServingBands> {
    let mode = s.conventions.prediction;
    let mut other = s.clone();
    other.conventions.prediction = match mode {
        PredictionMode::Ideal => PredictionMode::Calibrated,
        PredictionMode::Calibrated => PredictionMode::Ideal,
    };
    let other = inference_report_without_curves(model, &other).ok().flatten()?;
    Some(match mode {
        PredictionMode::Ideal => serving_bands_of(shown, &other, mode),
        PredictionMode::Calibrated => serving_bands_of(&other, shown, mode),
    })
}

/// The serving plan of `s` as it is (no defaults): `None` without an `inference` section.
///
/// # Errors
/// The scenario's problems, each naming its field (not those of the training section, which
/// the page does not show: `Sections::INFERENCE`).
pub fn for_scenario(s: &Scenario) -> Result<Option<ServingEval>, Invalid> {
    let model = s.validate_with(Sections::INFERENCE)?;
    let Some(plan) = inference_report(&model, s)? else { return Ok(None) };
    let bands = bands(&model, s, &plan);
    Ok(Some(ServingEval { plan, bands }))
}

/// Everything the serving page shows for `s` (with the page's defaults).
///
/// # Errors
/// The scenario's problems, each naming its field.
pub fn evaluate(s: &Scenario) -> Result<ServingEval, Invalid> {
    for_scenario(&with_defaults(s))?.ok_or_else(|| Invalid::one("inference", "is required"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_view_serves_the_book_s_workload_with_bands() {
        let s = Scenario::default();
        let eval = evaluate(&s).unwrap();
        assert_eq!(eval.plan.serving.batch, crate::inference::defaults::DEFAULT_BATCH);
        let b = eval.bands.unwrap();
        assert_eq!(b.decode_step_s.value, eval.plan.decode.step.step_time_s.get(), "ideal mode shows the roofline");
        assert!(b.decode_step_s.calibrated >= b.decode_step_s.ideal);
        assert_eq!(for_scenario(&s).unwrap(), None);
        let v = serde_json::to_value(evaluate(&s).unwrap()).unwrap();
        assert!(v["decode"]["step_time_s"].is_f64() && v["bands"]["decode_step_s"]["value"].is_f64());
    }
}
