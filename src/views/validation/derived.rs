//! The memos the validation view reads: every published run's row and every guide
//! point's (core's bundled table, `core/data/validation-table.json`: computed natively
//! and kept current by core's tests, so the page carries no planner), the prediction
//! mode (the scenario's `conventions.prediction`), and the table's filters.

use leptos::prelude::*;
use shardcalc_core::validation::bundled_table;
use shardcalc_core::validation::table::{GuideRow, RunRow};
use shardcalc_core::validation::PredictionMode;

use crate::state::AppState;

/// What the runs table shows: `None` = every value.
#[derive(Clone, Copy)]
pub struct Filter {
    /// Chip generation (catalog id).
    pub chip: RwSignal<Option<String>>,
    /// Model (the row's model label).
    pub model: RwSignal<Option<String>>,
    /// Side of the split (`fit` or `held_back`).
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

/// Every published run, both predictions (the bundled table; parsed once).
#[must_use]
pub fn rows() -> &'static [RunRow] {
    &bundled_table::bundled().runs
}

/// Every guide point, both predictions.
#[must_use]
pub fn guides() -> &'static [GuideRow] {
    &bundled_table::bundled().guides
}

/// The view's memos. `Copy`: memos are handles.
#[derive(Clone, Copy)]
pub struct Derived {
    /// Ideal or calibrated, from the scenario.
    pub mode: Memo<PredictionMode>,
    /// The runs table's filters.
    pub filter: Filter,
    /// Indices into [`rows`] of the rows passing the filters.
    pub shown: Memo<Vec<usize>>,
}

impl Derived {
    /// The memos over `state`.
    #[must_use]
    pub fn new(state: AppState) -> Self {
        let filter = Filter { chip: RwSignal::new(None), model: RwSignal::new(None), split: RwSignal::new(None) };
        Self {
            mode: Memo::new(move |_| state.scenario.with(|s| s.conventions.prediction)),
            filter,
            shown: Memo::new(move |_| {
                rows().iter().enumerate().filter(|(_, r)| filter.keeps(r)).map(|(i, _)| i).collect()
            }),
        }
    }

    /// The rows passing the filters.
    #[must_use]
    pub fn shown_rows(&self) -> Vec<&'static RunRow> {
        let all = rows();
        self.shown.with(|idx| idx.iter().filter_map(|i| all.get(*i)).collect())
    }
}
