//! Every problem with the form in one list, so none can hide in a collapsed section.

use leptos::prelude::*;

use super::field::element_id;
use crate::dom::element_by_id;
use crate::state::use_app_state;

/// A polite live region listing each problem as `path: message`, each a link that moves the
/// focus to its field; absent when there are none.
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
                        state.errors.get().into_iter().map(|e| {
                            let id = element_id(&e.field);
                            let href = format!("#{id}");
                            // Moves the focus to the field (the URL's fragment keeps the scenario).
                            let focus = move |ev: leptos::ev::MouseEvent| {
                                ev.prevent_default();
                                if let Some(el) = element_by_id(&id) {
                                    let _ = el.focus();
                                }
                            };
                            view! { <li><a href=href on:click=focus>{e.to_string()}</a></li> }
                        }).collect_view()
                    }}
                </ul>
            </div>
        </Show>
    }
}
