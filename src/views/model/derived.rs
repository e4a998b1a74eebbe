//! What the results column computes from the scenario, as memos: the model page's
//! evaluation (`shardcalc_core::view::model::evaluate`, what `shardcalc eval --view model`
//! prints), recomputed only when the scenario changes, and the convention of its headline.

use leptos::prelude::*;
use shardcalc_core::error::Invalid;
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::model::ModelConfig;
use shardcalc_core::report::{FlopsSummary, Report};
use shardcalc_core::view::model::{evaluate, ModelEval};

use crate::state::AppState;

/// Memos over the last valid scenario.
#[derive(Clone, Copy)]
pub struct Derived {
    /// The model page's evaluation.
    pub report: Memo<Result<ModelEval, Invalid>>,
    /// The convention the headline numbers use.
    pub convention: Memo<FlopConvention>,
}

impl Derived {
    /// The scenario's model, resolved, for `f`.
    pub fn with_model<T>(state: AppState, f: impl FnOnce(&ModelConfig) -> T) -> Option<T> {
        state.shown.with(|s| s.model.resolve().ok().map(|m| f(&m)))
    }

    /// A memo of `f` over the report (`T::default()` while the report cannot be computed).
    #[must_use]
    pub fn of<T: Default + PartialEq + Send + Sync + 'static>(
        &self,
        f: impl Fn(&Report) -> T + Send + Sync + 'static,
    ) -> Memo<T> {
        let report = self.report;
        Memo::new(move |_| report.with(|r| r.as_ref().map(|e| f(&e.report)).unwrap_or_default()))
    }

    /// Memos over `state.shown`.
    #[must_use]
    pub fn new(state: AppState) -> Self {
        Self {
            report: Memo::new(move |_| state.shown.with(evaluate)),
            convention: Memo::new(move |_| state.shown.with(|s| s.conventions.flops)),
        }
    }
}

/// The report's summary for one convention.
#[must_use]
pub fn summary(report: &Report, convention: FlopConvention) -> &FlopsSummary {
    report.flops.get(convention)
}
