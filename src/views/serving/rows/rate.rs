//! Serving at a request rate, row by row: continuous batching (at the serving batch and the
//! co-located servers for the rate, with queueing), disaggregation (the book's ratio, the KV
//! link and what it adds to the time to first token, each pool, the "x prefill : y decode"
//! deployment), and the MoE and MLA details when the model has them.

use shardcalc_core::inference::continuous::ColocatedPoint;
use shardcalc_core::inference::queueing::Ttft;
use shardcalc_core::inference::report::PoolReport;
use shardcalc_core::inference::targets::Unmet;
use shardcalc_core::inference::InferenceReport;

use super::{constraint_text, limit_text, price_text, Rows, Unit};
use Unit::{Bytes, BytesPerS, Chips, Number, RequestsPerS, Seconds, Sequences, Tokens, TokensPerS, Usd};

/// A time to first token with queueing: mean, p50, p99, the queue's mean wait and its
/// utilisation, keys under `at`.
fn ttft(o: &mut Rows, s: &'static str, keys: [&'static str; 5], t: &Ttft) {
    o.n(s, keys[0], "Time to first token, mean", t.mean_s, Seconds);
    o.n(s, keys[1], "… median (p50)", t.p50_s, Seconds);
    o.n(s, keys[2], "… 99th percentile", t.p99_s, Seconds);
    o.n(s, keys[3], "… of which queueing, mean", t.queue_mean_s, Seconds);
    o.n(s, keys[4], "Prefill lane utilisation ρ", t.utilization, Number);
}

fn unmet(o: &mut Rows, s: &'static str, key: &'static str, u: &Unmet) {
    o.t(s, key, "Cannot be met", format!("{}: {}", constraint_text(u.constraint), u.reason));
}

fn colocated_point(o: &mut Rows, s: &'static str, keys: [&'static str; 4], p: &ColocatedPoint, chips: f64) {
    o.n(s, keys[0], "Time per output token", p.tpot_s.get(), Seconds);
    o.n(s, keys[1], "Output tokens per second per chip", p.output_tokens_per_s / chips.max(1.0), TokensPerS);
    o.n(s, keys[2], "Steps carrying a prefill chunk", p.mixed_step_fraction, Number);
    o.n(s, keys[3], "Mixed step (decode + chunk)", p.mixed_step_s.get(), Seconds);
}

fn continuous(o: &mut Rows, r: &InferenceReport) {
    let cb = &r.continuous_batching;
    let s = "Continuous batching";
    o.n(s, "continuous_batching.token_budget", "Token budget per step", cb.token_budget as f64, Tokens);
    o.n(s, "continuous_batching.context", "Context a decoding sequence reads", cb.context as f64, Tokens);
    o.n(
        s,
        "continuous_batching.max_concurrency",
        "Largest concurrency that fits",
        cb.max_concurrency as f64,
        Sequences,
    );
    let chips = r.serving.model_parallel;
    match (&cb.at_batch.point, cb.at_batch.limit) {
        (Some(p), _) => colocated_point(
            o,
            s,
            [
                "continuous_batching.at_batch.point.tpot_s",
                "continuous_batching.at_batch.output_tokens_per_s_per_chip",
                "continuous_batching.at_batch.point.mixed_step_fraction",
                "continuous_batching.at_batch.point.mixed_step_s",
            ],
            p,
            chips,
        ),
        (None, Some(l)) => o.t(s, "continuous_batching.at_batch.limit", "At the serving batch", limit_text(l)),
        (None, None) => {}
    }
    let Some(at) = &cb.at_request_rate else { return };
    let s = "Co-located at the request rate";
    if let Some(d) = &at.deployment {
        o.n(s, "continuous_batching.at_request_rate.deployment.servers", "Servers", d.servers as f64, Number);
        o.n(s, "continuous_batching.at_request_rate.deployment.chips", "Chips", d.chips, Chips);
        o.n(
            s,
            "continuous_batching.at_request_rate.deployment.rate_per_server",
            "Requests per second per server",
            d.rate_per_server,
            RequestsPerS,
        );
        o.n(
            s,
            "continuous_batching.at_request_rate.deployment.point.concurrency",
            "Sequences in flight per server",
            d.point.concurrency,
            Sequences,
        );
        o.n(
            s,
            "continuous_batching.at_request_rate.deployment.point.tpot_s",
            "Time per output token",
            d.point.tpot_s.get(),
            Seconds,
        );
        ttft(
            o,
            s,
            [
                "continuous_batching.at_request_rate.deployment.point.ttft.mean_s",
                "continuous_batching.at_request_rate.deployment.point.ttft.p50_s",
                "continuous_batching.at_request_rate.deployment.point.ttft.p99_s",
                "continuous_batching.at_request_rate.deployment.point.ttft.queue_mean_s",
                "continuous_batching.at_request_rate.deployment.point.ttft.utilization",
            ],
            &d.point.ttft,
        );
        o.t(s, "continuous_batching.at_request_rate.deployment.binds", "Sets the count", constraint_text(d.binds));
        o.opt(s, "continuous_batching.at_request_rate.deployment.usd_per_hour", "Cost per hour", d.usd_per_hour, Usd);
        o.opt(
            s,
            "continuous_batching.at_request_rate.deployment.usd_per_million_output_tokens",
            "Per million output tokens",
            d.usd_per_million_output_tokens,
            Usd,
        );
    }
    if let Some(u) = &at.impossible {
        unmet(o, s, "continuous_batching.at_request_rate.impossible", u);
    }
}

fn pool(o: &mut Rows, s: &'static str, keys: [&'static str; 3], label: &'static str, p: &PoolReport) {
    o.t(s, keys[0], label, format!("{} {} ({} chips a server)", p.chip, p.topology, super::count(p.chips_per_server)));
    o.t(s, keys[1], "… price", price_text(&p.price));
    o.t(s, keys[2], "… fits in HBM", if p.fits { "yes" } else { "no" });
}

fn disaggregation(o: &mut Rows, r: &InferenceReport) {
    let g = &r.disaggregation;
    let s = "Disaggregation";
    o.n(s, "disaggregation.prefill_s", "Prefill (TTFT)", g.prefill_s.get(), Seconds);
    o.n(s, "disaggregation.decode_step_s", "Decode step", g.decode_step_s.get(), Seconds);
    o.n(
        s,
        "disaggregation.prefill_per_decode",
        "Prefill servers per decode server (book 8.1.2)",
        g.prefill_per_decode,
        Number,
    );
    o.n(s, "disaggregation.prefill_batch", "Prompts per prefill pass", g.prefill_batch as f64, Number);
    o.n(s, "disaggregation.prefill_pass_s", "One prefill pass", g.prefill_pass_s.get(), Seconds);
    o.n(s, "disaggregation.kv_bytes_per_request", "KV moved per request", g.kv_bytes_per_request.get(), Bytes);
    let link = &g.kv_link;
    o.t(s, "disaggregation.kv_link.name", "KV link", format!("{} ({} network)", link.name, network_text(link)));
    o.n(s, "disaggregation.kv_link.bandwidth", "… bandwidth, pool to pool", link.bandwidth.get(), BytesPerS);
    o.n(s, "disaggregation.kv_link.latency_s", "… latency", link.latency_s.get(), Seconds);
    o.n(s, "disaggregation.kv_transfer_s", "KV transfer of a pass", g.kv_transfer_s.get(), Seconds);
    o.n(
        s,
        "disaggregation.kv_transfer_added_s",
        "… added to the time to first token",
        g.kv_transfer_added_s.get(),
        Seconds,
    );
    o.n(s, "disaggregation.ttft_unloaded_s", "Time to first token, unloaded", g.ttft_unloaded_s.get(), Seconds);
    o.n(s, "disaggregation.kv_transfer_ici_s", "One prompt's KV over ICI / NVLink", g.kv_transfer_ici_s.get(), Seconds);
    o.n(s, "disaggregation.kv_transfer_dcn_s", "… over DCN", g.kv_transfer_dcn_s.get(), Seconds);
    pool(
        o,
        s,
        ["disaggregation.prefill_pool.chip", "disaggregation.prefill_pool.price", "disaggregation.prefill_pool.fits"],
        "Prefill servers",
        &g.prefill_pool,
    );
    pool(
        o,
        s,
        ["disaggregation.decode_pool.chip", "disaggregation.decode_pool.price", "disaggregation.decode_pool.fits"],
        "Decode servers",
        &g.decode_pool,
    );
    if let Some(d) = &g.deployment {
        o.t(s, "disaggregation.deployment.ratio", "At the request rate", d.ratio.clone());
        o.n(s, "disaggregation.chips_total", "Chips, both pools", d.chips, Chips);
        o.n(s, "disaggregation.deployment.tpot_s", "Time per output token", d.tpot_s.get(), Seconds);
        ttft(
            o,
            s,
            [
                "disaggregation.deployment.ttft.mean_s",
                "disaggregation.deployment.ttft.p50_s",
                "disaggregation.deployment.ttft.p99_s",
                "disaggregation.deployment.ttft.queue_mean_s",
                "disaggregation.deployment.ttft.utilization",
            ],
            &d.ttft,
        );
        o.n(s, "disaggregation.deployment.prefill_load", "Prefill servers' worth of work", d.prefill_load, Number);
        o.n(s, "disaggregation.deployment.decode_load", "Decode servers' worth of work", d.decode_load, Number);
        o.t(s, "disaggregation.deployment.prefill_binds", "Sets the prefill count", constraint_text(d.prefill_binds));
        o.opt(
            s,
            "disaggregation.deployment.prefill_usd_per_hour",
            "Prefill pool per hour",
            d.prefill_usd_per_hour,
            Usd,
        );
        o.opt(s, "disaggregation.deployment.decode_usd_per_hour", "Decode pool per hour", d.decode_usd_per_hour, Usd);
        o.opt(s, "disaggregation.deployment.usd_per_hour", "Both pools per hour", d.usd_per_hour, Usd);
        o.opt(
            s,
            "disaggregation.deployment.usd_per_million_output_tokens",
            "Per million output tokens",
            d.usd_per_million_output_tokens,
            Usd,
        );
    }
    if let Some(u) = &g.impossible {
        unmet(o, s, "disaggregation.impossible", u);
    }
    o.n(
        s,
        "disaggregation.sequences_finished_per_step",
        "Sequences finished per step (B/G)",
        g.sequences_finished_per_step,
        Number,
    );
    o.n(
        s,
        "disaggregation.kv_tokens_evicted_per_step",
        "KV tokens evicted per step",
        g.kv_tokens_evicted_per_step,
        Tokens,
    );
}

fn network_text(l: &shardcalc_core::inference::disaggregated::KvLink) -> &'static str {
    match l.network {
        shardcalc_core::inference::options::KvNetwork::ScaleOut => "scale-out",
        shardcalc_core::inference::options::KvNetwork::ScaleUp => "scale-up",
    }
}

fn moe_and_mla(o: &mut Rows, r: &InferenceReport) {
    if let Some(m) = &r.moe {
        let s = "Mixture of experts";
        o.n(s, "moe.experts", "Routed experts E", m.experts as f64, Number);
        o.n(s, "moe.experts_per_token", "Experts per token k", m.experts_per_token as f64, Number);
        o.n(
            s,
            "moe.routed_tokens_per_step",
            "Routed token copies per layer and step",
            m.routed_tokens_per_step,
            Number,
        );
        o.n(s, "moe.tokens_per_expert", "Tokens per expert", m.tokens_per_expert, Number);
        o.n(
            s,
            "moe.experts_touched_per_layer",
            "Experts a step touches per layer",
            m.experts_touched_per_layer,
            Number,
        );
        o.n(
            s,
            "moe.expert_weight_bytes_per_step",
            "Expert weights read per step",
            m.expert_weight_bytes_per_step.get(),
            Bytes,
        );
        o.n(
            s,
            "moe.expert_weight_bytes_per_chip",
            "… on the busiest chip",
            m.expert_weight_bytes_per_chip.get(),
            Bytes,
        );
        o.n(s, "moe.expert_parallel", "Expert parallelism E_p", m.expert_parallel, Chips);
        o.n(s, "moe.experts_per_chip", "Experts per chip", m.experts_per_chip, Number);
        let dense = match m.dense {
            shardcalc_core::inference::options::DenseSharding::Tensor => "tensor-parallel",
            shardcalc_core::inference::options::DenseSharding::Data => "data-parallel (DP attention)",
        };
        o.t(s, "moe.dense", "Attention and dense weights", dense);
        o.n(
            s,
            "moe.busiest_chip_routed_tokens",
            "Routed copies on the busiest chip",
            m.busiest_chip_routed_tokens,
            Number,
        );
        o.n(s, "moe.load_imbalance", "Busiest over mean", m.load_imbalance, Number);
        o.n(s, "moe.all_to_all_s", "Dispatch and combine AllToAlls per step", m.all_to_all_s.get(), Seconds);
    }
    if let Some(m) = &r.mla {
        let s = "Multi-head latent attention";
        o.n(
            s,
            "mla.kv_elements_per_token_per_layer",
            "Latent cached per token and layer",
            m.kv_elements_per_token_per_layer,
            Number,
        );
        o.n(s, "mla.kv_bytes_per_token", "KV per token, every layer", m.kv_bytes_per_token.get(), Bytes);
        o.n(
            s,
            "mla.mha_equivalent_kv_bytes_per_token",
            "… as MHA with the same heads",
            m.mha_equivalent_kv_bytes_per_token.get(),
            Bytes,
        );
        o.n(
            s,
            "mla.attention_flops_per_cached_token",
            "Absorbed attention FLOPs per cached token and layer",
            m.attention_flops_per_cached_token,
            Number,
        );
        o.n(
            s,
            "mla.unabsorbed_attention_flops_per_cached_token",
            "… without absorbing the up-projections",
            m.unabsorbed_attention_flops_per_cached_token,
            Number,
        );
        o.n(s, "mla.attention_intensity", "Absorbed attention intensity", m.attention_intensity, Unit::FlopsPerByte);
        o.n(s, "mla.chip_intensity", "The chip's balance point", m.chip_intensity, Unit::FlopsPerByte);
        o.t(
            s,
            "mla.attention_compute_bound",
            "Attention compute-bound",
            if m.attention_compute_bound { "yes" } else { "no" },
        );
    }
}

/// Continuous batching, the request rate, disaggregation, MoE and MLA.
pub(super) fn push(o: &mut Rows, r: &InferenceReport) {
    continuous(o, r);
    disaggregation(o, r);
    moe_and_mla(o, r);
}
