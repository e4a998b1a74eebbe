//! Every number of the serving plan as rows of one table: group, the report key (as
//! `shardcalc eval` prints it, docs/report.md), what it is, the exact value and its unit;
//! formatted for reading, exact for the CSV. The headline cards format with the same helpers.

use shardcalc_charts::format::{si, significant, thousands};
use shardcalc_charts::table::Table;
use shardcalc_core::inference::decode::DecodeBound;
use shardcalc_core::inference::options::KvSharding;
use shardcalc_core::inference::prefill::PrefillBound;
use shardcalc_core::inference::report::{BatchSource, PriceSource, TopologySource};
use shardcalc_core::inference::InferenceReport;

/// The unit of a row, which says how it is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bytes (shown in GB = 10⁹ B, or B below 1 MB).
    Bytes,
    /// Seconds (shown in s, ms or µs).
    Seconds,
    /// Floating-point operations.
    Flops,
    /// A plain number.
    Number,
    /// Chips.
    Chips,
    /// Sequences.
    Sequences,
    /// Tokens.
    Tokens,
    /// Tokens per second.
    TokensPerS,
    /// Requests per second.
    RequestsPerS,
    /// US dollars.
    Usd,
    /// US dollars per chip-hour.
    UsdPerChipHour,
    /// FLOPs per byte.
    FlopsPerByte,
}

impl Unit {
    /// The unit's symbol in the CSV.
    #[must_use]
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Bytes => "B",
            Unit::Seconds => "s",
            Unit::Flops => "FLOP",
            Unit::Number => "",
            Unit::Chips => "chips",
            Unit::Sequences => "sequences",
            Unit::Tokens => "tokens",
            Unit::TokensPerS => "tokens/s",
            Unit::RequestsPerS => "requests/s",
            Unit::Usd => "USD",
            Unit::UsdPerChipHour => "USD/chip-hour",
            Unit::FlopsPerByte => "FLOP/B",
        }
    }
}

/// A row's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number in the row's unit.
    Number(f64),
    /// Words (a layout, a bound, where something comes from).
    Text(String),
}

/// One line of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Section heading, e.g. "Decode step".
    pub group: &'static str,
    /// Report key under `inference.`, e.g. `decode.step_time_s`.
    pub key: &'static str,
    /// What it is.
    pub label: &'static str,
    /// The value.
    pub value: Value,
    /// Its unit.
    pub unit: Unit,
}

impl Row {
    /// The value formatted for reading, with its unit.
    #[must_use]
    pub fn shown(&self) -> String {
        match &self.value {
            Value::Number(x) => show(*x, self.unit),
            Value::Text(t) => t.clone(),
        }
    }

    /// The exact value: the shortest text that reads back to the same number.
    #[must_use]
    pub fn exact(&self) -> String {
        match &self.value {
            Value::Number(x) => shardcalc_core::text::shortest(*x),
            Value::Text(t) => t.clone(),
        }
    }
}

/// `x` in `unit`, for reading: `17.28 ms`, `42.95 GB`, `163,840 B`, `231.5 tokens/s`.
#[must_use]
pub fn show(x: f64, unit: Unit) -> String {
    match unit {
        Unit::Bytes if x.abs() >= 1e6 => format!("{} GB", significant(x / 1e9, 4)),
        Unit::Bytes => format!("{} B", count(x)),
        Unit::Seconds => seconds(x),
        Unit::Flops => format!("{}FLOP", si(x)),
        Unit::Number => count(x),
        Unit::Usd => format!("${}", significant(x, 3)),
        Unit::UsdPerChipHour => format!("${} per chip-hour", significant(x, 3)),
        Unit::Chips | Unit::Sequences | Unit::Tokens => format!("{} {}", count(x), unit.symbol()),
        Unit::TokensPerS | Unit::RequestsPerS | Unit::FlopsPerByte => {
            format!("{} {}", significant(x, 4), unit.symbol())
        }
    }
}

/// An integer with separators, else four significant digits.
#[must_use]
pub fn count(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 9.0e15 {
        let grouped = thousands(x.abs() as u64);
        if x < 0.0 {
            format!("-{grouped}")
        } else {
            grouped
        }
    } else {
        significant(x, 4)
    }
}

/// Seconds in the unit that reads best: `0.912 s`, `17.28 ms`, `3.7 µs`.
#[must_use]
pub fn seconds(x: f64) -> String {
    let a = x.abs();
    if a >= 1.0 || a == 0.0 || !a.is_finite() {
        format!("{} s", significant(x, 4))
    } else if a >= 1e-3 {
        format!("{} ms", significant(x * 1e3, 4))
    } else {
        format!("{} µs", significant(x * 1e6, 3))
    }
}

/// The decode term in words.
#[must_use]
pub fn decode_bound(b: DecodeBound) -> &'static str {
    match b {
        DecodeBound::WeightLoading => "weight loading",
        DecodeBound::KvLoading => "KV loading",
        DecodeBound::Flops => "FLOPs",
        DecodeBound::Communication => "collectives",
    }
}

/// The prefill bound in words.
#[must_use]
pub fn prefill_bound(b: PrefillBound) -> &'static str {
    match b {
        PrefillBound::Compute => "compute",
        PrefillBound::Hbm => "HBM bandwidth",
        PrefillBound::Communication => "collectives",
    }
}

/// How the KV cache is laid out, in words: "8 KV heads on 16 chips: by heads 8 ways, then by
/// batch 2 ways".
#[must_use]
pub fn kv_layout_text(r: &InferenceReport) -> String {
    let l = &r.kv_cache.layout;
    let rest = match l.mode {
        KvSharding::Batch => format!("then by batch {} ways", l.other_shards),
        KvSharding::Sequence => format!("then by sequence {} ways", l.other_shards),
        KvSharding::Replicate => format!("replicated {}×", l.replication),
    };
    let heads = if l.kv_heads == 1 { "1 KV head".to_string() } else { format!("{} KV heads", l.kv_heads) };
    if l.other_shards <= 1 {
        format!("{heads} on {} chips: by heads {} ways", l.model_parallel, l.head_shards)
    } else {
        format!("{heads} on {} chips: by heads {} ways, {rest}", l.model_parallel, l.head_shards)
    }
}

struct Rows(Vec<Row>);

impl Rows {
    fn n(&mut self, group: &'static str, key: &'static str, label: &'static str, x: f64, unit: Unit) {
        self.0.push(Row { group, key, label, value: Value::Number(x), unit });
    }
    fn opt(&mut self, group: &'static str, key: &'static str, label: &'static str, x: Option<f64>, unit: Unit) {
        if let Some(x) = x {
            self.n(group, key, label, x, unit);
        }
    }
    fn t(&mut self, group: &'static str, key: &'static str, label: &'static str, text: impl Into<String>) {
        self.0.push(Row { group, key, label, value: Value::Text(text.into()), unit: Unit::Number });
    }
}

/// Every row for `r`, in reading order.
#[must_use]
pub fn rows(r: &InferenceReport) -> Vec<Row> {
    use Unit::{Bytes, Chips, Flops, FlopsPerByte, Number, RequestsPerS, Seconds, Sequences, Tokens, TokensPerS};
    let mut o = Rows(Vec::new());
    let (sv, kv, d, p, m, g) = (&r.serving, &r.kv_cache, &r.decode, &r.prefill, &r.memory, &r.disaggregation);

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

    let s = "Disaggregation";
    o.n(s, "disaggregation.prefill_s", "Prefill (TTFT)", g.prefill_s.get(), Seconds);
    o.n(s, "disaggregation.decode_step_s", "Decode step", g.decode_step_s.get(), Seconds);
    o.n(s, "disaggregation.prefill_per_decode", "Prefill servers per decode server", g.prefill_per_decode, Number);
    o.opt(
        s,
        "disaggregation.prefill_servers",
        "Prefill servers for the request rate",
        g.prefill_servers.map(|n| n as f64),
        Number,
    );
    o.opt(
        s,
        "disaggregation.decode_servers",
        "Decode servers for the request rate",
        g.decode_servers.map(|n| n as f64),
        Number,
    );
    o.opt(s, "disaggregation.chips_total", "Chips, both rounded up", g.chips_total, Chips);
    o.n(s, "disaggregation.kv_bytes_per_request", "KV moved per request", g.kv_bytes_per_request.get(), Bytes);
    o.n(s, "disaggregation.kv_transfer_ici_s", "… over ICI / NVLink", g.kv_transfer_ici_s.get(), Seconds);
    o.n(s, "disaggregation.kv_transfer_dcn_s", "… over DCN", g.kv_transfer_dcn_s.get(), Seconds);
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
    o.0
}

/// The rows as one table: exported as `group,quantity,value,unit,key` (keys prefixed
/// `inference.`, exact values), shown grouped with the values formatted.
#[must_use]
pub fn table(rows: &[Row]) -> Table {
    let mut out = Table::labelled(&[
        ("group", ""),
        ("quantity", "Quantity"),
        ("value", "Value"),
        ("unit", ""),
        ("key", "Key (shardcalc eval)"),
    ]);
    for r in rows {
        out.push_shown(vec![
            (r.group.to_string(), r.group.to_string()),
            (r.label.to_string(), r.label.to_string()),
            (r.exact(), r.shown()),
            (r.unit.symbol().to_string(), r.unit.symbol().to_string()),
            (format!("inference.{}", r.key), format!("inference.{}", r.key)),
        ]);
    }
    out
}
