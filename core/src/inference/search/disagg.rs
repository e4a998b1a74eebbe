//! Disaggregated deployments of the search: prefill pools (a server and 1, 2, 4, 8 or 16
//! prompts per pass) paired with decode options of the same weights and KV formats.
//!
//! For a decode server `d`, the cheapest prefill pool meeting the time-to-first-token
//! targets over the link to `d` is found by scanning the prefill options in order of a
//! lower bound on their cost (the servers they need over the fastest link their own chips
//! can send at; no decode side makes a transfer faster), computing each one's real count
//! over the real link (at least the bound), and stopping once the bound reaches the best
//! cost found. The first option of least cost in that order is kept, as an exhaustive
//! scan in the same order would keep it.

use super::decode::DecodeOption;
use super::report::{Candidate, Choice};
use super::space::ServerConfig;
use super::Problem;
use crate::error::Invalid;
use crate::inference::capacity::{fewest_servers_from, MAX_SERVERS};
use crate::inference::disaggregated::{prefill_passes, prefill_queue, KvLink, PrefillClass};
use crate::inference::queueing::Mg1;
use crate::inference::targets::Constraint;
use crate::units::Seconds;

/// Prompts per pass the search tries.
pub const PREFILL_BATCHES: [u64; 5] = [1, 2, 4, 8, 16];

/// One prefill server option.
#[derive(Clone, Debug, PartialEq)]
pub struct PrefillOption {
    /// Index into the server configs.
    pub config: usize,
    /// Prompts per pass.
    pub batch: u64,
    /// One pass per prompt length of the traffic (its classes, in order).
    pub passes: Vec<Seconds>,
    /// Servers needed over the fastest link (a lower bound on every pairing).
    pub bound_servers: u64,
    /// Their cost per hour.
    pub bound_usd_per_hour: f64,
}

impl PrefillOption {
    /// The queue classes over `link`.
    #[must_use]
    pub fn classes(&self, p: &Problem, c: &ServerConfig, link: &KvLink) -> Vec<PrefillClass> {
        let b = self.batch as f64;
        let layers = c.setup.model.num_layers as f64;
        self.passes
            .iter()
            .zip(&p.traffic.prompt)
            .map(|(pass, (tokens, weight))| {
                let t_kv = link.transfer(c.setup.kv_per_sequence(*tokens) * b);
                PrefillClass { weight: *weight, pass: *pass, transfer_added: link.added(*pass, t_kv, layers) }
            })
            .collect()
    }

    /// The queue of one of `n` servers.
    #[must_use]
    pub fn queue(&self, p: &Problem, classes: &[PrefillClass], n: u64) -> Option<Mg1> {
        prefill_queue(classes, self.batch as f64, p.rate, n)
    }

    /// Fewer servers cannot keep up: `⌊λ·E[S]⌋ + 1` at least.
    #[must_use]
    pub fn stable_from(&self, p: &Problem) -> u64 {
        let b = self.batch as f64;
        let work: f64 = self.passes.iter().zip(&p.traffic.prompt).map(|(s, (_, w))| w * s.get() / b).sum();
        let n = (p.rate * work).floor() + 1.0;
        if n.is_finite() && n < MAX_SERVERS as f64 {
            (n as u64).max(1)
        } else {
            MAX_SERVERS
        }
    }
}

/// Whether `n` servers meet the time-to-first-token targets (`Some(failing)` otherwise).
#[must_use]
pub fn check(p: &Problem, o: &PrefillOption, classes: &[PrefillClass], n: u64) -> Option<Constraint> {
    let t = &p.section.targets;
    match o.queue(p, classes, n) {
        Some(q) if q.is_stable() => {
            if !q.meets(None, t.ttft_p99_s) {
                Some(Constraint::TtftP99)
            } else if !q.meets(t.ttft_p50_s, None) {
                Some(Constraint::TtftP50)
            } else {
                None
            }
        }
        _ => Some(Constraint::Throughput),
    }
}

/// The fewest servers of `o` meeting the targets over `link`, from `first`.
///
/// # Errors
/// Never (kept for the shape of [`fewest_servers_from`]).
pub fn servers(
    p: &Problem,
    o: &PrefillOption,
    c: &ServerConfig,
    link: &KvLink,
    first: u64,
) -> Result<Option<u64>, Invalid> {
    let classes = o.classes(p, c, link);
    fewest_servers_from(first, |n| Ok(check(p, o, &classes, n).is_none()))
}

/// Every prefill option whose pool can meet the targets over its fastest link, in
/// the order the pairing scans them (bound cost, then config and batch).
///
/// # Errors
/// From the collective model.
pub fn prefill_options(p: &Problem, configs: &[ServerConfig]) -> Result<Vec<PrefillOption>, Invalid> {
    let s = p.section;
    let pre = &s.prefill;
    let longest = p.traffic.max_prompt();
    let mut out = Vec::new();
    for (i, c) in configs.iter().enumerate() {
        let fastest = KvLink::fastest_from(s, &c.chip, c.chips)?;
        for b in PREFILL_BATCHES {
            let bf = b as f64;
            let chunk = pre.chunk.unwrap_or(longest);
            if !c.setup.prefill_memory(bf, longest, chunk, s.working_memory, s.reserved_hbm_fraction).fits {
                break;
            }
            let passes = prefill_passes(&c.setup, s, &p.traffic, bf)?;
            let mut o = PrefillOption { config: i, batch: b, passes, bound_servers: 0, bound_usd_per_hour: 0.0 };
            let Some(n) = servers(p, &o, c, &fastest, o.stable_from(p))? else { continue };
            o.bound_servers = n;
            o.bound_usd_per_hour = n as f64 * c.chips * c.price;
            out.push(o);
        }
    }
    out.sort_by(|a, b| {
        a.bound_usd_per_hour.total_cmp(&b.bound_usd_per_hour).then(a.config.cmp(&b.config)).then(a.batch.cmp(&b.batch))
    });
    Ok(out)
}

/// The cheapest prefill pool for decode server `d` (ties: the quicker mean first token):
/// (option index, servers, cost, mean time to first token).
///
/// # Errors
/// From the collective model.
pub fn best_prefill(
    p: &Problem,
    configs: &[ServerConfig],
    prefills: &[PrefillOption],
    d: &ServerConfig,
    evaluated: &mut u64,
) -> Result<Option<(usize, u64, f64, f64)>, Invalid> {
    let mut best: Option<(usize, u64, f64, f64)> = None;
    for (k, o) in prefills.iter().enumerate() {
        // The bound only grows from here: nothing left can cost less (equal may tie).
        if best.is_some_and(|b| o.bound_usd_per_hour > b.2) {
            break;
        }
        let c = &configs[o.config];
        if c.dtypes.weights != d.dtypes.weights || c.dtypes.kv != d.dtypes.kv {
            continue;
        }
        let Ok(link) = KvLink::resolve(p.section, &c.chip, c.chips, &d.chip, d.chips) else { continue };
        *evaluated += 1;
        let Some(n) = servers(p, o, c, &link, o.bound_servers)? else { continue };
        let cost = n as f64 * c.chips * c.price;
        let classes = o.classes(p, c, &link);
        let Some(ttft) = o.queue(p, &classes, n).and_then(|q| Some(q.mean_wait()? + q.mean_own_latency())) else {
            continue;
        };
        if best.is_none_or(|b| cost < b.2 || (cost == b.2 && ttft < b.3)) {
            best = Some((k, n, cost, ttft));
        }
    }
    Ok(best)
}

/// The disaggregated candidate of decode option `d`'s batch `i` with prefill option `k`
/// at `n_p` servers.
#[must_use]
pub fn candidate(
    p: &Problem,
    configs: &[ServerConfig],
    prefills: &[PrefillOption],
    d: &DecodeOption,
    i: usize,
    k: usize,
    n_p: u64,
) -> Option<Candidate> {
    let o = &prefills[k];
    let (c_p, c_d) = (&configs[o.config], &configs[d.config]);
    let link = KvLink::resolve(p.section, &c_p.chip, c_p.chips, &c_d.chip, c_d.chips).ok()?;
    let classes = o.classes(p, c_p, &link);
    let q = o.queue(p, &classes, n_p)?;
    let ttft_mean = q.mean_wait()? + q.mean_own_latency();
    let (n_d, cost_d) = d.cost(i, p, c_d);
    let (batch, step) = d.batches[i];
    let binds = if n_p == 1 {
        Constraint::Throughput
    } else {
        check(p, o, &classes, n_p - 1).unwrap_or(Constraint::Throughput)
    };
    Some(Candidate {
        choice: Choice::Disaggregated {
            decode: d.config,
            batch,
            decode_servers: n_d,
            prefill: o.config,
            prefill_batch: o.batch,
            prefill_servers: n_p,
        },
        usd_per_hour: cost_d + n_p as f64 * c_p.chips * c_p.price,
        ttft_mean_s: ttft_mean,
        tpot_s: step.get(),
        latency_s: ttft_mean + p.traffic.mean_output() * step.get(),
        binds,
        decode_binds: Some(d.binds(i, p)),
    })
}

/// Every disaggregated candidate: each decode option's batches that meet `tpot_s`, with
/// its cheapest prefill pool; and how many pairings were evaluated.
///
/// # Errors
/// From the collective model.
pub fn pair(
    p: &Problem,
    configs: &[ServerConfig],
    decodes: &[DecodeOption],
    prefills: &[PrefillOption],
) -> Result<(Vec<Candidate>, u64), Invalid> {
    let mut evaluated = prefills.len() as u64;
    let mut out = Vec::new();
    for d in decodes {
        if !(0..d.batches.len()).any(|i| d.meets(i, p)) {
            continue;
        }
        let Some((k, n_p, _, _)) = best_prefill(p, configs, prefills, &configs[d.config], &mut evaluated)? else {
            continue;
        };
        for i in (0..d.batches.len()).filter(|i| d.meets(*i, p)) {
            out.extend(candidate(p, configs, prefills, d, i, k, n_p));
        }
    }
    Ok((out, evaluated))
}
