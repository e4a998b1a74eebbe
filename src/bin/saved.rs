//! The Saved page (`saved.html`): scenarios saved in this browser.
use leptos::prelude::*;
use shardcalc::views::{saved::SavedView, View};
use shardcalc_core::scenario::Scenario;

fn main() {
    // The saved page reads every section (it compares and checks them) (shardcalc::state::Reads).
    shardcalc::start_page(View::Saved, Scenario::read_all, || view! { <SavedView /> }.into_any());
}
