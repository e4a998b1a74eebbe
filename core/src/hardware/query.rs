//! The hardware part of a scenario: which chip and which topology (the questions asked of
//! them are `crate::collectives::query` and `crate::roofline::query`).

use super::axis::AxisLink;
use super::catalog;
use super::chip::Chip;
use super::topology::Topology;
use crate::error::{Checker, Invalid};
use serde::{Deserialize, Serialize};

/// Where the chip comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ChipSource {
    /// A bundled chip by id, e.g. `{"preset": "tpu-v5e"}` (see `shardcalc chips`).
    Preset(String),
    /// A full chip, e.g. `{"custom": {...}}` in the format of `core/data/chips.json`.
    Custom(Box<Chip>),
}

impl ChipSource {
    /// The chip this source names.
    ///
    /// # Errors
    /// An unknown id is an error on field `preset`.
    pub fn resolve(&self) -> Result<Chip, Invalid> {
        match self {
            ChipSource::Preset(id) => catalog::get(id).ok_or_else(|| {
                let known: Vec<&str> = catalog::all().iter().map(|c| c.id.as_str()).collect();
                Invalid::one("preset", format!("unknown chip {id:?}; known chips: {}", known.join(", ")))
            }),
            ChipSource::Custom(c) => Ok(c.as_ref().clone()),
        }
    }
}

/// `hardware`: a chip and, optionally, the mesh it is wired into.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HardwareSection {
    /// The chip.
    pub chip: ChipSource,
    /// The mesh axes; required by `collectives`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<Topology>,
}

/// A validated hardware section.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedHardware {
    /// The chip.
    pub chip: Chip,
    /// The topology's axes, resolved; empty without a topology.
    pub axes: Vec<AxisLink>,
}

/// The chip and topology of `hw` checked, problems going to `c` with paths relative to the
/// scenario (`hardware.chip.custom.hbm.bandwidth`, `hardware.topology.axes[1].size`);
/// `None` when the chip does not resolve (its axes are empty when the topology does not).
pub fn check(hw: &HardwareSection, c: &mut Checker) -> Option<ResolvedHardware> {
    let chip = match hw.chip.resolve() {
        Ok(chip) => {
            c.merge(
                "hardware.chip.custom",
                if matches!(hw.chip, ChipSource::Custom(_)) { chip.validate() } else { Ok(()) },
            );
            Some(chip)
        }
        Err(e) => {
            c.merge("hardware.chip", Err(e));
            None
        }
    };
    let mut axes = Vec::new();
    if let (Some(chip), Some(t)) = (&chip, &hw.topology) {
        if !c.has_errors() {
            match t.resolve(chip) {
                Ok(a) => axes = a,
                Err(e) => c.merge("hardware.topology", Err(e)),
            }
        }
    }
    chip.map(|chip| ResolvedHardware { chip, axes })
}
