//! The Saved page (`saved.html`): scenarios saved in this browser.
use leptos::prelude::*;
use shardcalc::views::{saved::SavedView, View};

fn main() {
    shardcalc::start_page(View::Saved, || view! { <SavedView /> }.into_any());
}
