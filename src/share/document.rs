//! The scenario as a document: downloaded as JSON, read back from a file (or from a link
//! pasted into one), and loaded into the page, keeping and showing whatever does not validate
//! instead of dropping it.

use leptos::prelude::*;
use shardcalc_core::error::Invalid;
use shardcalc_core::permalink;
use shardcalc_core::scenario::{Scenario, Sections, MAX_SCENARIO_BYTES};

use crate::dom::download_text;
use crate::state::AppState;

/// File name of a downloaded scenario.
pub const FILE_NAME: &str = "shardcalc-scenario.json";

/// The scenario as the JSON a file holds (pretty-printed, the `docs/schema` document), as a
/// page working with the optional `sections` writes it (the others as they came).
#[must_use]
pub fn to_json(s: &Scenario, sections: Sections) -> String {
    // Indented by `pretty_json`, not `to_string_pretty`, which costs the page a second copy of
    // every serializer.
    let mut text = shardcalc_core::pretty_json::pretty(&s.to_json_with(sections));
    text.push('\n');
    text
}

/// Offers the scenario as `shardcalc-scenario.json`.
///
/// # Errors
/// What the browser reports.
pub fn download(s: &Scenario, sections: Sections) -> Result<(), String> {
    download_text(FILE_NAME, "application/json", &to_json(s, sections)).map_err(|e| format!("{e:?}"))
}

/// Reads a file's text: a scenario document, or a permalink or whole link (`…#s=1.…`), its
/// optional sections kept as text ([`load`] reads those the page shows).
///
/// # Errors
/// What is wrong, naming the key or position (`scenario: unknown field `x` at line 3 column
/// 5`), or the size limit.
pub fn read_text(text: &str) -> Result<Scenario, Invalid> {
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(Invalid::one(
            "scenario",
            format!("is {} bytes; the limit is {MAX_SCENARIO_BYTES} bytes", text.len()),
        ));
    }
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        Scenario::from_json_kept(text)
    } else {
        permalink::parse_kept(permalink::find_in(text))
    }
}

/// Whether a problem is in a part the model form shows next to its field (model, workload,
/// conventions); problems elsewhere stop a scenario from loading.
fn in_the_form(field: &str) -> bool {
    ["model", "workload", "conventions"].iter().any(|p| field == *p || field.starts_with(&format!("{p}.")))
}

/// Loads a scenario read from a file, a link or storage, with the sections the page shows
/// read ([`AppState::read`]; one that does not read is refused). A valid one replaces everything.
/// One whose only problems are in the model, workload or conventions is loaded too: the form
/// shows it with its problems next to their fields, the results keep the last valid inputs,
/// and its other sections wait (over the current model) until the form is fixed. Anything
/// else is refused, naming every problem, and nothing changes.
///
/// Returns a note for the user when the scenario loaded with problems.
///
/// # Errors
/// The problems, one `field: message` each.
pub fn load(state: AppState, scenario: Scenario) -> Result<Option<String>, String> {
    let scenario = state.read(scenario).map_err(|e| e.to_string())?;
    let problems = match state.check(&scenario) {
        Ok(_) => {
            state.load(scenario).map_err(|e| e.to_string())?;
            return Ok(None);
        }
        Err(e) => e,
    };
    // The form can show problems only of a model it can hold: an unknown preset is refused.
    if problems.0.iter().any(|p| !in_the_form(&p.field)) || scenario.model.resolve().is_err() {
        return Err(problems.to_string());
    }
    // The file's other sections over the current valid model, so that they are kept.
    let mut base = scenario.clone();
    if let Some(current) = state.scenario.try_get_untracked() {
        base.model = current.model;
        base.workload = current.workload;
        base.conventions = current.conventions;
    }
    if let Err(e) = state.check(&base) {
        return Err(format!("{problems}; and its other sections do not fit the current model: {e}"));
    }
    state.scenario.set(base);
    state.load(scenario).map_err(|e| e.to_string())?;
    Ok(Some(format!("it has problems, shown next to their fields: {problems}")))
}
