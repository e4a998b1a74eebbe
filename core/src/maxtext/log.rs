//! What MaxText's log prints for a run, predicted: the numbers of its per-step line
//! (`common/metric_logger.py`, `_log_training_metrics`: `completed step: N, seconds: S,
//! TFLOP/s/device: T, Tokens/s/device: K, ...`), the FLOPs it prints at start-up
//! (`Per train step: Total TFLOPs: X split as a% learnable weight flops and b% attention
//! flops`) and the compiled memory estimate (`Total estimated memory size: X GB`,
//! `utils/max_utils.py`, `print_compiled_memory_stats`, gibibytes).
//!
//! MaxText's TFLOP/s per device is its own count of one step's FLOPs per device
//! (`calculate_tflops_training_per_device` in `utils/maxtext_utils.py`, gradient accumulation
//! included: shardcalc's [`FlopConvention::MaxText`],
//! `flops.maxtext` in the report) divided by the measured seconds per step; its tokens per
//! device are `max_target_length × per_device_batch_size × gradient_accumulation_steps`
//! (`calculate_tokens_training_per_device`) over the same seconds. MaxText logs no MFU;
//! here it is the TFLOP/s per device over the device's peak in the matmul format.

use crate::flops::{training_flops, FlopConvention, RematPolicy, Workload};
use crate::report::Report;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

/// The numbers of MaxText's per-step line for one step time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepLine {
    /// `seconds:`.
    pub seconds: f64,
    /// `TFLOP/s/device:`.
    pub tflops_per_s_per_device: f64,
    /// `Tokens/s/device:`.
    pub tokens_per_s_per_device: f64,
    /// TFLOP/s per device over the device's peak (MaxText does not log it).
    pub mfu: f64,
}

/// What MaxText's log would print for a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MaxTextLog {
    /// `Per train step: Total TFLOPs` (per device, MaxText's convention).
    pub tflops_per_device_step: f64,
    /// Its learnable-weight part, percent.
    pub learnable_weight_pct: f64,
    /// Its attention part, percent.
    pub attention_pct: f64,
    /// Tokens per device per step.
    pub tokens_per_device_step: f64,
    /// The device's peak FLOP/s in the matmul format, what MFU divides by.
    pub peak_tflops_per_device: f64,
    /// The step line at the calibrated prediction.
    pub predicted: StepLine,
    /// The step line at the ideal roofline (the bound: no real step is faster).
    pub roofline: StepLine,
    /// `Total estimated memory size:` in GiB (MaxText prints GiB as "GB"): the plan's HBM
    /// per device.
    pub memory_per_device_gib: f64,
    /// Whether the plan fits in HBM (when not, MaxText's compilation fails with an
    /// out-of-memory error instead of printing a step).
    pub fits: bool,
    /// The lines as MaxText prints them, at the prediction.
    pub lines: Vec<String>,
}

/// Bytes per GiB, the unit of MaxText's memory lines.
pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

impl MaxTextLog {
    /// The log of a scenario's `training` plan (the explicit mesh, else the search's best),
    /// from its report; `None` without a training section or hardware.
    ///
    /// The FLOPs and tokens are the plan's: its global batch over its devices (for a MaxText
    /// command line, `per_device_batch_size × gradient_accumulation_steps` sequences), so the
    /// log matches the plan even when the scenario's `workload` says something else.
    #[must_use]
    pub fn of(s: &Scenario, report: &Report) -> Option<Self> {
        let training = report.training.as_ref()?;
        let model = s.model.resolve().ok()?;
        let compute = s.training.as_ref().map(|t| t.dtypes.compute)?;
        let chip_peak = report.hardware.as_ref()?.chip.peak_flops.for_dtype(compute).map_or(0.0, |p| p.get());
        let devices = training.devices.max(1) as f64;
        let peak = chip_peak * training.chips / devices;
        let per_device = Workload {
            per_device_batch: training.global_batch_sequences as f64 / devices,
            seq_len: training.seq_len,
            grad_accum: 1,
            remat: RematPolicy::None,
        };
        let flops = training_flops(&model, &per_device, FlopConvention::MaxText);
        let tflops = flops.total.tflops();
        let tokens = flops.tokens_per_device_step;
        let total = tflops.max(f64::MIN_POSITIVE);
        let mut log = MaxTextLog {
            tflops_per_device_step: tflops,
            learnable_weight_pct: 100.0 * flops.learnable.tflops() / total,
            attention_pct: 100.0 * flops.attention.tflops() / total,
            tokens_per_device_step: tokens,
            peak_tflops_per_device: peak / 1e12,
            predicted: StepLine::at(training.step_time_s.get(), tflops, tokens, peak),
            roofline: StepLine::at(training.roofline.step_time_s.get(), tflops, tokens, peak),
            memory_per_device_gib: training.memory.per_device_bytes.get() / GIB,
            fits: training.memory.fits,
            lines: Vec::new(),
        };
        log.lines = log.text_lines();
        Some(log)
    }

    /// The step line at any step time (a measured one).
    #[must_use]
    pub fn at(&self, seconds: f64) -> StepLine {
        StepLine::at(
            seconds,
            self.tflops_per_device_step,
            self.tokens_per_device_step,
            self.peak_tflops_per_device * 1e12,
        )
    }

    fn text_lines(&self) -> Vec<String> {
        vec![
            format!(
                "Per train step: Total TFLOPs: {:.2} split as {:.2}% learnable weight flops and {:.2}% attention flops",
                self.tflops_per_device_step, self.learnable_weight_pct, self.attention_pct
            ),
            format!(
                "Total estimated memory size: {:.1} GB{}",
                self.memory_per_device_gib,
                if self.fits { "" } else { " (more than the device's usable HBM: the run does not fit)" }
            ),
            self.predicted.text(1),
        ]
    }
}

impl StepLine {
    /// The line's numbers for a step of `seconds`.
    #[must_use]
    pub fn at(seconds: f64, tflops_per_step: f64, tokens_per_step: f64, peak: f64) -> Self {
        let s = seconds.max(f64::MIN_POSITIVE);
        let tflops_per_s = tflops_per_step / s;
        Self {
            seconds,
            tflops_per_s_per_device: tflops_per_s,
            tokens_per_s_per_device: tokens_per_step / s,
            mfu: if peak > 0.0 { tflops_per_s * 1e12 / peak } else { 0.0 },
        }
    }

    /// The line as `metric_logger.py` formats it (its loss fields left out).
    #[must_use]
    pub fn text(&self, step: u64) -> String {
        format!(
            "completed step: {step}, seconds: {:.3}, TFLOP/s/device: {:.3}, Tokens/s/device: {:.3}",
            self.seconds, self.tflops_per_s_per_device, self.tokens_per_s_per_device
        )
    }
}
