//! What the serving view computes from the scenario, as one memo: the page's evaluation
//! (`shardcalc_core::view::serving::evaluate`, what `shardcalc eval --view serving` prints):
//! the plan in the prediction mode, and its headline numbers' bands.

use leptos::prelude::*;
use shardcalc_core::error::Invalid;
use shardcalc_core::inference::InferenceReport;
use shardcalc_core::validation::bands::ServingBands;
use shardcalc_core::validation::PredictionMode;
use shardcalc_core::view::serving::{evaluate, ServingEval};

use crate::state::AppState;

/// Memos over the scenario the page shows.
#[derive(Clone, Copy)]
pub struct Derived {
    /// The page's state.
    pub state: AppState,
    /// The serving plan and its bands, or an error naming the field that stops it.
    pub report: Memo<Result<ServingEval, Invalid>>,
}

impl Derived {
    /// Memos over `state.shown`.
    #[must_use]
    pub fn new(state: AppState) -> Self {
        // Always "changed": the scenario only changes when an input does, and comparing two
        // whole reports (every curve) would cost more than it saves.
        let report = Memo::new_with_compare(move |_| state.shown.with(evaluate), |_, _| true);
        Self { state, report }
    }

    /// Applies `f` to the plan when there is one.
    pub fn with_report<T>(&self, f: impl FnOnce(&InferenceReport) -> T) -> Option<T> {
        self.report.with(|r| r.as_ref().ok().map(|e| f(&e.plan)))
    }

    /// Applies `f` to the bands when there are some.
    pub fn with_bands<T>(&self, f: impl FnOnce(&ServingBands) -> T) -> Option<T> {
        self.report.with(|r| r.as_ref().ok().and_then(|e| e.bands.as_ref()).map(f))
    }

    /// The prediction mode the plan is in.
    #[must_use]
    pub fn prediction(&self) -> PredictionMode {
        self.state.shown.with(|s| s.conventions.prediction)
    }

    /// The model's display name ("" before it resolves).
    #[must_use]
    pub fn model_name(&self) -> String {
        self.state.shown.with(|s| s.model.resolve().map(|m| m.name).unwrap_or_default())
    }

    /// The prompt and output lengths of the plan.
    #[must_use]
    pub fn lengths(&self) -> (u64, u64) {
        self.state.shown.with(|s| s.inference.as_ref().map_or((0, 0), |i| (i.prompt_len, i.output_len)))
    }
}
