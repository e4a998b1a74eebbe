//! The calibration as data: `core/data/calibration.json` (the five physical parameters of
//! [`crate::efficiency::calibration`], what each means, and the residuals of the grouped
//! splits' held-back runs), parsed for the pages and tests that show or check it. The
//! parameters themselves, and their application, live below the planners in
//! [`crate::efficiency`]; this module re-exports them for the pages.

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

pub use crate::efficiency::calibration::{bundled, Calibration, Parameter, PARAMETER_IDS};
pub use crate::training::section::section_for;

/// How far the calibrated step times of held-back runs fall from the measured ones: the
/// signed error (predicted − measured) / measured, in %, at the 10th and 90th percentiles
/// (nearest rank), pooled over the leave-one-chip-generation-out folds (each run predicted
/// by a fit that never saw its generation). What a calibrated band is widened by.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Residuals {
    /// Held-back runs they come from.
    pub runs: usize,
    /// 10th percentile of the signed step-time error, %.
    pub step_pct_p10: f64,
    /// 90th percentile, %.
    pub step_pct_p90: f64,
}

/// `data/calibration.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrationFile {
    /// What the file is and how it is made.
    #[serde(rename = "_comment")]
    pub comment: String,
    /// Which runs the fit saw.
    pub split: String,
    /// What the fit minimises.
    pub objective: String,
    /// The parameters.
    pub parameters: Vec<Parameter>,
    /// Held-back residuals under the grouped splits.
    pub residuals: Residuals,
}

/// The parameters of a file; `None` when one is missing or out of its range.
#[must_use]
pub fn from_file(f: &CalibrationFile) -> Option<Calibration> {
    let mut v = [0.0; crate::efficiency::calibration::PARAMETERS];
    for (slot, id) in v.iter_mut().zip(PARAMETER_IDS) {
        *slot = f.parameters.iter().find(|p| p.id == id)?.value;
    }
    let c = Calibration::from_values(v);
    c.is_valid().then_some(c)
}

/// `data/calibration.json` as bundled: without indentation (see `build.rs`).
const CALIBRATION_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/calibration.json"));

/// The bundled file (parsed once; `None` if it did not parse, which a test rules out).
#[must_use]
pub fn bundled_file() -> Option<&'static CalibrationFile> {
    static CELL: OnceLock<Option<CalibrationFile>> = OnceLock::new();
    crate::json::bundled(&CELL, CALIBRATION_JSON)
}

/// The bundled file's residuals (from build.rs's constants: no JSON parser needed).
#[must_use]
pub fn bundled_residuals() -> Residuals {
    let (runs, step_pct_p10, step_pct_p90) = crate::efficiency::calibration::bundled_residual_values();
    Residuals { runs, step_pct_p10, step_pct_p90 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_file_parses_and_is_the_data_file() {
        let pretty = include_str!("../../data/calibration.json");
        let as_edited: serde_json::Value = serde_json::from_str(pretty).unwrap();
        let bundled_json: serde_json::Value = serde_json::from_str(CALIBRATION_JSON).unwrap();
        assert_eq!(bundled_json, as_edited);
        let f = crate::json::from_str::<CalibrationFile>(CALIBRATION_JSON).expect("calibration.json parses");
        let c = from_file(&f).expect("every parameter present, in range");
        assert_ne!(c, Calibration::PEAK, "the bundled calibration is fitted");
        for p in &f.parameters {
            assert!(PARAMETER_IDS.contains(&p.id.as_str()), "unknown parameter {}", p.id);
            assert!(!p.label.is_empty() && p.meaning.len() > 20, "{} needs an explanation", p.id);
        }
    }

    #[test]
    fn the_constants_are_the_file_s_numbers() {
        let f = crate::json::from_str::<CalibrationFile>(CALIBRATION_JSON).unwrap();
        assert_eq!(Some(bundled()), from_file(&f));
        assert_eq!(bundled_residuals(), f.residuals);
    }
}
