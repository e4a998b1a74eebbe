//! What the training view computes from the scenario, as memos: the mesh search runs
//! only when something it depends on changes (not the token budget, the price or the
//! explored mesh), the explored mesh is planned alone, and the budget is applied to the
//! search's result without searching again. Every plan is in the scenario's prediction
//! mode (`conventions.prediction`: the roofline, or its efficiencies scaled by the bundled
//! calibration), and the shown plan's headline numbers get their bands
//! ([`shardcalc_core::validation::bands`]: seven plans of the shown mesh, no search).

use leptos::prelude::*;
use shardcalc_charts::training::{explore_section, search_section};
use shardcalc_core::error::{FieldError, Invalid};
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::model::ModelConfig;
use shardcalc_core::training::budget::apply_budget;
use shardcalc_core::training::section::TrainingSection;
use shardcalc_core::training::{plan, TrainingReport};
use shardcalc_core::validation::bands::{training_bands_of, TrainingBands};
use shardcalc_core::validation::calibration::section_for;
use shardcalc_core::validation::PredictionMode;

use crate::state::AppState;

/// A plan, once asked for: `None` while the scenario has no `training` section.
pub type PlanMemo = Memo<Option<Result<TrainingReport, Invalid>>>;

/// Memos over the last valid scenario.
#[derive(Clone, Copy)]
pub struct Derived {
    /// The page's state (the scenario the memos read, and what edits write).
    pub state: AppState,
    /// The resolved model.
    pub model: Memo<Option<ModelConfig>>,
    /// Chip and topology, resolved.
    pub hw: Memo<Result<Option<ResolvedHardware>, Invalid>>,
    /// The FLOP convention of MFU.
    pub convention: Memo<FlopConvention>,
    /// Ideal roofline or calibrated (`conventions.prediction`).
    pub prediction: Memo<PredictionMode>,
    /// The `training` section.
    pub section: Memo<Option<TrainingSection>>,
    /// The search's plan without the budget ([`search_section`] with budget and price
    /// cleared: what the search depends on).
    pub searched: PlanMemo,
    /// The milliseconds the last search took (`performance.now()`; not tracked: read when
    /// the shown plan changes).
    pub search_ms: StoredValue<f64>,
    /// The search's best with the budget and price applied.
    pub best: PlanMemo,
    /// The last best plan that succeeded: what the results show while the inputs cannot
    /// be planned.
    /// (Only `Some(Ok(_))` or `None`: the memo type of the other plans, so the page has one
    /// memo type fewer; read through [`ok`] or [`Derived::with_shown`].)
    pub shown: PlanMemo,
    /// The explored mesh's plan (`training.mesh`), when one is explored.
    pub explored: PlanMemo,
    /// The bands of the shown plan's headline numbers: `None` before a plan, an error
    /// when the current inputs cannot plan the shown mesh.
    pub bands: Memo<Option<Result<TrainingBands, Invalid>>>,
    /// Every planning problem of `best` and `explored`, without repeats
    /// ([`super::conflicts::plan_errors`]): shown under the fields and in the summary.
    pub conflicts: Memo<Vec<FieldError>>,
    /// Bumped when a change moves other fields' values (the batch unit, the schedule,
    /// the remat policy, the explored mesh set from the best or a ranked row), so the form's
    /// uncontrolled inputs rebuild.
    pub form_generation: RwSignal<u64>,
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

impl Derived {
    /// Memos over `state.scenario`.
    #[must_use]
    pub fn new(state: AppState) -> Self {
        let model = Memo::new(move |_| state.scenario.with(|s| s.model.resolve().ok()));
        // Resolved on every scenario change (a catalog look-up, microseconds); the memo's
        // comparison keeps what depends on it from running again.
        let hw = Memo::new(move |_| {
            state.scenario.with(|s| shardcalc_core::hardware::query::resolve(s.hardware.as_ref(), &[], None))
        });
        let convention = Memo::new(move |_| state.scenario.with(|s| s.conventions.flops));
        let prediction = Memo::new(move |_| state.scenario.with(|s| s.conventions.prediction));
        let section = Memo::new(move |_| state.scenario.with(|s| s.training.clone()));
        let search_key = Memo::new(move |_| {
            section.with(|s| {
                s.as_ref().map(|s| {
                    let mut k = search_section(s);
                    k.token_budget = None;
                    k.price_per_chip_hour_usd = None;
                    k
                })
            })
        });
        let search_ms = StoredValue::new(0.0);
        let searched = Memo::new(move |_| {
            let key = search_key.get()?;
            let started = now();
            let result = run(model, hw, convention, prediction, &key);
            search_ms.set_value(now() - started);
            Some(result)
        });
        let best = Memo::new(move |_| {
            let mut result = searched.get()?;
            let (budget, price, peak) = section.with(|s| {
                let chip = hw.with(|h| h.as_ref().ok().and_then(|h| h.as_ref().map(|h| h.chip.clone())));
                match (s, chip) {
                    (Some(s), Some(c)) => (s.token_budget, s.price(&c), s.chip_peak(&c)),
                    _ => (None, None, 0.0),
                }
            });
            if let Ok(r) = &mut result {
                apply_budget(r, budget, price, peak);
            }
            Some(result)
        });
        let shown = Memo::new(move |prev: Option<&Option<Result<TrainingReport, Invalid>>>| {
            best.with(|b| match b {
                Some(Ok(r)) => Some(Ok(r.clone())),
                _ => prev.cloned().flatten(),
            })
        });
        let explored_section = Memo::new(move |_| section.with(|s| s.as_ref().and_then(explore_section)));
        let explored = Memo::new(move |_| {
            let s = explored_section.get()?;
            Some(run(model, hw, convention, prediction, &s))
        });
        let bands = Memo::new(move |_| {
            let (flops, mode) = (convention.get(), prediction.get());
            shown.with(|r| {
                let r = ok(r)?;
                Some(section.with(|sec| {
                    let sec = sec.as_ref().ok_or_else(|| Invalid::one("training", "is required for a band"))?;
                    model.with(|m| {
                        let m = m.as_ref().ok_or_else(|| Invalid::one("model", "could not be resolved"))?;
                        hw.with(|h| match h {
                            Ok(Some(h)) => training_bands_of(m, h, sec, flops, mode, r),
                            Ok(None) => Err(Invalid::one("hardware", "is required by `training`")),
                            Err(e) => Err(e.clone()),
                        })
                    })
                }))
            })
        });
        let conflicts = Memo::new(move |_| super::conflicts::plan_errors(best, explored));
        Self {
            state,
            model,
            hw,
            convention,
            prediction,
            section,
            searched,
            search_ms,
            best,
            shown,
            explored,
            bands,
            conflicts,
            form_generation: RwSignal::new(0),
        }
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

/// The plan of a plan memo's value, when it succeeded.
#[must_use]
pub fn ok(plan: &Option<Result<TrainingReport, Invalid>>) -> Option<&TrainingReport> {
    plan.as_ref().and_then(|r| r.as_ref().ok())
}

/// Text computed from the view's memos by `f`, as a closure for `inner_html`, text nodes
/// and `Signal::derive`: every such text of the view has this one closure type, so its
/// rendering and reactive code is compiled once, not once per text (docs/size.md,
/// "Training page, session 13").
pub fn text_of(derived: Derived, f: fn(&Derived) -> String) -> impl Fn() -> String + Copy + Send + Sync + 'static {
    move || f(&derived)
}

/// Plans `section` on the scenario's model and hardware, in the prediction mode (as
/// `training::plan::for_scenario` does).
fn run(
    model: Memo<Option<ModelConfig>>,
    hw: Memo<Result<Option<ResolvedHardware>, Invalid>>,
    convention: Memo<FlopConvention>,
    prediction: Memo<PredictionMode>,
    section: &TrainingSection,
) -> Result<TrainingReport, Invalid> {
    let (conv, mode) = (convention.get(), prediction.get());
    model.with(|m| {
        let m = m.as_ref().ok_or_else(|| Invalid::one("model", "could not be resolved"))?;
        hw.with(|h| match h {
            Ok(Some(h)) => plan(m, h, &section_for(section, &h.chip, mode), conv),
            Ok(None) => Err(Invalid::one("hardware", "is required by `training` (a chip and a topology)")),
            Err(e) => Err(e.clone()),
        })
    })
}
