//! The page: header with the view switcher, the current view, and a notice line.

use leptos::prelude::*;
use shardcalc_core::scenario::Scenario;

use crate::state::{url, AppState};
use crate::views::{View, ViewPanel, ViewSwitcher};

/// The whole page. Provides [`AppState`] to every view.
///
/// With `url_sync` (the default) the starting scenario comes from the URL fragment
/// (`#s=...`) and the fragment follows the scenario; tests mount it without, so that pages
/// mounted one after another do not share the URL.
#[component]
pub fn App(
    /// Read the scenario from the URL on start and keep the URL in step.
    #[prop(default = true)]
    url_sync: bool,
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
    let current = RwSignal::new(View::Model);
    view! {
        <header class="site-header">
            <div class="brand">
                <h1>"shardcalc"</h1>
                <p class="tagline">"Parameters, FLOPs and memory of transformers, after " <cite>"How to Scale Your Model"</cite></p>
            </div>
            <ViewSwitcher current=current />
        </header>
        <main class="page">
            {move || state.notice.get().map(|n| view! {
                <div class="notice" id="notice" role="alert">
                    <p>{n}</p>
                    <button type="button" on:click=move |_| state.notice.set(None)>"Dismiss"</button>
                </div>
            })}
            <ViewPanel current=current />
        </main>
        <footer class="site-footer">
            <p>"Everything is computed in your browser; the scenario lives in the link's fragment, which is never sent to a server."</p>
        </footer>
    }
}
