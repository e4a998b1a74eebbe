//! The calibrated parameters of the physical step model: five physical quantities, each
//! shared by every chip (never one per chip, per kind or per model), fitted on the
//! published runs (`validation::fit`) and kept as data (`core/data/calibration.json`).
//!
//! | parameter | what it is |
//! |---|---|
//! | `mxu` | fraction of a kernel's measured standalone rate a training step's matmul and attention kernels sustain, after the padding, tiling and head-dimension losses the model counts itself; the measured rates are the chip kind's ([`large_matmul_fraction`] of the peak for a large matmul, [`crate::efficiency::rates::AttentionKernelShape`] for the attention kernels) |
//! | `hbm` | achieved fraction of the HBM bandwidth of the HBM-bound kernels (norms, activations, residual adds, rotary, loss, optimizer update, MoE permutes) |
//! | `dcn` | achieved fraction of the scale-out (DCN, data-centre network) bandwidth |
//! | `overlap` | fraction of the communication the schedule overlaps with compute that really hides |
//! | `straggler` | relative standard deviation of one slice's step time: `n` slices in lockstep wait for the slowest, [`expected_max_of_normals`]`(n)·σ` of a step later than one slice |
//!
//! One `mxu` for every chip (issue 16): what differs between kinds is measured, not fitted
//! (a GPU's large matmul sustains 80% of its peak, its flash-attention kernels less), so
//! a fit on TPU runs alone carries to GPUs and one on GPU runs alone to TPUs. Until
//! 2026-11 there were two (`mxu_tpu`, `mxu_gpu`): a fit without GPU runs then had nothing
//! to set the GPU's with but the TPU's value, and one on the five GPU runs alone set the
//! TPU's from them (the grouped splits of docs/validation.md).
//!
//! Nothing here calibrates the scale-up links (ICI, NVLink): the runs cannot identify it
//! (their ICI traffic hides behind compute either way), so they stay at their catalogue
//! rate.

use crate::collectives::Network;
use crate::hardware::chip::{Chip, ChipFamily};
use crate::hardware::query::ResolvedHardware;

/// One fitted parameter of a calibration file (training's `data/calibration.json`, serving's
/// `data/serving-calibration.json`) as data: its value and what it means.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// Identifier (one of the file's parameter ids: [`PARAMETER_IDS`] for training).
    pub id: String,
    /// Display name.
    pub label: String,
    /// The fitted value.
    pub value: f64,
    /// What it is and what it stands for.
    pub meaning: String,
}

/// The model's parameters, typed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// Fraction of their measured standalone rates a training step's matmul and attention
    /// kernels sustain, on every chip.
    pub mxu: f64,
    /// Achieved fraction of the HBM bandwidth.
    pub hbm: f64,
    /// Achieved fraction of the scale-out bandwidth.
    pub dcn: f64,
    /// Fraction of overlappable communication that hides.
    pub overlap: f64,
    /// Relative standard deviation of a slice's step time.
    pub straggler: f64,
}

/// Number of parameters.
pub const PARAMETERS: usize = 5;

/// The ids of [`Calibration`]'s fields, in order.
pub const PARAMETER_IDS: [&str; PARAMETERS] = ["mxu", "hbm", "dcn", "overlap", "straggler"];

/// Each parameter's nominal value (every rate at its peak, no jitter) and its range.
pub const NOMINAL: [f64; PARAMETERS] = [1.0, 1.0, 1.0, 1.0, 0.0];
/// Upper bound of each parameter (the lower bounds: 0, overlap and straggler inclusive).
pub const UPPER: [f64; PARAMETERS] = [1.0, 1.0, 1.0, 1.0, 0.5];

/// The fraction of its peak a chip kind's large, well-shaped bf16 matmul measures, which
/// the `mxu` parameter is a fraction of. TPU: 1.0 — the book's profile of a
/// `[32·1024, 8192] × [8192, 32768]` matmul on TPU v2 takes 96 ms against the 95.6 ms of
/// its FLOPs at peak (How to Scale Your Model, 9.2.4). GPU: 0.801 — an H100 SXM's maximum
/// achievable matmul rate, 792.1 of 989 TFLOP/s (stas00/ml-engineering, "Maximum
/// Achievable Matmul FLOPS comparison table": the clock a GPU sustains at its power limit
/// is below the one its peak is quoted at). One GPU's figure stands for every GPU (A100
/// 86%, GH200 83%, MI300X 60% in the same table): per-chip figures would belong in the
/// catalogue.
#[must_use]
pub fn large_matmul_fraction(family: ChipFamily) -> f64 {
    match family {
        ChipFamily::Tpu => LARGE_MATMUL_FRACTION[0],
        ChipFamily::Gpu => LARGE_MATMUL_FRACTION[1],
    }
}

/// [`large_matmul_fraction`] of TPUs and GPUs.
pub const LARGE_MATMUL_FRACTION: [f64; 2] = [1.0, 0.801];

impl Calibration {
    /// Every rate at its peak, no jitter: the physical model's terms (padding, kernels,
    /// HBM-bound work) at full speed. Not the roofline, which leaves those terms out.
    pub const PEAK: Calibration = Calibration { mxu: 1.0, hbm: 1.0, dcn: 1.0, overlap: 1.0, straggler: 0.0 };

    /// The values in [`PARAMETER_IDS`] order.
    #[must_use]
    pub fn values(&self) -> [f64; PARAMETERS] {
        [self.mxu, self.hbm, self.dcn, self.overlap, self.straggler]
    }

    /// From values in [`PARAMETER_IDS`] order.
    #[must_use]
    pub fn from_values(v: [f64; PARAMETERS]) -> Self {
        let [mxu, hbm, dcn, overlap, straggler] = v;
        Self { mxu, hbm, dcn, overlap, straggler }
    }

    /// Whether every value is in its range: the rates in (0, 1], overlap in [0, 1], the
    /// straggler spread in [0, 0.5].
    #[must_use]
    pub fn is_valid(&self) -> bool {
        let [m, h, d, o, s] = self.values();
        [m, h, d].iter().all(|v| *v > 0.0 && *v <= 1.0) && (0.0..=1.0).contains(&o) && (0.0..=UPPER[4]).contains(&s)
    }

    /// The fraction of a chip kind's peak its training matmuls sustain: `mxu` times the
    /// kind's measured large-matmul fraction.
    #[must_use]
    pub fn matmul_fraction(&self, family: ChipFamily) -> f64 {
        self.mxu * large_matmul_fraction(family)
    }

    /// How much later `n` slices in lockstep finish a step than one, as a fraction of it:
    /// `σ` times the expected maximum of `n` standard normal variables.
    #[must_use]
    pub fn straggler_factor(&self, slices: u64) -> f64 {
        self.straggler * expected_max_of_normals(slices)
    }

    /// The fraction applied to a network's bandwidth (scale-up and die-to-die links are
    /// not calibrated).
    #[must_use]
    pub fn network(&self, n: Network) -> f64 {
        match n {
            Network::ScaleOut => self.dcn,
            Network::ScaleUp | Network::DieToDie => 1.0,
        }
    }

    /// The hardware as the calibration derates it, for models that take no efficiency
    /// of their own (serving): every matmul peak times the chip kind's sustained matmul
    /// fraction ([`Calibration::matmul_fraction`]), the scale-out bandwidth times `dcn`.
    /// HBM, PCIe and the scale-up links are left alone: the training fit's `hbm` is not
    /// applied to serving until serving runs calibrate it. Overlap is not a property of the
    /// hardware.
    #[must_use]
    pub fn derate(&self, hw: &ResolvedHardware) -> ResolvedHardware {
        let mut chip: Chip = hw.chip.clone();
        let m = self.matmul_fraction(hw.chip.family);
        let p = &mut chip.peak_flops;
        p.bf16 = p.bf16 * m;
        p.fp8 = p.fp8.map(|x| x * m);
        p.int8 = p.int8.map(|x| x * m);
        p.int4 = p.int4.map(|x| x * m);
        p.fp4 = p.fp4.map(|x| x * m);
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

/// The expected maximum of `n` independent standard normal variables, by Blom's
/// approximation `Φ⁻¹((n − 0.375)/(n + 0.25))` (Blom 1958; within 0.03 of the exact value:
/// 0.589 for n = 2 against 1/√π = 0.564, 2.07 for n = 32); 0 for one.
#[must_use]
pub fn expected_max_of_normals(n: u64) -> f64 {
    if n <= 1 {
        return 0.0;
    }
    let n = n as f64;
    normal_quantile((n - 0.375) / (n + 0.25))
}

/// The standard normal quantile Φ⁻¹(p) for p in (0, 1), by Acklam's rational approximation
/// (relative error below 1.2e-9).
#[must_use]
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] =
        [7.784_695_709_041_462e-3, 3.224_671_290_700_398e-1, 2.445_134_137_142_996, 3.754_408_661_907_416];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

// `FITTED` and `RESIDUALS`: the numbers of `data/calibration.json` as constants (core/build.rs),
// so a page that only plans (training, serving) carries no parser for the whole file.
include!(concat!(env!("OUT_DIR"), "/calibration_values.rs"));

/// The bundled calibration: the constants build.rs reads off `data/calibration.json`
/// (`validation::calibration` tests they are the file's and a valid fit). Should a value
/// be outside its range (a test rules it out), every rate at its peak.
#[must_use]
pub fn bundled() -> Calibration {
    let c = Calibration::from_values(FITTED);
    if c.is_valid() {
        c
    } else {
        Calibration::PEAK
    }
}

/// The held-back runs the bundled residuals come from, and the 10th and 90th percentile of
/// their signed step-time error (%), as build.rs reads them off `data/calibration.json`.
#[must_use]
pub fn bundled_residual_values() -> (usize, f64, f64) {
    RESIDUALS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_validity() {
        let c = Calibration { mxu: 0.1, hbm: 0.3, dcn: 0.4, overlap: 0.5, straggler: 0.02 };
        assert_eq!(Calibration::from_values(c.values()), c);
        assert!(c.is_valid() && Calibration::PEAK.is_valid());
        assert!(!Calibration { hbm: 0.0, ..c }.is_valid());
        assert!(Calibration { overlap: 0.0, ..c }.is_valid());
        assert!(!Calibration { dcn: 1.5, ..c }.is_valid());
        assert!(!Calibration { straggler: -0.1, ..c }.is_valid());
        assert!(bundled().is_valid());
        assert_eq!(Calibration::from_values(NOMINAL), Calibration::PEAK);
    }

    #[test]
    fn kinds_and_stragglers() {
        // One fraction for both kinds, of each kind's measured large-matmul rate.
        let c = Calibration { mxu: 0.8, ..Calibration::PEAK };
        assert_eq!(c.matmul_fraction(ChipFamily::Tpu), 0.8);
        assert!((c.matmul_fraction(ChipFamily::Gpu) - 0.8 * 0.801).abs() < 1e-12);
        let s = Calibration { straggler: 0.02, ..Calibration::PEAK };
        assert_eq!(s.straggler_factor(1), 0.0);
        assert!(s.straggler_factor(32) > s.straggler_factor(2));
    }

    #[test]
    fn expected_maxima_of_normals() {
        // Exact values: two normals 1/√π = 0.5642, five 1.1630, ten 1.5388 (Tippett 1925).
        for (n, exact) in [(2, 0.5642), (5, 1.1630), (10, 1.5388)] {
            let e = expected_max_of_normals(n);
            assert!((e - exact).abs() < 0.03, "{n}: {e} vs {exact}");
        }
        assert_eq!(expected_max_of_normals(1), 0.0);
        assert!((normal_quantile(0.975) - 1.959_964).abs() < 1e-6);
        assert!((normal_quantile(0.5)).abs() < 1e-12);
        assert!((normal_quantile(0.001) + 3.090_232).abs() < 1e-5);
    }
}
