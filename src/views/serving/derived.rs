//! What the serving view computes from the scenario, as memos: the model, the `inference`
//! section and its report. The report is `scenario_inference` alone (never the whole
//! `report::evaluate`), recomputed only when the scenario changes.

use leptos::prelude::*;
use shardcalc_core::error::Invalid;
use shardcalc_core::inference::evaluate::scenario_inference;
use shardcalc_core::inference::{InferenceReport, InferenceSection};
use shardcalc_core::model::ModelConfig;

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
        Self { model, section, report }
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
