//! Fields of the elements of a list ([`ItemField`]: `collectives[2].array_bytes`,
//! `hardware.topology.axes[1].link_one_way`), and [`Input`]: one field as a form shows it,
//! a field of the scenario or a field of one element, behind one type.
//!
//! An item field is described once for every element: its accessors read and write one
//! element ([`Kind`] over the element's type), its list says where the elements are, and
//! its path is the list's path, the index and the field's name.

use super::{Choice, Control, Field, Kind};
use crate::error::FieldError;
use crate::scenario::Scenario;

/// A list of the scenario whose elements are edited field by field.
pub struct List<T: 'static> {
    /// Its scenario path (`collectives`).
    pub path: &'static str,
    /// The elements (none when the scenario lacks the list's section).
    pub items: fn(&Scenario) -> &[T],
    /// The elements, to edit.
    pub items_mut: fn(&mut Scenario) -> &mut [T],
}

/// A field of every element of a [`List`].
pub struct ItemField<T: 'static> {
    /// The list.
    pub list: &'static List<T>,
    /// The field's name in an element (`array_bytes`).
    pub name: &'static str,
    /// Label text.
    pub label: &'static str,
    /// Unit shown after the input ("" for none).
    pub unit: &'static str,
    /// One line under the input.
    pub hint: &'static str,
    /// How the text reads, and where in the element the value goes.
    pub kind: Kind<T>,
    /// Whether the field applies to the element at an index of a scenario; `None`: always.
    pub applies: Option<fn(&Scenario, usize) -> bool>,
}

impl<T> ItemField<T> {
    /// A field of `kind` named `name` in the elements of `list`.
    #[must_use]
    pub const fn new(list: &'static List<T>, name: &'static str, label: &'static str, kind: Kind<T>) -> Self {
        Self { list, name, label, unit: "", hint: "", kind, applies: None }
    }

    unit_and_hint!();

    /// Applying only when `when` holds for the element at its index.
    #[must_use]
    pub const fn when(mut self, when: fn(&Scenario, usize) -> bool) -> Self {
        self.applies = Some(when);
        self
    }

    /// The field of the element at `index`.
    #[must_use]
    pub fn at(&'static self, index: usize) -> Input {
        Input { what: self, index }
    }
}

/// What a field says about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Words {
    /// Label text.
    pub label: &'static str,
    /// Unit shown after the input ("" for none).
    pub unit: &'static str,
    /// One line under the input.
    pub hint: &'static str,
}

/// What a form needs of a field, a field of the scenario or of an element of a list
/// (`index` is the element's; a field of the scenario ignores it).
pub trait Describe: Sync {
    /// The path of the field at `index`.
    fn path(&self, index: usize) -> String;
    /// The list's path, for an item field.
    fn list(&self) -> Option<&'static str>;
    /// The field's own name: the path of a field of the scenario, the name in an element
    /// for an item field.
    fn name(&self) -> &'static str;
    /// Its label, unit and hint.
    fn words(&self) -> Words;
    /// The control it is shown as.
    fn control(&self) -> Control;
    /// Paths of problems it shows besides its own.
    fn also(&self) -> &'static [&'static str];
    /// Its text in `s`.
    fn text(&self, s: &Scenario, index: usize) -> String;
    /// Reads `text` into `s`.
    ///
    /// # Errors
    /// What is wrong with the text; `s` is unchanged then.
    fn read(&self, s: &mut Scenario, index: usize, text: &str) -> Result<(), String>;
    /// The options of a drop-down or a subset.
    fn options(&self, s: &Scenario) -> Vec<Choice>;
    /// Whether it applies to `s`.
    fn applies(&self, s: &Scenario, index: usize) -> bool;
    /// Whether it applies without looking at the scenario.
    fn always(&self) -> bool;
}

impl Describe for Field {
    fn path(&self, _: usize) -> String {
        self.path.to_string()
    }
    fn list(&self) -> Option<&'static str> {
        None
    }
    fn name(&self) -> &'static str {
        self.path
    }
    fn words(&self) -> Words {
        Words { label: self.label, unit: self.unit, hint: self.hint }
    }
    fn control(&self) -> Control {
        self.kind.control()
    }
    fn also(&self) -> &'static [&'static str] {
        self.also
    }
    fn text(&self, s: &Scenario, _: usize) -> String {
        self.kind.text(s)
    }
    fn read(&self, s: &mut Scenario, _: usize, text: &str) -> Result<(), String> {
        self.kind.read(s, text)
    }
    fn options(&self, s: &Scenario) -> Vec<Choice> {
        self.kind.options(s)
    }
    fn applies(&self, s: &Scenario, _: usize) -> bool {
        self.applies_to(s)
    }
    fn always(&self) -> bool {
        self.applies.is_none()
    }
}

impl<T> Describe for ItemField<T> {
    fn path(&self, index: usize) -> String {
        format!("{}[{index}].{}", self.list.path, self.name)
    }
    fn list(&self) -> Option<&'static str> {
        Some(self.list.path)
    }
    fn name(&self) -> &'static str {
        self.name
    }
    fn words(&self) -> Words {
        Words { label: self.label, unit: self.unit, hint: self.hint }
    }
    fn control(&self) -> Control {
        self.kind.control()
    }
    fn also(&self) -> &'static [&'static str] {
        &[]
    }
    fn text(&self, s: &Scenario, index: usize) -> String {
        (self.list.items)(s).get(index).map(|e| self.kind.text(e)).unwrap_or_default()
    }
    fn read(&self, s: &mut Scenario, index: usize, text: &str) -> Result<(), String> {
        match (self.list.items_mut)(s).get_mut(index) {
            Some(e) => self.kind.read(e, text),
            None => Err(format!("there is no element {index} in `{}`", self.list.path)),
        }
    }
    fn options(&self, s: &Scenario) -> Vec<Choice> {
        self.kind.options(s)
    }
    fn applies(&self, s: &Scenario, index: usize) -> bool {
        index < (self.list.items)(s).len() && self.applies.is_none_or(|f| f(s, index))
    }
    fn always(&self) -> bool {
        false
    }
}

/// One field as a form shows it: a [`Field`] of the scenario, or an [`ItemField`] at an
/// index. `Copy`, so a component can keep it.
#[derive(Clone, Copy)]
pub struct Input {
    what: &'static dyn Describe,
    index: usize,
}

impl From<&'static Field> for Input {
    fn from(field: &'static Field) -> Self {
        Self { what: field, index: 0 }
    }
}

impl Input {
    /// The field `what` at `index` (ignored by a field of the scenario).
    #[must_use]
    pub fn of(what: &'static dyn Describe, index: usize) -> Self {
        Self { what, index }
    }

    /// Its path (`training.seq_len`, `collectives[2].array_bytes`).
    #[must_use]
    pub fn path(&self) -> String {
        self.what.path(self.index)
    }

    /// Label text.
    #[must_use]
    pub fn label(&self) -> &'static str {
        self.what.words().label
    }

    /// Unit shown after the input.
    #[must_use]
    pub fn unit(&self) -> &'static str {
        self.what.words().unit
    }

    /// One line under the input.
    #[must_use]
    pub fn hint(&self) -> &'static str {
        self.what.words().hint
    }

    /// The control it is shown as.
    #[must_use]
    pub fn control(&self) -> Control {
        self.what.control()
    }

    /// Its text in `s`.
    #[must_use]
    pub fn text(&self, s: &Scenario) -> String {
        self.what.text(s, self.index)
    }

    /// Reads `text` and stores its value in `s`.
    ///
    /// # Errors
    /// What is wrong with the text, naming the field; `s` is unchanged then.
    pub fn apply(&self, s: &mut Scenario, text: &str) -> Result<(), FieldError> {
        self.what.read(s, self.index, text).map_err(|m| FieldError::new(self.path(), m))
    }

    /// The options of a drop-down or a subset.
    #[must_use]
    pub fn options(&self, s: &Scenario) -> Vec<Choice> {
        self.what.options(s)
    }

    /// Whether it applies to `s`.
    #[must_use]
    pub fn applies_to(&self, s: &Scenario) -> bool {
        self.what.applies(s, self.index)
    }

    /// Whether it applies to every scenario (a form need not watch it).
    #[must_use]
    pub fn always_applies(&self) -> bool {
        self.what.always()
    }

    /// Whether `e` is a problem it shows: its own (or an element's of its list, `path[i]`),
    /// one naming it as related, or one of its extra paths.
    #[must_use]
    pub fn shows(&self, e: &FieldError) -> bool {
        let path = self.path();
        e.concerns(&path)
            || e.field.strip_prefix(path.as_str()).is_some_and(|rest| rest.starts_with('['))
            || self.what.also().contains(&e.field.as_str())
    }

    /// Whether it is the same field as `other` (the same path).
    #[must_use]
    pub fn is(&self, other: &Input) -> bool {
        self.index == other.index && self.what.path(0) == other.what.path(0)
    }
}

/// `list[index].name` split into its parts.
#[must_use]
pub fn item_path(path: &str) -> Option<(&str, usize, &str)> {
    let (list, rest) = path.split_once('[')?;
    let (index, name) = rest.split_once("].")?;
    Some((list, index.parse().ok()?, name))
}
