//! The training page (`training.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{training::TrainingView, View};
use shardcalc_core::scenario::Sections;

fn main() {
    // Works with the optional `training` section; the others stay text.
    shardcalc::start_page(View::Training, Sections::TRAINING, || view! { <TrainingView /> }.into_any());
}
