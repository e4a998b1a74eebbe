//! What the serving view computes from the scenario, as memos: the model, the `inference`
//! section and its report. The report is `scenario_inference` alone (never the whole
//! `report::evaluate`), recomputed only when the scenario changes; the headline numbers'
//! bands (issue 8) evaluate the same section once more, in the other prediction mode
//! (ideal roofline or calibrated), without the charts' sweeps, and keep only the bands.

use leptos::prelude::*;
use shardcalc_core::error::Invalid;
use shardcalc_core::inference::evaluate::{scenario_inference, scenario_inference_without_curves};
use shardcalc_core::inference::{InferenceReport, InferenceSection};
use shardcalc_core::model::ModelConfig;
use shardcalc_core::validation::bands::{serving_bands_of, ServingBands};
use shardcalc_core::validation::PredictionMode;

use crate::state::AppState;

/// Memos over the last valid scenario.
#[derive(Clone, Copy)]
pub struct Derived {
    /// The resolved model.
    pub model: Memo<Option<ModelConfig>>,
    /// The scenario's `inference` section.
    pub section: Memo<Option<InferenceSection>>,
    /// The serving plan: `None` without an `inference` section, an error naming the field
    /// that stops it.
    pub report: Memo<Result<Option<InferenceReport>, Invalid>>,
    /// The prediction mode the report is in (`conventions.prediction`).
    pub prediction: Memo<PredictionMode>,
    /// The bands of the headline numbers: `None` while there is no report.
    pub bands: Memo<Option<ServingBands>>,
}

impl Derived {
    /// Memos over `state.scenario`.
    #[must_use]
    pub fn new(state: AppState) -> Self {
        let model = Memo::new(move |_| state.scenario.with(|s| s.model.resolve().ok()));
        let section = Memo::new(move |_| state.scenario.with(|s| s.inference.clone()));
        // Always "changed": the scenario only changes when an input does, and comparing two
        // whole reports (every curve) would cost more than it saves (and ships a deep PartialEq).
        let report = Memo::new_with_compare(
            move |_| {
                state.scenario.with(|s| match s.model.resolve() {
                    Ok(m) => scenario_inference(&m, s),
                    Err(e) => Err(e),
                })
            },
            |_, _| true,
        );
        let prediction = Memo::new(move |_| state.scenario.with(|s| s.conventions.prediction));
        let bands = Memo::new(move |_| {
            let mode = prediction.get();
            let other = state.scenario.with(|s| {
                let mut o = s.clone();
                o.conventions.prediction = match mode {
                    PredictionMode::Ideal => PredictionMode::Calibrated,
                    PredictionMode::Calibrated => PredictionMode::Ideal,
                };
                s.model.resolve().ok().and_then(|m| scenario_inference_without_curves(&m, &o).ok().flatten())
            })?;
            report.with(|r| {
                let shown = r.as_ref().ok()?.as_ref()?;
                Some(match mode {
                    PredictionMode::Ideal => serving_bands_of(shown, &other, mode),
                    PredictionMode::Calibrated => serving_bands_of(&other, shown, mode),
                })
            })
        });
        Self { model, section, report, prediction, bands }
    }

    /// Applies `f` to the report when there is one.
    pub fn with_report<T>(&self, f: impl FnOnce(&InferenceReport) -> T) -> Option<T> {
        self.report.with(|r| r.as_ref().ok().and_then(Option::as_ref).map(f))
    }

    /// The model's display name ("" before it resolves).
    #[must_use]
    pub fn model_name(&self) -> String {
        self.model.with(|m| m.as_ref().map(|m| m.name.clone()).unwrap_or_default())
    }
}
