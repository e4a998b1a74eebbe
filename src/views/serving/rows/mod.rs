//! Every number of the serving plan as rows of one table: group, the report key (as
//! `shardcalc eval` prints it, docs/report.md), what it is, the exact value and its unit;
//! formatted for reading, exact for the CSV. The headline cards format with the same helpers.
//! The plan's groups are [`plan`]'s; serving at a request rate (continuous batching, queueing,
//! the disaggregated pools) and the MoE and MLA details are [`rate`]'s.

mod plan;
mod rate;

use shardcalc_charts::format::{si, significant, thousands};
use shardcalc_charts::table::Table;
use shardcalc_core::inference::continuous::Limit;
use shardcalc_core::inference::decode::DecodeBound;
use shardcalc_core::inference::options::KvSharding;
use shardcalc_core::inference::prefill::PrefillBound;
use shardcalc_core::inference::price::Price;
use shardcalc_core::inference::report::PriceSource;
use shardcalc_core::inference::targets::Constraint;
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
    /// Bytes per second (shown in GB/s).
    BytesPerS,
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
            Unit::BytesPerS => "B/s",
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
        Unit::BytesPerS => format!("{} GB/s", significant(x / 1e9, 4)),
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

/// What sets a server count or caps a batch, in words.
#[must_use]
pub fn constraint_text(c: Constraint) -> &'static str {
    match c {
        Constraint::TtftP50 => "the TTFT p50 target",
        Constraint::TtftP99 => "the TTFT p99 target",
        Constraint::Tpot => "the TPOT target",
        Constraint::Throughput => "throughput (the fewest servers that keep up)",
        Constraint::Memory => "memory",
    }
}

/// Why a co-located load cannot be served, in words.
#[must_use]
pub fn limit_text(l: Limit) -> &'static str {
    match l {
        Limit::NoPrefillRoom => "no room left in the token budget for prompt tokens",
        Limit::PrefillBound => "prompts cannot be prefilled as fast as sequences finish",
        Limit::Memory => "the caches do not fit in HBM",
    }
}

/// A price and where it comes from: `$1.2 per chip-hour (catalog)`, `no public price`.
#[must_use]
pub fn price_text(p: &Price) -> String {
    match (p.usd_per_chip_hour, p.source) {
        (Some(x), PriceSource::Scenario) => format!("{} (typed)", show(x, Unit::UsdPerChipHour)),
        (Some(x), _) => format!("{} (catalog)", show(x, Unit::UsdPerChipHour)),
        (None, _) => "no public price".into(),
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

/// Rows being collected, in reading order.
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
    let mut o = Rows(Vec::new());
    plan::push(&mut o, r);
    rate::push(&mut o, r);
    plan::push_speculative(&mut o, r);
    plan::push_cost(&mut o, r);
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
