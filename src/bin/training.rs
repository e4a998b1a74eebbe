//! The training page (`training.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{training::TrainingView, View};
use shardcalc_core::scenario::Scenario;

fn main() {
    // The training page reads `training`; the other optional sections stay text (shardcalc::state::Reads).
    shardcalc::start_page(View::Training, Scenario::read_training, || view! { <TrainingView /> }.into_any());
}
