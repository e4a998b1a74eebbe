//! Co-located servers of the search: continuous batching with chunked prefill
//! ([`crate::inference::continuous`]) at λ/n requests per second each, the fewest n that
//! meets the targets.

use super::report::{Candidate, Choice};
use super::space::ServerConfig;
use super::Problem;
use crate::error::Invalid;
use crate::inference::capacity::fewest_servers_from;
use crate::inference::continuous::{Colocated, Limit};
use crate::inference::memory::largest_fitting;
use crate::inference::plan::MAX_PLANNED_BATCH;
use crate::inference::targets::Constraint;
use crate::units::Bytes;

/// The server as a co-located server of the problem.
#[must_use]
pub fn server<'a>(p: &'a Problem, c: &'a ServerConfig) -> Colocated<'a> {
    let s = p.section;
    Colocated {
        setup: &c.setup,
        traffic: &p.traffic,
        budget: s.token_budget(),
        context: p.context,
        mfu: s.prefill.mfu.unwrap_or(1.0),
        attention: s.prefill.attention,
        step_overhead_s: 0.0,
    }
}

/// The largest concurrency whose caches and a whole step's working memory fit.
#[must_use]
pub fn max_concurrency(p: &Problem, c: &ServerConfig) -> u64 {
    let s = p.section;
    let budget = s.token_budget() as f64;
    largest_fitting(MAX_PLANNED_BATCH, |b| {
        b == 0
            || c.setup
                .memory(
                    b as f64,
                    p.context,
                    b as f64,
                    budget,
                    s.working_memory,
                    s.reserved_hbm_fraction,
                    (Bytes::ZERO, Bytes::ZERO),
                )
                .fits
    })
}

/// Whether `n` servers meet every target (time per output token, then time to first
/// token); `Err(limit)` when they cannot serve the rate at all.
///
/// # Errors
/// From the collective model.
pub fn check(p: &Problem, cb: &Colocated, max_c: f64, n: u64) -> Result<Result<Option<Constraint>, Limit>, Invalid> {
    let t = &p.section.targets;
    Ok(match cb.queue_at_rate(p.rate / n as f64, max_c)? {
        Err(l) => Err(l),
        Ok((steps, q)) => Ok(if t.tpot_s.is_some_and(|x| steps.tpot.get() > x * (1.0 + 1e-9)) {
            Some(Constraint::Tpot)
        } else if !q.meets(None, t.ttft_p99_s) {
            Some(Constraint::TtftP99)
        } else if !q.meets(t.ttft_p50_s, None) {
            Some(Constraint::TtftP50)
        } else {
            None
        }),
    })
}

/// The cheapest co-located deployment on config `i`, if any meets the targets.
///
/// # Errors
/// From the collective model.
pub fn best(p: &Problem, i: usize, c: &ServerConfig) -> Result<Option<Candidate>, Invalid> {
    let cb = server(p, c);
    let max_c = max_concurrency(p, c) as f64;
    let Ok((_, cap)) = cb.capacity(max_c)? else { return Ok(None) };
    // Fewer servers than λ / (one server's most) cannot keep up.
    let first = (p.rate / cap).ceil();
    if !first.is_finite() || first > crate::inference::capacity::MAX_SERVERS as f64 {
        return Ok(None);
    }
    let first = (first as u64).max(1);
    let Some(n) = fewest_servers_from(first, |n| Ok(matches!(check(p, &cb, max_c, n)?, Ok(None))))? else {
        return Ok(None);
    };
    candidate(p, i, c, n)
}

/// The co-located candidate with `n` servers of config `i` (`None` if it cannot serve).
///
/// # Errors
/// From the collective model.
pub fn candidate(p: &Problem, i: usize, c: &ServerConfig, n: u64) -> Result<Option<Candidate>, Invalid> {
    let cb = server(p, c);
    let max_c = max_concurrency(p, c) as f64;
    let Ok((steps, q)) = cb.queue_at_rate(p.rate / n as f64, max_c)? else { return Ok(None) };
    let Some(wait) = q.mean_wait() else { return Ok(None) };
    let binds = if n == 1 {
        Constraint::Throughput
    } else {
        match check(p, &cb, max_c, n - 1)? {
            Err(Limit::Memory) => Constraint::Memory,
            Err(_) => Constraint::Throughput,
            Ok(failing) => failing.unwrap_or(Constraint::Throughput),
        }
    };
    let ttft_mean = wait + q.mean_own_latency();
    let tpot = steps.tpot.get();
    Ok(Some(Candidate {
        choice: Choice::Colocated { config: i, servers: n, concurrency: steps.concurrency },
        usd_per_hour: n as f64 * c.chips * c.price,
        ttft_mean_s: ttft_mean,
        tpot_s: tpot,
        latency_s: ttft_mean + p.traffic.mean_output() * tpot,
        binds,
        decode_binds: None,
    }))
}
