//! The serving view (book chapters 7 and 8): model, chip and topology, formats, workload and
//! sharding on the left; on the right the headline numbers with the term that binds each,
//! every number of the plan in one table (CSV), and the four serving charts. Computes only
//! `shardcalc_core::inference::evaluate::scenario_inference`; edits `scenario.inference` and
//! `scenario.hardware` through `AppState::try_update`, so the link always holds a valid plan.

mod charts;
mod derived;
mod dtype_inputs;
mod fields;
mod form;
mod headline;
mod inputs;
mod options_inputs;
pub mod rows;
mod sharding_inputs;
mod speculative_inputs;
mod table;

pub use derived::Derived;
pub use rows::{rows, Row};

use leptos::prelude::*;
use shardcalc_core::inference::defaults::with_serving_defaults;

use crate::state::use_app_state;

/// The two-column serving view (stacked on narrow screens). A scenario without an `inference`
/// or `hardware` section gets the book's chapter 8 workload on a TPU v5e first.
#[component]
pub fn ServingView() -> impl IntoView {
    let state = use_app_state();
    if state.scenario.with_untracked(|s| s.inference.is_none() || s.hardware.is_none()) {
        state.fill_defaults(|s| *s = with_serving_defaults(s));
    }
    let derived = Derived::new(state);
    fields::Refused::provide();
    view! {
        <div class="columns serving">
            <section class="inputs" aria-labelledby="serving-inputs-heading">
                <h2 id="serving-inputs-heading">"Inputs"</h2>
                <inputs::ServingInputs />
            </section>
            <section class="results" aria-labelledby="serving-results-heading">
                <h2 id="serving-results-heading">"Results"</h2>
                <headline::Headline derived=derived />
                <table::ResultTable derived=derived />
                <charts::ServingCharts derived=derived />
            </section>
        </div>
    }
}
