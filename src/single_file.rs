//! The all-views page of the single-file offline build (`./dev.sh offline`, `bundle/`): one
//! wasm holding every view, switched in the page instead of loading another HTML file, so
//! that one self-contained `shardcalc.html` works opened from disk. The hosted site keeps one
//! page per view (docs/size.md); only this build pays for all of them at once.
//!
//! Views are addressed as `?view=<id>#s=...` in the same file; the navigation switches them
//! without reloading (keeping the form's draft), other links (the Saved page's "Open in")
//! load the file again with that view.

use leptos::prelude::*;
use shardcalc_core::scenario::Sections;

use crate::views::View;

/// A view and how to render it.
pub type Page = (View, fn() -> AnyView);

/// Provided as context when every view is in one page: which one is shown, and the renderers.
#[derive(Clone, Copy)]
pub struct InPageNav {
    /// The view shown.
    pub current: RwSignal<View>,
    /// Every view this build holds.
    pub pages: &'static [Page],
}

impl InPageNav {
    /// The link to `view` carrying `fragment` (`#s=...`).
    #[must_use]
    pub fn href(view: View, fragment: &str) -> String {
        format!("?view={}{fragment}", view.id())
    }
}

/// The link to `view` with the scenario `fragment`: `<page>.html#s=...` on the hosted site,
/// `?view=<id>#s=...` in the single-file build.
#[must_use]
pub fn view_href(view: View, fragment: &str) -> String {
    match use_context::<InPageNav>() {
        Some(_) => InPageNav::href(view, fragment),
        None => format!("{}{fragment}", view.file()),
    }
}

/// The view named by `?view=` in the URL, if this build has it.
fn view_in_url(pages: &[Page]) -> Option<View> {
    let search = web_sys::window()?.location().search().ok()?;
    let id = search.trim_start_matches('?').split('&').find_map(|p| p.strip_prefix("view="))?;
    pages.iter().map(|(v, _)| *v).find(|v| v.id() == id)
}

/// Mounts every view of `pages` on `<body>`, starting with the one in `?view=` (else the
/// first), each shown when its navigation link is clicked.
pub fn start_all(pages: &'static [Page]) {
    crate::prepare_page();
    let first = view_in_url(pages).or_else(|| pages.first().map(|(v, _)| *v)).unwrap_or(View::Model);
    leptos::mount::mount_to_body(move || {
        let nav = InPageNav { current: RwSignal::new(first), pages };
        provide_context(nav);
        // Every view in one page: every section is read.
        view! { <crate::App view=first sections=Sections::ALL><CurrentView /></crate::App> }
    });
}

/// The view [`InPageNav::current`] names, or a note when this build lacks it.
#[component]
fn CurrentView() -> impl IntoView {
    let Some(nav) = use_context::<InPageNav>() else {
        return ().into_any();
    };
    (move || {
        let view = nav.current.get();
        match nav.pages.iter().find(|(v, _)| *v == view) {
            Some((_, render)) => render(),
            None => view! {
                <p class="field-error" id="missing-view">
                    {format!("The {} view is not in this single-file build (src/bin/all.rs lists the views it holds).", view.label())}
                </p>
            }
            .into_any(),
        }
    })
    .into_any()
}
