//! The validation page (`validation.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{validation::ValidationView, View};
use shardcalc_core::scenario::Sections;

fn main() {
    // Works with none of the optional sections: they stay the text they came in.
    shardcalc::start_page(View::Validation, Sections::NONE, || view! { <ValidationView /> }.into_any());
}
