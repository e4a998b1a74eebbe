//! The hardware & collectives page (`hardware.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{hardware::HardwareView, View};
use shardcalc_core::scenario::Sections;

fn main() {
    // Works with the optional `collectives` and `roofline`; the others stay text.
    shardcalc::start_page(View::Hardware, Sections::HARDWARE_QUESTIONS, || view! { <HardwareView /> }.into_any());
}
