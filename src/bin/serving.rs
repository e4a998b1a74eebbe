//! The serving page (`serving.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{serving::ServingView, View};
use shardcalc_core::scenario::Sections;

fn main() {
    // Works with the optional `inference` section; the others stay text.
    shardcalc::start_page(View::Serving, Sections::INFERENCE, || view! { <ServingView /> }.into_any());
}
