//! Writing the page's inputs into the scenario: always through `AppState::try_update`, so
//! the scenario (and the link) stays valid and a refused edit leaves a message instead.

use leptos::prelude::*;
use shardcalc_core::hardware::chip::Chip;
use shardcalc_core::hardware::query::ChipSource;
use shardcalc_core::scenario::Scenario;

use crate::components::messages_under;
use crate::state::AppState;

/// Applies `f` to a copy of the scenario and keeps it when the whole scenario validates;
/// otherwise the messages for fields under `prefix` (all of them if none is).
///
/// # Errors
/// The messages, joined.
pub fn update<'a>(state: AppState, prefix: &str, f: impl FnOnce(&mut Scenario) + 'a) -> Result<(), String> {
    update_boxed(state, prefix, Box::new(f))
}

/// [`update`] behind one non-generic function, so that the page's many edits share one copy
/// of `AppState::try_update` in the wasm instead of one per closure.
fn update_boxed<'a>(state: AppState, prefix: &str, f: Box<dyn FnOnce(&mut Scenario) + 'a>) -> Result<(), String> {
    state.try_update(f).map_err(|e| messages_under(&e, prefix))
}

/// Today as `YYYY-MM-DD` (the date of a user's edit), from the browser's clock.
#[must_use]
pub fn today() -> String {
    let iso: String = js_sys::Date::new_0().to_iso_string().into();
    iso.get(..10).map_or_else(|| "1970-01-01".to_string(), str::to_string)
}

/// Edits the scenario's custom chip with `f` (which may refuse with a message); messages
/// for fields under `hardware.chip.custom.<path>` show next to the field.
///
/// # Errors
/// `f`'s message, "not a custom chip", or the validation messages.
pub fn edit_chip(state: AppState, path: &str, f: impl FnOnce(&mut Chip) -> Result<(), String>) -> Result<(), String> {
    edit_chip_boxed(state, path, Box::new(f))
}

/// An edit of a custom chip, boxed (one copy of [`edit_chip_boxed`] for every caller).
type ChipEdit<'a> = Box<dyn FnOnce(&mut Chip) -> Result<(), String> + 'a>;

fn edit_chip_boxed(state: AppState, path: &str, f: ChipEdit<'_>) -> Result<(), String> {
    let chip = state.shown.with_untracked(|s| match s.hardware.as_ref().map(|h| &h.chip) {
        Some(ChipSource::Custom(c)) => Some(c.as_ref().clone()),
        _ => None,
    });
    let mut chip = chip.ok_or("choose “Edit a copy of this chip” first")?;
    f(&mut chip)?;
    let prefix = if path.is_empty() { "hardware".to_string() } else { format!("hardware.chip.custom.{path}") };
    update(state, &prefix, move |s| {
        if let Some(hw) = s.hardware.as_mut() {
            hw.chip = ChipSource::Custom(Box::new(chip));
        }
    })
}

/// A copy of `chip` the user can edit: its own id (so it is never mistaken for the preset)
/// and a name saying where it came from.
#[must_use]
pub fn editable_copy(chip: &Chip) -> Chip {
    let mut c = chip.clone();
    if !c.id.starts_with("custom-") {
        c.id = format!("custom-{}", c.id);
        c.name = format!("{} (edited)", c.name);
    }
    c
}
