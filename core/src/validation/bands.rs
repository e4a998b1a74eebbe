//! Bands for headline numbers: how far the measured value of a run like this could be
//! from the number shown. For training, the band spans the ideal roofline, the
//! calibrated prediction and the calibrated prediction's residual spread on the
//! held-back runs (10th to 90th percentile), all on the plan's own mesh; for serving,
//! the ideal roofline and the calibrated one (no published serving runs calibrate
//! serving, so no residual spread and no HBM term). Each band names the term that
//! dominates it: the physical model's counted kernel losses, the calibrated parameter
//! that moves the number most, or the residuals.

use super::calibration::{self, Calibration};
use crate::efficiency::PredictionMode;
use crate::error::Invalid;
use crate::flops::FlopConvention;
use crate::hardware::query::ResolvedHardware;
use crate::inference::decode::DecodeBound;
use crate::inference::evaluate::{evaluate_inference, evaluate_inference_derated};
use crate::inference::prefill::PrefillBound;
use crate::inference::InferenceReport;
use crate::model::ModelConfig;
use crate::scenario::Scenario;
use crate::training::replan::replan;
use crate::training::{TrainingReport, TrainingSection};
use serde::{Deserialize, Serialize};

/// What widens a band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum BandTerm {
    /// The physical model's counted kernel losses at peak rates: padding, attention
    /// kernels, HBM-bound work, the optimizer update.
    Kernels,
    /// Sustained fraction of the kernels' measured rates (`mxu`).
    Matmul,
    /// Scale-up (ICI, NVLink) bandwidth: binds serving's communication; not calibrated.
    ScaleUp,
    /// Scale-out bandwidth and the wait for the slowest slice (`dcn`, `straggler`).
    ScaleOut,
    /// Fraction of overlappable communication that hides (`overlap`).
    Overlap,
    /// The calibration's residuals on the held-back runs.
    Residuals,
    /// HBM bandwidth: serving's calibration derates it (`hbm`), training's does not.
    Hbm,
}

impl BandTerm {
    /// Identifier.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            BandTerm::Kernels => "kernels",
            BandTerm::Matmul => "matmul",
            BandTerm::ScaleUp => "ici",
            BandTerm::ScaleOut => "dcn",
            BandTerm::Overlap => "overlap",
            BandTerm::Residuals => "residuals",
            BandTerm::Hbm => "hbm",
        }
    }

    /// What to call it next to a number.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            BandTerm::Kernels => "kernels (padding, attention, HBM-bound work)",
            BandTerm::Matmul => "sustained matmul fraction",
            BandTerm::ScaleUp => "scale-up (ICI/NVLink) bandwidth",
            BandTerm::ScaleOut => "scale-out (DCN) bandwidth",
            BandTerm::Overlap => "compute/communication overlap",
            BandTerm::Residuals => "calibration residuals (held-back runs)",
            BandTerm::Hbm => "HBM bandwidth",
        }
    }
}

/// One headline number with its band.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Band {
    /// The number as shown (in the scenario's prediction mode).
    pub value: f64,
    /// The ideal roofline's value.
    pub ideal: f64,
    /// The calibrated value.
    pub calibrated: f64,
    /// Lower end: the smallest of the ideal, the calibrated and its residual range.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// The calibrated value's range over the held-back runs' residuals (10th to 90th
    /// percentile), low to high; `None` where no runs calibrate the number (serving).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<(f64, f64)>,
    /// The term that moves the number most.
    pub dominant: BandTerm,
    /// How much each term moves the number (its own unit; the residuals' is half the
    /// residual range).
    pub contributions: Vec<(BandTerm, f64)>,
}

impl Band {
    /// The band of `f(x)` for an increasing `f` (days from step time). (`&dyn`: one copy
    /// of this code in a page, not one per closure.)
    #[must_use]
    pub fn map_increasing(&self, f: &dyn Fn(f64) -> f64) -> Band {
        Band {
            value: f(self.value),
            ideal: f(self.ideal),
            calibrated: f(self.calibrated),
            low: f(self.low),
            high: f(self.high),
            spread: self.spread.map(|(lo, hi)| (f(lo), f(hi))),
            dominant: self.dominant,
            contributions: self
                .contributions
                .iter()
                .map(|(t, d)| (*t, (f(self.ideal + d) - f(self.ideal)).abs()))
                .collect(),
        }
    }

    /// The band of `f(x)` for a decreasing `f` (MFU, tokens per second from step time).
    #[must_use]
    pub fn map_decreasing(&self, f: &dyn Fn(f64) -> f64) -> Band {
        let mut b = self.map_increasing(f);
        (b.low, b.high) = (b.high, b.low);
        b.spread = b.spread.map(|(lo, hi)| (hi, lo));
        b
    }

    /// The band as a fraction of the value shown: (low / value, high / value).
    #[must_use]
    pub fn relative(&self) -> (f64, f64) {
        if self.value > 0.0 {
            (self.low / self.value, self.high / self.value)
        } else {
            (1.0, 1.0)
        }
    }
}

fn dominant(contributions: &[(BandTerm, f64)], fallback: BandTerm) -> BandTerm {
    contributions
        .iter()
        .filter(|(_, d)| d.is_finite())
        .fold((fallback, 0.0), |best, (t, d)| if d.abs() > best.1 { (*t, d.abs()) } else { best })
        .0
}

fn envelope(values: &[f64]) -> (f64, f64) {
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let low = finite.clone().fold(f64::INFINITY, f64::min);
    let high = finite.fold(f64::NEG_INFINITY, f64::max);
    if low.is_finite() {
        (low, high)
    } else {
        (0.0, 0.0)
    }
}

/// The bands of a training plan's headline numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrainingBands {
    /// Seconds per step.
    pub step_time_s: Band,
    /// MFU (fraction).
    pub mfu: Band,
    /// Tokens per second.
    pub tokens_per_s: Band,
    /// Days for the token budget.
    pub days: Option<Band>,
    /// Cost of the token budget.
    pub cost_usd: Option<Band>,
}

/// The bands of `shown`, the plan of scenario `s` (model `m`, hardware `hw`) in the
/// scenario's prediction mode. Plans the shown configuration ([`replan`]) under the
/// roofline, the calibration, the physical model at peak rates and each calibrated
/// parameter alone on top of it: eight evaluations, no search.
///
/// # Errors
/// As [`replan`]; `training` when the scenario has none.
pub fn training_bands(
    m: &ModelConfig,
    hw: &ResolvedHardware,
    s: &Scenario,
    shown: &TrainingReport,
) -> Result<TrainingBands, Invalid> {
    let section = s.training.as_ref().ok_or_else(|| Invalid::one("training", "is required for a band"))?;
    training_bands_of(m, hw, section, s.conventions.flops, s.conventions.prediction, shown)
}

/// [`training_bands`] from the parts of the scenario it reads: the `training` section as
/// written (its own efficiencies, before any calibration), the FLOP convention of MFU and
/// the prediction mode `shown` was planned in. What a page with memos per section calls.
///
/// # Errors
/// As [`replan`].
pub fn training_bands_of(
    m: &ModelConfig,
    hw: &ResolvedHardware,
    section: &TrainingSection,
    flops: FlopConvention,
    mode: PredictionMode,
    shown: &TrainingReport,
) -> Result<TrainingBands, Invalid> {
    // `shown`'s own configuration (its split over the networks, microbatches and remat),
    // no search: the band is about this plan, not about another mesh.
    let step = |c: Option<&Calibration>| -> Result<f64, Invalid> {
        let mut sec = section.clone();
        sec.calibration = c.copied();
        let t = replan(m, hw, &sec, flops, shown)?.step_time_s.get();
        // A guard, never reached by the million no-panic scenarios (derated links below 1 B/s
        // cost finite times, `collectives::MIN_LINK`): no band rather than a NaN one.
        if t.is_finite() {
            Ok(t)
        } else {
            Err(Invalid::one("training", "this plan's time under the calibrated efficiencies is not a finite number (the inputs are too extreme), so it has no uncertainty band"))
        }
    };
    let cal = calibration::bundled();
    let ideal = step(None)?;
    let calibrated = step(Some(&cal))?;
    // The physical model at peak rates, then each calibrated parameter alone on top.
    let peak = Calibration::PEAK;
    let physics = step(Some(&peak))?;
    let mxu = Calibration { mxu: cal.mxu, ..peak };
    let mut contributions = vec![
        (BandTerm::Kernels, physics - ideal),
        (BandTerm::Matmul, step(Some(&mxu))? - physics),
        (BandTerm::Hbm, step(Some(&Calibration { hbm: cal.hbm, ..peak }))? - physics),
        (BandTerm::ScaleOut, step(Some(&Calibration { dcn: cal.dcn, straggler: cal.straggler, ..peak }))? - physics),
        (BandTerm::Overlap, step(Some(&Calibration { overlap: cal.overlap, ..peak }))? - physics),
    ];
    // A measured step is predicted · (1 + e) off, e the signed error: measured =
    // calibrated / (1 + e) for e between the held-back runs' 10th and 90th percentiles.
    let r = calibration::bundled_residuals();
    let (res_low, res_high) =
        (calibrated / (1.0 + r.step_pct_p90 / 100.0), calibrated / (1.0 + r.step_pct_p10 / 100.0));
    contributions.push((BandTerm::Residuals, (res_high - res_low) / 2.0));
    let value = match mode {
        PredictionMode::Ideal => ideal,
        PredictionMode::Calibrated => calibrated,
    };
    let (low, high) = envelope(&[ideal, calibrated, res_low, res_high]);
    let spread = Some((res_low.min(res_high), res_low.max(res_high)));
    let step_band = Band {
        value,
        ideal,
        calibrated,
        low,
        high,
        spread,
        dominant: dominant(&contributions, BandTerm::Matmul),
        contributions,
    };
    let t = shown.step_time_s.get();
    // Ratios first: a value scaled by exactly 1 stays itself even when it is subnormal (a
    // price of 5e-324 per chip-hour; no-panic case 329639, seed 0x5eed0007).
    let scale = |x: f64, s_: f64| if s_ > 0.0 { x * (t / s_) } else { x };
    let grow = |x: f64, s_: f64| x * (s_ / t.max(f64::MIN_POSITIVE));
    Ok(TrainingBands {
        mfu: step_band.map_decreasing(&|s_| scale(shown.mfu, s_)),
        tokens_per_s: step_band.map_decreasing(&|s_| scale(shown.tokens_per_s, s_)),
        days: shown.days.map(|d| step_band.map_increasing(&|s_| grow(d, s_))),
        cost_usd: shown.cost_usd.map(|c| step_band.map_increasing(&|s_| grow(c, s_))),
        step_time_s: step_band,
    })
}

/// The bands of a serving report's headline numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ServingBands {
    /// One decode step, seconds.
    pub decode_step_s: Band,
    /// Decode tokens per second, every replica.
    pub tokens_per_s: Band,
    /// Per chip.
    pub tokens_per_s_per_chip: Band,
    /// Time to first token, seconds.
    pub ttft_s: Band,
    /// Time to generate the output, seconds.
    pub request_decode_time_s: Band,
    /// Cost per million generated tokens, USD, when the plan has a price.
    pub decode_usd_per_million_tokens: Option<Band>,
}

fn decode_term(b: DecodeBound) -> BandTerm {
    match b {
        DecodeBound::Flops => BandTerm::Matmul,
        DecodeBound::Communication => BandTerm::ScaleUp,
        DecodeBound::WeightLoading | DecodeBound::KvLoading => BandTerm::Hbm,
    }
}

fn prefill_term(b: PrefillBound) -> BandTerm {
    match b {
        PrefillBound::Compute => BandTerm::Matmul,
        PrefillBound::Communication => BandTerm::ScaleUp,
        PrefillBound::Hbm => BandTerm::Hbm,
    }
}

fn two_point(value_ideal: f64, value_cal: f64, mode: PredictionMode, term: BandTerm) -> Band {
    let (low, high) = envelope(&[value_ideal, value_cal]);
    Band {
        value: if mode == PredictionMode::Ideal { value_ideal } else { value_cal },
        ideal: value_ideal,
        calibrated: value_cal,
        low,
        high,
        spread: None,
        dominant: term,
        contributions: vec![(term, value_cal - value_ideal)],
    }
}

/// The bands of a serving scenario: its `inference` section evaluated on the hardware
/// as given (ideal) and as serving's calibration derates it
/// ([`crate::efficiency::serving::ServingCalibration::derate`]: HBM bandwidth and matmul
/// peaks; its per-pass overheads are not applied); the dominant term is what binds the
/// calibrated step.
///
/// # Errors
/// As the serving evaluation; `None` without an `inference` section.
pub fn serving_bands(m: &ModelConfig, s: &Scenario) -> Result<Option<ServingBands>, Invalid> {
    let Some(section) = &s.inference else { return Ok(None) };
    let hw = s.validate_hardware()?.ok_or_else(|| Invalid::one("hardware", "is required by `inference`"))?;
    let given = s.hardware.as_ref().is_some_and(|h| h.topology.is_some());
    let ideal = evaluate_inference(m, &hw, given, section)?;
    let cal = evaluate_inference_derated(m, &hw, given, section, |h| crate::efficiency::serving::bundled().derate(h))?;
    Ok(Some(serving_bands_of(&ideal, &cal, s.conventions.prediction)))
}

/// The bands from an ideal and a calibrated serving report.
#[must_use]
pub fn serving_bands_of(ideal: &InferenceReport, cal: &InferenceReport, mode: PredictionMode) -> ServingBands {
    let d = decode_term(cal.decode.step.binds);
    let p = prefill_term(cal.prefill.bound);
    ServingBands {
        decode_step_s: two_point(ideal.decode.step.step_time_s.get(), cal.decode.step.step_time_s.get(), mode, d),
        tokens_per_s: two_point(ideal.decode.tokens_per_s, cal.decode.tokens_per_s, mode, d),
        tokens_per_s_per_chip: two_point(ideal.decode.tokens_per_s_per_chip, cal.decode.tokens_per_s_per_chip, mode, d),
        ttft_s: two_point(ideal.prefill.ttft_s.get(), cal.prefill.ttft_s.get(), mode, p),
        request_decode_time_s: two_point(
            ideal.decode.request_decode_time_s.get(),
            cal.decode.request_decode_time_s.get(),
            mode,
            d,
        ),
        decode_usd_per_million_tokens: ideal
            .cost
            .as_ref()
            .zip(cal.cost.as_ref())
            .map(|(i, c)| two_point(i.decode_usd_per_million_tokens, c.decode_usd_per_million_tokens, mode, d)),
    }
}
