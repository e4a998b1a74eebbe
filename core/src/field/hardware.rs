//! The fields of `hardware` a page edits directly: the chip from the bundled catalog, and the
//! topology as a shape times a number of slices or nodes ([`crate::hardware::shape`], which
//! also decides what shape a new chip starts from).

use super::{Choice, Field, InputMode, Kind, Options};
use crate::collectives::query::keep_collectives_on;
use crate::hardware::axis::Network;
use crate::hardware::catalog;
use crate::hardware::chip::{Chip, ChipFamily};
use crate::hardware::query::{ChipSource, HardwareSection};
use crate::hardware::shape::{default_shape, parse_shape, set_chiplet_axis, shape_of, topology_for};
use crate::scenario::Scenario;

/// The value of the option standing for the custom chip the scenario has.
pub const CUSTOM_CHIP: &str = "custom";

/// The catalog grouped by family, after the scenario's custom chip when it has one.
fn chips(s: &Scenario) -> Vec<Choice> {
    let mut out = Vec::new();
    if let Some(ChipSource::Custom(c)) = s.hardware.as_ref().map(|h| &h.chip) {
        out.push(Choice { value: CUSTOM_CHIP.into(), label: format!("Custom: {}", c.name), group: "" });
    }
    out.extend(catalog_chips());
    out
}

/// The catalog's chips as choices, TPUs then GPUs (each group under its heading): the
/// hardware page's chip and the serving page's prefill chip.
pub(super) fn catalog_chips() -> Vec<Choice> {
    [(ChipFamily::Tpu, "TPU"), (ChipFamily::Gpu, "GPU")]
        .into_iter()
        .flat_map(|(family, group)| {
            catalog::all().iter().filter(move |c| c.family == family).map(move |c| Choice {
                value: c.id.clone(),
                label: c.name.clone(),
                group,
            })
        })
        .collect()
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
            set: |s, t| set_slices(s, crate::text::count(t)?),
        },
    )
    .unit("× over DCN")
    .hint("Copies of the shape joined by the data-center network (TPU slices, GPU nodes)"),
];

/// The scenario's chip, shape and slices (`None` for each it lacks).
fn current(s: &Scenario) -> (Option<Chip>, Option<Vec<u64>>, u64) {
    let hw = s.hardware.as_ref();
    let chip = hw.and_then(|h| h.chip.resolve().ok());
    let (shape, slices) = hw.and_then(|h| h.topology.as_ref()).map_or((None, 1), |t| {
        let (text, slices) = shape_of(t);
        (parse_shape(&text).ok(), slices)
    });
    (chip, shape, slices)
}

/// Writes `hardware` = `source` on `chip` with `shape` × `slices` (no topology for `None`).
fn write(s: &mut Scenario, source: ChipSource, chip: &Chip, shape: Option<&[u64]>, slices: u64) {
    let old = s.hardware.as_ref().and_then(|h| h.topology.clone());
    let topology = shape.map(|sh| topology_for(chip, sh, slices, old.as_ref()));
    keep_collectives_on(&mut s.collectives, topology.as_ref());
    s.hardware = Some(HardwareSection { chip: source, topology });
}

/// A catalog chip for the scenario ([`use_chip`]).
///
/// # Errors
/// An id the catalog does not have.
pub fn set_chip(s: &mut Scenario, id: &str) -> Result<(), String> {
    let chip = catalog::find(id).ok_or_else(|| format!("unknown chip {id:?}"))?;
    use_chip(s, ChipSource::Preset(chip.id.clone()), chip);
    Ok(())
}

/// `chip` (from `source`) for the scenario, keeping the shape and slices when they fit it (a
/// TPU slice does not fit a GPU's domain) and otherwise starting from its [`default_shape`];
/// a scenario with hardware but no topology keeps none.
pub fn use_chip(s: &mut Scenario, source: ChipSource, chip: &Chip) {
    let (_, shape, slices) = current(s);
    let had_topology = s.hardware.as_ref().is_some_and(|h| h.topology.is_some());
    let fits = |shape: &[u64]| topology_for(chip, shape, slices, None).resolve(chip).is_ok();
    let (shape, slices) = match shape {
        Some(sh) if fits(&sh) => (Some(sh), slices),
        _ if had_topology || s.hardware.is_none() => (Some(default_shape(chip)), 1),
        _ => (None, slices),
    };
    write(s, source, chip, shape.as_deref(), slices);
}

/// The shape (`None`: no topology) and slices of the scenario's chip.
///
/// # Errors
/// A scenario without a chip, or a chip that does not resolve.
pub fn set_shape(s: &mut Scenario, shape: Option<&[u64]>, slices: u64) -> Result<(), String> {
    let source = s.hardware.as_ref().map(|h| h.chip.clone()).ok_or("choose a chip first")?;
    let chip = source.resolve().map_err(|e| e.to_string())?;
    write(s, source, &chip, shape, slices);
    Ok(())
}

/// The shape text of the scenario's topology ("" without one).
#[must_use]
pub fn shape_text(s: &Scenario) -> String {
    s.hardware.as_ref().and_then(|h| h.topology.as_ref()).map(|t| shape_of(t).0).unwrap_or_default()
}

/// The slice (or node) count of the scenario's topology (1 without one).
#[must_use]
pub fn slices_of(s: &Scenario) -> u64 {
    current(s).2
}

fn has_chiplets(s: &Scenario) -> bool {
    current(s).0.is_some_and(|c| c.chiplets.is_some())
}

fn devices_per_chip(s: &Scenario) -> String {
    let d2d = s
        .hardware
        .as_ref()
        .and_then(|h| h.topology.as_ref())
        .is_some_and(|t| t.axes.iter().any(|a| a.network == Network::DieToDie));
    if d2d { "chiplet" } else { "chip" }.into()
}

/// One device per chip, or one per chiplet (a die-to-die axis) on a chip with chiplets.
fn set_devices_per_chip(s: &mut Scenario, v: &str) -> Result<(), String> {
    let on = match v {
        "chip" => false,
        "chiplet" => true,
        other => return Err(format!("unknown option {other:?}; use chip or chiplet")),
    };
    if s.hardware.as_ref().and_then(|h| h.topology.as_ref()).is_none() {
        return if on { Err("choose a chip and a topology first".into()) } else { Ok(()) };
    }
    let chip = match current(s).0 {
        Some(c) => c,
        None if !on => return Ok(()),
        None => return Err("choose a chip first".into()),
    };
    let Some(t) = s.hardware.as_mut().and_then(|h| h.topology.as_mut()) else { return Ok(()) };
    set_chiplet_axis(t, &chip, on)?;
    let topology = s.hardware.as_ref().and_then(|h| h.topology.clone());
    keep_collectives_on(&mut s.collectives, topology.as_ref());
    Ok(())
}

/// Whether each chiplet is a device (applies to chips with chiplets: Ironwood).
pub static CHIPLETS: [Field; 1] = [Field::new(
    "hardware.topology.chiplets",
    "Devices",
    Kind::Choice {
        options: Options::Fixed(&[
            ("chip", "one per chip"),
            ("chiplet", "one per chiplet (die-to-die axis)"),
        ]),
        get: devices_per_chip,
        set: set_devices_per_chip,
    },
)
.hint("Ironwood: each TensorCore chiplet is a JAX device; TP 2 over the die-to-die link, the chip's ICI shared by its chiplets")
.when(has_chiplets)];

/// Every group of the section's fields.
pub static GROUPS: [&[Field]; 2] = [&PICKER, &CHIPLETS];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_chip_keeps_a_shape_that_fits_and_replaces_one_that_does_not() {
        let mut s = Scenario::default();
        set_chip(&mut s, "tpu-v5p").unwrap();
        assert_eq!(shape_text(&s), "4x4x4", "a scenario without hardware starts from the chip's default");
        set_shape(&mut s, Some(&[8, 8, 8]), 2).unwrap();
        set_chip(&mut s, "tpu-v4").unwrap();
        assert_eq!((shape_text(&s), slices_of(&s)), ("8x8x8".to_string(), 2), "a v4 slice of 8x8x8 exists");
        set_chip(&mut s, "h100-sxm").unwrap();
        let gpu = catalog::get("h100-sxm").unwrap();
        assert_eq!(shape_text(&s), gpu.scale_up.max_chips.to_string(), "a TPU slice does not fit a GPU domain");
        assert_eq!(slices_of(&s), 1, "the chip's default starts from one slice");
        assert!(set_chip(&mut s, "no-such-chip").is_err());
        assert!(s.validate_hardware().is_ok());
    }
}
