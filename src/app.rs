//! The page: header with the navigation between views and "Save & share", the page's view,
//! and a notice line; or, in embed mode (`?embed=<name>`, see [`crate::embed`]), only the
//! named chart or table.

use leptos::prelude::*;
use shardcalc_core::scenario::{Scenario, Sections};

use crate::embed::{Embed, EmbedMissing};
use crate::share::ShareBar;
use crate::state::{url, AppState};
use crate::views::{View, ViewNav};

/// The whole page around one view (its `children`). Provides [`AppState`] to the view.
///
/// With `url_sync` (the default) the starting scenario comes from the URL fragment
/// (`#s=...`) and the fragment follows the scenario; tests mount it without, so that pages
/// mounted one after another do not share the URL.
#[component]
pub fn App(
    /// Read the scenario (and the embed and theme settings) from the URL on start and keep
    /// the URL in step.
    #[prop(default = true)]
    url_sync: bool,
    /// Which view this page is (for the navigation and the panel's id).
    #[prop(default = View::Model)]
    view: View,
    /// The optional sections the page works with (it reads, checks and writes them; the
    /// others stay the text they came in: `AppState`'s `sections`). No default: a default
    /// would link every section's code into every page.
    sections: Sections,
    /// The view's panel.
    children: Children,
) -> impl IntoView {
    let linked = if url_sync { url::scenario_in_url() } else { None };
    let linked = linked.map(|l| l.and_then(|mut s| s.read(sections).map(|()| s)));
    let state = match linked {
        Some(Ok(s)) if s.validate_with(sections).is_ok() => AppState::new(s, sections),
        Some(linked) => {
            let state = AppState::new(Scenario::default(), sections);
            url::apply(state, linked);
            state
        }
        None => AppState::new(Scenario::default(), sections),
    };
    provide_context(state);
    let embed = if url_sync { Embed::from_location() } else { Embed::none() };
    embed.apply_theme();
    provide_context(embed);
    if url_sync {
        url::sync_url(state);
    }
    let notice = move || {
        state.notice.get().map(|n| {
            view! {
                <div class="notice" id="notice" role="alert">
                    <p>{n}</p>
                    <button type="button" on:click=move |_| state.notice.set(None)>"Dismiss"</button>
                </div>
            }
        })
    };
    // In the single-file build the panel follows the view shown (crate::single_file).
    let in_page = use_context::<crate::single_file::InPageNav>();
    let current = move || in_page.map_or(view, |n| n.current.get());
    let panel_id = move || format!("panel-{}", current().id());
    let panel_label = move || current().label();
    // The view renders first, so that its charts and tables have registered their embed
    // names before the page decides whether the embedded one exists.
    let panel = children();
    let embedded = embed.is_embed();
    view! {
        {(!embedded).then(|| view! {
            <header class="site-header">
                <div class="brand">
                    <h1>"shardcalc"</h1>
                    <p class="tagline">"Parameters, FLOPs, memory, step times and serving costs of transformers, after " <cite>"How to Scale Your Model"</cite></p>
                </div>
                <ViewNav current=view />
                <ShareBar />
            </header>
        })}
        <main class=if embedded { "embed-page" } else { "page" } id=embedded.then_some("embed")>
            {notice}
            {embedded.then(|| view! { <EmbedMissing /> })}
            <section class="view" id=panel_id aria-label=panel_label>
                {panel}
            </section>
        </main>
        {(!embedded).then(|| view! {
            <footer class="site-footer">
                <p>"Everything is computed in your browser; the scenario lives in the link's fragment, which is never sent to a server."</p>
            </footer>
        })}
    }
}
