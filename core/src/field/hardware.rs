//! The fields of `hardware` a page edits directly: the chip from the bundled catalog, and the
//! topology as a shape times a number of slices or nodes ([`crate::hardware::shape`], which
//! also decides what shape a new chip starts from).

use super::{Choice, Field, InputMode, Kind, Options};
use crate::hardware::catalog;
use crate::hardware::chip::ChipFamily;
use crate::hardware::query::ChipSource;
use crate::hardware::shape::{parse_shape, set_chip, set_shape, shape_text, slices_of};
use crate::scenario::Scenario;

/// The value of the option standing for the custom chip the scenario has.
pub const CUSTOM_CHIP: &str = "custom";

/// The catalog grouped by family, after the scenario's custom chip when it has one.
fn chips(s: &Scenario) -> Vec<Choice> {
    let mut out = Vec::new();
    if let Some(ChipSource::Custom(c)) = s.hardware.as_ref().map(|h| &h.chip) {
        out.push(Choice { value: CUSTOM_CHIP.into(), label: format!("Custom: {}", c.name), group: "" });
    }
    for (family, group) in [(ChipFamily::Tpu, "TPU"), (ChipFamily::Gpu, "GPU")] {
        out.extend(catalog::all().iter().filter(|c| c.family == family).map(|c| Choice {
            value: c.id.clone(),
            label: c.name.clone(),
            group,
        }));
    }
    out
}

fn chip(s: &Scenario) -> String {
    match s.hardware.as_ref().map(|h| &h.chip) {
        Some(ChipSource::Preset(id)) => id.clone(),
        Some(ChipSource::Custom(_)) => CUSTOM_CHIP.into(),
        None => String::new(),
    }
}

/// A catalog chip ([`set_chip`]); the custom option keeps the scenario's custom chip.
fn choose_chip(s: &mut Scenario, id: &str) -> Result<(), String> {
    if id == CUSTOM_CHIP {
        return match s.hardware.as_ref().map(|h| &h.chip) {
            Some(ChipSource::Custom(_)) => Ok(()),
            _ => Err("there is no custom chip in this scenario; define one on the Hardware page".into()),
        };
    }
    set_chip(s, id)
}

/// The shape on the scenario's chip, keeping its slices; empty text is no topology.
fn set_shape_text(s: &mut Scenario, text: &str) -> Result<(), String> {
    let shape = if text.trim().is_empty() { None } else { Some(parse_shape(text)?) };
    let slices = slices_of(s);
    set_shape(s, shape.as_deref(), slices)
}

/// The slices of the scenario's shape (at least 1).
fn set_slices(s: &mut Scenario, slices: u64) -> Result<(), String> {
    if slices == 0 {
        return Err("must be at least 1".into());
    }
    let shape = parse_shape(&shape_text(s)).ok();
    set_shape(s, shape.as_deref(), slices)
}

/// Chip, shape, slices.
pub static PICKER: [Field; 3] = [
    Field::new(
        "hardware.chip",
        "Chip",
        Kind::Choice { options: Options::Computed(chips), get: chip, set: choose_chip },
    )
    .also(&["hardware"]),
    Field::new(
        "hardware.topology",
        "Topology",
        Kind::Text { mode: InputMode::Text, get: shape_text, set: set_shape_text },
    )
    .hint("Chips per axis: 16x20x28 (TPU slice), 8 (GPU NVLink domain); empty = none, where the view can choose")
    .also(&["hardware.topology.axes"]),
    Field::new(
        "hardware.topology.slices",
        "Slices / nodes",
        Kind::Text {
            mode: InputMode::Numeric,
            get: |s| slices_of(s).to_string(),
            set: |s, t| set_slices(s, super::text::count(t)?),
        },
    )
    .unit("× over DCN")
    .hint("Copies of the shape joined by the data-center network (TPU slices, GPU nodes)"),
];

/// Every group of the section's fields.
pub static GROUPS: [&[Field]; 1] = [&PICKER];
