//! The Saved page (`saved.html`): scenarios saved in this browser.
use leptos::prelude::*;
use shardcalc::views::{saved::SavedView, View};
use shardcalc_core::scenario::Sections;

fn main() {
    // Works with every optional section (it compares and checks them).
    shardcalc::start_page(View::Saved, Sections::ALL, || view! { <SavedView /> }.into_any());
}
