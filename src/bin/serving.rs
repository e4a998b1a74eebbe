//! The serving page (`serving.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{serving::ServingView, View};

fn main() {
    shardcalc::start_page(View::Serving, || view! { <ServingView /> }.into_any());
}
