//! The calibrated efficiency model: five achievable fractions, fitted on part of the
//! published runs ([`super::fit`]) and kept as data (`core/data/calibration.json`).
//! Each scales one rate of the roofline, so a calibrated prediction is still the
//! planner's roofline, only slower where the runs say real systems are slower:
//!
//! | parameter | scales |
//! |---|---|
//! | `matmul_tpu`, `matmul_gpu` | peak matmul FLOP/s (MXU or tensor cores): kernels, non-matmul work hidden in the step, and whatever else makes compute slower than peak |
//! | `ici` | scale-up link bandwidth (ICI, NVLink) of every collective |
//! | `dcn` | scale-out bandwidth (DCN, InfiniBand/Ethernet) |
//! | `overlap` | how much of the communication the roofline overlaps with compute really hides (the rest adds to the step) |

use crate::collectives::Network;
use crate::hardware::chip::{Chip, ChipFamily, LinkBandwidth};
use crate::hardware::query::ResolvedHardware;
use crate::training::section::TrainingSection;
use crate::training::setup::Efficiency;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::sync::OnceLock;

use super::mode::PredictionMode;

/// One parameter as data: its value and what it means.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// Identifier (`matmul_tpu`, `matmul_gpu`, `ici`, `dcn`, `overlap`).
    pub id: String,
    /// Display name.
    pub label: String,
    /// The fitted value.
    pub value: f64,
    /// What it multiplies.
    pub meaning: String,
}

/// How far the calibrated step times of the held-back runs fall from the measured ones:
/// the signed error (predicted − measured) / measured, in %, at the 10th and 90th
/// percentiles (nearest rank). What a calibrated band is widened by.
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
    /// The held-back runs' residuals under these parameters.
    pub residuals: Residuals,
}

/// The model's parameters, typed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// Fraction of peak matmul FLOP/s on TPUs.
    pub matmul_tpu: f64,
    /// Fraction of peak matmul FLOP/s on GPUs.
    pub matmul_gpu: f64,
    /// Fraction of scale-up bandwidth.
    pub ici: f64,
    /// Fraction of scale-out bandwidth.
    pub dcn: f64,
    /// Fraction of overlappable communication that hides.
    pub overlap: f64,
}

/// The ids of [`Calibration`]'s fields, in order.
pub const PARAMETER_IDS: [&str; 5] = ["matmul_tpu", "matmul_gpu", "ici", "dcn", "overlap"];

impl Calibration {
    /// The ideal roofline: every fraction 1.
    pub const IDEAL: Calibration = Calibration { matmul_tpu: 1.0, matmul_gpu: 1.0, ici: 1.0, dcn: 1.0, overlap: 1.0 };

    /// The values in [`PARAMETER_IDS`] order.
    #[must_use]
    pub fn values(&self) -> [f64; 5] {
        [self.matmul_tpu, self.matmul_gpu, self.ici, self.dcn, self.overlap]
    }

    /// From values in [`PARAMETER_IDS`] order.
    #[must_use]
    pub fn from_values(v: [f64; 5]) -> Self {
        let [matmul_tpu, matmul_gpu, ici, dcn, overlap] = v;
        Self { matmul_tpu, matmul_gpu, ici, dcn, overlap }
    }

    /// From the file; `None` when a parameter is missing or outside (0, 1].
    #[must_use]
    pub fn from_file(f: &CalibrationFile) -> Option<Self> {
        let mut v = [0.0; 5];
        for (slot, id) in v.iter_mut().zip(PARAMETER_IDS) {
            let p = f.parameters.iter().find(|p| p.id == id)?;
            if !(p.value > 0.0 && p.value <= 1.0) {
                return None;
            }
            *slot = p.value;
        }
        Some(Self::from_values(v))
    }

    /// The matmul fraction for a chip.
    #[must_use]
    pub fn matmul(&self, chip: &Chip) -> f64 {
        match chip.family {
            ChipFamily::Tpu => self.matmul_tpu,
            ChipFamily::Gpu => self.matmul_gpu,
        }
    }

    /// `base` (the user's own fractions, 1.0 by default) scaled by the model's.
    #[must_use]
    pub fn efficiency(&self, chip: &Chip, base: Efficiency) -> Efficiency {
        Efficiency {
            flops: base.flops * self.matmul(chip),
            ici: base.ici * self.ici,
            dcn: base.dcn * self.dcn,
            pcie: base.pcie,
            overlap: base.overlap * self.overlap,
        }
    }
}

impl Calibration {
    /// The fraction applied to a network's bandwidth.
    #[must_use]
    pub fn network(&self, n: Network) -> f64 {
        match n {
            Network::ScaleOut => self.dcn,
            Network::ScaleUp | Network::DieToDie => self.ici,
        }
    }

    /// The hardware as the calibrated model sees it: every matmul peak times the chip
    /// family's matmul fraction, every scale-up (and die-to-die) link times `ici`, the
    /// scale-out bandwidth times `dcn`. HBM and PCIe are left alone (nothing calibrates
    /// them). For models that take no efficiency of their own (serving); overlap is not
    /// a property of the hardware and is not applied.
    #[must_use]
    pub fn derate(&self, hw: &ResolvedHardware) -> ResolvedHardware {
        let mut chip = hw.chip.clone();
        let m = self.matmul(&hw.chip);
        let p = &mut chip.peak_flops;
        p.bf16 = p.bf16 * m;
        p.fp8 = p.fp8.map(|x| x * m);
        p.int8 = p.int8.map(|x| x * m);
        p.int4 = p.int4.map(|x| x * m);
        p.fp4 = p.fp4.map(|x| x * m);
        chip.scale_up.link = LinkBandwidth::from_one_way(chip.scale_up.link.one_way * self.ici);
        if let Some(c) = &mut chip.chiplets {
            c.die_to_die = LinkBandwidth::from_one_way(c.die_to_die.one_way * self.ici);
        }
        chip.scale_out.bandwidth_per_chip =
            crate::units::BytesPerSec((chip.scale_out.bandwidth_per_chip.get() * self.dcn).max(1.0));
        let axes = hw
            .axes
            .iter()
            .map(|a| {
                let mut a = a.clone();
                // A link stays at least 1 B/s, the smallest a topology accepts (only an absurd
                // override, a few bytes per second, is raised by this).
                a.link = crate::units::BytesPerSec((a.link.get() * self.network(a.network)).max(1.0));
                a
            })
            .collect();
        ResolvedHardware { chip, axes }
    }
}

/// `data/calibration.json` as bundled: without indentation (see `build.rs`).
const CALIBRATION_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/calibration.json"));

/// Parse the bundled file.
///
/// # Errors
/// The parse error; the tests prove the bundled file parses.
pub fn parse_bundled() -> Result<CalibrationFile, serde_json::Error> {
    crate::json::from_str(CALIBRATION_JSON)
}

/// The bundled file (parsed once; `None` if it did not parse, which a test rules out).
#[must_use]
pub fn bundled_file() -> Option<&'static CalibrationFile> {
    static CELL: OnceLock<Option<CalibrationFile>> = OnceLock::new();
    CELL.get_or_init(|| parse_bundled().ok()).as_ref()
}

// `FITTED` and `RESIDUALS`: the file's numbers as constants (core/build.rs), so a page that
// only plans (training, serving) carries no parser for the whole file.
include!(concat!(env!("OUT_DIR"), "/calibration_values.rs"));

/// The bundled calibration (the ideal roofline if a fraction were outside (0, 1], which a
/// test rules out): the constants build.rs reads off `data/calibration.json`, equal to
/// `Calibration::from_file(bundled_file())` (tested).
#[must_use]
pub fn bundled() -> Calibration {
    if FITTED.iter().all(|v| *v > 0.0 && *v <= 1.0) {
        Calibration::from_values(FITTED)
    } else {
        Calibration::IDEAL
    }
}

/// The bundled file's residuals (from the same constants).
#[must_use]
pub fn bundled_residuals() -> Residuals {
    let (runs, step_pct_p10, step_pct_p90) = RESIDUALS;
    Residuals { runs, step_pct_p10, step_pct_p90 }
}

/// The training section the planner runs in `mode`: as written for the ideal roofline,
/// with its efficiencies scaled by the bundled calibration otherwise.
#[must_use]
pub fn section_for<'a>(section: &'a TrainingSection, chip: &Chip, mode: PredictionMode) -> Cow<'a, TrainingSection> {
    match mode {
        PredictionMode::Ideal => Cow::Borrowed(section),
        PredictionMode::Calibrated => {
            let mut s = section.clone();
            s.efficiency = bundled().efficiency(chip, section.efficiency);
            Cow::Owned(s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_file_parses_and_is_the_data_file() {
        let pretty = include_str!("../../data/calibration.json");
        let as_edited: serde_json::Value = serde_json::from_str(pretty).unwrap();
        let bundled: serde_json::Value = serde_json::from_str(CALIBRATION_JSON).unwrap();
        assert_eq!(bundled, as_edited);
        let f = parse_bundled().expect("calibration.json parses");
        let c = Calibration::from_file(&f).expect("every parameter present, in (0, 1]");
        assert_ne!(c, Calibration::IDEAL, "the bundled calibration is fitted, not the roofline");
        for p in &f.parameters {
            assert!(PARAMETER_IDS.contains(&p.id.as_str()), "unknown parameter {}", p.id);
            assert!(!p.label.is_empty() && p.meaning.len() > 20, "{} needs an explanation", p.id);
        }
    }

    #[test]
    fn the_constants_are_the_file_s_numbers() {
        let f = parse_bundled().unwrap();
        assert_eq!(Some(bundled()), Calibration::from_file(&f));
        assert_eq!(bundled_residuals(), f.residuals);
    }

    #[test]
    fn values_round_trip() {
        let c = Calibration { matmul_tpu: 0.1, matmul_gpu: 0.2, ici: 0.3, dcn: 0.4, overlap: 0.5 };
        assert_eq!(Calibration::from_values(c.values()), c);
    }
}
