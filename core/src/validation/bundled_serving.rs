//! The serving validation as bundled data (`core/data/serving-validation.json`): every
//! published serving run predicted by the serving model, ideal and with the bundled serving
//! calibration, its errors, its scenario, and the statistics per engine × chip group and
//! per side of the split ([`super::serving_table::serving_validation`], computed natively).
//!
//! Why bundled: the validation page shows these numbers and links each run to the Serving
//! page; computing them on load would put the whole serving model in a page that only
//! displays its results (measured: see `docs/size.md`, "Validation page, serving runs").
//! `core/tests/validation/` recomputes the file and fails when it is stale, so it is always
//! what core computes, to six significant digits (the file's numbers are rounded: 3 KB less
//! gzip on the page).

use super::serving_table::ServingValidation;
use crate::efficiency::serving::ServingCalibration;
use std::sync::OnceLock;

/// `data/serving-validation.json` as bundled: without indentation (see `build.rs`).
const JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/serving-validation.json"));

/// Parse the bundled serving validation.
///
/// # Errors
/// The parse error; the tests prove the bundled file parses.
pub fn parse_bundled() -> Result<ServingValidation, serde_json::Error> {
    crate::json::from_str(JSON)
}

/// The bundled serving validation (parsed once; empty if it did not parse, which a test
/// rules out).
#[must_use]
pub fn bundled() -> &'static ServingValidation {
    static CELL: OnceLock<ServingValidation> = OnceLock::new();
    CELL.get_or_init(|| {
        parse_bundled().unwrap_or_else(|_| ServingValidation {
            calibration: ServingCalibration::IDEAL,
            split_rule: String::new(),
            fitted_groups: Vec::new(),
            rows: Vec::new(),
            groups: Vec::new(),
            sides: Vec::new(),
        })
    })
}
