//! The conventions that differ between tools, each an explicit choice: the FLOP convention of
//! headline numbers, and whether predictions are the ideal roofline or calibrated.

use super::{Field, Kind, Options};
use crate::flops::FlopConvention;
use crate::validation::PredictionMode;

const PREDICTIONS: [(&str, &str); 2] = [("ideal", "Roofline (ideal)"), ("calibrated", "Calibrated")];

const CONVENTIONS: [(&str, &str); 4] = [
    ("maxtext", "MaxText (training log)"),
    ("notebook", "MaxText LLM-calculator notebook"),
    ("six_nd", "6·N·D"),
    ("book", "How to Scale Your Model"),
];

/// The FLOP convention and the prediction mode.
pub static CONVENTION_FIELDS: [Field; 2] = [
    Field::new(
        "conventions.flops",
        "FLOP convention",
        Kind::Choice {
            options: Options::Fixed(&CONVENTIONS),
            get: |s| s.conventions.flops.id().into(),
            set: |s, v| {
                s.conventions.flops = FlopConvention::parse(v).ok_or_else(|| format!("unknown convention {v:?}"))?;
                Ok(())
            },
        },
    )
    .hint("Which count of FLOPs the headline numbers and MFU use (all four are reported)"),
    Field::new(
        "conventions.prediction",
        "Prediction",
        Kind::Choice {
            options: Options::Fixed(&PREDICTIONS),
            get: |s| s.conventions.prediction.id().into(),
            set: |s, v| {
                s.conventions.prediction = PredictionMode::ALL
                    .into_iter()
                    .find(|m| m.id() == v)
                    .ok_or_else(|| format!("unknown prediction {v:?}; use ideal or calibrated"))?;
                Ok(())
            },
        },
    )
    .hint("Roofline: every rate at its peak, as the book computes it. Calibrated: the roofline with the efficiencies fitted on published runs (see the Validation page)."),
];

/// Every group of the section's fields.
pub static GROUPS: [&[Field]; 1] = [&CONVENTION_FIELDS];
