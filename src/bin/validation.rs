//! The validation page (`validation.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{validation::ValidationView, View};

fn main() {
    shardcalc::start_page(View::Validation, || view! { <ValidationView /> }.into_any());
}
