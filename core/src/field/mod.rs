//! Every input of the scenario described once: its path, label, unit and hint, how its text
//! reads (a [`Kind`]) and where its value goes (typed getters and setters over the whole
//! [`Scenario`]). The page renders each [`Field`] with one component, and `shardcalc eval
//! --set path=value` goes through the same [`apply`].
//!
//! A field's `path` is the scenario path it writes (`training.seq_len`), or a path under the
//! value it is part of when several fields write one value (`training.global_batch.unit`,
//! `training.remat.query_proj`); the page's element ids are the path with dots as dashes.
//! Setters create a missing section with its defaults, so a field applies to any scenario.
//! A field of every element of a list is an [`ItemField`] (`collectives[2].array_bytes`);
//! a form shows either as an [`Input`].
//! Reading problems name the field ([`FieldError`]); whether the scenario is then valid is
//! [`Scenario::validate`]'s question.
//!
//! | module | fields |
//! |---|---|
//! | [`model`] | the model (book chapter 4) and the training step's workload |
//! | [`hardware`] | the chip, the topology's shape and slices, one device per chip or per chiplet |
//! | [`chip`] | the custom chip: name, fabric, every number |
//! | [`topology`] | per axis: wraparound, direction, link and latency overrides |
//! | [`roofline`] | the roofline op: a matmul's shape and formats, or an op's totals |
//! | [`collectives`] | per collective query: the collective, its array, its axes |
//! | [`training`] | the `training` section (book chapters 5–6) |
//! | [`serving`] | the `inference` section (book chapters 7–8) |
//! | [`conventions`] | counting conventions and the prediction mode |

/// A drop-down over the variants of an enum without data, each `Variant => "value", "label"`,
/// reading the value with `$get` (`fn(&Scenario) -> $ty`) and writing it through `$place`
/// (`fn(&mut Scenario) -> &mut $ty`):
/// `enum_choice!("inference.kv_context", "Context read per step", KvContext,
/// [Full => "full", "full: P + G", Mean => "mean", "mean: P + G/2"], get, place)`.
macro_rules! enum_choice {
    ($path:literal, $label:literal, $ty:ident, [$($variant:ident => $value:literal, $text:literal),+ $(,)?], $get:expr, $place:expr $(,)?) => {
        $crate::field::Field::new(
            $path,
            $label,
            $crate::field::Kind::Choice {
                options: $crate::field::Options::Fixed(&[$(($value, $text)),+]),
                get: |s| {
                    let get: fn(&$crate::scenario::Scenario) -> $ty = $get;
                    match get(s) {
                        $($ty::$variant => $value,)+
                    }
                    .into()
                },
                set: |s, text| {
                    let place: fn(&mut $crate::scenario::Scenario) -> &mut $ty = $place;
                    *place(s) = match text {
                        $($value => $ty::$variant,)+
                        other => return Err(format!("unknown option {other:?}")),
                    };
                    Ok(())
                },
            },
        )
    };
}

/// The const builders `.unit("s")` and `.hint("…")` of a field description ([`Field`],
/// [`input::ItemField`]), written once: both types have `unit` and `hint` fields, and a trait
/// cannot have const methods on stable Rust.
macro_rules! unit_and_hint {
    () => {
        /// With a unit.
        #[must_use]
        pub const fn unit(mut self, unit: &'static str) -> Self {
            self.unit = unit;
            self
        }

        /// With a hint.
        #[must_use]
        pub const fn hint(mut self, hint: &'static str) -> Self {
            self.hint = hint;
            self
        }
    };
}

pub mod chip;
pub mod collectives;
pub mod conventions;
pub mod hardware;
pub mod input;
pub mod model;
pub mod roofline;
pub mod serving;
pub mod topology;
pub mod training;

pub use input::{Describe, Input, ItemField, List, Words};

pub use crate::text;

use crate::error::FieldError;
use crate::scenario::Scenario;

/// One option of a drop-down.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The value [`Kind::Choice`]'s setter reads.
    pub value: String,
    /// What the option says.
    pub label: String,
    /// The group it is listed under ("" for none).
    pub group: &'static str,
}

/// The options of a drop-down.
#[derive(Clone, Copy)]
pub enum Options {
    /// Always the same `(value, label)` pairs.
    Fixed(&'static [(&'static str, &'static str)]),
    /// Computed from the scenario (the chip catalog, the presets).
    Computed(fn(&Scenario) -> Vec<Choice>),
}

impl Options {
    /// The options for `s`.
    #[must_use]
    pub fn list(&self, s: &Scenario) -> Vec<Choice> {
        match self {
            Options::Fixed(pairs) => {
                pairs.iter().map(|(v, l)| Choice { value: (*v).into(), label: (*l).into(), group: "" }).collect()
            }
            Options::Computed(f) => f(s),
        }
    }
}

/// The lower bound of a real field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Min {
    /// Greater than 0.
    Positive,
    /// 0 or more.
    NonNegative,
}

impl Min {
    fn read(self, text: &str) -> Result<f64, String> {
        match self {
            Min::Positive => text::positive_real(text),
            Min::NonNegative => text::nonnegative_real(text),
        }
    }
}

/// How a field's text reads, and where its value goes: accessors over `S`, the scenario for a
/// [`Field`], one element of a list for an [`ItemField`].
pub enum Kind<S: 'static = Scenario> {
    /// A whole number ([`text::count`]).
    Count {
        /// The value.
        get: fn(&S) -> u64,
        /// Stores a value.
        set: fn(&mut S, u64),
    },
    /// A whole number, or empty text for "not set".
    OptionalCount {
        /// The value.
        get: fn(&S) -> Option<u64>,
        /// Stores a value.
        set: fn(&mut S, Option<u64>),
    },
    /// A finite real number at least `min`.
    Real {
        /// The lower bound.
        min: Min,
        /// The value.
        get: fn(&S) -> f64,
        /// Stores a value.
        set: fn(&mut S, f64),
    },
    /// A finite real number at least `min`, or empty text for "not set".
    OptionalReal {
        /// The lower bound.
        min: Min,
        /// The value.
        get: fn(&S) -> Option<f64>,
        /// Stores a value.
        set: fn(&mut S, Option<f64>),
    },
    /// A checkbox.
    Flag {
        /// Whether it is ticked.
        get: fn(&S) -> bool,
        /// Stores the new state.
        set: fn(&mut S, bool),
    },
    /// A drop-down.
    Choice {
        /// The options.
        options: Options,
        /// The value chosen.
        get: fn(&S) -> String,
        /// Stores a chosen value (refusing one that is not an option).
        set: fn(&mut S, &str) -> Result<(), String>,
    },
    /// Some of the options (a checkbox each); as text, the values joined by commas.
    Subset {
        /// The options.
        options: Options,
        /// The values chosen, in order.
        get: fn(&S) -> Vec<String>,
        /// Stores the values chosen (refusing one that is not an option).
        set: fn(&mut S, Vec<String>) -> Result<(), String>,
    },
    /// Free text with its own reading (a shape, a layer pattern, axis names).
    Text {
        /// The keyboard it wants.
        mode: InputMode,
        /// The text.
        get: fn(&S) -> String,
        /// Reads the text and stores its value.
        set: fn(&mut S, &str) -> Result<(), String>,
    },
}

// Not derived: a derive would ask `S: Copy`, and the accessors are copied whatever `S` is.
impl<S> Clone for Kind<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Kind<S> {}

/// The control a field is shown as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// A text input wanting this keyboard.
    Text(InputMode),
    /// A checkbox.
    Check,
    /// A drop-down.
    Select,
    /// A checkbox per option.
    Checkboxes,
}

impl<S> Kind<S> {
    /// The text of the value in `s` (the value chosen, for a drop-down; `"true"` or `""`
    /// for a checkbox; the values joined by commas for a subset).
    #[must_use]
    pub fn text(&self, s: &S) -> String {
        match self {
            Kind::Count { get, .. } => get(s).to_string(),
            Kind::OptionalCount { get, .. } => text::optional_count_text(get(s)),
            Kind::Real { get, .. } => text::shortest(get(s)),
            Kind::OptionalReal { get, .. } => text::optional_text(get(s)),
            Kind::Flag { get, .. } => if get(s) { "true" } else { "" }.into(),
            Kind::Subset { get, .. } => get(s).join(","),
            Kind::Choice { get, .. } | Kind::Text { get, .. } => get(s),
        }
    }

    /// Reads `text` and stores the value in `s`. A checkbox reads `true`/`on`/`1` and
    /// `false`/`off`/`0`/""; a subset reads values separated by commas.
    ///
    /// # Errors
    /// What is wrong with the text; `s` is unchanged then (a setter that refuses a value
    /// refuses it before writing).
    pub fn read(&self, s: &mut S, text: &str) -> Result<(), String> {
        match *self {
            Kind::Count { set, .. } => set(s, text::count(text)?),
            Kind::OptionalCount { set, .. } => set(s, text::optional_count(text)?),
            Kind::Real { min, set, .. } => set(s, min.read(text)?),
            Kind::OptionalReal { min, set, .. } => {
                set(s, if text.trim().is_empty() { None } else { Some(min.read(text)?) })
            }
            Kind::Flag { set, .. } => set(
                s,
                match text.trim() {
                    "true" | "on" | "1" => true,
                    "false" | "off" | "0" | "" => false,
                    other => return Err(format!("is {other:?}; use true or false")),
                },
            ),
            Kind::Subset { set, .. } => {
                set(s, text.split(',').map(str::trim).filter(|v| !v.is_empty()).map(str::to_string).collect())?;
            }
            Kind::Choice { set, .. } | Kind::Text { set, .. } => set(s, text)?,
        }
        Ok(())
    }

    /// Whether a checkbox is ticked (`false` for other kinds).
    #[must_use]
    pub fn is_on(&self, s: &S) -> bool {
        matches!(self, Kind::Flag { get, .. } if get(s))
    }

    /// The options of a drop-down or a subset for the scenario `s` (none for other kinds).
    #[must_use]
    pub fn options(&self, s: &Scenario) -> Vec<Choice> {
        match self {
            Kind::Choice { options, .. } | Kind::Subset { options, .. } => options.list(s),
            _ => Vec::new(),
        }
    }

    /// The control it is shown as.
    #[must_use]
    pub fn control(&self) -> Control {
        match self {
            Kind::Count { .. } | Kind::OptionalCount { .. } => Control::Text(InputMode::Numeric),
            Kind::Real { .. } | Kind::OptionalReal { .. } => Control::Text(InputMode::Decimal),
            Kind::Text { mode, .. } => Control::Text(*mode),
            Kind::Flag { .. } => Control::Check,
            Kind::Choice { .. } => Control::Select,
            Kind::Subset { .. } => Control::Checkboxes,
        }
    }
}

/// What kind of keyboard a text field wants (the `inputmode` attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputMode {
    /// Digits.
    Numeric,
    /// Digits and a decimal point.
    Decimal,
    /// Any text.
    Text,
}

impl InputMode {
    /// The attribute's value.
    #[must_use]
    pub fn attribute(self) -> &'static str {
        match self {
            InputMode::Numeric => "numeric",
            InputMode::Decimal => "decimal",
            InputMode::Text => "text",
        }
    }
}

/// One input of the scenario.
#[derive(Clone, Copy)]
pub struct Field {
    /// Scenario path (see the module's documentation).
    pub path: &'static str,
    /// Label text.
    pub label: &'static str,
    /// Unit shown after the input ("" for none).
    pub unit: &'static str,
    /// One line under the input.
    pub hint: &'static str,
    /// How the text reads and where the value goes.
    pub kind: Kind,
    /// Whether the field applies to a scenario (shown); `None`: always.
    pub applies: Option<fn(&Scenario) -> bool>,
    /// Paths of problems the field shows besides those of its own path and those naming it
    /// as related (a problem of the whole section shown at its first field).
    pub also: &'static [&'static str],
}

impl Field {
    /// A field of `kind` with no unit, hint or extra problems, always applying.
    #[must_use]
    pub const fn new(path: &'static str, label: &'static str, kind: Kind) -> Self {
        Self { path, label, unit: "", hint: "", kind, applies: None, also: &[] }
    }

    unit_and_hint!();

    /// Applying only when `when` holds.
    #[must_use]
    pub const fn when(mut self, when: fn(&Scenario) -> bool) -> Self {
        self.applies = Some(when);
        self
    }

    /// Also showing the problems of `paths`.
    #[must_use]
    pub const fn also(mut self, paths: &'static [&'static str]) -> Self {
        self.also = paths;
        self
    }

    /// The field's text for `s` (the value chosen, for a drop-down; `"true"` or `""` for a
    /// checkbox).
    #[must_use]
    pub fn text(&self, s: &Scenario) -> String {
        self.kind.text(s)
    }

    /// Whether a checkbox is ticked (`false` for other kinds).
    #[must_use]
    pub fn is_on(&self, s: &Scenario) -> bool {
        self.kind.is_on(s)
    }

    /// Reads `text` and stores its value in `s`. A checkbox reads `true`/`on`/`1` and
    /// `false`/`off`/`0`/"".
    ///
    /// # Errors
    /// What is wrong with the text, naming the field; `s` is unchanged then.
    pub fn apply(&self, s: &mut Scenario, text: &str) -> Result<(), FieldError> {
        self.kind.read(s, text).map_err(|m| FieldError::new(self.path, m))
    }

    /// The options of a drop-down (none for other kinds).
    #[must_use]
    pub fn options(&self, s: &Scenario) -> Vec<Choice> {
        self.kind.options(s)
    }

    /// The keyboard a text field wants.
    #[must_use]
    pub fn input_mode(&self) -> InputMode {
        match self.kind.control() {
            Control::Text(mode) => mode,
            _ => InputMode::Text,
        }
    }

    /// Whether the field applies to `s`.
    #[must_use]
    pub fn applies_to(&self, s: &Scenario) -> bool {
        self.applies.is_none_or(|f| f(s))
    }

    /// Whether `e` is a problem this field shows: its own (or an element's of its list,
    /// `path[i]`), one naming it as related, or one of [`Self::also`]'s paths.
    #[must_use]
    pub fn shows(&self, e: &FieldError) -> bool {
        e.concerns(self.path)
            || e.field.strip_prefix(self.path).is_some_and(|rest| rest.starts_with('['))
            || self.also.contains(&e.field.as_str())
    }
}

/// Every field of every section, for [`find`] and [`apply`].
fn all() -> impl Iterator<Item = &'static Field> {
    [
        model::GROUPS.as_slice(),
        hardware::GROUPS.as_slice(),
        chip::GROUPS.as_slice(),
        roofline::GROUPS.as_slice(),
        training::GROUPS.as_slice(),
        serving::GROUPS.as_slice(),
        conventions::GROUPS.as_slice(),
    ]
    .into_iter()
    .flatten()
    .flat_map(|group| group.iter())
}

/// The field at `path`.
#[must_use]
pub fn find(path: &str) -> Option<&'static Field> {
    all().find(|f| f.path == path)
}

/// Every field of every element of a list.
fn items() -> impl Iterator<Item = &'static dyn Describe> {
    let axes = topology::AXIS_FIELDS.iter().map(|f| f as &'static dyn Describe);
    axes.chain(collectives::QUERY_FIELDS.iter().map(|f| f as &'static dyn Describe))
}

/// Every field's path, in the order the pages show them (an item field's with `[]` for
/// the index: `collectives[].kind`).
#[must_use]
pub fn paths() -> Vec<String> {
    let items = items().map(|f| format!("{}[].{}", f.list().unwrap_or_default(), f.name()));
    all().map(|f| f.path.to_string()).chain(items).collect()
}

/// Every field, as [`paths`] lists them: path, unit and label.
#[must_use]
pub fn listing() -> Vec<(String, &'static str, &'static str)> {
    let fields = all().map(|f| (f.path.to_string(), f.unit, f.label));
    let items =
        items().map(|f| (format!("{}[].{}", f.list().unwrap_or_default(), f.name()), f.words().unit, f.words().label));
    fields.chain(items).collect()
}

/// The input at `path`: a field of the scenario, or an item field at its index
/// (`collectives[2].array_bytes`).
#[must_use]
pub fn input(path: &str) -> Option<Input> {
    if let Some(f) = find(path) {
        return Some(f.into());
    }
    let (list, index, name) = input::item_path(path)?;
    items().find(|f| f.list() == Some(list) && f.name() == name).map(|f| Input::of(f, index))
}

/// Reads `text` into the field at `path` of `s` (what `shardcalc eval --set path=value`
/// and every form of the page do).
///
/// # Errors
/// An unknown path, or what is wrong with the text; `s` is unchanged then.
pub fn apply(s: &mut Scenario, path: &str, text: &str) -> Result<(), FieldError> {
    let field = input(path)
        .ok_or_else(|| FieldError::new(path, "is not a field of the scenario (`shardcalc fields` lists them)"))?;
    field.apply(s, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_unique_and_every_field_reads_its_own_text_back() {
        let mut seen = std::collections::BTreeSet::new();
        let s = crate::view::training::with_defaults(&crate::scenario::with_serving_defaults(&Scenario::default()));
        for f in all() {
            assert!(seen.insert(f.path), "{} twice", f.path);
            let mut t = s.clone();
            let text = f.text(&t);
            f.apply(&mut t, &text).unwrap_or_else(|e| panic!("{}: {e}", f.path));
            assert_eq!(f.text(&t), text, "{}", f.path);
            if let Kind::Choice { .. } = f.kind {
                let options = f.options(&s);
                assert!(options.iter().any(|o| o.value == text), "{}: {text:?} is not an option", f.path);
            }
        }
    }

    #[test]
    fn every_item_field_reads_its_own_text_back_and_is_found_by_its_path() {
        // The book's v5e 8x4 with two collectives.
        let s = crate::view::hardware::with_defaults(&Scenario::default());
        for f in items() {
            for i in 0..2 {
                let at = Input::of(f, i);
                let mut t = s.clone();
                let text = at.text(&t);
                at.apply(&mut t, &text).unwrap_or_else(|e| panic!("{}: {e}", at.path()));
                assert_eq!((at.text(&t), t == s), (text, true), "{}", at.path());
                assert!(input(&at.path()).is_some_and(|found| found.is(&at)), "{}", at.path());
            }
        }
        assert!(paths().iter().any(|p| p == "collectives[].array_bytes"));
    }

    #[test]
    fn apply_names_the_field_and_leaves_the_scenario_alone() {
        let mut s = Scenario::default();
        let before = s.clone();
        let e = apply(&mut s, "training.seq_len", "abc").unwrap_err();
        assert_eq!((e.field.as_str(), s == before), ("training.seq_len", true));
        assert!(e.message.contains("is not a number"), "{e}");
        assert!(apply(&mut s, "training.nope", "1").unwrap_err().message.contains("not a field"));
        apply(&mut s, "training.seq_len", "8192").unwrap();
        assert_eq!(s.training.as_ref().map(|t| t.seq_len), Some(8192), "the section is created with defaults");
        assert!(s.validate().is_ok());
    }
}
