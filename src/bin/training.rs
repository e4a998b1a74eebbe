//! The training page (`training.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{training::TrainingView, View};

fn main() {
    shardcalc::start_page(View::Training, || view! { <TrainingView /> }.into_any());
}
