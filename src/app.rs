//! The page: header with the navigation between views, the page's view, and a notice line.

use leptos::prelude::*;
use shardcalc_core::scenario::Scenario;

use crate::state::{url, AppState};
use crate::views::{View, ViewNav};

/// The whole page around one view (its `children`). Provides [`AppState`] to the view.
///
/// With `url_sync` (the default) the starting scenario comes from the URL fragment
/// (`#s=...`) and the fragment follows the scenario; tests mount it without, so that pages
/// mounted one after another do not share the URL.
#[component]
pub fn App(
    /// Read the scenario from the URL on start and keep the URL in step.
    #[prop(default = true)]
    url_sync: bool,
    /// Which view this page is (for the navigation and the panel's id).
    #[prop(default = View::Model)]
    view: View,
    /// The view's panel.
    children: Children,
) -> impl IntoView {
    let (initial, notice) = if url_sync {
        url::initial_scenario()
    } else {
        (Scenario::default(), None)
    };
    let state = AppState::new(initial);
    if notice.is_some() {
        state.notice.set(notice);
    }
    provide_context(state);
    if url_sync {
        url::sync_url(state);
    }
    view! {
        <header class="site-header">
            <div class="brand">
                <h1>"shardcalc"</h1>
                <p class="tagline">"Parameters, FLOPs, memory, step times and serving costs of transformers, after " <cite>"How to Scale Your Model"</cite></p>
            </div>
            <ViewNav current=view />
        </header>
        <main class="page">
            {move || state.notice.get().map(|n| view! {
                <div class="notice" id="notice" role="alert">
                    <p>{n}</p>
                    <button type="button" on:click=move |_| state.notice.set(None)>"Dismiss"</button>
                </div>
            })}
            <section class="view" id=format!("panel-{}", view.id()) aria-label=view.label()>
                {children()}
            </section>
        </main>
        <footer class="site-footer">
            <p>"Everything is computed in your browser; the scenario lives in the link's fragment, which is never sent to a server."</p>
        </footer>
    }
}
