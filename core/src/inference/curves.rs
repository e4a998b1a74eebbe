//! Data for the serving charts, computed here so the page only draws:
//! - the latency–throughput Pareto frontier across batch sizes for several context
//!   lengths (book 8.2, first figure; batch is the knob, every batch that fits is a point);
//! - the step-time breakdown into weight loading, KV loading, FLOPs and collectives
//!   against batch (book 8.2, second figure);
//! - KV-cache memory against context, with the HBM it must fit in (book 7.1.6–7.1.7);
//! - the prefill:decode server ratio against prompt and output length (book 8.1.2).

use super::decode::DecodeBound;
use super::plan::Plan;
use crate::error::Invalid;
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};

/// Context lengths of the Pareto chart besides the scenario's (the book's figure spans
/// 2k to 32k).
pub const PARETO_CONTEXTS: [u64; 3] = [2048, 8192, 32768];
/// Output lengths of the ratio chart besides the scenario's.
pub const RATIO_OUTPUTS: [u64; 4] = [128, 512, 2048, 8192];

/// One batch size on the frontier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParetoPoint {
    /// Sequences per replica.
    pub batch: u64,
    /// Per-token latency: one decode step.
    pub step_time_s: Seconds,
    /// Throughput per chip.
    pub tokens_per_s_per_chip: f64,
    /// What binds the step.
    pub binds: DecodeBound,
}

/// The frontier at one context length: every batch that fits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParetoSeries {
    /// Tokens of context.
    pub context: u64,
    /// Increasing batch.
    pub points: Vec<ParetoPoint>,
}

/// The step's terms at one batch size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BreakdownPoint {
    /// Sequences per replica.
    pub batch: u64,
    /// Parameter loading.
    pub weight_load_s: Seconds,
    /// KV loading.
    pub kv_load_s: Seconds,
    /// FLOPs.
    pub flops_s: Seconds,
    /// Collectives.
    pub comms_s: Seconds,
    /// The step.
    pub step_time_s: Seconds,
    /// Whether this batch fits in HBM.
    pub fits: bool,
}

/// KV memory at one context length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KvMemoryPoint {
    /// Tokens of context.
    pub context: u64,
    /// One sequence's cache.
    pub kv_bytes_per_sequence: Bytes,
    /// The batch's caches on the busiest chip.
    pub kv_bytes_per_chip: Bytes,
    /// Everything on that chip.
    pub total_bytes_per_chip: Bytes,
    /// total ≤ HBM.
    pub fits: bool,
}

/// KV memory against context at the serving batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KvMemoryCurve {
    /// The batch.
    pub batch: u64,
    /// HBM per chip (the line to stay under).
    pub hbm_per_chip: Bytes,
    /// Weights per chip.
    pub weights_per_chip: Bytes,
    /// Increasing context.
    pub points: Vec<KvMemoryPoint>,
}

/// The ratio at one prompt length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RatioPoint {
    /// Prompt tokens.
    pub prompt_len: u64,
    /// Its prefill.
    pub prefill_s: Seconds,
    /// A decode step at the resulting context.
    pub decode_step_s: Seconds,
    /// Prefill servers per decode server.
    pub prefill_per_decode: f64,
}

/// The ratio against prompt length at one output length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RatioSeries {
    /// Generated tokens.
    pub output_len: u64,
    /// Increasing prompt length.
    pub points: Vec<RatioPoint>,
}

/// `inference.curves`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Curves {
    /// Latency against throughput per chip, one series per context.
    pub pareto: Vec<ParetoSeries>,
    /// The step's terms against batch at the scenario's context.
    pub step_breakdown: Vec<BreakdownPoint>,
    /// KV memory against context.
    pub kv_memory: KvMemoryCurve,
    /// Prefill:decode ratio, one series per output length.
    pub prefill_decode_ratio: Vec<RatioSeries>,
}

impl Curves {
    /// No chart data (every series empty) at `batch`: a plan computed for its numbers only.
    #[must_use]
    pub fn none(batch: u64) -> Self {
        Self {
            pareto: Vec::new(),
            step_breakdown: Vec::new(),
            kv_memory: KvMemoryCurve {
                batch,
                hbm_per_chip: Bytes::ZERO,
                weights_per_chip: Bytes::ZERO,
                points: Vec::new(),
            },
            prefill_decode_ratio: Vec::new(),
        }
    }
}

/// 1, 2, 3, 4, 6, 8, 12, ... up to `max`, and `max` itself.
#[must_use]
pub fn batch_grid(max: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut b = 1_u64;
    while b <= max {
        out.push(b);
        let half = b + b / 2;
        if b >= 2 && half <= max {
            out.push(half);
        }
        match b.checked_mul(2) {
            Some(next) => b = next,
            None => break,
        }
    }
    if max > 0 && out.last() != Some(&max) {
        out.push(max);
    }
    out
}

/// `base` (ascending, no repeats) with `extra` in its place. Inserted, not sorted: a sort
/// links a 3 KB quicksort into the serving page for a handful of numbers.
fn sorted_with(base: &[u64], extra: u64) -> Vec<u64> {
    let mut v = base.to_vec();
    if let Err(i) = v.binary_search(&extra) {
        v.insert(i, extra);
    }
    v
}

fn powers_of_two(lo: u32, hi: u32) -> Vec<u64> {
    (lo..=hi).map(|e| 1_u64 << e).collect()
}

/// Every chart's data for `plan`, serving `batch` sequences.
///
/// # Errors
/// From the collective model.
pub fn curves(plan: &Plan, batch: u64) -> Result<Curves, Invalid> {
    let s = plan.section;
    let y = plan.decode.model_parallel();
    let context = s.decode_context();
    let mut pareto = Vec::new();
    for ctx in sorted_with(&PARETO_CONTEXTS, context) {
        let mut points = Vec::new();
        for b in batch_grid(plan.max_batch(ctx)) {
            let t = plan.decode.decode(b as f64, ctx, 1.0)?.time;
            points.push(ParetoPoint {
                batch: b,
                step_time_s: t.step_time_s,
                tokens_per_s_per_chip: b as f64 / t.step_time_s.get() / y,
                binds: t.binds,
            });
        }
        pareto.push(ParetoSeries { context: ctx, points });
    }

    let peak_batch = plan.max_batch(context).max(batch).clamp(256, MAX_BREAKDOWN_BATCH);
    let mut step_breakdown = Vec::new();
    for b in batch_grid(peak_batch) {
        let t = plan.decode.decode(b as f64, context, 1.0)?.time;
        step_breakdown.push(BreakdownPoint {
            batch: b,
            weight_load_s: t.weight_load_s,
            kv_load_s: t.kv_load_s,
            flops_s: t.flops_s,
            comms_s: t.comms_s,
            step_time_s: t.step_time_s,
            fits: plan.memory(b, context).fits,
        });
    }

    let mut kv_points = Vec::new();
    for ctx in sorted_with(&powers_of_two(7, 20), context) {
        let mem = plan.memory(batch, ctx);
        kv_points.push(KvMemoryPoint {
            context: ctx,
            kv_bytes_per_sequence: plan.decode.kv_per_sequence(ctx),
            kv_bytes_per_chip: mem.kv,
            total_bytes_per_chip: mem.total,
            fits: mem.fits,
        });
    }
    let mem = plan.memory(batch, context);
    let kv_memory = KvMemoryCurve { batch, hbm_per_chip: mem.hbm, weights_per_chip: mem.weights, points: kv_points };

    let prompts = sorted_with(&powers_of_two(7, 15), s.prompt_len);
    let prefills =
        prompts.iter().map(|p| plan.prefill_time(*p, true).map(|t| (*p, t.time_s))).collect::<Result<Vec<_>, _>>()?;
    let mut prefill_decode_ratio = Vec::new();
    for g in sorted_with(&RATIO_OUTPUTS, s.output_len) {
        let mut points = Vec::new();
        for &(p, prefill_s) in &prefills {
            let step = plan.decode.decode(batch as f64, s.context_for(p, g), 1.0)?.time.step_time_s;
            points.push(RatioPoint {
                prompt_len: p,
                prefill_s,
                decode_step_s: step,
                prefill_per_decode: super::disaggregation::prefill_per_decode(prefill_s, step, batch as f64, g as f64),
            });
        }
        prefill_decode_ratio.push(RatioSeries { output_len: g, points });
    }
    Ok(Curves { pareto, step_breakdown, kv_memory, prefill_decode_ratio })
}

/// Largest batch the breakdown chart goes to.
pub const MAX_BREAKDOWN_BATCH: u64 = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid() {
        assert_eq!(batch_grid(0), Vec::<u64>::new());
        assert_eq!(batch_grid(1), [1]);
        assert_eq!(batch_grid(43), [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 43]);
        assert_eq!(batch_grid(48).last(), Some(&48));
        assert!(batch_grid(u64::MAX).len() < 200);
    }
}
