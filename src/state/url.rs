//! The scenario in the URL fragment (`#s=<permalink>`, see `shardcalc_core::permalink`), so a
//! link reproduces the page and nothing is sent to a server. Read on load and on
//! `hashchange`; written with `history.replaceState` shortly after the scenario changes.

use std::time::Duration;

use leptos::prelude::*;
use shardcalc_core::error::Invalid;
use shardcalc_core::permalink;
use shardcalc_core::scenario::{Scenario, Sections};

use super::AppState;

/// The fragment key: `#s=...`.
pub const KEY: &str = "s=";

/// How long the scenario must stay unchanged before the URL is rewritten (typing "8192"
/// writes once, not four times).
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// The scenario document in the current URL, read but not validated: `None` without an
/// `#s=` fragment, `Some(Err)` when it cannot be read at all.
#[must_use]
pub fn scenario_in_url() -> Option<Result<Scenario, Invalid>> {
    let hash = web_sys::window()?.location().hash().ok()?;
    scenario_in_fragment(&hash)
}

/// The scenario document in a fragment such as `#s=1.eyJ...`, its optional sections kept as
/// text for the page to read ([`super::AppState::read`]; not validated: a link whose scenario no
/// longer validates still loads, with its problems shown; see [`apply`]).
#[must_use]
pub fn scenario_in_fragment(hash: &str) -> Option<Result<Scenario, Invalid>> {
    let payload = hash.strip_prefix('#').unwrap_or(hash).strip_prefix(KEY)?;
    Some(permalink::parse_kept(payload))
}

/// The fragment for a scenario (every section written from its field: links to a scenario
/// built whole, such as the validation page's runs).
#[must_use]
pub fn fragment(scenario: &Scenario) -> String {
    format!("#{KEY}{}", permalink::encode(scenario))
}

/// The fragment for a scenario as a page working with the optional `sections` writes it
/// (the others as the text they came in: [`super::AppState::fragment`]).
#[must_use]
pub fn fragment_with(scenario: &Scenario, sections: Sections) -> String {
    format!("#{KEY}{}", permalink::encode_with(scenario, sections))
}

/// Loads what the URL holds into `state` (on start and on `hashchange`): a valid scenario
/// replaces everything; one with problems in the form's fields loads with the problems shown
/// next to them; anything else leaves `state` as it is, with a notice saying why.
pub fn apply(state: AppState, linked: Result<Scenario, Invalid>) {
    let outcome = match linked {
        Ok(s) => crate::share::document::load(state, s),
        Err(e) => Err(e.to_string()),
    };
    match outcome {
        Ok(None) => {}
        Ok(Some(note)) => state.notice.set(Some(format!("The link's scenario is loaded, but {note}"))),
        Err(e) => state
            .notice
            .set(Some(format!("The link's scenario could not be read ({e}); the page keeps the scenario it had."))),
    }
}

/// Keeps the URL in step with `state.scenario` (debounced), and loads a scenario pasted into
/// the address bar (`hashchange`).
pub fn sync_url(state: AppState) {
    let pending = StoredValue::new_local(None::<TimeoutHandle>);
    Effect::new(move |_| {
        let target = state.shared_fragment();
        crate::panic_banner::remember_fragment(&target);
        if let Some(handle) = pending.try_update_value(Option::take).flatten() {
            handle.clear();
        }
        let handle = set_timeout_with_handle(move || replace_fragment(&target), DEBOUNCE).ok();
        pending.try_set_value(handle);
    });
    let listener = window_event_listener(leptos::ev::hashchange, move |_| match scenario_in_url() {
        // Compared by their links: the same test as the URL's, without linking a comparison of
        // every section into the page.
        Some(Ok(s)) if state.try_shared_fragment_untracked().is_none_or(|cur| cur == state.fragment(&s)) => {}
        Some(linked) => {
            apply(state, linked);
            // A refused link leaves the page as it was: so does the address bar.
            if let Some(current) = state.try_shared_fragment_untracked() {
                replace_fragment(&current);
            }
        }
        None => {}
    });
    on_cleanup(move || listener.remove());
}

/// `history.replaceState` to `target` unless the URL already has it.
fn replace_fragment(target: &str) {
    let Some(window) = web_sys::window() else { return };
    if window.location().hash().ok().as_deref() == Some(target) {
        return;
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(target));
    }
}
