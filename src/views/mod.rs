//! The page's views. Each is a sibling module rendering one tab's panel from the shared
//! [`crate::state::AppState`]; adding a view ("Hardware & collectives", "Training",
//! "Serving") means adding a module here and a variant to [`View`], nothing else.

pub mod model;

use leptos::prelude::*;

/// A view of the scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The architecture: parameters, FLOPs, charts and the notebook's tables.
    Model,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: &'static [View] = &[View::Model];

    /// Tab label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            View::Model => "Model",
        }
    }

    /// Stem of the tab's and panel's element ids.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            View::Model => "model",
        }
    }

    /// The view's panel content.
    #[must_use]
    pub fn render(self) -> AnyView {
        match self {
            View::Model => view! { <model::ModelView /> }.into_any(),
        }
    }
}

/// The tab list in the header: one tab per existing view (arrow keys move between tabs).
#[component]
pub fn ViewSwitcher(
    /// The current view; clicking a tab sets it.
    current: RwSignal<View>,
) -> impl IntoView {
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let step: isize = match ev.key().as_str() {
            "ArrowRight" => 1,
            "ArrowLeft" => -1,
            _ => return,
        };
        let n = View::ALL.len() as isize;
        let at = View::ALL.iter().position(|v| *v == current.get_untracked()).unwrap_or(0) as isize;
        let next = (at + step).rem_euclid(n.max(1));
        if let Some(view) = View::ALL.get(next as usize) {
            current.set(*view);
            ev.prevent_default();
            if let Some(tab) = crate::dom::element_by_id(&format!("tab-{}", view.id())) {
                let _ = tab.focus();
            }
        }
    };
    let tabs = View::ALL
        .iter()
        .map(|&view| {
            let selected = move || current.get() == view;
            view! {
                <button
                    type="button"
                    role="tab"
                    id=format!("tab-{}", view.id())
                    aria-controls=format!("panel-{}", view.id())
                    aria-selected=move || if selected() { "true" } else { "false" }
                    tabindex=move || if selected() { "0" } else { "-1" }
                    class:selected=selected
                    on:click=move |_| current.set(view)
                >
                    {view.label()}
                </button>
            }
        })
        .collect_view();
    view! {
        <nav class="views" aria-label="Views">
            <div role="tablist" aria-label="Views" on:keydown=on_key>{tabs}</div>
        </nav>
    }
}

/// The current view's panel.
#[component]
pub fn ViewPanel(
    /// Which view to show.
    current: RwSignal<View>,
) -> impl IntoView {
    move || {
        let view = current.get();
        view! {
            <section
                class="view"
                role="tabpanel"
                id=format!("panel-{}", view.id())
                aria-labelledby=format!("tab-{}", view.id())
            >
                {view.render()}
            </section>
        }
    }
}
