//! The serving calibration: three physical parameters of real serving engines, fitted on
//! part of the published serving runs (`validation::serving_fit`) and kept as data
//! (`core/data/serving-calibration.json`). Each scales one rate of the roofline or adds
//! one fixed cost, so a calibrated prediction is still the planner's roofline:
//!
//! | parameter | what it is | applied by |
//! |---|---|---|
//! | `hbm` | fraction of the HBM bandwidth a decode step's weight and KV reads achieve | [`ServingCalibration::derate_chip`] (the chip's `hbm.bandwidth`) |
//! | `matmul` | fraction of the peak matmul FLOP/s serving kernels (GEMMs, attention) achieve | [`ServingCalibration::derate_chip`] (every `peak_flops` entry) |
//! | `pass_overhead_s` | seconds every forward pass (decode step or prefill pass) costs beyond its FLOPs and bytes, whatever the model: scheduling, sampling, host work | the caller: the planner's report does not add it yet; `validation::serving` adds it to each pass and to each step of the co-located server (`Colocated::step_overhead_s`) |
//! | `layer_overhead_s` | seconds per layer per forward pass: kernel launches and the synchronisation between a layer's kernels, which no roofline term counts | likewise |
//!
//! Training's fitted efficiencies ([`super::calibration`]) are not used for serving:
//! they were fitted on training steps, whose matmuls are large and whose HBM traffic is
//! hidden; serving is mostly HBM-bound and runs many small passes.

use crate::hardware::chip::Chip;
use crate::hardware::query::ResolvedHardware;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// The serving calibration's parameters, typed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServingCalibration {
    /// Fraction of the HBM bandwidth achieved, in (0, 1].
    pub hbm: f64,
    /// Fraction of the peak matmul FLOP/s achieved, in (0, 1].
    pub matmul: f64,
    /// Seconds added to every forward pass, ≥ 0.
    pub pass_overhead_s: f64,
    /// Seconds added per layer to every forward pass, ≥ 0.
    pub layer_overhead_s: f64,
}

/// The ids of [`ServingCalibration`]'s fields, in order.
pub const PARAMETER_IDS: [&str; 4] = ["hbm", "matmul", "pass_overhead_s", "layer_overhead_s"];

impl ServingCalibration {
    /// The ideal roofline: every rate at its peak, no overhead.
    pub const IDEAL: ServingCalibration =
        ServingCalibration { hbm: 1.0, matmul: 1.0, pass_overhead_s: 0.0, layer_overhead_s: 0.0 };

    /// The values in [`PARAMETER_IDS`] order.
    #[must_use]
    pub fn values(&self) -> [f64; 4] {
        [self.hbm, self.matmul, self.pass_overhead_s, self.layer_overhead_s]
    }

    /// From values in [`PARAMETER_IDS`] order.
    #[must_use]
    pub fn from_values(v: [f64; 4]) -> Self {
        let [hbm, matmul, pass_overhead_s, layer_overhead_s] = v;
        Self { hbm, matmul, pass_overhead_s, layer_overhead_s }
    }

    /// Whether every parameter is in its range (fractions in (0, 1], overheads in [0, 1 s]).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        let fraction = |x: f64| x > 0.0 && x <= 1.0;
        let seconds = |x: f64| (0.0..=1.0).contains(&x);
        fraction(self.hbm) && fraction(self.matmul) && seconds(self.pass_overhead_s) && seconds(self.layer_overhead_s)
    }

    /// The overhead of one forward pass of a model of `layers` layers, seconds.
    #[must_use]
    pub fn pass_overhead(&self, layers: u64) -> f64 {
        self.pass_overhead_s + self.layer_overhead_s * layers as f64
    }

    /// The chip as the calibration sees it: HBM bandwidth times `hbm`, every matmul peak
    /// times `matmul`. Links, capacity and prices are left alone.
    #[must_use]
    pub fn derate_chip(&self, chip: &Chip) -> Chip {
        let mut c = chip.clone();
        c.hbm.bandwidth = c.hbm.bandwidth * self.hbm;
        let m = self.matmul;
        let p = &mut c.peak_flops;
        p.bf16 = p.bf16 * m;
        p.fp8 = p.fp8.map(|x| x * m);
        p.int8 = p.int8.map(|x| x * m);
        p.int4 = p.int4.map(|x| x * m);
        c
    }

    /// [`Self::derate_chip`] on resolved hardware (the axes keep their links).
    #[must_use]
    pub fn derate(&self, hw: &ResolvedHardware) -> ResolvedHardware {
        ResolvedHardware { chip: self.derate_chip(&hw.chip), axes: hw.axes.clone() }
    }
}

pub use super::calibration::Parameter;

/// `data/serving-calibration.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServingCalibrationFile {
    /// What the file is and how it is made.
    #[serde(rename = "_comment")]
    pub comment: String,
    /// Which groups the fit saw.
    pub split: String,
    /// What the fit minimises.
    pub objective: String,
    /// The parameters.
    pub parameters: Vec<Parameter>,
}

impl ServingCalibrationFile {
    /// The typed parameters; `None` when one is missing or out of range.
    #[must_use]
    pub fn calibration(&self) -> Option<ServingCalibration> {
        let mut v = [0.0; 4];
        for (slot, id) in v.iter_mut().zip(PARAMETER_IDS) {
            *slot = self.parameters.iter().find(|p| p.id == id)?.value;
        }
        Some(ServingCalibration::from_values(v)).filter(ServingCalibration::is_valid)
    }
}

/// `data/serving-calibration.json`, compact (see `build.rs`).
const FILE_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/serving-calibration.json"));

/// The bundled file (parsed once; `None` if it did not parse, which a test rules out).
#[must_use]
pub fn bundled_file() -> Option<&'static ServingCalibrationFile> {
    static CELL: OnceLock<Option<ServingCalibrationFile>> = OnceLock::new();
    crate::json::bundled(&CELL, FILE_JSON)
}

// `FITTED`: the file's numbers as constants (core/build.rs), so the serving page, which
// plans in calibrated mode, carries no parser for the whole file.
include!(concat!(env!("OUT_DIR"), "/serving_calibration_values.rs"));

/// The bundled serving calibration: the constants build.rs reads off
/// `data/serving-calibration.json`, equal to the file's (tested); the ideal roofline if
/// they were out of range, which a test rules out.
#[must_use]
pub fn bundled() -> ServingCalibration {
    Some(ServingCalibration::from_values(FITTED))
        .filter(ServingCalibration::is_valid)
        .unwrap_or(ServingCalibration::IDEAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_file_parses_and_explains_every_parameter() {
        let pretty = include_str!("../../data/serving-calibration.json");
        let as_edited: serde_json::Value = serde_json::from_str(pretty).unwrap();
        assert_eq!(serde_json::from_str::<serde_json::Value>(FILE_JSON).unwrap(), as_edited);
        let f = crate::json::from_str::<ServingCalibrationFile>(FILE_JSON).unwrap();
        assert_eq!(f.calibration(), Some(bundled()), "the constants are the file's, every parameter in range");
        assert_eq!(f.parameters.len(), PARAMETER_IDS.len());
        for p in &f.parameters {
            assert!(PARAMETER_IDS.contains(&p.id.as_str()), "unknown parameter {}", p.id);
            assert!(!p.label.is_empty() && p.meaning.len() > 40, "{} needs an explanation", p.id);
        }
    }

    #[test]
    fn derating_scales_bandwidth_and_peaks_only() {
        let chip = crate::hardware::catalog::get("h100-sxm").unwrap();
        let c = ServingCalibration { hbm: 0.5, matmul: 0.25, pass_overhead_s: 0.0, layer_overhead_s: 0.0 };
        let d = c.derate_chip(&chip);
        assert_eq!(d.hbm.bandwidth.get(), 0.5 * chip.hbm.bandwidth.get());
        assert_eq!(d.peak_flops.fp8.unwrap().get(), 0.25 * chip.peak_flops.fp8.unwrap().get());
        assert_eq!((d.hbm.capacity, &d.scale_up), (chip.hbm.capacity, &chip.scale_up));
        assert_eq!(ServingCalibration::IDEAL.derate_chip(&chip), chip);
        assert_eq!(ServingCalibration::from_values(c.values()), c);
    }
}
