//! The page's views. Each view is its own page (its own HTML file, bin and wasm; see
//! docs/size.md): a page ships the shell and one view, so adding a view never makes the
//! others bigger. Pages link to each other with the scenario in the fragment (`#s=`).
//!
//! Adding a view: a module here rendering its panel from [`crate::state::AppState`], a
//! variant of [`View`] (label, id, HTML file), a bin `src/bin/<id>.rs` calling
//! [`crate::start_page`], a line in `scripts/build-pages.sh`'s `PAGES` (file, bin, title: the
//! page is `pages/template.html` filled in), a line in `src/bin/all.rs` (the single-file
//! offline build, which holds every view), and an evaluator in `shardcalc_core::view`.
//!
//! No code may `match` a `View` to render it: that would link every view into every page.

pub mod hardware;
pub mod model;
pub mod saved;
pub mod serving;
pub mod training;
pub mod validation;

use leptos::prelude::*;

use crate::state::use_app_state;

/// A view of the scenario: one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The architecture: parameters, FLOPs, charts and the notebook's tables.
    Model,
    /// Chips, topologies, rooflines and collectives (book chapters 1-3).
    Hardware,
    /// The training planner: mesh search, memory, step time, MFU, days and cost.
    Training,
    /// Serving: KV caches, decode and prefill, memory, throughput, cost, disaggregation.
    Serving,
    /// Predicted vs measured: published runs, the calibration, the errors.
    Validation,
    /// Scenarios saved in this browser: list, rename, delete, compare (always last).
    Saved,
}

impl View {
    /// Every view, in navigation order.
    pub const ALL: &'static [View] =
        &[View::Model, View::Hardware, View::Training, View::Serving, View::Validation, View::Saved];

    /// Navigation label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            View::Model => "Model",
            View::Hardware => "Hardware & collectives",
            View::Training => "Training",
            View::Serving => "Serving",
            View::Validation => "Validation",
            View::Saved => "Saved",
        }
    }

    /// Stem of the element ids (`nav-model`, `panel-model`) and of the bin's name.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            View::Model => "model",
            View::Hardware => "hardware",
            View::Training => "training",
            View::Serving => "serving",
            View::Validation => "validation",
            View::Saved => "saved",
        }
    }

    /// The page's HTML file, relative to the site's root (so the site works from any sub-path).
    #[must_use]
    pub fn file(self) -> &'static str {
        match self {
            View::Model => "index.html",
            View::Hardware => "hardware.html",
            View::Training => "training.html",
            View::Serving => "serving.html",
            View::Validation => "validation.html",
            View::Saved => "saved.html",
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
    let fragment = state.shared_fragment_memo();
    // In the single-file build every view is in this page: links switch in place.
    let in_page = use_context::<crate::single_file::InPageNav>();
    let links = View::ALL
        .iter()
        .map(|&view| {
            let href = Signal::derive(move || match in_page {
                Some(_) => crate::single_file::InPageNav::href(view, &fragment.get()),
                None => format!("{}{}", view.file(), fragment.get()),
            });
            let is_current = move || in_page.map_or(view == current, |n| n.current.get() == view);
            let on_click = move |ev: leptos::ev::MouseEvent| {
                let Some(nav) = in_page else { return };
                ev.prevent_default();
                state.leave_view();
                nav.current.set(view);
                if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
                    let _ =
                        history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&href.get_untracked()));
                }
            };
            view! {
                <a
                    id=format!("nav-{}", view.id())
                    href=href
                    class:selected=is_current
                    aria-current=move || is_current().then_some("page")
                    on:click=on_click
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
