//! Every view in one page: the single-file offline build (`./dev.sh offline`, `bundle/`).
//! Add each new view here (and in `View::ALL`); a view missing here shows a note instead.
use leptos::prelude::*;
use shardcalc::single_file::{start_all, Page};
use shardcalc::views::{model::ModelView, saved::SavedView, View};

/// Every view of `View::ALL`, in navigation order.
const PAGES: &[Page] = &[
    (View::Model, || view! { <ModelView /> }.into_any()),
    (View::Saved, || view! { <SavedView /> }.into_any()),
];

fn main() {
    start_all(PAGES);
}
