//! The model page (`index.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{model::ModelView, View};
use shardcalc_core::scenario::Sections;

fn main() {
    // Works with none of the optional sections: they stay the text they came in.
    shardcalc::start_page(View::Model, Sections::NONE, || view! { <ModelView /> }.into_any());
}
