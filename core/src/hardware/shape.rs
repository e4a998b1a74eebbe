//! A topology as people type it: a shape (`16x20x28` is a TPU slice with axes `x`, `y`, `z`;
//! `8` a GPU NVLink domain) times a number of slices or nodes joined by the data-center
//! network. [`topology_for`] builds the [`Topology`] of a shape on a chip, keeping the per-axis
//! settings an older topology had; [`default_shape`] is what a chip starts from (the fields
//! that change a scenario's chip and topology are `field::hardware`'s).

use super::chip::{Chip, ChipFamily};
use super::query::CollectiveQuery;
use super::topology::{AxisSpec, Topology};
use crate::collectives::Network;
use crate::text::count;

/// Most axes a typed shape may have.
pub const MAX_SHAPE_AXES: usize = 4;

/// `16x20x28` → `[16, 20, 28]` (`x`, `X`, `×` or `*` between sizes).
///
/// # Errors
/// Text that is not a shape of at most four axes of at least one chip each.
pub fn parse_shape(text: &str) -> Result<Vec<u64>, String> {
    let parts: Vec<&str> = text.split(['x', 'X', '×', '*']).map(str::trim).collect();
    if parts.len() > MAX_SHAPE_AXES {
        return Err("at most four axes (e.g. 16x20x28)".into());
    }
    parts
        .iter()
        .map(|p| match count(p) {
            Ok(0) => Err("every axis needs at least 1 chip".to_string()),
            Ok(n) => Ok(n),
            Err(m) => Err(format!("{m} (write chips per axis, e.g. 4x4x4)")),
        })
        .collect()
}

/// The topology of `shape` times `slices` on `chip`: a TPU slice, or GPU NVLink domains of the
/// shape's product joined by the scale-out network. Keeps `old`'s per-axis settings
/// (wraparound, link and latency overrides) for axes that keep their name and network, and
/// its die-to-die axes on a chip with chiplets.
#[must_use]
pub fn topology_for(chip: &Chip, shape: &[u64], slices: u64, old: Option<&Topology>) -> Topology {
    let mut t = match chip.family {
        ChipFamily::Tpu => Topology::tpu_slice(shape, slices),
        ChipFamily::Gpu => Topology::gpu_cluster(shape.iter().product::<u64>().max(1), slices),
    };
    if let Some(old) = old {
        for axis in &mut t.axes {
            if let Some(prev) = old.axes.iter().find(|a| a.name == axis.name && a.network == axis.network) {
                axis.wraparound = prev.wraparound;
                axis.link_one_way = prev.link_one_way;
                axis.hop_latency = prev.hop_latency;
            }
        }
        if chip.chiplets.is_some() {
            let chiplets: Vec<AxisSpec> = old.axes.iter().filter(|a| a.network == Network::DieToDie).cloned().collect();
            t.axes.extend(chiplets);
        }
    }
    t
}

/// The name of the die-to-die axis [`set_chiplet_axis`] adds (the hardware page's too).
pub const CHIPLET_AXIS: &str = "d2d";

/// Makes every chiplet of `chip` a device (`on`: one die-to-die axis of its chiplets, named
/// [`CHIPLET_AXIS`], the Ironwood programming model: each TensorCore chiplet is a JAX
/// device) or the whole chip one device (no die-to-die axis).
///
/// # Errors
/// `on` for a chip without chiplets.
pub fn set_chiplet_axis(t: &mut Topology, chip: &Chip, on: bool) -> Result<(), String> {
    t.axes.retain(|a| a.network != Network::DieToDie);
    if on {
        let ch = chip.chiplets.ok_or_else(|| format!("{} has no chiplets (the chip's chiplets)", chip.name))?;
        t.axes.push(AxisSpec::new(CHIPLET_AXIS, ch.count, Network::DieToDie));
    }
    Ok(())
}

/// The shape text and slice count of a topology (inverse of [`topology_for`]): `("4x4x4", 2)`.
#[must_use]
pub fn shape_of(t: &Topology) -> (String, u64) {
    let up: Vec<String> = t.axes.iter().filter(|a| a.network == Network::ScaleUp).map(|a| a.size.to_string()).collect();
    let out: u64 = t.axes.iter().filter(|a| a.network == Network::ScaleOut).map(|a| a.size).product();
    (up.join("x"), out.max(1))
}

/// The shape a chip starts from: one full NVLink domain for a GPU, a 4×4×4 cube for a 3D
/// torus (six links per chip) of at least 64 chips, the book's 8×4 (Pop Quiz 2) for a 2D one
/// of at least 32, else the whole pod in a line.
#[must_use]
pub fn default_shape(chip: &Chip) -> Vec<u64> {
    let up = &chip.scale_up;
    match chip.family {
        ChipFamily::Gpu => vec![up.max_chips.max(1)],
        ChipFamily::Tpu if up.links_per_chip >= 6 && up.max_chips >= 64 => vec![4, 4, 4],
        ChipFamily::Tpu if up.max_chips >= 32 => vec![8, 4],
        ChipFamily::Tpu => vec![up.max_chips.max(1)],
    }
}

/// The topology a chip starts from ([`default_shape`], one slice).
#[must_use]
pub fn default_topology(chip: &Chip) -> Topology {
    topology_for(chip, &default_shape(chip), 1, None)
}

/// Collective queries follow a new topology: axes it no longer has are dropped, and a query
/// left without axes runs over the first axis (so a new shape or chip is never refused because
/// of a query the user can fix afterwards).
pub fn keep_collectives_on(queries: &mut [CollectiveQuery], topology: Option<&Topology>) {
    let Some(t) = topology else { return };
    for q in queries {
        q.axes.retain(|name| t.axes.iter().any(|a| &a.name == name));
        if q.axes.is_empty() {
            q.axes.extend(t.axes.first().map(|a| a.name.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_read_and_write_back() {
        assert_eq!(parse_shape("16x20x28"), Ok(vec![16, 20, 28]));
        assert_eq!(parse_shape(" 4 × 4 "), Ok(vec![4, 4]));
        assert!(parse_shape("4x4x4x4x4").unwrap_err().contains("at most four"));
        assert!(parse_shape("4x0").unwrap_err().contains("at least 1"));
        assert!(parse_shape("4xq").unwrap_err().contains("e.g. 4x4x4"));
        let chip = super::super::catalog::get("tpu-v5p").unwrap();
        let t = topology_for(&chip, &[4, 4, 4], 2, None);
        assert_eq!(shape_of(&t), ("4x4x4".to_string(), 2));
        assert_eq!(t.devices(), 128.0);
    }
}
