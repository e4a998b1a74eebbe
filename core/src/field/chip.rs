//! The custom chip's fields (the hardware page's chip editor): its name, its scale-up
//! fabric, and every number of [`Chip::numeric_fields`] in the unit the page shows it in.
//! Each number is one row of [`NUMBERS`] (path, label, unit, whether it may be absent),
//! which also gives the spec table its labels and units.
//!
//! Editing a field of a scenario whose chip is a catalog chip first makes it a custom copy
//! ([`customize`]): what "Edit a copy of this chip" does on the page, and what
//! `shardcalc eval --set hardware.chip.custom.hbm.bandwidth=3200` needs. An edited number
//! is recorded as its own source ([`crate::hardware::edit::EDITED_SOURCE`]).

use super::{Field, InputMode, Kind, Options};
use crate::hardware::catalog::with_provenance;
use crate::hardware::chip::{Chip, ChipFamily, Fabric, WrapRule};
use crate::hardware::query::ChipSource;
use crate::scenario::Scenario;
use crate::text;

/// The unit a chip's number is shown and typed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// 1e12 FLOP/s.
    TeraFlops,
    /// 1e9 bytes.
    Gigabytes,
    /// 2^20 bytes.
    Mebibytes,
    /// 1e9 bytes per second.
    GigabytesPerSec,
    /// 1e-6 seconds.
    Microseconds,
    /// A plain count.
    Count,
    /// US dollars per chip-hour.
    UsdPerHour,
}

impl Unit {
    /// Base-unit value of one displayed unit.
    #[must_use]
    pub const fn scale(self) -> f64 {
        match self {
            Unit::TeraFlops => 1e12,
            Unit::Gigabytes | Unit::GigabytesPerSec => 1e9,
            Unit::Mebibytes => 1_048_576.0,
            Unit::Microseconds => 1e-6,
            Unit::Count | Unit::UsdPerHour => 1.0,
        }
    }

    /// Unit text after the number.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Unit::TeraFlops => "TFLOP/s",
            Unit::Gigabytes => "GB",
            Unit::Mebibytes => "MiB",
            Unit::GigabytesPerSec => "GB/s",
            Unit::Microseconds => "µs",
            Unit::Count => "",
            Unit::UsdPerHour => "USD / chip-hour",
        }
    }
}

/// One number of a chip as the page names it.
#[derive(Clone, Copy, Debug)]
pub struct ChipNumber {
    /// Path in [`Chip::numeric_fields`], e.g. `hbm.bandwidth`.
    pub path: &'static str,
    /// What it is.
    pub label: &'static str,
    /// Display unit.
    pub unit: Unit,
    /// May be empty (not published).
    pub optional: bool,
}

impl ChipNumber {
    /// Its field's path in the scenario.
    #[must_use]
    pub fn field_path(&self) -> String {
        format!("hardware.chip.custom.{}", self.path)
    }
}

/// The number at `path` of the scenario's chip, in `unit` ("" when absent).
fn number_text(s: &Scenario, path: &str, unit: Unit) -> String {
    chip(s)
        .and_then(|c| c.numeric_fields().into_iter().find(|(p, _)| *p == path).and_then(|(_, v)| v))
        .map(|v| text::plain(v / unit.scale()))
        .unwrap_or_default()
}

/// Reads `text` (in `unit`; empty = absent when `optional`) into the number at `path` of
/// the scenario's custom chip, and records the edit as the number's source.
fn set_number(s: &mut Scenario, path: &str, unit: Unit, optional: bool, text: &str) -> Result<(), String> {
    let value = if text.trim().is_empty() {
        if !optional {
            return Err("is required".into());
        }
        None
    } else {
        Some(text::scaled(text, unit.scale(), text::positive_real)?)
    };
    edit(s, |c| {
        c.set_field(path, value).map_err(|e| e.strip_prefix(&format!("{path}: ")).unwrap_or(&e).to_string())?;
        c.mark_edited(path, "");
        c.forget_missing_fields();
        Ok(())
    })
}

/// [`NUMBERS`] and [`NUMBER_FIELDS`] from one table: `path, label, unit, optional;`.
macro_rules! chip_numbers {
    ($($path:literal, $label:literal, $unit:ident, $optional:literal;)+) => {
        /// Every number of a chip, in the order the spec table and the editor list them.
        pub static NUMBERS: &[ChipNumber] =
            &[$(ChipNumber { path: $path, label: $label, unit: Unit::$unit, optional: $optional }),+];

        /// The editor's field of every number (only while the chip is custom).
        pub static NUMBER_FIELDS: &[Field] = &[$(
            Field::new(
                concat!("hardware.chip.custom.", $path),
                $label,
                Kind::Text {
                    mode: if matches!(Unit::$unit, Unit::Count) { InputMode::Numeric } else { InputMode::Decimal },
                    get: |s| number_text(s, $path, Unit::$unit),
                    set: |s, t| set_number(s, $path, Unit::$unit, $optional, t),
                },
            )
            .unit(Unit::$unit.label())
            .hint(if $optional { "Empty = not published" } else { "" })
            .when(is_custom)
        ),+];
    };
}

chip_numbers! {
    "peak_flops.bf16", "Peak bf16 matmul (dense)", TeraFlops, false;
    "peak_flops.fp8", "Peak fp8 matmul (dense)", TeraFlops, true;
    "peak_flops.int8", "Peak int8 matmul (dense)", TeraFlops, true;
    "peak_flops.int4", "Peak int4 matmul (dense)", TeraFlops, true;
    "peak_flops.fp4", "Peak fp4 matmul (dense)", TeraFlops, true;
    "vector_flops", "Vector unit", TeraFlops, true;
    "hbm.capacity", "HBM capacity", Gigabytes, false;
    "hbm.bandwidth", "HBM bandwidth", GigabytesPerSec, false;
    "on_chip.capacity", "On-chip memory (VMEM / SMEM)", Mebibytes, true;
    "on_chip.bandwidth", "On-chip memory bandwidth", GigabytesPerSec, true;
    "mxu.size", "MXU side (systolic array)", Count, true;
    "mxu.count", "MXUs per chip", Count, true;
    "cores_per_chip", "TensorCores per chip", Count, false;
    "sparse_cores.count", "SparseCores per chip", Count, true;
    "scale_up.links_per_chip", "Scale-up links per chip", Count, false;
    "scale_up.link.one_way", "Per link, one-way", GigabytesPerSec, false;
    "scale_up.link.bidirectional", "Per link, bidirectional", GigabytesPerSec, false;
    "scale_up.hop_latency", "Scale-up hop latency", Microseconds, true;
    "scale_up.max_chips", "Largest slice / NVLink domain", Count, false;
    "host.chips_per_host", "Chips per host", Count, false;
    "host.pcie.one_way", "PCIe per chip, one-way", GigabytesPerSec, true;
    "host.pcie.bidirectional", "PCIe per chip, bidirectional", GigabytesPerSec, true;
    "scale_out.bandwidth_per_chip", "DCN / scale-out per chip, one-way", GigabytesPerSec, false;
    "scale_out.hop_latency", "DCN / scale-out latency", Microseconds, true;
    "chiplets.count", "Chiplets per chip", Count, true;
    "chiplets.die_to_die.one_way", "Die-to-die link, one-way", GigabytesPerSec, true;
    "chiplets.die_to_die.bidirectional", "Die-to-die link, bidirectional", GigabytesPerSec, true;
    "price_per_chip_hour_usd", "Price", UsdPerHour, true;
}

/// The number at `path` of [`NUMBERS`].
#[must_use]
pub fn number(path: &str) -> Option<&'static ChipNumber> {
    NUMBERS.iter().find(|n| n.path == path)
}

/// The scenario's chip, resolved (`None` without hardware or for an unknown preset).
fn chip(s: &Scenario) -> Option<Chip> {
    s.hardware.as_ref().and_then(|h| h.chip.resolve().ok())
}

/// Whether the scenario's chip is a custom one.
#[must_use]
pub fn is_custom(s: &Scenario) -> bool {
    matches!(s.hardware.as_ref().map(|h| &h.chip), Some(ChipSource::Custom(_)))
}

/// A copy of `chip` the user can edit: its own id (so it is never mistaken for the
/// preset), a name saying where it came from, and the preset's sources.
#[must_use]
pub fn editable_copy(chip: Chip) -> Chip {
    let mut c = with_provenance(chip);
    if !c.id.starts_with("custom-") {
        c.id = format!("custom-{}", c.id);
        c.name = format!("{} (edited)", c.name);
    }
    c
}

/// Makes the scenario's catalog chip a custom copy ([`editable_copy`]); a custom chip,
/// or a scenario without a chip, stays as it is.
pub fn customize(s: &mut Scenario) {
    let Some(hw) = s.hardware.as_mut() else { return };
    if let ChipSource::Preset(_) = hw.chip {
        if let Ok(chip) = hw.chip.resolve() {
            hw.chip = ChipSource::Custom(Box::new(editable_copy(chip)));
        }
    }
}

/// Edits the scenario's custom chip with `f`, made from its catalog chip first when it
/// has one; nothing changes when `f` refuses.
fn edit(s: &mut Scenario, f: impl FnOnce(&mut Chip) -> Result<(), String>) -> Result<(), String> {
    let hw = s.hardware.as_mut().ok_or("choose a chip first")?;
    let mut chip = match &hw.chip {
        ChipSource::Custom(c) => c.as_ref().clone(),
        ChipSource::Preset(_) => editable_copy(hw.chip.resolve().map_err(|e| e.to_string())?),
    };
    f(&mut chip)?;
    hw.chip = ChipSource::Custom(Box::new(chip));
    Ok(())
}

/// Reads the custom chip with `f` (the defaults of a fabric when there is none).
fn read<T>(s: &Scenario, f: impl FnOnce(&Chip) -> T, none: T) -> T {
    chip(s).as_ref().map_or(none, f)
}

fn is_torus(s: &Scenario) -> bool {
    is_custom(s) && read(s, |c| matches!(c.scale_up.fabric, Fabric::Torus { .. }), false)
}

/// The fabric's kind: a torus is a TPU (slices over DCN), a switch or a full mesh a GPU
/// (nodes over the scale-out network). A torus made from another fabric starts as a 2D
/// torus whose full axes of 16 wrap.
fn set_fabric(s: &mut Scenario, kind: &str) -> Result<(), String> {
    edit(s, |c| {
        c.scale_up.fabric = match (kind, c.scale_up.fabric) {
            ("torus", f @ Fabric::Torus { .. }) => f,
            ("torus", _) => Fabric::Torus { dims: 2, wraparound: WrapRule::FullAxis(16) },
            ("switch", _) => Fabric::Switch,
            ("full_mesh", _) => Fabric::FullMesh,
            (other, _) => return Err(format!("unknown fabric {other:?}; use torus, switch or full_mesh")),
        };
        c.family = if kind == "torus" { ChipFamily::Tpu } else { ChipFamily::Gpu };
        Ok(())
    })
}

/// Changes the torus's dimensions and wraparound with `f` (nothing for another fabric).
fn edit_torus(s: &mut Scenario, f: impl FnOnce(&mut u64, &mut WrapRule)) {
    let _ = edit(s, |c| {
        if let Fabric::Torus { dims, wraparound } = &mut c.scale_up.fabric {
            f(dims, wraparound);
        }
        Ok(())
    });
}

fn torus<T>(s: &Scenario, f: impl FnOnce(u64, WrapRule) -> T, none: T) -> T {
    match chip(s).map(|c| c.scale_up.fabric) {
        Some(Fabric::Torus { dims, wraparound }) => f(dims, wraparound),
        _ => none,
    }
}

const FABRICS: [(&str, &str); 3] = [
    ("torus", "Torus (TPU ICI; slices over DCN)"),
    ("switch", "Switch (NVLink + NVSwitch; GPU nodes)"),
    ("full_mesh", "Full mesh (Infinity Fabric; GPU nodes)"),
];

const WRAP_RULES: [(&str, &str); 2] =
    [("full_axis", "Only a full axis wraps (v5e, v6e)"), ("full_cubes", "Only whole cubes wrap (v4, v5p, 7x)")];

/// The chip's name and its scale-up fabric.
pub static IDENTITY: [Field; 5] = [
    Field::new(
        "hardware.chip.custom.name",
        "Name",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| read(s, |c| c.name.clone(), String::new()),
            set: |s, t| {
                let name = t.trim();
                if name.is_empty() {
                    return Err("must not be empty".into());
                }
                edit(s, |c| {
                    c.name = name.to_string();
                    Ok(())
                })
            },
        },
    )
    .when(is_custom),
    Field::new(
        "hardware.chip.custom.scale_up.fabric",
        "Scale-up fabric",
        Kind::Choice {
            options: Options::Fixed(&FABRICS),
            get: |s| {
                read(
                    s,
                    |c| match c.scale_up.fabric {
                        Fabric::Torus { .. } => "torus",
                        Fabric::Switch => "switch",
                        Fabric::FullMesh => "full_mesh",
                    },
                    "torus",
                )
                .into()
            },
            set: set_fabric,
        },
    )
    .hint("A torus is a TPU (slices over DCN); a switch or full mesh a GPU (nodes over the scale-out network)")
    .when(is_custom),
    Field::new(
        "hardware.chip.custom.scale_up.fabric.dims",
        "Torus axes",
        Kind::Count { get: |s| torus(s, |d, _| d, 2), set: |s, n| edit_torus(s, |dims, _| *dims = n) },
    )
    .hint("1, 2 or 3")
    .when(is_torus),
    Field::new(
        "hardware.chip.custom.scale_up.fabric.wraparound",
        "Wraparound rule",
        Kind::Choice {
            options: Options::Fixed(&WRAP_RULES),
            get: |s| {
                torus(s, |_, w| if let WrapRule::FullCubes(_) = w { "full_cubes" } else { "full_axis" }, "").into()
            },
            set: |s, rule| {
                let make: fn(u64) -> WrapRule = match rule {
                    "full_axis" => WrapRule::FullAxis,
                    "full_cubes" => WrapRule::FullCubes,
                    other => return Err(format!("unknown rule {other:?}; use full_axis or full_cubes")),
                };
                edit_torus(s, |_, w| *w = make(wrap_size(*w)));
                Ok(())
            },
        },
    )
    .when(is_torus),
    Field::new(
        "hardware.chip.custom.scale_up.fabric.wrap_size",
        "Wraparound size",
        Kind::Count {
            get: |s| torus(s, |_, w| wrap_size(w), 16),
            set: |s, n| {
                edit_torus(s, |_, w| {
                    *w = match w {
                        WrapRule::FullAxis(_) => WrapRule::FullAxis(n),
                        WrapRule::FullCubes(_) => WrapRule::FullCubes(n),
                    }
                });
            },
        },
    )
    .unit("chips")
    .hint("Full axis length, or cube side")
    .when(is_torus),
];

fn wrap_size(w: WrapRule) -> u64 {
    match w {
        WrapRule::FullAxis(n) | WrapRule::FullCubes(n) => n,
    }
}

fn has_sparse_cores(s: &Scenario) -> bool {
    is_custom(s) && read(s, |c| c.sparse_cores.is_some(), false)
}

/// Whether the runtime offloads the chip's collectives to its SparseCores by default.
pub static SPARSE_CORES: [Field; 1] = [Field::new(
    "hardware.chip.custom.sparse_cores.offload_by_default",
    "SparseCores drive the collectives by default",
    Kind::Flag {
        get: |s| read(s, |c| c.sparse_cores.is_some_and(|sc| sc.offload_by_default), false),
        set: |s, on| {
            let _ = edit(s, |c| {
                if let Some(sc) = c.sparse_cores.as_mut() {
                    sc.offload_by_default = on;
                }
                Ok(())
            });
        },
    },
)
.hint("The Ironwood guide: AllGather, ReduceScatter and AllReduce beside the matmuls (training.overlap.sparse_core when unset)")
.when(has_sparse_cores)];

/// Every group of the custom chip's fields.
pub static GROUPS: [&[Field]; 3] = [&IDENTITY, NUMBER_FIELDS, &SPARSE_CORES];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::apply;

    #[test]
    fn every_number_of_a_chip_has_a_row() {
        let chip = crate::hardware::catalog::get("tpu-v7x").unwrap();
        let mut paths: Vec<&str> = chip.numeric_fields().into_iter().map(|(p, _)| p).collect();
        let mut rows: Vec<&str> = NUMBERS.iter().map(|n| n.path).collect();
        paths.sort_unstable();
        rows.sort_unstable();
        assert_eq!(rows, paths);
    }

    #[test]
    fn editing_a_catalog_chip_makes_a_sourced_copy() {
        let mut s = Scenario::default();
        crate::field::hardware::set_chip(&mut s, "tpu-v5e").unwrap();
        // The v5e's HBM bandwidth, doubled (book 1.1: 8.1e11 B/s).
        apply(&mut s, "hardware.chip.custom.hbm.bandwidth", "1620").unwrap();
        let Some(ChipSource::Custom(c)) = s.hardware.as_ref().map(|h| &h.chip) else { panic!("not custom") };
        assert_eq!((c.hbm.bandwidth.get(), c.name.as_str()), (1.62e12, "TPU v5e (edited)"));
        assert_eq!(c.source_of("hbm.bandwidth").0, crate::hardware::edit::EDITED_SOURCE);
        assert!(s.validate().is_ok(), "{:?}", s.validate());
        // A link's two directions move together: bidirectional = 2 × one-way.
        apply(&mut s, "hardware.chip.custom.scale_up.link.bidirectional", "90").unwrap();
        let f = crate::field::find("hardware.chip.custom.scale_up.link.one_way").unwrap();
        assert_eq!(f.text(&s), "45");
        for (text, says) in [("abc", "not a number"), ("", "required"), ("-3", "greater than 0"), ("1e400", "")] {
            let e = apply(&mut s, "hardware.chip.custom.hbm.bandwidth", text).unwrap_err();
            assert!(e.message.contains(says), "{text:?}: {e}");
        }
        assert!(apply(&mut s, "hardware.chip.custom.mxu.size", "127.5").unwrap_err().message.contains("whole number"));
        // An optional number may be emptied; the chip stays valid.
        apply(&mut s, "hardware.chip.custom.price_per_chip_hour_usd", "").unwrap();
        assert!(s.validate().is_ok());
    }

    #[test]
    fn the_fabric_decides_the_family() {
        let mut s = Scenario::default();
        crate::field::hardware::set_chip(&mut s, "tpu-v5p").unwrap();
        customize(&mut s);
        apply(&mut s, "hardware.chip.custom.scale_up.fabric", "switch").unwrap();
        assert_eq!(chip(&s).map(|c| (c.family, c.scale_up.fabric)), Some((ChipFamily::Gpu, Fabric::Switch)));
        apply(&mut s, "hardware.chip.custom.scale_up.fabric", "torus").unwrap();
        apply(&mut s, "hardware.chip.custom.scale_up.fabric.wraparound", "full_cubes").unwrap();
        apply(&mut s, "hardware.chip.custom.scale_up.fabric.wrap_size", "4").unwrap();
        let fabric = chip(&s).map(|c| c.scale_up.fabric);
        assert_eq!(fabric, Some(Fabric::Torus { dims: 2, wraparound: WrapRule::FullCubes(4) }));
        assert_eq!(chip(&s).map(|c| c.family), Some(ChipFamily::Tpu));
    }
}
