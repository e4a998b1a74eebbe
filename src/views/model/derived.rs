//! What the results column computes from the scenario, as memos: each output recomputes only
//! when its inputs change, and charts redraw only when their data differ.

use leptos::prelude::*;
use shardcalc_core::error::Invalid;
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::model::ModelConfig;
use shardcalc_core::report::{evaluate_model, FlopsSummary, Report};

use crate::state::AppState;

/// Memos over the last valid scenario.
#[derive(Clone, Copy)]
pub struct Derived {
    /// The model sections of the report (`shardcalc_core::report::evaluate_model`).
    pub report: Memo<Result<Report, Invalid>>,
    /// The resolved model.
    pub model: Memo<Option<ModelConfig>>,
    /// The convention the headline numbers use.
    pub convention: Memo<FlopConvention>,
}

impl Derived {
    /// Memos over `state.scenario`.
    #[must_use]
    pub fn new(state: AppState) -> Self {
        Self {
            report: Memo::new(move |_| state.scenario.with(evaluate_model)),
            model: Memo::new(move |_| state.scenario.with(|s| s.model.resolve().ok())),
            convention: Memo::new(move |_| state.scenario.with(|s| s.conventions.flops)),
        }
    }
}

/// The report's summary for one convention.
#[must_use]
pub fn summary(report: &Report, convention: FlopConvention) -> &FlopsSummary {
    report.flops.get(convention)
}
