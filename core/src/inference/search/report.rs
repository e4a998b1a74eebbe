//! `inference.search`: the ranked deployments, the Pareto front, what binds, and when
//! nothing meets the targets, which target and why.

use super::decode::DecodeOption;
use super::disagg::PrefillOption;
use super::options::{DeploymentMode, SearchOptions};
use super::pareto::{front, ranked};
use super::space::{Excluded, ServerConfig, ShardingChoice};
use super::Problem;
// Numbers through decimal and number_text, never `{}` of an f64: float printing would
// cost the serving page ~6 KB gzip (core::decimal).
use crate::decimal::fixed;
use crate::dtype::DType;
use crate::error::number_text;
use crate::error::Invalid;
use crate::inference::capacity::MAX_SERVERS;
use crate::inference::disaggregated::{prefill_passes, prefill_ttft, KvLink};
use crate::inference::targets::{Constraint, ServingTargets, Unmet};
use crate::inference::throughput::usd_per_million_tokens_of;
use serde::{Deserialize, Serialize};

/// What a candidate deploys (indices into the server configs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Choice {
    /// `servers` co-located servers of a config at `concurrency` each.
    Colocated {
        /// Config.
        config: usize,
        /// Servers.
        servers: u64,
        /// Sequences in flight per server.
        concurrency: f64,
    },
    /// A prefill pool and a decode pool.
    Disaggregated {
        /// Decode config.
        decode: usize,
        /// Decode batch.
        batch: u64,
        /// Decode servers.
        decode_servers: u64,
        /// Prefill config.
        prefill: usize,
        /// Prompts per prefill pass.
        prefill_batch: u64,
        /// Prefill servers.
        prefill_servers: u64,
    },
}

impl Choice {
    /// A total order on choices for tie-breaking.
    #[must_use]
    pub fn key(&self) -> (u8, usize, u64, usize, u64) {
        match *self {
            Choice::Colocated { config, servers, .. } => (0, config, servers, 0, 0),
            Choice::Disaggregated { decode, batch, prefill, prefill_batch, .. } => {
                (1, decode, batch, prefill, prefill_batch)
            }
        }
    }
}

/// A deployment the search considered, with what the ranking needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// What it deploys.
    pub choice: Choice,
    /// US dollars per hour.
    pub usd_per_hour: f64,
    /// Mean time to first token.
    pub ttft_mean_s: f64,
    /// Time per output token.
    pub tpot_s: f64,
    /// `ttft_mean_s + E[G]·tpot_s`.
    pub latency_s: f64,
    /// What sets the (co-located or prefill) server count.
    pub binds: Constraint,
    /// What sets the decode batch (disaggregated).
    pub decode_binds: Option<Constraint>,
}

/// One server type of a deployment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ServerChoice {
    /// Chip id.
    pub chip: String,
    /// Mesh, e.g. `2x4`.
    pub topology: String,
    /// Chips per server.
    pub chips_per_server: f64,
    /// TP, EP, EP with data-parallel attention.
    pub sharding: ShardingChoice,
    /// Weights format.
    pub weights: DType,
    /// KV format.
    pub kv: DType,
    /// Matmul format.
    pub compute: DType,
    /// US dollars per chip-hour used.
    pub usd_per_chip_hour: f64,
    /// Servers.
    pub servers: u64,
    /// Decode batch, or prompts per prefill pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<u64>,
}

/// `inference.search.best`, a row of `ranked` or a point of `pareto`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Deployment {
    /// `colocated` or `disaggregated`.
    pub mode: DeploymentMode,
    /// The co-located servers, or the decode pool.
    pub decode: ServerChoice,
    /// The prefill pool (disaggregated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill: Option<ServerChoice>,
    /// `x prefill : y decode` (disaggregated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<String>,
    /// Sequences in flight per decode (or co-located) server.
    pub concurrency: f64,
    /// Chips of the deployment.
    pub chips: f64,
    /// US dollars per hour.
    pub usd_per_hour: f64,
    /// Per million output tokens (absent for a vanishing rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_per_million_output_tokens: Option<f64>,
    /// Time to first token, mean.
    pub ttft_mean_s: f64,
    /// Median.
    pub ttft_p50_s: f64,
    /// 99th percentile.
    pub ttft_p99_s: f64,
    /// Time per output token.
    pub tpot_s: f64,
    /// Mean time to the last token, `E[TTFT] + E[G]·TPOT` (the Pareto front's latency).
    pub latency_s: f64,
    /// What sets the co-located or prefill server count: `throughput`, `memory`, or a
    /// time-to-first-token / time-per-output-token target.
    pub binds: Constraint,
    /// What keeps the decode batch from being larger (disaggregated): `tpot`, `memory`,
    /// `throughput` (a larger batch costs no less).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_binds: Option<Constraint>,
}

/// `inference.search`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SearchReport {
    /// λ, requests per second.
    pub request_rate: f64,
    /// The targets searched under.
    pub targets: ServingTargets,
    /// Servers built (chip × mesh × sharding × formats that hold the weights).
    pub servers: u64,
    /// Configurations evaluated: co-located servers, decode batches, prefill options and
    /// prefill–decode pairings.
    pub evaluated: u64,
    /// Deployments that meet every target (the candidates ranked).
    pub feasible: u64,
    /// The cheapest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<Deployment>,
    /// In words: what the best is and what binds it.
    pub explanation: String,
    /// Cost against mean time to the last token, the non-dominated deployments,
    /// cheapest first.
    pub pareto: Vec<Deployment>,
    /// The cheapest `search.top`, cheapest first.
    pub ranked: Vec<Deployment>,
    /// When nothing meets the targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impossible: Option<Unmet>,
    /// Chips left out and why (no price, weights that fit on no server).
    pub excluded: Vec<Excluded>,
}

fn server(c: &ServerConfig, servers: u64, batch: Option<u64>) -> ServerChoice {
    ServerChoice {
        chip: c.chip.id.clone(),
        topology: c.topology.clone(),
        chips_per_server: c.chips,
        sharding: c.sharding,
        weights: c.dtypes.weights,
        kv: c.dtypes.kv,
        compute: c.dtypes.compute,
        usd_per_chip_hour: c.price,
        servers,
        batch,
    }
}

/// The full deployment of a candidate (quantiles of the time to first token included).
///
/// # Errors
/// From the collective model.
fn deployment(
    p: &Problem,
    configs: &[ServerConfig],
    prefills: &[PrefillOption],
    x: &Candidate,
) -> Result<Option<Deployment>, Invalid> {
    let tokens_per_s = p.rate * p.traffic.mean_output();
    let (mode, decode, prefill, ratio, concurrency, chips, ttft) = match x.choice {
        Choice::Colocated { config, servers, concurrency } => {
            let c = &configs[config];
            let cb = super::colocated::server(p, c);
            let max_c = super::colocated::max_concurrency(p, c) as f64;
            let Ok((_, q)) = cb.queue_at_rate(p.rate / servers as f64, max_c)? else { return Ok(None) };
            let Some(ttft) = q.ttft() else { return Ok(None) };
            (
                DeploymentMode::Colocated,
                server(c, servers, None),
                None,
                None,
                concurrency,
                servers as f64 * c.chips,
                ttft,
            )
        }
        Choice::Disaggregated { decode, batch, decode_servers, prefill, prefill_batch, prefill_servers } => {
            let (c_d, c_p) = (&configs[decode], &configs[prefill]);
            let Some(o) = prefills.iter().find(|o| o.config == prefill && o.batch == prefill_batch) else {
                return Ok(None);
            };
            let Ok(link) = KvLink::resolve(p.section, &c_p.chip, c_p.chips, &c_d.chip, c_d.chips) else {
                return Ok(None);
            };
            let classes = o.classes(p, c_p, &link);
            let Some(ttft) = prefill_ttft(&classes, prefill_batch as f64, p.rate, prefill_servers) else {
                return Ok(None);
            };
            // Little's law: λ·E[G]·τ sequences in flight over the decode servers.
            let in_flight = tokens_per_s * x.tpot_s / decode_servers as f64;
            (
                DeploymentMode::Disaggregated,
                server(c_d, decode_servers, Some(batch)),
                Some(server(c_p, prefill_servers, Some(prefill_batch))),
                Some(format!("{prefill_servers} prefill : {decode_servers} decode")),
                in_flight,
                decode_servers as f64 * c_d.chips + prefill_servers as f64 * c_p.chips,
                ttft,
            )
        }
    };
    Ok(Some(Deployment {
        mode,
        decode,
        prefill,
        ratio,
        concurrency,
        chips,
        usd_per_hour: x.usd_per_hour,
        usd_per_million_output_tokens: usd_per_million_tokens_of(x.usd_per_hour, tokens_per_s),
        ttft_mean_s: ttft.mean_s,
        ttft_p50_s: ttft.p50_s,
        ttft_p99_s: ttft.p99_s,
        tpot_s: x.tpot_s,
        latency_s: x.latency_s,
        binds: x.binds,
        decode_binds: x.decode_binds,
    }))
}

fn constraint_name(c: Constraint) -> &'static str {
    match c {
        Constraint::TtftP50 => "the median time to first token",
        Constraint::TtftP99 => "the 99th-percentile time to first token",
        Constraint::Tpot => "the time per output token",
        Constraint::Throughput => "throughput (the fewest servers that keep up)",
        Constraint::Memory => "memory",
    }
}

fn explain(best: &Deployment, targets: &ServingTargets) -> String {
    let pool = |s: &ServerChoice| {
        format!("{} × {} {} ({} chips each)", s.servers, s.chip, s.topology, number_text(s.chips_per_server))
    };
    let what = match &best.prefill {
        Some(p) => format!(
            "disaggregated, {}: prefill on {} ({} prompts a pass), decode on {} at batch {}",
            best.ratio.clone().unwrap_or_default(),
            pool(p),
            p.batch.unwrap_or(1),
            pool(&best.decode),
            best.decode.batch.unwrap_or(0)
        ),
        None => format!("co-located on {}", pool(&best.decode)),
    };
    let ratio = |value: f64, target: Option<f64>| {
        target.map(|t| format!(" ({} of its {} s target)", fixed(value / t, 2), number_text(t)))
    };
    let of = |c: Constraint| match c {
        Constraint::TtftP50 => ratio(best.ttft_p50_s, targets.ttft_p50_s).unwrap_or_default(),
        Constraint::TtftP99 => ratio(best.ttft_p99_s, targets.ttft_p99_s).unwrap_or_default(),
        Constraint::Tpot => ratio(best.tpot_s, targets.tpot_s).unwrap_or_default(),
        _ => String::new(),
    };
    let mut s = format!(
        "cheapest: {what}, ${}/h{}; {} sets the {}{}",
        fixed(best.usd_per_hour, 2),
        best.usd_per_million_output_tokens
            .map_or(String::new(), |x| format!(" (${} per million output tokens)", fixed(x, 3))),
        constraint_name(best.binds),
        if best.prefill.is_some() { "prefill servers" } else { "servers" },
        of(best.binds)
    );
    if let Some(d) = best.decode_binds {
        s += &format!("; {} caps the decode batch{}", constraint_name(d), of(d));
    }
    s
}

/// Why nothing is feasible: the target no deployment meets even unloaded.
fn impossible(
    p: &Problem,
    configs: &[ServerConfig],
    decodes: &[DecodeOption],
    excluded: &[Excluded],
) -> Result<Unmet, Invalid> {
    let t = &p.section.targets;
    if configs.is_empty() {
        let why: Vec<String> = excluded.iter().map(|e| format!("{}: {}", e.chip, e.reason)).collect();
        return Ok(Unmet { constraint: Constraint::Memory, reason: format!("no server: {}", why.join("; ")) });
    }
    // The fastest decode step anywhere (batch 1).
    let fastest = decodes
        .iter()
        .filter_map(|d| d.batches.first().map(|b| (b.1.get(), d.config)))
        .fold(None, |best: Option<(f64, usize)>, x| if best.is_some_and(|b| b.0 <= x.0) { best } else { Some(x) });
    if let (Some(target), Some((step, i))) = (t.tpot_s, fastest) {
        if step > target {
            let c = &configs[i];
            return Ok(Unmet {
                constraint: Constraint::Tpot,
                reason: format!(
                    "the fastest decode step of any server is {} s (batch 1 on {} {}), above the {} s target",
                    fixed(step, 5),
                    c.chip.id,
                    c.topology,
                    number_text(target)
                ),
            });
        }
    }
    // The fastest first token anywhere: any prefill option nearly unloaded, over its link.
    let mut quickest: Option<(f64, f64, usize)> = None;
    for o in prefill_options_unbounded(p, configs)? {
        let c = &configs[o.config];
        let link = KvLink::fastest_from(p.section, &c.chip, c.chips)?;
        if let Some(x) = prefill_ttft(&o.classes(p, c, &link), o.batch as f64, p.rate, MAX_SERVERS) {
            if quickest.is_none_or(|q| x.p99_s < q.1) {
                quickest = Some((x.p50_s, x.p99_s, o.config));
            }
        }
    }
    if let Some((p50, p99, i)) = quickest {
        let c = &configs[i];
        for (constraint, target, reached) in
            [(Constraint::TtftP99, t.ttft_p99_s, p99), (Constraint::TtftP50, t.ttft_p50_s, p50)]
        {
            if target.is_some_and(|x| reached > x) {
                return Ok(Unmet {
                    constraint,
                    reason: format!(
                        "the quickest first token of any server, unloaded, is {} s (prefill on {} {}), above the {} s target",
                        fixed(reached, 4),
                        c.chip.id,
                        c.topology,
                        number_text(target.unwrap_or(0.0))
                    ),
                });
            }
        }
    }
    Ok(Unmet {
        constraint: if t.tpot_s.is_some() { Constraint::Tpot } else { Constraint::TtftP99 },
        reason: "each target can be met alone, but no deployment meets them together at this rate".into(),
    })
}

/// Every prefill option with one prompt per pass, without the bound (for explaining
/// impossibility).
fn prefill_options_unbounded(p: &Problem, configs: &[ServerConfig]) -> Result<Vec<PrefillOption>, Invalid> {
    configs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let passes = prefill_passes(&c.setup, p.section, &p.traffic, 1.0)?;
            Ok(PrefillOption { config: i, batch: 1, passes, bound_servers: 1, bound_usd_per_hour: 0.0 })
        })
        .collect()
}

/// What the search built and evaluated.
#[derive(Clone, Debug)]
pub struct Evaluated<'a> {
    /// The servers.
    pub configs: &'a [ServerConfig],
    /// Their decode batches.
    pub decodes: &'a [DecodeOption],
    /// Their prefill options (disaggregated mode).
    pub prefills: &'a [PrefillOption],
    /// Configurations evaluated.
    pub count: u64,
}

/// The report from the candidates.
///
/// # Errors
/// From the collective model.
pub fn build(
    p: &Problem,
    e: &Evaluated,
    candidates: &[Candidate],
    excluded: Vec<Excluded>,
    options: &SearchOptions,
) -> Result<SearchReport, Invalid> {
    let (configs, prefills) = (e.configs, e.prefills);
    let order = ranked(candidates);
    let top = usize::try_from(options.top).unwrap_or(usize::MAX);
    let mut ranked_rows = Vec::new();
    for &i in order.iter().take(top) {
        ranked_rows.extend(deployment(p, configs, prefills, &candidates[i])?);
    }
    let mut pareto = Vec::new();
    for i in front(candidates) {
        pareto.extend(deployment(p, configs, prefills, &candidates[i])?);
    }
    let best = ranked_rows.first().cloned();
    let t = &p.section.targets;
    let (explanation, impossible) = match &best {
        Some(b) => (explain(b, t), None),
        None => {
            let why = impossible(p, configs, e.decodes, &excluded)?;
            (format!("no deployment meets the targets: {}", why.reason), Some(why))
        }
    };
    Ok(SearchReport {
        request_rate: p.rate,
        targets: *t,
        servers: configs.len() as u64,
        evaluated: e.count,
        feasible: candidates.len() as u64,
        best,
        explanation,
        pareto,
        ranked: ranked_rows,
        impossible,
        excluded,
    })
}
