//! What the serving page shows, evaluated from a scenario: the serving plan (book chapters
//! 7–8) in the scenario's prediction mode, its headline numbers' bands (the same section
//! evaluated once more in the other mode, without the charts' sweeps), and the search under
//! targets when the scenario asks for one. A thin composition of
//! [`crate::inference::evaluate`], [`crate::inference::search`] and
//! [`crate::validation::bands`]; `shardcalc eval --view serving` prints [`evaluate`].
//!
//! The page memoises two stages apart, so that an edit the search does not read (the batch,
//! the topology, speculative decoding) never searches again: [`plan`] (everything but the
//! search) and [`search`] of [`search_key`] (the scenario with only what the search reads).
//! [`evaluate`] runs both, in that order. Opening a row of the search applies its deployment
//! to the scenario ([`open`]).
//!
//! A scenario without `inference` or `hardware` is shown with the page's defaults
//! ([`with_defaults`]: the book's chapter 8 workload on a TPU v5e, the smallest slice that
//! fits); they are not written into the scenario until the user edits something.

mod open;

pub use open::open;

use serde::{Deserialize, Serialize};

use crate::error::Invalid;
use crate::inference::options::{ServingSharding, WeightSharding};
use crate::inference::search::SearchReport;
use crate::inference::InferenceReport;
use crate::model::ModelConfig;
use crate::scenario::{inference_report_without_curves, inference_report_without_search, search_report};
use crate::scenario::{Scenario, Sections};
use crate::validation::bands::{serving_bands_of, ServingBands};
use crate::validation::PredictionMode;

pub use crate::scenario::with_serving_defaults as with_defaults;

/// The queueing model behind every time to first token at a request rate, in one sentence
/// for the page (`crate::inference::queueing` derives and tests it).
pub const QUEUEING_MODEL: &str = "M/G/1 per server: Poisson arrivals split at random over the servers, one \
    first-come-first-served prefill lane; mean wait by Pollaczek–Khinchine, tail by the Cramér–Lundberg \
    asymptote (the p99)";

/// Everything the serving page shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ServingEval {
    /// The serving plan (the keys of the report's `inference`; `search` filled by the
    /// search stage).
    #[serde(flatten)]
    pub plan: InferenceReport,
    /// The headline numbers' bands: the plan as the roofline and as calibrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bands: Option<ServingBands>,
}

/// The bands of `shown`, the plan of `s` in its prediction mode: `s` evaluated once more in
/// the other mode (no charts' sweeps, no search).
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

/// The serving plan of `s` as it is (no defaults, no search): `None` without an `inference`
/// section.
///
/// # Errors
/// The scenario's problems, each naming its field (not those of the training section, which
/// the page does not show: `Sections::INFERENCE`).
pub fn for_scenario(s: &Scenario) -> Result<Option<ServingEval>, Invalid> {
    let model = s.validate_with(Sections::INFERENCE)?;
    let Some(plan) = inference_report_without_search(&model, s)? else { return Ok(None) };
    let bands = bands(&model, s, &plan);
    Ok(Some(ServingEval { plan, bands }))
}

/// The page's first stage: everything for `s` (with the page's defaults) but the search
/// (`plan.search` is `None`).
///
/// # Errors
/// The scenario's problems, each naming its field.
pub fn plan(s: &Scenario) -> Result<ServingEval, Invalid> {
    for_scenario(&with_defaults(s))?.ok_or_else(|| Invalid::one("inference", "is required"))
}

/// What the search reads of `s` (with the page's defaults), everything else cleared so that
/// two scenarios differing only where the search does not look give equal keys: `None`
/// when `s` asks for no search. Cleared: the batch, the topology and how a replica is split
/// but for the KV cache past its heads (the search builds its own servers), the prefill
/// pool's chip, mesh, batch and price (it chooses them), speculative decoding, the matmul
/// format (each server computes in its weights' format where it can), and the sections
/// of the other pages.
#[must_use]
pub fn search_key(s: &Scenario) -> Option<Scenario> {
    let mut key = with_defaults(s);
    let section = key.inference.as_mut()?;
    section.search.as_ref()?;
    section.batch = None;
    section.sharding =
        ServingSharding { kv: section.sharding.kv, weights: WeightSharding::default(), ..ServingSharding::default() };
    section.prefill.topology = None;
    section.prefill.chip = None;
    section.prefill.batch = None;
    section.prefill.price_per_chip_hour_usd = None;
    section.speculative = None;
    section.dtypes.compute = crate::dtype::DType::Bf16;
    if let Some(h) = key.hardware.as_mut() {
        h.topology = None;
    }
    key.collectives.clear();
    key.roofline = None;
    key.training = None;
    Some(key)
}

/// The search under targets of `s` (a [`search_key`], or any scenario), in the scenario's
/// prediction mode: `None` when it asks for none.
///
/// # Errors
/// The scenario's problems, each naming its field; `inference.search.chips[i]` for an
/// unknown chip.
pub fn search(s: &Scenario) -> Result<Option<SearchReport>, Invalid> {
    let s = with_defaults(s);
    if s.inference.as_ref().is_none_or(|i| i.search.is_none()) {
        return Ok(None);
    }
    let model = s.validate_with(Sections::INFERENCE)?;
    search_report(&model, &s)
}

/// Everything the serving page shows for `s` (with the page's defaults): [`plan`], then
/// [`search`] into `plan.search`.
///
/// # Errors
/// The scenario's problems, each naming its field.
pub fn evaluate(s: &Scenario) -> Result<ServingEval, Invalid> {
    let mut eval = plan(s)?;
    eval.plan.search = search(s)?;
    Ok(eval)
}

#[cfg(test)]
mod tests;
