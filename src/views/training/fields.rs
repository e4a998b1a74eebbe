//! Fields of the `training` section as data ([`Spec`]): the page writes every field as HTML
//! text from its spec and sends every edit through one handler ([`super::form`]), so the
//! form's code is compiled once however many fields it has (the page's size budget,
//! docs/size.md). A value reaches the scenario through [`apply`] ([`AppState::try_update`],
//! so the scenario and the link stay valid); a refused value leaves the scenario as it was,
//! with the message next to the field, and planning problems show under the fields they
//! concern (`{id}-conflict`).

use leptos::prelude::*;
use shardcalc_core::training::section::TrainingSection;

use super::derived::Derived;
use crate::components::messages_under;
use crate::state::AppState;

/// Writes `edit` into the scenario's `training` section (created with defaults when
/// missing); refused edits come back as the messages under `path` (e.g.
/// `training.seq_len`), the scenario unchanged. (`dyn`: one copy of the update's code for
/// every edit of the page.)
///
/// # Errors
/// The validation messages, joined.
pub fn apply(state: AppState, path: &str, edit: &mut dyn FnMut(&mut TrainingSection)) -> Result<(), String> {
    state
        .try_update(|s| edit(s.training.get_or_insert_with(TrainingSection::default)))
        .map_err(|e| messages_under(&e, path))
}

/// Reads the current section (defaults when missing).
#[must_use]
pub fn current<T>(state: AppState, read: impl FnOnce(&TrainingSection) -> T) -> T {
    state.scenario.with_untracked(|s| match &s.training {
        Some(t) => read(t),
        None => read(&TrainingSection::default()),
    })
}

/// Reads a field's value from the section (`arg` tells fields sharing a function apart).
pub type ReadFn<T> = fn(&TrainingSection, usize) -> T;
/// Writes a field's value into the section; `Err` is the message (without the path).
pub type WriteFn<T> = fn(&mut TrainingSection, usize, T) -> Result<(), String>;
/// Reads a text or a choice and writes its value; `Err` is the message (without the path).
pub type WriteText = fn(&mut TrainingSection, usize, &str) -> Result<(), String>;

/// What kind of input a field is.
#[derive(Clone, Copy)]
pub enum Kind {
    /// Typed text, read by `set`.
    Text {
        /// The text the field starts with.
        get: ReadFn<String>,
        /// Reads the text and writes the value.
        set: WriteText,
    },
    /// A drop-down of `(value, label)` options.
    Select {
        /// The options.
        options: &'static [(&'static str, &'static str)],
        /// The value selected.
        get: ReadFn<String>,
        /// Writes the chosen value.
        set: WriteText,
    },
    /// A checkbox.
    Check {
        /// Whether it is checked.
        get: ReadFn<bool>,
        /// Writes the new state.
        set: WriteFn<bool>,
    },
}

/// One field of the section.
#[derive(Clone, Copy)]
pub struct Spec {
    /// Element id of the input (`training-seq_len`); messages are in `{id}-error` and
    /// `{id}-conflict`.
    pub id: &'static str,
    /// Scenario path the field writes (messages under it show here).
    pub path: &'static str,
    /// Label text.
    pub label: &'static str,
    /// Unit after the input.
    pub unit: &'static str,
    /// One-line hint.
    pub hint: &'static str,
    /// The input and its reading and writing.
    pub kind: Kind,
    /// Passed to `get` and `set` (which of several alike fields this is).
    pub arg: usize,
    /// Paths of planning problems shown under the field.
    pub conflicts: &'static [&'static str],
    /// Rebuild the form after a change (the change moved other fields' values).
    pub rebuild: bool,
}

impl Spec {
    /// A text field with no unit, hint, conflicts or rebuild.
    pub const fn text(
        id: &'static str,
        path: &'static str,
        label: &'static str,
        get: ReadFn<String>,
        set: WriteText,
    ) -> Self {
        Self {
            id,
            path,
            label,
            unit: "",
            hint: "",
            kind: Kind::Text { get, set },
            arg: 0,
            conflicts: &[],
            rebuild: false,
        }
    }

    /// A drop-down.
    pub const fn select(
        id: &'static str,
        path: &'static str,
        label: &'static str,
        options: &'static [(&'static str, &'static str)],
        get: ReadFn<String>,
        set: WriteText,
    ) -> Self {
        Self {
            id,
            path,
            label,
            unit: "",
            hint: "",
            kind: Kind::Select { options, get, set },
            arg: 0,
            conflicts: &[],
            rebuild: false,
        }
    }

    /// A checkbox.
    pub const fn check(
        id: &'static str,
        path: &'static str,
        label: &'static str,
        get: ReadFn<bool>,
        set: WriteFn<bool>,
    ) -> Self {
        Self {
            id,
            path,
            label,
            unit: "",
            hint: "",
            kind: Kind::Check { get, set },
            arg: 0,
            conflicts: &[],
            rebuild: false,
        }
    }

    /// With a unit.
    pub const fn unit(mut self, unit: &'static str) -> Self {
        self.unit = unit;
        self
    }

    /// With a hint.
    pub const fn hint(mut self, hint: &'static str) -> Self {
        self.hint = hint;
        self
    }

    /// With `arg`.
    pub const fn arg(mut self, arg: usize) -> Self {
        self.arg = arg;
        self
    }

    /// With planning problems of `paths` shown under it.
    pub const fn conflicts(mut self, paths: &'static [&'static str]) -> Self {
        self.conflicts = paths;
        self
    }

    /// Rebuilding the form after each change.
    pub const fn rebuild(mut self) -> Self {
        self.rebuild = true;
        self
    }
}

/// Applies a field's change; on success, rebuilds the form when the spec asks to.
///
/// # Errors
/// The message for the field: the setter's (after the field's path) or the scenario's.
pub fn write(
    state: AppState,
    derived: Derived,
    spec: &Spec,
    edit: impl FnOnce(&mut TrainingSection) -> Result<(), String>,
) -> Result<(), String> {
    let mut refused = None;
    let mut edit = Some(edit);
    let result = apply(state, spec.path, &mut |t| refused = edit.take().and_then(|e| e(t).err()));
    if let Some(m) = refused {
        return Err(format!("{}: {m}", spec.path));
    }
    result?;
    if spec.rebuild {
        derived.form_generation.update(|g| *g += 1);
    }
    Ok(())
}
