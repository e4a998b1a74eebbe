//! MaxText's log, read back: its per-step lines (`completed step: N, seconds: S,
//! TFLOP/s/device: T, Tokens/s/device: K, total_weights: W, loss: L, ...`, today's
//! `common/metric_logger.py`; in 2023 `TFLOP/s` and `Tokens/s` without `/device`), the
//! `Total TFLOPs` of its start-up FLOP count and the `Total estimated memory size` of its
//! compiled memory estimate; and what was measured against what [`MaxTextLog`] predicts,
//! term by term.
//!
//! The first step of a run includes compilation, and a profiler's first and last steps
//! are slower: the measured step is the **median** of the steps after the first (the
//! first too when it is the only one).

use super::log::{MaxTextLog, StepLine};
use crate::import::ImportError;
use crate::training::report::StepBreakdown;
use serde::{Deserialize, Serialize};

/// One logged training step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LoggedStep {
    /// `completed step:`.
    pub step: u64,
    /// `seconds:`.
    pub seconds: f64,
    /// `TFLOP/s/device:` (or 2023's `TFLOP/s:`).
    pub tflops_per_s_per_device: Option<f64>,
    /// `Tokens/s/device:` (or `Tokens/s:`).
    pub tokens_per_s_per_device: Option<f64>,
    /// `loss:`.
    pub loss: Option<f64>,
}

/// What a log says.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParsedLog {
    /// Every step line, in order.
    pub steps: Vec<LoggedStep>,
    /// `Total TFLOPs:` (MaxText's count per device and step).
    pub total_tflops: Option<f64>,
    /// `Total estimated memory size:` in GiB.
    pub memory_gib: Option<f64>,
}

/// The steady-state step of a log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MeasuredStep {
    /// The steps the medians are over.
    pub steps: Vec<u64>,
    /// Median seconds per step.
    pub seconds: f64,
    /// Median TFLOP/s per device, when logged.
    pub tflops_per_s_per_device: Option<f64>,
    /// Median tokens/s per device, when logged.
    pub tokens_per_s_per_device: Option<f64>,
}

/// Most lines read from a log.
pub const MAX_LOG_LINES: usize = 1_000_000;

/// The number after `label` in `line` (`label 12.5,` → 12.5).
fn number_after(line: &str, label: &str) -> Option<f64> {
    let at = line.find(label)? + label.len();
    let rest = line.get(at..)?.trim_start();
    let end =
        rest.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))).unwrap_or(rest.len());
    rest.get(..end)?.parse().ok().filter(|x: &f64| x.is_finite())
}

impl ParsedLog {
    /// Read a log (any text; lines that are not MaxText's are skipped).
    ///
    /// # Errors
    /// A log without a single `completed step:` line.
    pub fn parse(text: &str) -> Result<Self, ImportError> {
        let mut out = ParsedLog::default();
        for line in text.lines().take(MAX_LOG_LINES) {
            if let Some(t) = number_after(line, "Total TFLOPs:") {
                out.total_tflops = Some(t);
            }
            if let Some(g) = number_after(line, "Total estimated memory size:") {
                out.memory_gib = Some(g);
            }
            let (Some(step), Some(seconds)) = (number_after(line, "completed step:"), number_after(line, "seconds:"))
            else {
                continue;
            };
            let either = |a: &str, b: &str| number_after(line, a).or_else(|| number_after(line, b));
            out.steps.push(LoggedStep {
                step: step.max(0.0) as u64,
                seconds,
                tflops_per_s_per_device: either("TFLOP/s/device:", "TFLOP/s:"),
                tokens_per_s_per_device: either("Tokens/s/device:", "Tokens/s:"),
                loss: number_after(line, " loss:"),
            });
        }
        if out.steps.is_empty() {
            return Err(ImportError::Syntax {
                line: None,
                message: "no `completed step: N, seconds: S, ...` line (MaxText's per-step log line)".into(),
            });
        }
        Ok(out)
    }

    /// The steady-state step: medians over the steps after the first.
    #[must_use]
    pub fn measured(&self) -> Option<MeasuredStep> {
        let steps: &[LoggedStep] = match self.steps.as_slice() {
            [] => return None,
            [only] => std::slice::from_ref(only),
            [_, rest @ ..] => rest,
        };
        let median = |f: &dyn Fn(&LoggedStep) -> Option<f64>| {
            let mut v: Vec<f64> = steps.iter().filter_map(f).collect();
            v.sort_by(f64::total_cmp);
            match v.len() {
                0 => None,
                n if n % 2 == 1 => v.get(n / 2).copied(),
                n => Some((v.get(n / 2 - 1)? + v.get(n / 2)?) / 2.0),
            }
        };
        Some(MeasuredStep {
            steps: steps.iter().map(|s| s.step).collect(),
            seconds: median(&|s| Some(s.seconds))?,
            tflops_per_s_per_device: median(&|s| s.tflops_per_s_per_device),
            tokens_per_s_per_device: median(&|s| s.tokens_per_s_per_device),
        })
    }
}

/// One quantity, measured and predicted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Term {
    /// What it is.
    pub quantity: String,
    /// Its unit.
    pub unit: String,
    /// From the log.
    pub measured: f64,
    /// The calibrated prediction.
    pub predicted: f64,
    /// The ideal roofline (a bound), when it has one.
    pub roofline: Option<f64>,
    /// (predicted − measured) / measured, percent.
    pub error_pct: f64,
}

/// A predicted step term beside the measured step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BreakdownShare {
    /// The term (`training.breakdown`'s key).
    pub term: String,
    /// Predicted seconds.
    pub seconds: f64,
    /// Its share of the measured step, percent.
    pub of_measured_pct: f64,
}

/// Measured against predicted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LogComparison {
    /// What the log says.
    pub log: ParsedLog,
    /// Its steady-state step.
    pub measured: MeasuredStep,
    /// Step time, TFLOP/s and tokens/s per device, MFU, FLOPs per step and memory.
    pub terms: Vec<Term>,
    /// The predicted step's terms as shares of the measured step, and what is left.
    pub breakdown: Vec<BreakdownShare>,
    /// Disagreements that say the log is not of this configuration.
    pub notes: Vec<String>,
}

fn term(quantity: &str, unit: &str, measured: f64, predicted: f64, roofline: Option<f64>) -> Term {
    let error_pct = if measured != 0.0 { 100.0 * (predicted - measured) / measured } else { 0.0 };
    Term { quantity: quantity.into(), unit: unit.into(), measured, predicted, roofline, error_pct }
}

/// Compare a log with a prediction (`breakdown`: the plan's `training.breakdown`).
#[must_use]
pub fn compare(log: ParsedLog, predicted: &MaxTextLog, breakdown: &StepBreakdown) -> Option<LogComparison> {
    let m = log.measured()?;
    // What MaxText's counters imply: its TFLOP/s × seconds is its FLOP count per step.
    let at: StepLine = predicted.at(m.seconds);
    let (p, r) = (&predicted.predicted, &predicted.roofline);
    let mut terms = vec![term("seconds per step", "s", m.seconds, p.seconds, Some(r.seconds))];
    let mut notes = Vec::new();
    let tflops = m.tflops_per_s_per_device.unwrap_or(at.tflops_per_s_per_device);
    terms.push(term(
        "TFLOP/s per device",
        "TFLOP/s",
        tflops,
        p.tflops_per_s_per_device,
        Some(r.tflops_per_s_per_device),
    ));
    let tokens = m.tokens_per_s_per_device.unwrap_or(at.tokens_per_s_per_device);
    terms.push(term(
        "tokens/s per device",
        "tokens/s",
        tokens,
        p.tokens_per_s_per_device,
        Some(r.tokens_per_s_per_device),
    ));
    let peak = predicted.peak_tflops_per_device;
    if peak > 0.0 {
        terms.push(term("MFU", "%", 100.0 * tflops / peak, 100.0 * p.mfu, Some(100.0 * r.mfu)));
    }
    let logged_flops = log.total_tflops.or(m.tflops_per_s_per_device.map(|t| t * m.seconds));
    if let Some(f) = logged_flops {
        terms.push(term("TFLOPs per device per step", "TFLOP", f, predicted.tflops_per_device_step, None));
        if (f - predicted.tflops_per_device_step).abs() > 0.01 * predicted.tflops_per_device_step {
            notes.push(format!(
                "MaxText counted {f:.1} TFLOPs per device and step, this configuration {:.1}: the log is not of this model, batch or sequence (or of an older MaxText FLOP convention)",
                predicted.tflops_per_device_step
            ));
        }
    }
    if let Some(g) = log.memory_gib {
        terms.push(term("memory per device", "GiB", g, predicted.memory_per_device_gib, None));
    }
    let b = breakdown;
    let mut shares: Vec<BreakdownShare> = [
        ("matmul_s", b.matmul_s.get()),
        ("attention_s", b.attention_s.get()),
        ("elementwise_s", b.elementwise_s.get()),
        ("loss_s", b.loss_s.get()),
        ("moe_s", b.moe_s.get()),
        ("optimizer_s", b.optimizer_s.get()),
        ("exposed_communication_s", b.exposed_communication_s.get()),
        ("bubble_s", b.bubble_s.get()),
        ("offload_exposed_s", b.offload_exposed_s.get()),
        ("sync_s", b.sync_s.get()),
    ]
    .into_iter()
    .map(|(term, seconds)| BreakdownShare { term: term.into(), seconds, of_measured_pct: 100.0 * seconds / m.seconds })
    .collect();
    let left = m.seconds - p.seconds;
    shares.push(BreakdownShare {
        term: "unexplained_s (measured − predicted)".into(),
        seconds: left,
        of_measured_pct: 100.0 * left / m.seconds,
    });
    Some(LogComparison { log, measured: m, terms, breakdown: shares, notes })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "\
Per train step:
 Total TFLOPs: 328.00 
 split as 94.00% learnable weight flops and 6.00% attention flops
Total estimated memory size: 70.5 GB, estimated output size: 1.0 GB
completed step: 0, seconds: 60.100, TFLOP/s/device: 5.457, Tokens/s/device: 272.6, total_weights: 1024, loss: 10.9
completed step: 1, seconds: 1.000, TFLOP/s/device: 328.000, Tokens/s/device: 16384.000, total_weights: 1024, loss: 10.1, lm_loss: 10.1
completed step: 2, seconds: 1.200, TFLOP/s/device: 273.333, Tokens/s/device: 13653.333, total_weights: 1024, loss: 9.8
completed step: 3, seconds: 1.100, TFLOP/s/device: 298.182, Tokens/s/device: 14894.545, total_weights: 1024, loss: 9.6
";

    #[test]
    fn reads_maxtext_s_lines() {
        let log = ParsedLog::parse(LOG).unwrap();
        assert_eq!(log.steps.len(), 4);
        assert_eq!((log.total_tflops, log.memory_gib), (Some(328.0), Some(70.5)));
        assert_eq!(log.steps[1].loss, Some(10.1));
        let m = log.measured().unwrap();
        assert_eq!((m.steps, m.seconds), (vec![1, 2, 3], 1.1), "the compiling step 0 is left out");
        assert_eq!(m.tflops_per_s_per_device, Some(298.182));
        // 2023's format.
        let old = ParsedLog::parse("completed step: 5, seconds: 9.920, TFLOP/s: 328.0, loss: 7.1").unwrap();
        assert_eq!(old.measured().unwrap().tflops_per_s_per_device, Some(328.0));
        assert!(ParsedLog::parse("nothing here").is_err());
    }
}
