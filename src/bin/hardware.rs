//! The hardware & collectives page (`hardware.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{hardware::HardwareView, View};
use shardcalc_core::scenario::Scenario;

fn main() {
    // The hardware page reads `collectives` and `roofline`; the other optional sections stay text (shardcalc::state::Reads).
    shardcalc::start_page(View::Hardware, Scenario::read_hardware_questions, || view! { <HardwareView /> }.into_any());
}
