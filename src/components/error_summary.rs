//! Every problem with the form in one list, so none can hide in a collapsed section.

use leptos::prelude::*;

use crate::state::use_app_state;

/// A polite live region listing each problem as `path: message`; hidden when there are none.
#[component]
pub fn ErrorSummary() -> impl IntoView {
    let state = use_app_state();
    view! {
        <Show when=move || state.is_stale()>
            <div class="error-summary" role="status" aria-live="polite">
                <p>
                    {move || {
                        let n = state.errors.with(Vec::len);
                        if n == 1 {
                            "1 problem with the inputs; the results show the last valid inputs:".to_string()
                        } else {
                            format!("{n} problems with the inputs; the results show the last valid inputs:")
                        }
                    }}
                </p>
                <ul>
                    {move || {
                        state.errors.get().into_iter().map(|e| view! { <li>{e.to_string()}</li> }).collect_view()
                    }}
                </ul>
            </div>
        </Show>
    }
}
