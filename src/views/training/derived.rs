//! What the training view computes from the scenario, as memos over the stages of
//! `shardcalc_core::view::training` (what `shardcalc eval --view training` prints): the
//! inputs, the search (run only when something it depends on changes: not the token budget,
//! the price or the explored mesh), the budget applied to its best, the explored mesh planned
//! alone, and the bands of the shown plan's headline numbers.

use leptos::prelude::*;
use shardcalc_core::error::{FieldError, Invalid};
use shardcalc_core::training::TrainingReport;
use shardcalc_core::validation::bands::TrainingBands;
use shardcalc_core::view::training::{plan_problems, search, TrainingInputs};

use crate::state::AppState;

/// A plan, once asked for.
pub type PlanMemo = Memo<Option<Result<TrainingReport, Invalid>>>;

/// Memos over the scenario the page shows.
#[derive(Clone, Copy)]
pub struct Derived {
    /// The page's state (the scenario the memos read, and what edits write).
    pub state: AppState,
    /// Model, hardware, `training` section, convention and prediction mode.
    pub inputs: Memo<Result<TrainingInputs, Invalid>>,
    /// The search's result, new with every search (even an equal one: track it to follow
    /// each search).
    pub searched: PlanMemo,
    /// The milliseconds the last search took (`performance.now()`; not tracked: read it
    /// while tracking `searched`).
    pub search_ms: StoredValue<f64>,
    /// The search's best with the budget and price applied.
    pub best: PlanMemo,
    /// The last best plan that succeeded: what the results show while the inputs cannot be
    /// planned (only `Some(Ok(_))` or `None`).
    pub shown: PlanMemo,
    /// The explored mesh's plan (`training.mesh`), when one is explored.
    pub explored: PlanMemo,
    /// The bands of the shown plan's headline numbers: `None` before a plan, an error when
    /// the current inputs cannot plan the shown mesh.
    pub bands: Memo<Option<Result<TrainingBands, Invalid>>>,
    /// Every planning problem of `best` and `explored`, without repeats: shown under the
    /// fields and in the summary.
    pub conflicts: Memo<Vec<FieldError>>,
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

impl Derived {
    /// Memos over `state.shown`.
    #[must_use]
    pub fn new(state: AppState) -> Self {
        let inputs = Memo::new(move |_| state.shown.with(TrainingInputs::of));
        let key = Memo::new(move |_| inputs.with(|i| i.as_ref().ok().map(TrainingInputs::search_key)));
        let search_ms = StoredValue::new(0.0);
        let searched = Memo::new_with_compare(
            move |_| {
                key.with(|k| {
                    let started = now();
                    let result = k.as_ref().map(search);
                    search_ms.set_value(now() - started);
                    result
                })
            },
            // A new search is a new result: comparing two reports would cost more than it saves.
            |_, _| true,
        );
        let best = Memo::new_with_compare(
            move |_| {
                inputs.with(|i| match i {
                    Err(e) => Some(Err(e.clone())),
                    Ok(i) => searched.with(|r| r.as_ref().map(|r| i.with_budget(r))),
                })
            },
            new_plan,
        );
        let shown = Memo::new_with_compare(
            move |prev: Option<&Option<Result<TrainingReport, Invalid>>>| {
                best.with(|b| match b {
                    Some(Ok(r)) => Some(Ok(r.clone())),
                    _ => prev.cloned().flatten(),
                })
            },
            new_plan,
        );
        let explored = Memo::new_with_compare(
            move |_| inputs.with(|i| i.as_ref().ok().and_then(TrainingInputs::explored)),
            new_plan,
        );
        let bands = Memo::new(move |_| {
            shown.with(|r| {
                let r = ok(r)?;
                inputs.with(|i| i.as_ref().ok().map(|i| i.bands(r)))
            })
        });
        let conflicts = Memo::new(move |_| best.with(|b| explored.with(|e| plan_problems(b.as_ref(), e.as_ref()))));
        Self { state, inputs, searched, search_ms, best, shown, explored, bands, conflicts }
    }

    /// Whether the shown best plan is older than the inputs (they cannot be planned).
    #[must_use]
    pub fn is_stale(&self) -> bool {
        self.best.with(|b| matches!(b, Some(Err(_))))
    }

    /// Calls `f` with the shown best plan and the explored plan when it succeeded, by
    /// reference (tracked; no copies of the reports).
    pub fn with_plans<T>(&self, f: impl FnOnce(Option<&TrainingReport>, Option<&TrainingReport>) -> T) -> T {
        self.shown.with(|b| self.explored.with(|e| f(ok(b), ok(e))))
    }

    /// Calls `f` with the shown best plan (tracked).
    pub fn with_shown<T>(&self, f: impl FnOnce(Option<&TrainingReport>) -> T) -> T {
        self.shown.with(|b| f(ok(b)))
    }
}

/// A table of the shown plan and the explored one (labelled as `breakdown_rows` labels
/// them, the best first): every table of the page but the ranked ones, through this one
/// memo closure, so the page compiles one (docs/size.md).
pub fn plans_table(
    derived: Derived,
    f: fn(&[(String, &TrainingReport)]) -> shardcalc_charts::table::Table,
) -> Memo<shardcalc_charts::table::Table> {
    Memo::new(move |_| derived.with_plans(|b, e| f(&shardcalc_charts::training::breakdown_rows(b, e))))
}

/// Every new plan counts as a change, as for `searched`: comparing two reports field by field
/// would link `TrainingReport`'s `PartialEq` (docs/size.md, size4) and costs more than the
/// repaints it saves.
fn new_plan(
    _: Option<&Option<Result<TrainingReport, Invalid>>>,
    _: Option<&Option<Result<TrainingReport, Invalid>>>,
) -> bool {
    true
}

/// The plan of a plan memo's value, when it succeeded.
#[must_use]
pub fn ok(plan: &Option<Result<TrainingReport, Invalid>>) -> Option<&TrainingReport> {
    plan.as_ref().and_then(|r| r.as_ref().ok())
}
