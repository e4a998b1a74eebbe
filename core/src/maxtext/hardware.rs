//! Where a MaxText run runs: the chip, one slice's shape and the number of slices, from
//! the command's own options or, when it leaves them out, from the run's keys as MaxText
//! reads them for ahead-of-time compilation (`compile_topology=v5p-256`,
//! `compile_topology_num_slices`) and `num_slices`.
//!
//! JAX devices are what `per_device_batch_size` and the `ici_*` degrees count: one per
//! chip, except TPU7x (Ironwood), whose two TensorCore chiplets are two devices (the
//! Ironwood guide; `accelerator_to_spec_map.py`: `tpu7x-128` is 128 devices on a 4×4×4
//! slice of 64 chips), so its topology gets a die-to-die axis.

use super::reader::Reader;
use crate::hardware::catalog;
use crate::hardware::chip::{Chip, ChipFamily};
use crate::hardware::query::{ChipSource, HardwareSection};
use crate::hardware::shape::{default_shape, parse_shape, set_chiplet_axis, topology_for};
use crate::hardware::topology::Topology;
use crate::import::ImportError;
use serde::{Deserialize, Serialize};

/// The command's hardware options (`--chip`, `--topology`, `--slices`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HardwareArgs {
    /// A catalog chip id (`shardcalc chips`).
    pub chip: Option<String>,
    /// One slice's shape in chips (`4x4x8`; a GPU node's GPUs, `8`).
    pub topology: Option<String>,
    /// Slices (TPU) or nodes (GPU) joined by the data-center network.
    pub slices: Option<u64>,
}

/// `compile_topology` name prefixes and the catalog chip they are.
const TOPOLOGY_CHIPS: [(&str, &str); 6] = [
    ("tpu7x-", "tpu-v7x"),
    ("v6e-", "tpu-v6e"),
    ("v5e-", "tpu-v5e"),
    ("v5p-", "tpu-v5p"),
    ("v4-", "tpu-v4"),
    ("a3", "h100-sxm"),
];

/// MaxText's `accelerator_to_spec_map.py` (e591f30): `name shape devices` per line.
#[cfg(feature = "maxtext-configs")]
const TOPOLOGIES: &str = include_str!("../../data/maxtext/topologies.txt");
#[cfg(not(feature = "maxtext-configs"))]
const TOPOLOGIES: &str = "";

/// The chip and slice shape of a `compile_topology` name (`v5p-256` → tpu-v5p, 4×4×8).
#[must_use]
pub fn compile_topology(name: &str) -> Option<(&'static str, Option<Vec<u64>>)> {
    let chip = TOPOLOGY_CHIPS.iter().find(|(prefix, _)| name.starts_with(prefix)).map(|(_, chip)| *chip)?;
    let shape = TOPOLOGIES
        .lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| {
            let mut parts = l.split_whitespace();
            (parts.next() == Some(name)).then(|| parts.next().and_then(|s| parse_shape(s).ok()))
        })
        .flatten();
    Some((chip, shape))
}

/// The chip, topology and devices of a run.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Resolved {
    pub chip: Chip,
    pub section: HardwareSection,
    pub slices: u64,
    /// JAX devices per slice.
    pub per_slice: u64,
}

/// Resolve the hardware of a run.
///
/// # Errors
/// No chip, an unknown chip or shape.
pub(super) fn resolve(r: &mut Reader<'_>, args: &HardwareArgs) -> Result<Resolved, ImportError> {
    let named = r.string("compile_topology", "", "hardware (when --chip / --topology are not given)")?;
    let from_name = if named.is_empty() { None } else { compile_topology(&named) };
    if !named.is_empty() && from_name.is_none() {
        r.warn(
            "compile_topology",
            format!("`{named}` is not a TPU or A3 topology shardcalc knows; give --chip and --topology"),
        );
    }
    let chip_id = match (&args.chip, &from_name) {
        (Some(id), _) => id.clone(),
        (None, Some((id, _))) => (*id).to_owned(),
        (None, None) => {
            return Err(ImportError::field(
                "--chip",
                "is needed (a chip id from `shardcalc chips`), unless compile_topology names the slice (e.g. compile_topology=v5p-256)",
            ))
        }
    };
    let chip = catalog::get(&chip_id).ok_or_else(|| {
        let known: Vec<String> = catalog::all().iter().map(|c| c.id.clone()).collect();
        ImportError::field("--chip", format!("unknown chip {chip_id:?}; known: {}", known.join(", ")))
    })?;
    let hardware = r.string("hardware", "tpu", "nothing (checked against the chip)")?;
    let gpu_key = hardware.starts_with("gpu");
    if gpu_key != (chip.family == ChipFamily::Gpu) {
        r.warn("hardware", format!("is {hardware:?} but the chip is {}", chip.name));
    }
    let shape = match (&args.topology, from_name.and_then(|(_, s)| s)) {
        (Some(text), _) => parse_shape(text).map_err(|m| ImportError::field("--topology", m))?,
        (None, Some(shape)) => shape,
        (None, None) => {
            let shape = default_shape(&chip);
            r.warn(
                "--topology",
                format!("not given; one {} slice of {} (the chip's default)", chip.name, shape_text(&shape)),
            );
            shape
        }
    };
    let num_slices = r.int("num_slices", -1, "hardware.topology (slices)")?;
    let compiled = r.int("compile_topology_num_slices", -1, "hardware.topology (slices)")?;
    let slices = match (args.slices, num_slices, compiled) {
        (Some(n), _, _) => n,
        (None, n, _) if n > 0 => n as u64,
        (None, _, n) if n > 0 => n as u64,
        _ => 1,
    };
    if !(1..=1 << 20).contains(&slices) {
        return Err(ImportError::field("--slices", format!("must be from 1 to 2^20 (got {slices})")));
    }
    let mut topology: Topology = topology_for(&chip, &shape, slices, None);
    // Ironwood: each chiplet is a JAX device.
    if chip.chiplets.is_some() {
        set_chiplet_axis(&mut topology, &chip, true).map_err(|m| ImportError::field("--chip", m))?;
    }
    let per_chip = chip.chiplets.map_or(1, |c| c.count.max(1));
    let chips_per_slice: u64 = shape.iter().product();
    let section = HardwareSection { chip: ChipSource::Preset(chip.id.clone()), topology: Some(topology) };
    Ok(Resolved { chip, section, slices, per_slice: chips_per_slice.saturating_mul(per_chip) })
}

fn shape_text(shape: &[u64]) -> String {
    shape.iter().map(u64::to_string).collect::<Vec<_>>().join("x")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_topology_names() {
        assert_eq!(compile_topology("v5p-256").map(|(c, _)| c), Some("tpu-v5p"));
        assert_eq!(compile_topology("v5e-256").map(|(c, _)| c), Some("tpu-v5e"));
        assert_eq!(compile_topology("tpu7x-128").map(|(c, _)| c), Some("tpu-v7x"));
        assert_eq!(compile_topology("x-1"), None);
        #[cfg(feature = "maxtext-configs")]
        {
            assert_eq!(compile_topology("v5p-256").and_then(|(_, s)| s), Some(vec![4, 4, 8]));
            assert_eq!(compile_topology("v4-384").and_then(|(_, s)| s), Some(vec![4, 4, 12]));
            assert_eq!(compile_topology("tpu7x-128").and_then(|(_, s)| s), Some(vec![4, 4, 4]));
            assert_eq!(compile_topology("v6e-256").and_then(|(_, s)| s), Some(vec![16, 16]));
        }
    }
}
