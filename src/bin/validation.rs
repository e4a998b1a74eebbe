//! The validation page (`validation.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{validation::ValidationView, View};

fn main() {
    // The validation page reads none of the optional sections: they stay the text they came in (shardcalc::state::Reads).
    shardcalc::start_page(View::Validation, shardcalc::state::reads_none, || view! { <ValidationView /> }.into_any());
}
