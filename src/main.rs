//! The model page (`index.html`); everything lives in the lib (src/lib.rs).
use leptos::prelude::*;
use shardcalc::views::{model::ModelView, View};

fn main() {
    // The model page reads none of the optional sections: they stay the text they came in (shardcalc::state::Reads).
    shardcalc::start_page(View::Model, shardcalc::state::reads_none, || view! { <ModelView /> }.into_any());
}
