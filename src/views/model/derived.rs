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
    /// The convention the headline numbers use.
    pub convention: Memo<FlopConvention>,
}

impl Derived {
    /// The scenario's model, resolved, for `f` (no memo of its own: a
    /// `Memo<Option<ModelConfig>>` links the model's clone and comparison and a copy of the
    /// memo code for ~1 KB gzip; the results derived from it are memoised instead).
    pub fn with_model<T>(state: AppState, f: impl FnOnce(&ModelConfig) -> T) -> Option<T> {
        state.scenario.with(|s| s.model.resolve().ok().map(|m| f(&m)))
    }

    /// Memos over `state.scenario`.
    #[must_use]
    pub fn new(state: AppState) -> Self {
        Self {
            report: Memo::new_with_compare(move |_| state.scenario.with(evaluate_model), model_report_changed),
            convention: Memo::new(move |_| state.scenario.with(|s| s.conventions.flops)),
        }
    }
}

/// Whether the model sections of the report changed. `evaluate_model` leaves the serving,
/// hardware and training sections empty, so comparing them (the derived `PartialEq` of
/// [`Report`]) would only link their comparison code into the page (~1 KB of gzipped wasm).
fn model_report_changed(old: Option<&Result<Report, Invalid>>, new: Option<&Result<Report, Invalid>>) -> bool {
    match (old, new) {
        (Some(Ok(a)), Some(Ok(b))) => {
            a.model != b.model
                || a.params != b.params
                || a.workload != b.workload
                || a.flops != b.flops
                || a.notebook != b.notebook
        }
        (Some(Err(a)), Some(Err(b))) => a != b,
        _ => true,
    }
}

/// The report's summary for one convention.
#[must_use]
pub fn summary(report: &Report, convention: FlopConvention) -> &FlopsSummary {
    report.flops.get(convention)
}
