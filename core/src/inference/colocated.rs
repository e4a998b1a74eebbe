//! `inference.continuous_batching`: the scenario's decode replica as a server doing
//! prefill and decode together ([`super::continuous`]): against concurrency (the chart),
//! at the serving batch, and at the request rate (how many such servers, what they cost,
//! which constraint sets the count).

use super::capacity::fewest_servers;
use super::continuous::{Colocated, ColocatedPoint, Limit};
use super::curves::batch_grid;
use super::plan::Plan;
use super::price::Price;
use super::targets::{Constraint, ServingTargets, Unmet};
use super::throughput::usd_per_million_tokens_of;
use crate::error::Invalid;
use serde::{Deserialize, Serialize};

/// A point of the concurrency chart: the operating point, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConcurrencyPoint {
    /// C.
    pub concurrency: u64,
    /// The operating point, when the concurrency can be sustained.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<ColocatedPoint>,
    /// Why not, otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Limit>,
    /// Output tokens per second per chip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens_per_s_per_chip: Option<f64>,
}

/// Co-located servers for the request rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ColocatedDeployment {
    /// Servers (replicas).
    pub servers: u64,
    /// Chips per server.
    pub chips_per_server: f64,
    /// Every chip.
    pub chips: f64,
    /// Requests per second each server takes.
    pub rate_per_server: f64,
    /// Each server's operating point.
    pub point: ColocatedPoint,
    /// What sets the count: `throughput` (the fewest servers that keep up), `memory`, or
    /// the target that needs the most servers.
    pub binds: Constraint,
    /// US dollars per hour, when priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_per_hour: Option<f64>,
    /// Per million output tokens, when priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_per_million_output_tokens: Option<f64>,
}

/// `inference.continuous_batching.at_request_rate`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ColocatedAtRate {
    /// The deployment, when one exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment: Option<ColocatedDeployment>,
    /// Otherwise why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impossible: Option<Unmet>,
}

/// `inference.continuous_batching`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ContinuousBatchingReport {
    /// b: tokens per step.
    pub token_budget: u64,
    /// The context a decoding sequence reads (length-biased over the traffic).
    pub context: u64,
    /// Largest concurrency whose caches and the step's working memory fit.
    pub max_concurrency: u64,
    /// At the serving batch as the concurrency (a closed loop).
    pub at_batch: ConcurrencyPoint,
    /// At `request_rate`, when the scenario gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_request_rate: Option<ColocatedAtRate>,
    /// Throughput and latency against concurrency (1, 2, 3, 4, 6, 8, … up to the largest
    /// that fits and leaves room in the budget).
    pub curve: Vec<ConcurrencyPoint>,
}

fn concurrency_point(cb: &Colocated, c: u64, chips: f64) -> Result<ConcurrencyPoint, Invalid> {
    Ok(match cb.at_concurrency(c as f64)? {
        Ok(p) => ConcurrencyPoint {
            concurrency: c,
            output_tokens_per_s_per_chip: Some(p.output_tokens_per_s / chips),
            point: Some(p),
            limit: None,
        },
        Err(l) => ConcurrencyPoint { concurrency: c, point: None, limit: Some(l), output_tokens_per_s_per_chip: None },
    })
}

/// The servers for `rate` requests per second under `targets`.
///
/// # Errors
/// From the collective model.
pub fn colocated_at_rate(
    cb: &Colocated,
    rate: f64,
    max_concurrency: f64,
    targets: &ServingTargets,
    price: &Price,
) -> Result<ColocatedAtRate, Invalid> {
    let at = |n: u64| cb.at_rate(rate / n as f64, max_concurrency);
    let good = |r: &Result<ColocatedPoint, Limit>| matches!(r, Ok(p) if targets.met(&p.ttft, p.tpot_s.get()));
    let Some(n) = fewest_servers(|n| Ok(good(&at(n)?)))? else {
        // At the most servers, what still fails?
        let impossible = match at(super::capacity::MAX_SERVERS)? {
            Ok(p) => {
                let (constraint, ratio) =
                    targets.tightest(&p.ttft, p.tpot_s.get()).unwrap_or((Constraint::Throughput, f64::NAN));
                let reached = match constraint {
                    Constraint::TtftP50 => p.ttft.p50_s,
                    Constraint::TtftP99 => p.ttft.p99_s,
                    _ => p.tpot_s.get(),
                };
                Unmet {
                    constraint,
                    reason: format!(
                        "even unloaded a server reaches {} s, {}x the target",
                        crate::decimal::fixed(reached, 4),
                        crate::decimal::fixed(ratio, 2)
                    ),
                }
            }
            Err(Limit::Memory) => Unmet {
                constraint: Constraint::Memory,
                reason: "no concurrency fits in HBM next to the weights".into(),
            },
            Err(_) => Unmet {
                constraint: Constraint::Throughput,
                reason: "the token budget leaves no room to prefill prompts".into(),
            },
        };
        return Ok(ColocatedAtRate { deployment: None, impossible: Some(impossible) });
    };
    let point = match at(n)? {
        Ok(p) => p,
        Err(_) => return Ok(ColocatedAtRate { deployment: None, impossible: None }),
    };
    // What set the count: the constraint failing with one server fewer.
    let binds = if n == 1 {
        Constraint::Throughput
    } else {
        match at(n - 1)? {
            Ok(p) => targets.tightest(&p.ttft, p.tpot_s.get()).map_or(Constraint::Throughput, |t| t.0),
            Err(Limit::Memory) => Constraint::Memory,
            Err(_) => Constraint::Throughput,
        }
    };
    let y = cb.setup.model_parallel();
    let chips = n as f64 * y;
    let usd_per_hour = price.usd_per_hour(chips);
    Ok(ColocatedAtRate {
        deployment: Some(ColocatedDeployment {
            servers: n,
            chips_per_server: y,
            chips,
            rate_per_server: rate / n as f64,
            point,
            binds,
            usd_per_hour,
            usd_per_million_output_tokens: usd_per_hour
                .and_then(|h| usd_per_million_tokens_of(h, rate * cb.traffic.mean_output())),
        }),
        impossible: None,
    })
}

/// The section for `plan`'s decode replica.
///
/// # Errors
/// From the collective model.
pub fn continuous_batching(plan: &Plan, batch: u64, price: &Price) -> Result<ContinuousBatchingReport, Invalid> {
    let s = plan.section;
    let traffic = s.traffic();
    let cb = Colocated::of_plan(plan, &traffic, 0.0);
    let (budget, context) = (cb.budget, cb.context);
    let max_concurrency = plan.colocated_max_concurrency(context, budget);
    let y = plan.decode.model_parallel();
    let mut curve = Vec::new();
    for c in batch_grid(max_concurrency.min(budget.saturating_sub(1))) {
        let p = concurrency_point(&cb, c, y)?;
        let stop = p.limit.is_some();
        curve.push(p);
        if stop {
            break;
        }
    }
    let at_request_rate = match s.request_rate {
        Some(r) => Some(colocated_at_rate(&cb, r, max_concurrency as f64, &s.targets, price)?),
        None => None,
    };
    Ok(ContinuousBatchingReport {
        token_budget: budget,
        context,
        max_concurrency,
        at_batch: concurrency_point(&cb, batch, y)?,
        at_request_rate,
        curve,
    })
}
