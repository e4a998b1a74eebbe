//! Every view in one page: the single-file offline build (`./dev.sh offline`, `bundle/`).
//! Add each new view here (and in `View::ALL`); a view missing here shows a note instead.
use leptos::prelude::*;
use shardcalc::single_file::{start_all, Page};
use shardcalc::views::{
    hardware::HardwareView, model::ModelView, saved::SavedView, serving::ServingView, training::TrainingView,
    validation::ValidationView, View,
};

/// Every view of `View::ALL`, in navigation order.
const PAGES: &[Page] = &[
    (View::Model, || view! { <ModelView /> }.into_any()),
    (View::Hardware, || view! { <HardwareView /> }.into_any()),
    (View::Training, || view! { <TrainingView /> }.into_any()),
    (View::Serving, || view! { <ServingView /> }.into_any()),
    (View::Validation, || view! { <ValidationView /> }.into_any()),
    (View::Saved, || view! { <SavedView /> }.into_any()),
];

fn main() {
    // A file opened from disk cannot start a worker: imports and SVG downloads are answered
    // on the page's thread (this build links everything anyway).
    shardcalc::worker_client::answer_locally(shardcalc::worker_handler::answer);
    start_all(PAGES);
}
