//! The op a scenario asks the roofline of (book 1.1): a matmul given by its shape, or any
//! op given by its FLOPs and bytes, checked against the chip.

use super::matmul::Matmul;
use super::OpCost;
use crate::dtype::DType;
use crate::error::Checker;
use crate::hardware::Chip;
use serde::{Deserialize, Serialize};

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

impl RooflineQuery {
    /// Checks the op (problems to `c`, paths relative to the scenario: `roofline.matmul.b`)
    /// and, with the scenario's chip, that the chip has a peak in its compute format and a
    /// PCIe link for host bytes.
    pub fn check(&self, chip: Option<&Chip>, c: &mut Checker) {
        let field = match self {
            RooflineQuery::Matmul(m) => {
                c.merge("roofline.matmul", m.validate());
                "roofline.matmul.compute"
            }
            RooflineQuery::Op(op) => {
                c.merge("roofline.op", op.validate());
                "roofline.op.dtype"
            }
        };
        if let Some(chip) = chip {
            let dtype = self.dtype();
            c.ensure(chip.peak_flops.for_dtype(dtype).is_some(), field, || {
                format!("{} has no published {} peak", chip.name, dtype.name())
            });
            if let RooflineQuery::Op(op) = self {
                c.ensure(op.host_bytes.get() <= 0.0 || chip.host.pcie.is_some(), "roofline.op.host_bytes", || {
                    format!("{} has no published PCIe bandwidth; set host bytes to 0 or give the chip one", chip.name)
                });
            }
        }
    }
}
