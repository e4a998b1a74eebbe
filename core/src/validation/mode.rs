//! Which prediction the planner makes: the ideal roofline, or the roofline scaled by
//! the calibrated efficiency model ([`super::calibration`]). A field of the scenario
//! (`conventions.prediction`), so it lives in the URL.

use serde::{Deserialize, Serialize};

/// Ideal roofline or calibrated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PredictionMode {
    /// Every rate at its peak, overlap as the planner's `overlap` options say: the
    /// book's roofline (default).
    #[default]
    Ideal,
    /// The roofline with the calibrated efficiencies of `core/data/calibration.json`
    /// (fitted on published runs; see docs/validation.md).
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

    /// Whether this is the default (skipped when a scenario is written).
    #[must_use]
    pub fn is_ideal(&self) -> bool {
        *self == PredictionMode::Ideal
    }
}
