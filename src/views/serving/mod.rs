//! The serving view (book chapters 7 and 8): model, chip and topology, workload, traffic and
//! targets, formats, sharding, prefill and the disaggregated pools, and the search on the
//! left; on the right the headline numbers with the term that binds each (and, at a request
//! rate, the co-located and disaggregated deployments with queueing), the search under
//! targets (its chart, ranked table and Pareto front, each row openable), every number of the
//! plan in one table (CSV), and the serving charts. Everything it
//! shows is `shardcalc_core::view::serving`'s (`shardcalc eval --view serving` prints the
//! same); every input is a field of `shardcalc_core::field::serving` (add a control there and
//! put it in a group; see docs/architecture.md).

mod charts;
mod deployments;
mod derived;
mod headline;
mod inputs;
mod optional_cards;
pub mod rows;
mod search;
mod table;
mod traffic;

pub use derived::Derived;
pub use rows::{rows, Row};

use leptos::prelude::*;
use shardcalc_core::view::serving::with_defaults;

use crate::state::use_app_state;

/// The two-column serving view (stacked on narrow screens). A scenario without an `inference`
/// or `hardware` section gets the book's chapter 8 workload on a TPU v5e first.
#[component]
pub fn ServingView() -> impl IntoView {
    let state = use_app_state();
    state.use_defaults(with_defaults);
    let derived = Derived::new(state);
    view! {
        <div class="columns serving">
            <section class="inputs" aria-labelledby="serving-inputs-heading">
                <h2 id="serving-inputs-heading">"Inputs"</h2>
                <inputs::ServingInputs />
            </section>
            <section class="results" aria-labelledby="serving-results-heading">
                <h2 id="serving-results-heading">"Results"</h2>
                <headline::Headline derived=derived />
                <optional_cards::QueueingNote derived=derived />
                <search::SearchResults derived=derived />
                <table::ResultTable derived=derived />
                <charts::ServingCharts derived=derived />
            </section>
        </div>
    }
}
