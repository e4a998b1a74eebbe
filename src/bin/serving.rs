//! The serving page (`serving.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{serving::ServingView, View};
use shardcalc_core::scenario::Scenario;

fn main() {
    // The serving page reads `inference`; the other optional sections stay text (shardcalc::state::Reads).
    shardcalc::start_page(View::Serving, Scenario::read_inference, || view! { <ServingView /> }.into_any());
}
