//! The search's deployments as one table (the ranked rows, the Pareto front): shown with
//! their chip, mesh, TP/EP split, formats, batch, prefill pool and split, cost and latencies,
//! exported with every field of `inference.search.ranked[]` exact.

use shardcalc_charts::format::{significant, thousands};
use shardcalc_charts::table::Table;
use shardcalc_core::inference::search::report::ServerChoice;
use shardcalc_core::inference::search::space::ShardingChoice;
use shardcalc_core::inference::search::{Deployment, DeploymentMode};
use shardcalc_core::inference::targets::Constraint;
use shardcalc_core::text::shortest;

use super::rows::{count, seconds, show, Unit};

/// How a server splits the model, with the degree: `TP 8`, `EP 8 · TP 8`, `EP 8 · DP attention`.
#[must_use]
pub fn sharding_text(choice: ShardingChoice, chips: f64) -> String {
    let n = count(chips);
    match choice {
        ShardingChoice::Tensor => format!("TP {n}"),
        ShardingChoice::Expert => format!("EP {n} · TP {n}"),
        ShardingChoice::ExpertDataAttention => format!("EP {n} · DP attention {n}"),
    }
}

fn sharding_key(choice: ShardingChoice) -> &'static str {
    match choice {
        ShardingChoice::Tensor => "tensor",
        ShardingChoice::Expert => "expert",
        ShardingChoice::ExpertDataAttention => "expert_data_attention",
    }
}

/// `4 × h100-sxm 8`: servers × chip and mesh.
#[must_use]
pub fn servers_text(s: &ServerChoice) -> String {
    format!("{} × {} {}", thousands(s.servers), s.chip, s.topology)
}

/// What binds, briefly: `throughput`, `TTFT p99`, `TPOT`, `memory`, `TTFT p50`.
#[must_use]
pub fn binds_text(c: Constraint) -> &'static str {
    match c {
        Constraint::TtftP50 => "TTFT p50",
        Constraint::TtftP99 => "TTFT p99",
        Constraint::Tpot => "TPOT",
        Constraint::Throughput => "throughput",
        Constraint::Memory => "memory",
    }
}

fn binds_key(c: Constraint) -> &'static str {
    match c {
        Constraint::TtftP50 => "ttft_p50",
        Constraint::TtftP99 => "ttft_p99",
        Constraint::Tpot => "tpot",
        Constraint::Throughput => "throughput",
        Constraint::Memory => "memory",
    }
}

fn text(s: impl Into<String>) -> (String, String) {
    let s = s.into();
    (s.clone(), s)
}

fn num(x: f64, shown: String) -> (String, String) {
    (shortest(x), shown)
}

fn opt(x: Option<f64>, shown: impl Fn(f64) -> String) -> (String, String) {
    x.map_or_else(|| (String::new(), "—".into()), |x| num(x, shown(x)))
}

/// The deployments, one row each (`rank` from 1).
#[must_use]
pub fn deployments_table(rows: &[Deployment]) -> Table {
    let mut out = Table::labelled(&[
        ("rank", "#"),
        ("mode", "Mode"),
        ("servers", "Servers (decode)"),
        ("chip", ""),
        ("topology", ""),
        ("chips_per_server", ""),
        ("sharding", "TP / EP"),
        ("weights", "Weights / KV"),
        ("kv", ""),
        ("compute", ""),
        ("batch", "Batch"),
        ("concurrency", "In flight"),
        ("prefill", "Prefill pool"),
        ("prefill_chip", ""),
        ("prefill_topology", ""),
        ("prefill_servers", ""),
        ("prefill_batch", ""),
        ("prefill_sharding", ""),
        ("ratio", "Prefill : decode"),
        ("chips", "Chips"),
        ("usd_per_hour", "$/hour"),
        ("usd_per_million_output_tokens", "$/M tokens"),
        ("ttft_mean_s", ""),
        ("ttft_p50_s", "TTFT p50"),
        ("ttft_p99_s", "TTFT p99"),
        ("tpot_s", "TPOT"),
        ("latency_s", ""),
        ("binds", "Binds"),
        ("decode_binds", ""),
    ]);
    for (i, d) in rows.iter().enumerate() {
        let c = &d.decode;
        let p = d.prefill.as_ref();
        let binds = match d.decode_binds {
            Some(b) => format!("{}; batch: {}", binds_text(d.binds), binds_text(b)),
            None => binds_text(d.binds).into(),
        };
        out.push_shown(vec![
            text((i + 1).to_string()),
            text(match d.mode {
                DeploymentMode::Colocated => "co-located",
                DeploymentMode::Disaggregated => "disaggregated",
            }),
            (shortest(c.servers as f64), servers_text(c)),
            text(c.chip.clone()),
            text(c.topology.clone()),
            num(c.chips_per_server, count(c.chips_per_server)),
            (sharding_key(c.sharding).into(), sharding_text(c.sharding, c.chips_per_server)),
            (c.weights.name().into(), format!("{} / {}", c.weights.name(), c.kv.name())),
            text(c.kv.name()),
            text(c.compute.name()),
            opt(c.batch.map(|b| b as f64), count),
            num(d.concurrency, significant(d.concurrency, 3)),
            match p {
                Some(p) => (
                    format!("{} {}", p.chip, p.topology),
                    format!("{}, {} a pass", servers_text(p), p.batch.unwrap_or(1)),
                ),
                None => (String::new(), "—".into()),
            },
            text(p.map(|p| p.chip.clone()).unwrap_or_default()),
            text(p.map(|p| p.topology.clone()).unwrap_or_default()),
            text(p.map(|p| p.servers.to_string()).unwrap_or_default()),
            text(p.and_then(|p| p.batch).map(|b| b.to_string()).unwrap_or_default()),
            text(p.map(|p| sharding_key(p.sharding)).unwrap_or_default()),
            match &d.ratio {
                Some(r) => text(r.clone()),
                None => (String::new(), "co-located".into()),
            },
            num(d.chips, count(d.chips)),
            num(d.usd_per_hour, show(d.usd_per_hour, Unit::Usd)),
            opt(d.usd_per_million_output_tokens, |x| show(x, Unit::Usd)),
            num(d.ttft_mean_s, seconds(d.ttft_mean_s)),
            num(d.ttft_p50_s, seconds(d.ttft_p50_s)),
            num(d.ttft_p99_s, seconds(d.ttft_p99_s)),
            num(d.tpot_s, seconds(d.tpot_s)),
            num(d.latency_s, seconds(d.latency_s)),
            (binds_key(d.binds).into(), binds),
            text(d.decode_binds.map(binds_key).unwrap_or_default()),
        ]);
    }
    out
}
