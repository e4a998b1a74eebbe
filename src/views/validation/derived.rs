//! The memos the validation view reads: the prediction mode (the scenario's
//! `conventions.prediction`), core's evaluation for it (`shardcalc_core::view::validation`:
//! the headline, the grouped splits, the errors per chip generation, the serving
//! validation), and the runs table's filters. The rows are core's bundled tables
//! (`core/data/validation-table.json`, `core/data/serving-validation.json`: computed
//! natively and kept current by core's tests), so the page carries no planner.

use leptos::prelude::*;
use shardcalc_core::validation::bundled_table::{self, BundledTable};
use shardcalc_core::validation::table::RunRow;
use shardcalc_core::validation::PredictionMode;
use shardcalc_core::view::validation::{evaluate, ValidationEval};

use crate::state::AppState;

/// What the runs table shows: `None` = every value.
#[derive(Clone, Copy)]
pub struct Filter {
    /// Chip generation (catalog id).
    pub chip: RwSignal<Option<String>>,
    /// Model (the row's model label).
    pub model: RwSignal<Option<String>>,
    /// Side of the interleaved split (`fit` or `held_back`).
    pub split: RwSignal<Option<String>>,
}

impl Filter {
    /// Whether `r` passes.
    #[must_use]
    pub fn keeps(&self, r: &RunRow) -> bool {
        self.chip.with(|c| c.as_ref().is_none_or(|c| *c == r.chip))
            && self.model.with(|m| m.as_ref().is_none_or(|m| *m == r.model))
            && self.split.with(|s| s.as_deref().is_none_or(|s| s == r.split.id()))
    }
}

/// The bundled training table: every run and guide point, both predictions, the splits.
#[must_use]
pub fn table() -> &'static BundledTable {
    bundled_table::bundled()
}

/// The view's memos. `Copy`: memos are handles.
#[derive(Clone, Copy)]
pub struct Derived {
    /// Ideal or calibrated, from the scenario.
    pub mode: Memo<PredictionMode>,
    /// Core's evaluation of the page.
    pub eval: Memo<ValidationEval>,
    /// The runs table's filters.
    pub filter: Filter,
}

impl Derived {
    /// The memos over `state`.
    #[must_use]
    pub fn new(state: AppState) -> Self {
        let filter = Filter { chip: RwSignal::new(None), model: RwSignal::new(None), split: RwSignal::new(None) };
        let mode = Memo::new(move |_| state.scenario.with(|s| s.conventions.prediction));
        Self { mode, eval: Memo::new(move |_| state.scenario.with(evaluate)), filter }
    }

    /// The runs passing the filters.
    #[must_use]
    pub fn shown_runs(&self) -> Vec<&'static RunRow> {
        table().runs.iter().filter(|r| self.filter.keeps(r)).collect()
    }
}
