//! Which prediction the planners headline: the calibrated physical model (the default) or
//! the ideal roofline. A field of the scenario (`conventions.prediction`), so it lives in
//! the URL; the roofline is always reported beside the calibrated prediction as its bound.
//!
//! **Links written before the default changed.** Until issue 16 the default was the ideal
//! roofline and a scenario in that mode was written without the field. Such a link now
//! reads as `calibrated`: its inputs are unchanged and the roofline it used to headline is
//! still shown (as `training.roofline`, the bound); only the headline moved to the
//! prediction the issue asks for. A link that names `ideal` keeps headlining the roofline.

use serde::{Deserialize, Serialize};

/// Calibrated physical model or ideal roofline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PredictionMode {
    /// Every rate at its peak, no kernel inefficiency, overlap as the planner's `overlap`
    /// options say: the book's roofline, a bound no run beats.
    Ideal,
    /// The physical step model (matmul padding and tiling, attention kernels, HBM-bound
    /// work, the optimizer update, MoE dispatch) with the calibrated parameters of
    /// `core/data/calibration.json` (fitted on published runs; see docs/validation.md).
    /// The default.
    #[default]
    Calibrated,
}

impl PredictionMode {
    /// Both, in display order.
    pub const ALL: [PredictionMode; 2] = [PredictionMode::Ideal, PredictionMode::Calibrated];

    /// Identifier in JSON and URLs.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            PredictionMode::Ideal => "ideal",
            PredictionMode::Calibrated => "calibrated",
        }
    }

    /// Display name.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            PredictionMode::Ideal => "Roofline (ideal)",
            PredictionMode::Calibrated => "Calibrated",
        }
    }

    /// Whether this is the ideal roofline.
    #[must_use]
    pub fn is_ideal(&self) -> bool {
        *self == PredictionMode::Ideal
    }

    /// Whether this is the default (skipped when a scenario is written).
    #[must_use]
    pub fn is_default(&self) -> bool {
        *self == PredictionMode::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_calibrated_and_ids_round_trip() {
        assert_eq!(PredictionMode::default(), PredictionMode::Calibrated);
        for m in PredictionMode::ALL {
            let json = serde_json::to_value(m).unwrap();
            assert_eq!(json, m.id());
            assert_eq!(serde_json::from_value::<PredictionMode>(json).unwrap(), m);
        }
    }
}
