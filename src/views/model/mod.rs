//! The model view: pick, import or edit an architecture and a training step on the left;
//! parameters, FLOPs, charts and the MaxText notebook's tables on the right.

mod derived;
mod flop_table;
mod import;
mod inputs;
mod notebook_table;
mod param_table;
mod results;
mod seq_len;
pub mod span_note;
pub mod tables;

pub use derived::{summary, Derived};

use leptos::prelude::*;

use crate::state::use_app_state;

/// The two-column model view (stacked on narrow screens).
#[component]
pub fn ModelView() -> impl IntoView {
    let state = use_app_state();
    state.use_defaults(|s| s.clone());
    let derived = Derived::new(state);
    view! {
        <div class="columns">
            <section class="inputs" aria-labelledby="inputs-heading">
                <h2 id="inputs-heading">"Inputs"</h2>
                <crate::components::PresetPicker />
                <import::ImportConfig />
                <inputs::ModelForm />
            </section>
            <section class="results" aria-labelledby="results-heading">
                <h2 id="results-heading">"Results"</h2>
                <results::Results derived=derived />
            </section>
        </div>
    }
}
