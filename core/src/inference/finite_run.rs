//! A finite open-loop benchmark on a continuous-batching server: `N` requests arriving at
//! λ per second (for `N/λ` seconds), as serving benchmarks run them (TensorRT-LLM's
//! online table: 500 requests at each QPS). When λ is below what the server sustains,
//! the run settles in the steady state of [`super::continuous`] within one request's
//! latency and that steady state is the prediction. When λ is above it — no
//! concurrency satisfies Little's law `C = λ·E[G]·τ̄(C)` — there is no steady state:
//! the batch grows for as long as requests arrive, every step slows down, and what a
//! benchmark measures depends on how many requests it sends. This module follows that
//! growth in time (a fluid model of the run):
//!
//! - requests arrive as a steady stream, `λ·dt` per interval `dt`, for `N/λ` seconds, and
//!   wait first come first served for a slot while `max_concurrency` sequences are in
//!   flight (the engine's cap or what fits in HBM);
//! - every sequence in flight advances one token per step, a step taking the mean
//!   `τ̄(C)` at the current concurrency `C` (prefill chunks included), and leaves after
//!   its `G` tokens (each output length of the traffic, by its share);
//! - a request's time to first token is its wait for a slot plus the server's time to
//!   first token at the concurrency it meets ([`super::continuous::Colocated::queue`] at
//!   the arrival rate: the prefill queue and the request's own chunks); its time per
//!   output token is its time in the batch over its `G` tokens;
//! - the run ends when the last sequence leaves: `N` over that duration is the completed
//!   rate the benchmark reports, below λ by the drain after the last arrival.
//!
//! Means are over requests. The stream is deterministic (Poisson fluctuations only add
//! to the prefill queue, which the per-point time to first token already counts).

use super::continuous::Colocated;
use super::queueing::Mg1;
use crate::error::Invalid;

/// The server at one concurrency, as the run needs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadPoint {
    /// τ̄: the mean step, seconds.
    pub tpot_s: f64,
    /// Mean time to first token of a request admitted at this concurrency, seconds.
    pub ttft_mean_s: f64,
    /// Its median, seconds.
    pub ttft_p50_s: f64,
}

/// What a finite run measures, in the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FiniteRun {
    /// Mean time to first token over the requests, seconds.
    pub ttft_mean_s: f64,
    /// The median over the requests of their median time to first token, seconds.
    pub ttft_p50_s: f64,
    /// Mean over the requests of their time per output token, seconds.
    pub tpot_s: f64,
    /// From the first arrival to the last sequence leaving, seconds.
    pub duration_s: f64,
    /// Requests completed per second over the run, `N / duration`.
    pub completed_per_s: f64,
    /// The most sequences in flight at once.
    pub peak_concurrency: f64,
}

impl Colocated<'_> {
    /// The server with `c` sequences in flight while prompts arrive at `rate` per
    /// second — not the rate `c` sustains, as in a run that has not settled. The mixed
    /// steps are as many as the arrivals need: `f = λ·E[P]·τ̄ / c_room` prompt tokens per
    /// step over the room, so `τ̄ = f·τ_m + (1 − f)·τ_d` gives
    /// `τ̄ = τ_d / (1 − λ·E[P]·(τ_m − τ_d)/c_room)` (in steady state, λ = C/(E\[G\]·τ̄) and this
    /// is [`Colocated::queue`]'s). `None` when the budget cannot take the prompts (f ≥ 1)
    /// or the prefill queue is unstable.
    ///
    /// # Errors
    /// From the collective model.
    pub fn unsettled(&self, c: f64, rate: f64) -> Result<Option<LoadPoint>, Invalid> {
        let room = self.budget as f64 - c;
        if room < 1.0 {
            return Ok(None);
        }
        let (mixed, decode) = self.steps(c)?;
        let tpot = decode.get() / (1.0 - rate * self.traffic.mean_prompt() * (mixed - decode).get() / room);
        let f = rate * self.traffic.mean_prompt() * tpot / room;
        if !(tpot.is_finite() && tpot > 0.0 && f < 1.0) {
            return Ok(None);
        }
        let classes = self.prefill_classes(c, mixed, decode.get() / 2.0)?;
        let Some(ttft) = Mg1::new(rate, &classes).filter(Mg1::is_stable).and_then(|q| q.ttft()) else {
            return Ok(None);
        };
        Ok(Some(LoadPoint { tpot_s: tpot, ttft_mean_s: ttft.mean_s, ttft_p50_s: ttft.p50_s }))
    }

    /// A benchmark of `requests` Poisson arrivals at `rate` on this server, at most
    /// `max_concurrency` in flight ([`finite_open_loop`] with [`Self::unsettled`]).
    ///
    /// # Errors
    /// From the collective model.
    pub fn finite_run(&self, rate: f64, requests: f64, max_concurrency: f64) -> Result<Option<FiniteRun>, Invalid> {
        finite_open_loop(rate, requests, &self.traffic.output, max_concurrency, |c| self.unsettled(c, rate))
    }
}

/// Intervals the arrival window is cut into.
const STEPS: f64 = 2000.0;
/// The run is abandoned (`None`) past this many intervals: a server that never drains.
const MAX_STEPS: usize = 200_000;

/// One batch of requests that arrived in the same interval.
#[derive(Clone, Copy, Debug)]
struct Cohort {
    /// Requests.
    size: f64,
    /// Output tokens each.
    tokens: f64,
    /// Arrival time.
    arrived: f64,
    /// Admission time.
    admitted: f64,
    /// Tokens generated so far.
    done: f64,
}

/// The run of `requests` arriving at `rate` per second, `outputs` the output lengths
/// with their shares, at most `max_concurrency` in flight, `at(C)` the server at
/// concurrency `C` (`None` where it has no prefill steady state at this rate: the run is
/// not predicted). `None` as well for inputs that are not positive and finite, or a run
/// that does not drain.
///
/// # Errors
/// Whatever `at` returns.
pub fn finite_open_loop<E>(
    rate: f64,
    requests: f64,
    outputs: &[(u64, f64)],
    max_concurrency: f64,
    mut at: impl FnMut(f64) -> Result<Option<LoadPoint>, E>,
) -> Result<Option<FiniteRun>, E> {
    let ok = |x: f64| x.is_finite() && x > 0.0;
    if !(ok(rate) && ok(requests) && ok(max_concurrency)) || outputs.is_empty() {
        return Ok(None);
    }
    let window = requests / rate;
    let dt = window / STEPS;
    // Less than this of a cohort is rounding, not requests.
    let crumb = 1e-9 * rate * dt;
    // The server at whole concurrencies, evaluated once each.
    let mut cache: std::collections::HashMap<u64, Option<LoadPoint>> = std::collections::HashMap::new();
    let mut point = |c: f64| -> Result<Option<LoadPoint>, E> {
        let key = c.round().max(1.0) as u64;
        if let Some(p) = cache.get(&key) {
            return Ok(*p);
        }
        let p = at(key as f64)?;
        cache.insert(key, p);
        Ok(p)
    };
    let (mut waiting, mut running): (Vec<Cohort>, Vec<Cohort>) = (Vec::new(), Vec::new());
    let (mut ttft_sum, mut tpot_sum, mut left) = (0.0, 0.0, 0.0);
    let mut ttft_p50s: Vec<(f64, f64)> = Vec::new();
    let mut peak: f64 = 0.0;
    let mut t = 0.0;
    for i in 0..MAX_STEPS {
        if (i as f64) < STEPS {
            for (tokens, share) in outputs {
                let size = rate * dt * share;
                waiting.push(Cohort { size, tokens: *tokens as f64, arrived: t, admitted: t, done: 0.0 });
            }
        }
        // Admit first come first served while there are free slots.
        let mut c: f64 = running.iter().map(|k| k.size).sum();
        let mut admitted = 0;
        for k in &mut waiting {
            let free = max_concurrency - c;
            if free <= crumb {
                break;
            }
            if k.size > free + crumb {
                // Split: the part that fits is admitted now, the rest keeps its place.
                let mut part = *k;
                part.size = free;
                part.admitted = t;
                k.size -= free;
                c += free;
                running.push(part);
                break;
            }
            k.admitted = t;
            c += k.size;
            running.push(*k);
            admitted += 1;
        }
        waiting.drain(..admitted);
        if running.is_empty() && waiting.is_empty() && i as f64 >= STEPS {
            let duration = t;
            let p50 = weighted_median(&mut ttft_p50s);
            return Ok(Some(FiniteRun {
                ttft_mean_s: ttft_sum / left,
                ttft_p50_s: p50,
                tpot_s: tpot_sum / left,
                duration_s: duration,
                completed_per_s: left / duration,
                peak_concurrency: peak,
            }));
        }
        peak = peak.max(c);
        let Some(p) = point(c)? else { return Ok(None) };
        if !ok(p.tpot_s) {
            return Ok(None);
        }
        // Cohorts admitted this interval meet this concurrency's time to first token.
        for k in running.iter().filter(|k| k.admitted == t && k.done == 0.0) {
            let wait = k.admitted - k.arrived;
            ttft_sum += k.size * (wait + p.ttft_mean_s);
            ttft_p50s.push((wait + p.ttft_p50_s, k.size));
        }
        // Every sequence in flight advances dt/τ̄ tokens; those done leave.
        let advance = dt / p.tpot_s;
        t += dt;
        running.retain_mut(|k| {
            k.done += advance;
            if k.done >= k.tokens {
                // It left part-way through the interval: its time in the batch.
                let over = (k.done - k.tokens) / advance * dt;
                tpot_sum += k.size * (t - over - k.admitted) / k.tokens;
                left += k.size;
                false
            } else {
                true
            }
        });
    }
    Ok(None)
}

/// The median of `(value, weight)` pairs (sorts them).
fn weighted_median(v: &mut [(f64, f64)]) -> f64 {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|x| x.1).sum();
    let mut acc = 0.0;
    for (value, w) in v.iter() {
        acc += w;
        if acc >= total / 2.0 {
            return *value;
        }
    }
    v.last().map_or(0.0, |x| x.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constant(tpot: f64, ttft: f64) -> impl FnMut(f64) -> Result<Option<LoadPoint>, ()> {
        move |_| Ok(Some(LoadPoint { tpot_s: tpot, ttft_mean_s: ttft, ttft_p50_s: ttft }))
    }

    /// By hand, a server whose step does not depend on the load: τ̄ = 10 ms, G = 100
    /// tokens, so every request stays 1 s; 50 requests at 10/s arrive over 5 s. Little's
    /// law: 10 in flight once the first have left (from t = 1 s); the last leaves at
    /// 5 + 1 = 6 s, so the benchmark reports 50/6 = 8.33 completed requests per second
    /// although the server keeps up with the 10 offered; each request's time per output
    /// token is exactly 10 ms and its time to first token the server's.
    #[test]
    fn unloaded_run_by_hand() {
        let run = finite_open_loop(10.0, 50.0, &[(100, 1.0)], 1e9, constant(0.01, 0.05)).unwrap().unwrap();
        assert!((run.duration_s - 6.0).abs() < 0.01, "{}", run.duration_s);
        assert!((run.completed_per_s - 50.0 / 6.0).abs() < 0.02, "{}", run.completed_per_s);
        assert!((run.peak_concurrency - 10.0).abs() < 0.02, "{}", run.peak_concurrency);
        assert!((run.tpot_s - 0.01).abs() < 1e-4, "{}", run.tpot_s);
        assert!((run.ttft_mean_s - 0.05).abs() < 1e-9 && (run.ttft_p50_s - 0.05).abs() < 1e-9);
    }

    /// By hand, waiting for a slot: at most 5 in flight, each staying 1 s, while 10
    /// requests arrive per second for 5 s. The first 5 (arriving by 0.5 s) are admitted
    /// at once and leave during [1, 1.5] s, at the 10 per second they came in; their
    /// slots go to the next 5, who leave during [2, 2.5] s, and so on: the n-th request
    /// (arriving at n/10 s) is admitted in the ⌊n/5⌋-th window and waits ⌊n/5⌋/2 s. The
    /// mean wait over the ten blocks of five is (0 + 0.5 + … + 4.5)/10 = 2.25 s, and the
    /// median falls between the blocks waiting 2 s and 2.5 s. The last is admitted at
    /// 9.5 s and leaves at 10.5 s: 50/10.5 = 4.76 completed per second, below the
    /// server's capacity of 5 by the ramp.
    #[test]
    fn overloaded_run_waits_for_slots() {
        let run = finite_open_loop(10.0, 50.0, &[(100, 1.0)], 5.0, constant(0.01, 0.0)).unwrap().unwrap();
        assert!((run.duration_s - 10.5).abs() < 0.02, "{}", run.duration_s);
        assert!((run.completed_per_s - 50.0 / 10.5).abs() < 0.01, "{}", run.completed_per_s);
        assert!((run.ttft_mean_s - 2.25).abs() < 0.01, "{}", run.ttft_mean_s);
        assert!((run.peak_concurrency - 5.0).abs() < 1e-9);
        assert!((2.0 - 0.01..=2.5 + 0.01).contains(&run.ttft_p50_s), "{}", run.ttft_p50_s);
    }

    /// A server that slows as it fills (τ̄ = 10 ms + 0.1 ms per sequence in flight, G =
    /// 100): its largest rate `C/(G·τ̄(C))` tends to 1/(G·0.1 ms) = 100 requests/s, so
    /// 60/s has a steady state, C = 60·100·(0.01 + 1e-4·C): C = 60/0.4 = 150 (Little's law
    /// by hand); a long run (6,000 requests) spends most of its time there: τ̄ → 25 ms.
    #[test]
    fn long_run_reaches_littles_law() {
        let at = |c: f64| -> Result<Option<LoadPoint>, ()> {
            Ok(Some(LoadPoint { tpot_s: 0.01 + 1e-4 * c, ttft_mean_s: 0.0, ttft_p50_s: 0.0 }))
        };
        let run = finite_open_loop(60.0, 6000.0, &[(100, 1.0)], 1e9, at).unwrap().unwrap();
        assert!((run.peak_concurrency - 150.0).abs() < 2.0, "{}", run.peak_concurrency);
        assert!((run.tpot_s - 0.025).abs() < 0.001, "{}", run.tpot_s);
    }

    /// At the rate a concurrency sustains (Little's law: λ = C/(E[G]·τ̄)), the unsettled
    /// server is the settled one: the same mean step and time to first token; a higher
    /// rate brings more prompts and so longer steps (LLaMA 3-70B on a v5e 4x4, 2,048-token
    /// prompts, 256-token outputs, budget 2,048, 32 sequences).
    #[test]
    fn unsettled_server_at_the_settled_rate_is_the_settled_one() {
        use crate::inference::continuous::tests::{plan_70b, server};
        use crate::inference::{options::InferenceSection, traffic::Traffic};
        let section = InferenceSection::new(2048, 256);
        let plan = plan_70b(&section);
        let traffic = Traffic::fixed(2048, 256);
        let cb = server(&plan, &traffic, 0.002);
        let settled = cb.at_rate(0.5, 1e6).unwrap().unwrap();
        let c = settled.concurrency;
        let rate = c / (256.0 * settled.tpot_s.get());
        let at = cb.at_concurrency(c).unwrap().unwrap();
        let same = cb.unsettled(c, rate).unwrap().unwrap();
        assert!((same.tpot_s / at.tpot_s.get() - 1.0).abs() < 1e-9, "{} vs {}", same.tpot_s, at.tpot_s.get());
        let busier = cb.unsettled(c, 2.0 * rate).unwrap().unwrap();
        assert!(busier.tpot_s > same.tpot_s && busier.ttft_mean_s > same.ttft_mean_s);
        // Every step pays the overhead: the decode step is 2 ms longer than without it.
        let bare = Colocated { step_overhead_s: 0.0, ..cb.clone() };
        let (_, d) = cb.steps(c).unwrap();
        let (_, d0) = bare.steps(c).unwrap();
        assert!(((d - d0).get() - 0.002).abs() < 1e-12);
    }

    #[test]
    fn refuses_what_it_cannot_run() {
        assert_eq!(finite_open_loop(f64::NAN, 50.0, &[(100, 1.0)], 1.0, constant(0.01, 0.0)), Ok(None));
        assert_eq!(finite_open_loop(1.0, 50.0, &[], 1.0, constant(0.01, 0.0)), Ok(None));
        assert_eq!(finite_open_loop(1.0, 50.0, &[(100, 1.0)], 1.0, |_| Ok::<_, ()>(None)), Ok(None));
        assert_eq!(finite_open_loop(1.0, 50.0, &[(100, 1.0)], 1.0, constant(f64::INFINITY, 0.0)), Ok(None));
    }
}
