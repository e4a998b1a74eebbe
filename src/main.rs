//! The model page (`index.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{model::ModelView, View};

fn main() {
    shardcalc::start_page(View::Model, || view! { <ModelView /> }.into_any());
}
