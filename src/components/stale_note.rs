//! The note above a page's results while the form has problems: the results shown are
//! for the last valid inputs (`#stale-note`).

use leptos::prelude::*;

use crate::state::use_app_state;

/// Shown while the app state is stale (an input does not read).
#[component]
pub fn StaleNote() -> impl IntoView {
    let state = use_app_state();
    view! {
        <Show when=move || state.is_stale()>
            <p class="stale" id="stale-note" role="status">
                "These results are for the last valid inputs: fix the problems marked in the form to update them."
            </p>
        </Show>
    }
}
