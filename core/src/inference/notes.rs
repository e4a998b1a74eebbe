//! Caveats about a serving configuration, in words, for the page and the CLI report.

use super::colocated::ContinuousBatchingReport;
use super::kv_sharding::KvLayout;
use super::memory::MemoryPerChip;
use super::options::KvNetwork;
use super::options::KvSharding;
use super::plan::Plan;
use super::report::{DecodeReport, DisaggregationReport, KvCacheReport};
use crate::decimal::fixed;
use crate::error::number_text;
use crate::model::ModelConfig;

fn gb(b: crate::units::Bytes) -> String {
    format!("{} GB", fixed(b.gb(), 1))
}

fn kv_note(l: &KvLayout, batch: u64) -> Option<String> {
    if l.other_shards <= 1 {
        return None;
    }
    Some(match l.mode {
        KvSharding::Replicate => format!(
            "{} KV heads on {} chips: each cache is replicated {}x (every copy is read every step)",
            l.kv_heads, l.model_parallel, l.replication
        ),
        KvSharding::Batch if !batch.is_multiple_of(l.other_shards) => format!(
            "the batch of {batch} does not divide into {} batch shards of the KV cache: the busiest chip holds {} sequences",
            l.other_shards,
            batch.div_ceil(l.other_shards)
        ),
        KvSharding::Batch => format!(
            "{} KV heads on {} chips: the cache is also split {} ways by batch, two AllToAlls per layer",
            l.kv_heads, l.model_parallel, l.other_shards
        ),
        KvSharding::Sequence => format!(
            "{} KV heads on {} chips: the cache is also split {} ways by sequence",
            l.kv_heads, l.model_parallel, l.other_shards
        ),
    })
}

/// Every caveat that applies.
#[must_use]
pub fn notes(
    m: &ModelConfig,
    plan: &Plan,
    decode: &DecodeReport,
    kv: &KvCacheReport,
    mem: &MemoryPerChip,
    batch: u64,
) -> Vec<String> {
    let mut out = Vec::new();
    let y = decode.tp_limits.model_parallel;
    if !mem.fits {
        out.push(format!("does not fit: {} per chip against {} of HBM", gb(mem.total), gb(mem.hbm)));
    }
    out.extend(kv_note(&kv.layout, batch));
    let heads = m.num_heads();
    let y_int = plan.decode.mesh.kv.model_parallel;
    if y_int > 1 && !heads.is_multiple_of(y_int) {
        out.push(format!(
            "{heads} query heads do not divide over {y_int} chips: the busiest chip computes {} heads, not {}",
            heads.div_ceil(y_int),
            fixed(heads as f64 / y, 2)
        ));
    }
    let l = &decode.tp_limits;
    if y > l.compute_bound {
        out.push(format!(
            "model parallelism {} exceeds n_axes·F/α ≈ {}: compute-bound batches would wait on collectives (book 8.1.1)",
            number_text(y),
            fixed(l.compute_bound, 1)
        ));
    }
    if y > l.memory_bound {
        out.push(format!(
            "model parallelism {} exceeds the memory-bound limit ≈ {} at this batch: collectives outlast the weight loads (book 7.3.2)",
            number_text(y),
            fixed(l.memory_bound, 1)
        ));
    }
    if decode.comms_latency_floor_s > decode.comms_bandwidth_time_s && decode.step.comms_s.get() > 0.0 {
        out.push("the activation collectives are latency-bound (book 7.6.3): hops, not bytes, set their time".into());
    }
    if m.moe.is_some() {
        out.push(
            "MoE weight reads assume uniform routing: E·(1 − (1 − k/E)^T) distinct experts per layer in expectation"
                .into(),
        );
    }
    if kv.window_capped {
        out.push("local-attention layers cache only their window".into());
    }
    out
}

/// Caveats of the rate-based sections: pools that cannot share a scale-up domain, a
/// prefill server that does not fit, a transfer that dominates the first token, prefill
/// chunks that stall decoding.
#[must_use]
pub fn serving_notes(plan: &Plan, d: &DisaggregationReport, cb: &ContinuousBatchingReport) -> Vec<String> {
    let mut out = Vec::new();
    let s = plan.section;
    if s.kv_transfer.network == KvNetwork::ScaleUp {
        let chips = d.prefill_pool.chips_per_server + d.decode_pool.chips_per_server;
        let domain = plan.decode_chip.scale_up.max_chips as f64;
        if chips > domain {
            out.push(format!(
                "a prefill and a decode server ({} chips) do not fit in one {}-chip {} domain; `kv_transfer.network: scale_up` assumes they do",
                number_text(chips),
                number_text(domain),
                plan.decode_chip.scale_up.name
            ));
        }
    }
    if !d.prefill_pool.fits {
        out.push(format!(
            "a prefill server ({} × {}) does not hold the weights, {} prompt caches and a pass's activations",
            number_text(d.prefill_pool.chips_per_server),
            d.prefill_pool.chip,
            d.prefill_batch
        ));
    }
    if d.kv_transfer_added_s.get() > 0.5 * d.prefill_pass_s.get() {
        out.push(format!(
            "the KV transfer adds {} s to a {} s prefill pass: a faster link or `kv_transfer.overlap: layerwise` shortens the first token",
            fixed(d.kv_transfer_added_s.get(), 4),
            fixed(d.prefill_pass_s.get(), 4)
        ));
    }
    if let Some(p) = &cb.at_batch.point {
        if p.mixed_step_s.get() > 5.0 * p.tpot_s.get() {
            out.push(format!(
                "with a {}-token budget a prefill chunk stalls every decoding sequence for {} s (the mean step is {} s): a smaller `token_budget` evens the tokens out",
                cb.token_budget,
                fixed(p.mixed_step_s.get(), 4),
                fixed(p.tpot_s.get(), 4)
            ));
        }
    }
    out
}
