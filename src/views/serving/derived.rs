//! What the serving view computes from the scenario: the plan and its bands as one memo (every
//! edit; `shardcalc_core::view::serving::plan`), and the search under targets, run in the
//! background worker (`crate::worker_client`) whenever what it reads changes (its key,
//! `shardcalc_core::view::serving::search_key`: not the batch, the topology or speculative
//! decoding). `shardcalc eval --view serving` prints both.
//!
//! Why the worker: the search evaluates thousands of configurations (tens of milliseconds
//! here), too long for the 16 ms an edit may take to repaint the page, and its code (~60 KB of
//! wasm) would push the page past its size budget. The page keeps what it showed until the
//! worker answers (marked as searching), and ignores answers to older keys.

use leptos::prelude::*;
use shardcalc_core::error::Invalid;
use shardcalc_core::inference::search::SearchReport;
use shardcalc_core::inference::InferenceReport;
use shardcalc_core::validation::bands::ServingBands;
use shardcalc_core::validation::PredictionMode;
use shardcalc_core::view::serving::{plan, search_key, ServingEval};

use crate::state::AppState;
use crate::worker_client::{self, Reply, Request};

/// The search as the page knows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchState {
    /// The last answer: the report, or why there is none (one message per problem).
    pub last: Option<Result<SearchReport, Vec<String>>>,
    /// A search of the current key is under way (the last answer is an older key's).
    pub running: bool,
    /// Milliseconds the last search took in the worker.
    pub worker_ms: f64,
    /// Milliseconds from the edit that asked for it to its answer here.
    pub round_trip_ms: f64,
    /// Answers received (the page's element `#serving-search-stats` carries it as `data-seq`).
    pub answers: u32,
}

/// Memos over the scenario the page shows.
#[derive(Clone, Copy)]
pub struct Derived {
    /// The page's state.
    pub state: AppState,
    /// The serving plan and its bands, or an error naming the field that stops it.
    pub report: Memo<Result<ServingEval, Invalid>>,
    /// The search: `None` while the scenario asks for none.
    pub search: RwSignal<Option<SearchState>>,
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Asks the worker to search the scenario `link` (a search key's permalink); its answer lands
/// in `search` unless `asked` has moved on.
fn ask(link: String, search: RwSignal<Option<SearchState>>, asked: StoredValue<u32>) {
    let n = asked.get_value().wrapping_add(1);
    asked.set_value(n);
    let sent = now();
    search.update(|s| s.get_or_insert_with(SearchState::default).running = true);
    worker_client::call(Request::Search { link }, move |reply| {
        if asked.try_get_value() != Some(n) {
            return;
        }
        let (last, worker_ms) = match reply {
            Reply::Searched { ms, report } => (
                shardcalc_core::json::from_str::<SearchReport>(&report)
                    .map_err(|e| vec![format!("The search's answer could not be read: {e}")]),
                ms,
            ),
            Reply::Failed(messages) => (Err(messages), 0.0),
            _ => (Err(vec!["The background worker answered something else.".into()]), 0.0),
        };
        search.try_update(|s| {
            let s = s.get_or_insert_with(SearchState::default);
            s.last = Some(last);
            s.running = false;
            s.worker_ms = worker_ms;
            s.round_trip_ms = now() - sent;
            s.answers = s.answers.wrapping_add(1);
        });
    });
}

impl Derived {
    /// Memos over `state.shown`.
    #[must_use]
    pub fn new(state: AppState) -> Self {
        // Always "changed": the scenario only changes when an input does, and comparing two
        // whole reports (every curve) would cost more than it saves.
        let report = Memo::new_with_compare(move |_| state.shown.with(plan), |_, _| true);
        // Compared: equal keys (an edit the search does not read) search no more. Compared as
        // their permalinks, which the worker reads anyway: comparing and cloning whole
        // scenarios links their equality and copies into the page (3.3 KB gzip measured).
        // Written as the page writes links (`AppState::permalink`): `permalink::encode` would
        // link every section's serializer (the key has no other section anyway).
        let key = Memo::new(move |_| state.shown.with(|s| search_key(s).map(|k| state.permalink(&k))));
        let search = RwSignal::new(None::<SearchState>);
        let asked = StoredValue::new(0_u32);
        Effect::new(move |_| {
            key.with(|k| match k {
                Some(link) => ask(link.clone(), search, asked),
                None => {
                    asked.update_value(|n| *n = n.wrapping_add(1));
                    search.set(None);
                }
            });
        });
        Self { state, report, search }
    }

    /// Applies `f` to the plan when there is one.
    pub fn with_report<T>(&self, f: impl FnOnce(&InferenceReport) -> T) -> Option<T> {
        self.report.with(|r| r.as_ref().ok().map(|e| f(&e.plan)))
    }

    /// Applies `f` to the last search report when there is one.
    pub fn with_search<T>(&self, f: impl FnOnce(&SearchReport) -> T) -> Option<T> {
        self.search.with(|s| s.as_ref().and_then(|s| s.last.as_ref()).and_then(|r| r.as_ref().ok()).map(f))
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

    /// The scenario's latency targets.
    #[must_use]
    pub fn targets(&self) -> shardcalc_core::inference::targets::ServingTargets {
        self.state.shown.with(|s| s.inference.as_ref().map(|i| i.targets).unwrap_or_default())
    }
}
