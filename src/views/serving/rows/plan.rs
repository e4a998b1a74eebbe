//! The serving plan's rows: where it runs, the KV cache, one decode step, one prefill, memory
//! per chip, the book's disaggregation figures, speculative decoding, and cost.

use shardcalc_charts::format::thousands;
use shardcalc_core::inference::report::{BatchSource, PriceSource, TopologySource};
use shardcalc_core::inference::InferenceReport;

use super::{decode_bound, kv_layout_text, prefill_bound, Rows, Unit};

/// The plan's groups: serving, KV cache, decode step, prefill, memory per chip.
pub(super) fn push(o: &mut Rows, r: &InferenceReport) {
    use Unit::{Bytes, Chips, Flops, FlopsPerByte, Number, RequestsPerS, Seconds, Sequences, Tokens, TokensPerS};
    let (sv, kv, d, p, m) = (&r.serving, &r.kv_cache, &r.decode, &r.prefill, &r.memory);

    let s = "Serving";
    let topology_source = match sv.topology_source {
        TopologySource::Scenario => "the scenario's",
        TopologySource::SmallestFitting => "the smallest slice that fits",
    };
    o.t(s, "serving.topology", "Topology", format!("{} ({topology_source})", sv.topology));
    o.n(s, "serving.chips", "Chips", sv.chips, Chips);
    o.n(s, "serving.model_parallel", "Chips per replica (Y)", sv.model_parallel, Chips);
    o.n(s, "serving.replicas", "Replicas", sv.replicas, Number);
    let batch_source = match sv.batch_source {
        BatchSource::Scenario => "the scenario's",
        BatchSource::LargestFitting => "the largest that fits",
    };
    o.t(s, "serving.batch", "Batch per replica (B)", format!("{} ({batch_source})", thousands(sv.batch)));
    o.n(s, "serving.context", "Context read per step", sv.context as f64, Tokens);

    let s = "KV cache";
    o.n(s, "kv_bytes_per_token", "Per token of context", r.kv_bytes_per_token.get(), Bytes);
    o.n(s, "kv_cache.bytes_per_sequence", "Per sequence", kv.bytes_per_sequence.get(), Bytes);
    o.n(s, "kv_cache.bytes_per_batch", "Per batch", kv.bytes_per_batch.get(), Bytes);
    o.t(s, "kv_cache.layout", "Sharding", kv_layout_text(r));
    o.n(s, "kv_cache.bytes_per_chip", "On the busiest chip", kv.bytes_per_chip.get(), Bytes);
    o.n(s, "kv_cache.wasted_bytes_per_chip", "Of which beyond a fair share", kv.wasted_bytes_per_chip.get(), Bytes);
    o.t(s, "kv_cache.window_capped", "Capped by a local window", if kv.window_capped { "yes" } else { "no" });

    let s = "Decode step";
    o.n(s, "decode.step_time_s", "Step time (per-token latency)", d.step.step_time_s.get(), Seconds);
    o.t(s, "decode.binds", "Bound by", decode_bound(d.step.binds));
    o.n(s, "decode.weight_load_s", "Weight loading", d.step.weight_load_s.get(), Seconds);
    o.n(s, "decode.kv_load_s", "KV loading", d.step.kv_load_s.get(), Seconds);
    o.n(s, "decode.flops_s", "FLOPs", d.step.flops_s.get(), Seconds);
    o.n(s, "decode.comms_s", "Collectives", d.step.comms_s.get(), Seconds);
    o.n(s, "decode.comms_latency_floor_s", "Collectives' latency floor", d.comms_latency_floor_s.get(), Seconds);
    o.n(s, "decode.comms_bandwidth_time_s", "Collectives' bandwidth time", d.comms_bandwidth_time_s.get(), Seconds);
    o.n(s, "decode.step_time_upper_s", "Step without overlap", d.step.step_time_upper_s.get(), Seconds);
    o.n(s, "decode.tokens_per_s", "Tokens per second", d.tokens_per_s, TokensPerS);
    o.n(s, "decode.tokens_per_s_per_chip", "Tokens per second per chip", d.tokens_per_s_per_chip, TokensPerS);
    o.n(s, "decode.queries_per_s", "Requests per second", d.queries_per_s, RequestsPerS);
    o.n(s, "decode.queries_per_s_per_chip", "Requests per second per chip", d.queries_per_s_per_chip, RequestsPerS);
    o.n(s, "decode.request_decode_time_s", "Time to generate G tokens", d.request_decode_time_s.get(), Seconds);
    o.n(s, "decode.critical_batch", "Critical batch", d.critical_batch, Tokens);
    o.opt(s, "decode.critical_batch_moe", "Critical batch (MoE, × E/k)", d.critical_batch_moe, Tokens);
    o.opt(s, "decode.experts_touched_per_layer", "Experts touched per layer", d.experts_touched_per_layer, Number);
    o.n(s, "decode.weight_bytes_per_chip", "Weight bytes read per chip", d.weight_bytes_per_chip.get(), Bytes);
    o.n(s, "decode.kv_bytes_per_chip", "KV bytes read per chip", d.kv_bytes_per_chip.get(), Bytes);
    o.n(s, "decode.flops_per_chip", "FLOPs per chip", d.flops_per_chip.get(), Flops);
    o.n(s, "decode.tp_limits.alpha", "α = peak / W_ici", d.tp_limits.alpha, FlopsPerByte);
    o.n(
        s,
        "decode.tp_limits.compute_bound",
        "Model parallelism before collectives outlast FLOPs",
        d.tp_limits.compute_bound,
        Chips,
    );
    o.n(s, "decode.tp_limits.memory_bound", "… before they outlast weight loads", d.tp_limits.memory_bound, Chips);
    o.opt(
        s,
        "decode.tp_limits.latency_bound_above",
        "… beyond which they are latency-bound",
        d.tp_limits.latency_bound_above,
        Chips,
    );

    let s = "Prefill";
    o.n(s, "prefill.ttft_s", "Time to first token", p.ttft_s.get(), Seconds);
    o.n(s, "prefill.time_s", "Prefill in one pass", p.time_s.get(), Seconds);
    o.opt(s, "prefill.chunked_time_s", "Prefill in chunks", p.chunked_time_s.map(|t| t.get()), Seconds);
    o.opt(s, "prefill.chunk", "Chunk", p.chunk.map(|c| c as f64), Tokens);
    o.t(s, "prefill.bound", "Bound by", prefill_bound(p.bound));
    o.n(s, "prefill.flops_per_chip", "FLOPs per chip", p.flops_per_chip.get(), Flops);
    o.opt(s, "prefill.mfu_assumed", "Assumed utilisation", p.mfu_assumed, Number);
    o.n(s, "prefill.mfu_effective", "Effective utilisation", p.mfu_effective, Number);
    o.n(s, "prefill.chips", "Chips per prefill server", p.chips, Chips);

    let s = "Memory per chip";
    let pc = &m.per_chip;
    o.n(s, "memory.per_chip.hbm", "HBM", pc.hbm.get(), Bytes);
    o.n(s, "memory.per_chip.weights", "Weights", pc.weights.get(), Bytes);
    o.n(s, "memory.per_chip.kv", "KV caches", pc.kv.get(), Bytes);
    o.n(s, "memory.per_chip.working", "Working memory", pc.working.get(), Bytes);
    o.n(s, "memory.per_chip.reserved", "Reserved", pc.reserved.get(), Bytes);
    o.n(s, "memory.per_chip.total", "Total", pc.total.get(), Bytes);
    o.n(s, "memory.per_chip.free", "Free", pc.free.get(), Bytes);
    o.t(s, "memory.per_chip.fits", "Fits", if pc.fits { "yes" } else { "no" });
    o.n(s, "memory.weights_total", "Weights, all chips of a replica", m.weights_total.get(), Bytes);
    o.n(s, "memory.kv_total", "KV caches, all chips of a replica", m.kv_total.get(), Bytes);
    o.n(s, "memory.chips_needed", "Chips' worth of HBM needed", m.chips_needed, Chips);
    o.n(s, "min_chips", "Fewest chips", r.min_chips as f64, Chips);
    o.n(s, "memory.min_power_of_two_chips", "Fewest chips, a power of two", m.min_power_of_two_chips as f64, Chips);
    o.t(
        s,
        "memory.min_topology",
        "Smallest slice that fits",
        m.min_topology.as_ref().map_or_else(|| "none".to_string(), |t| t.label.clone()),
    );
    o.n(s, "max_batch", "Largest batch that fits", r.max_batch as f64, Sequences);
}

/// Speculative decoding, when on.
pub(super) fn push_speculative(o: &mut Rows, r: &InferenceReport) {
    use Unit::{Number, Seconds, Tokens, TokensPerS};
    if let Some(sp) = &r.speculative {
        let s = "Speculative decoding";
        o.n(s, "speculative.expected_tokens_per_step", "Accepted tokens per step", sp.expected_tokens_per_step, Tokens);
        o.n(s, "speculative.draft_step_s", "One draft step", sp.draft_step_s.get(), Seconds);
        o.n(s, "speculative.draft_time_s", "Drafting (γ steps)", sp.draft_time_s.get(), Seconds);
        o.n(s, "speculative.verify_time_s", "Verifying (γ + 1 tokens)", sp.verify_time_s.get(), Seconds);
        o.n(s, "speculative.iteration_time_s", "Draft + verify", sp.iteration_time_s.get(), Seconds);
        o.n(s, "speculative.time_per_token_s", "Per-token latency", sp.time_per_token_s.get(), Seconds);
        o.n(s, "speculative.speedup", "Speed-up over plain decoding", sp.speedup, Number);
        o.n(s, "speculative.tokens_per_s_per_chip", "Tokens per second per chip", sp.tokens_per_s_per_chip, TokensPerS);
    }
}

/// The cost group.
pub(super) fn push_cost(o: &mut Rows, r: &InferenceReport) {
    if let Some(c) = &r.cost {
        let s = "Cost";
        let source = match c.price_source {
            PriceSource::Scenario => "the scenario's",
            PriceSource::Catalog => "the chip catalog's",
            PriceSource::NoPublicPrice => "no public price",
        };
        o.t(s, "cost.price_source", "Price from", source);
        o.n(s, "cost.price_per_chip_hour_usd", "Price", c.price_per_chip_hour_usd, Unit::UsdPerChipHour);
        o.n(
            s,
            "cost.decode_usd_per_million_tokens",
            "Per million generated tokens",
            c.decode_usd_per_million_tokens,
            Unit::Usd,
        );
        o.n(
            s,
            "cost.prefill_usd_per_million_tokens",
            "Per million prompt tokens",
            c.prefill_usd_per_million_tokens,
            Unit::Usd,
        );
    } else {
        o.t("Cost", "price.source", "Price", "no public price: type one in the price field");
    }
}
