//! The hardware & collectives page (`hardware.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{hardware::HardwareView, View};

fn main() {
    shardcalc::start_page(View::Hardware, || view! { <HardwareView /> }.into_any());
}
