//! The hardware part of a scenario: which chip, which topology, and the collective
//! and roofline questions asked of them.

use super::catalog;
use super::chip::Chip;
use super::topology::Topology;
use crate::collectives::{AxisLink, CollectiveKind};
use crate::dtype::DType;
use crate::error::{Checker, Invalid};
use crate::roofline::matmul::Matmul;
use crate::roofline::OpCost;
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

/// One entry of `collectives`: a collective of the full array `array_bytes` (see
/// `shardcalc_core::collectives` for which array that is) over named topology axes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CollectiveQuery {
    /// `all_gather`, `reduce_scatter`, `all_reduce` or `all_to_all`.
    pub kind: CollectiveKind,
    /// `V` in bytes.
    pub array_bytes: f64,
    /// Names of topology axes.
    pub axes: Vec<String>,
}

/// `roofline`: an op given by its totals, or a matmul given by its shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum RooflineQuery {
    /// FLOPs and bytes per channel on one chip, e.g. `{"op": {"flops": 1e12, "hbm_bytes": 1e9}}`.
    Op(OpCost),
    /// `X[B, D] · W[D, F]`, e.g. `{"matmul": {"b": 256, "d": 8192, "f": 32768, "rhs": "int8"}}`.
    Matmul(Matmul),
}

impl RooflineQuery {
    /// The compute format asked for.
    #[must_use]
    pub fn dtype(&self) -> DType {
        match self {
            RooflineQuery::Op(op) => op.dtype,
            RooflineQuery::Matmul(m) => m.compute,
        }
    }
}

/// A validated hardware section.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedHardware {
    /// The chip.
    pub chip: Chip,
    /// The topology's axes, resolved; empty without a topology.
    pub axes: Vec<AxisLink>,
}

/// Check the hardware-related sections of a scenario together; field paths are
/// relative to the scenario (`hardware.chip.custom.hbm.bandwidth`,
/// `hardware.topology.axes[1].size`, `collectives[0].axes[1]`, `roofline.matmul.b`).
///
/// # Errors
/// Every problem found.
pub fn resolve(
    hardware: Option<&HardwareSection>,
    collectives: &[CollectiveQuery],
    roofline: Option<&RooflineQuery>,
) -> Result<Option<ResolvedHardware>, Invalid> {
    let mut c = Checker::new();
    let Some(hw) = hardware else {
        c.ensure(collectives.is_empty(), "hardware", || "is required by `collectives`".into());
        c.ensure(roofline.is_none(), "hardware", || "is required by `roofline`".into());
        c.finish()?;
        return Ok(None);
    };
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
    if !collectives.is_empty() && hw.topology.is_none() {
        c.push("hardware.topology", "is required by `collectives`");
    }
    for (i, q) in collectives.iter().enumerate() {
        c.range_f64(&format!("collectives[{i}].array_bytes"), q.array_bytes, 0.0, super::MAX_QUANTITY);
        c.ensure(!q.axes.is_empty(), &format!("collectives[{i}].axes"), || "must name at least one axis".into());
        for (j, name) in q.axes.iter().enumerate() {
            let known = hw.topology.as_ref().is_some_and(|t| t.axes.iter().any(|a| &a.name == name));
            c.ensure(known || hw.topology.is_none(), &format!("collectives[{i}].axes[{j}]"), || {
                format!("no topology axis is named {name:?}")
            });
            c.ensure(!q.axes[..j].contains(name), &format!("collectives[{i}].axes[{j}]"), || {
                format!("axis {name:?} is listed twice")
            });
        }
    }
    if let Some(q) = roofline {
        let field = match q {
            RooflineQuery::Matmul(m) => {
                c.merge("roofline.matmul", m.validate());
                "roofline.matmul.compute"
            }
            RooflineQuery::Op(op) => {
                c.merge("roofline.op", op.validate());
                "roofline.op.dtype"
            }
        };
        if let Some(chip) = &chip {
            let dtype = q.dtype();
            c.ensure(chip.peak_flops.for_dtype(dtype).is_some(), field, || {
                format!("{} has no published {} peak", chip.name, dtype.name())
            });
            if let RooflineQuery::Op(op) = q {
                c.ensure(op.host_bytes.get() <= 0.0 || chip.host.pcie.is_some(), "roofline.op.host_bytes", || {
                    format!("{} has no published PCIe bandwidth; set host bytes to 0 or give the chip one", chip.name)
                });
            }
        }
    }
    c.finish()?;
    Ok(chip.map(|chip| ResolvedHardware { chip, axes }))
}
