//! The page's views. Each view is its own page (its own HTML file, bin and wasm; see
//! docs/size.md): a page ships the shell and one view, so adding a view never makes the
//! others bigger. Pages link to each other with the scenario in the fragment (`#s=`).
//!
//! Adding a view: a module here rendering its panel from [`crate::state::AppState`], a
//! variant of [`View`] (label, id, HTML file), a bin `src/bin/<id>.rs` calling
//! [`crate::start_page`], and `<id>.html` at the root (a copy of `index.html` naming the bin);
//! `dev.sh` builds every page listed in [`View::ALL`]'s files (`PAGES` there).
//!
//! No code may `match` a `View` to render it: that would link every view into every page.

pub mod model;
pub mod training;

use leptos::prelude::*;

use crate::state::{url, use_app_state};

/// A view of the scenario: one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The architecture: parameters, FLOPs, charts and the notebook's tables.
    Model,
    /// The training planner: mesh search, memory, step time, MFU, days and cost.
    Training,
}

impl View {
    /// Every view, in navigation order.
    pub const ALL: &'static [View] = &[View::Model, View::Training];

    /// Navigation label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            View::Model => "Model",
            View::Training => "Training",
        }
    }

    /// Stem of the element ids (`nav-model`, `panel-model`) and of the bin's name.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            View::Model => "model",
            View::Training => "training",
        }
    }

    /// The page's HTML file, relative to the site's root (so the site works from any sub-path).
    #[must_use]
    pub fn file(self) -> &'static str {
        match self {
            View::Model => "index.html",
            View::Training => "training.html",
        }
    }
}

/// The navigation in the header: one link per view, carrying the current scenario in its
/// fragment; the current page's link is marked `aria-current="page"`.
#[component]
pub fn ViewNav(
    /// The page being shown.
    current: View,
) -> impl IntoView {
    let state = use_app_state();
    // The link is rebuilt from the scenario (the URL's own fragment is written 200 ms late).
    let fragment = Memo::new(move |_| state.scenario.with(url::fragment));
    let links = View::ALL
        .iter()
        .map(|&view| {
            let href = move || format!("{}{}", view.file(), fragment.get());
            let is_current = view == current;
            view! {
                <a
                    id=format!("nav-{}", view.id())
                    href=href
                    class:selected=is_current
                    aria-current=if is_current { Some("page") } else { None }
                >
                    {view.label()}
                </a>
            }
        })
        .collect_view();
    view! {
        <nav class="views" aria-label="Views">
            <div class="view-links">{links}</div>
        </nav>
    }
}
