//! Continuous batching with chunked prefill on one server (book 7.4.1; Sarathi-Serve,
//! OSDI 2024; vLLM's `max_num_batched_tokens`, SGLang's `chunked_prefill_size`,
//! TensorRT-LLM's `max_num_tokens`): prefill and decode share the chips, each step runs
//! every in-flight sequence's next token and, while prompts wait, a prefill chunk that
//! fills the step's token budget.
//!
//! The model, with `C` sequences decoding at once (the concurrency), a token budget `b`
//! per step, and the traffic's mean prompt `E[P]` and output `E[G]`:
//! - a **mixed step** carries `C` decode tokens and a chunk of `c = b − C` prompt tokens
//!   (`ServingSetup::mixed_step`), taking `τ_m`; a **decode step** only the `C` tokens, `τ_d`.
//!   The running sequences' tokens come first and prompts get what is left of the budget,
//!   as vLLM's scheduler does (its docs, "Chunked prefill": decode requests are batched
//!   before any prefill) and TensorRT-LLM's (`max_num_tokens` counts generation tokens
//!   too: its "Tuning Max Batch Size and Max Num Tokens" guide). Every step also costs
//!   `step_overhead_s` (scheduling, sampling, host work; 0 on the roofline);
//! - in steady state `C/E[G]` sequences finish per step and as many prompts must be
//!   prefilled (book 8.1.2: `B/G` per step), so a fraction `f = C·E[P] / (E[G]·c)` of the
//!   steps are mixed (`f ≥ 1`: the budget cannot admit prompts as fast as sequences end);
//! - **time per output token** is the mean step, `τ̄ = f·τ_m + (1 − f)·τ_d` (a request
//!   decodes through both kinds); the longest gap between two tokens is `τ_m`;
//! - **throughput** `C/τ̄` tokens and `C / (E[G]·τ̄)` requests per second;
//! - **time to first token** is the queue of [`super::queueing`]: the prefill lane is the
//!   M/G/1 server, a prompt of `P_i` tokens brings `P_i·τ_m/c` seconds of work (its share
//!   of the mixed steps; its utilisation is `f·τ_m/τ̄`). Once served, its own latency is
//!   the wait for the step in progress to end (the scheduler admits requests between
//!   steps), then its [`chunks`]: `⌈P_i/c⌉ − 1` full chunks of `τ_m` each and a last
//!   step carrying the remaining `k` tokens, `τ(k)` (`ServingSetup::mixed_step` with that
//!   chunk: a 467-token prompt under an 8,192-token budget rides one step of 467 prompt
//!   tokens, not a full chunk's). The wait for the step in progress is `τ_d/2` for
//!   Poisson arrivals (they land uniformly within a step: PASTA, Wolff 1982) and `τ_d` in
//!   a closed loop (a client sends its next request as its previous one's last token
//!   leaves, just after the next step has begun).
//! - At a request rate λ per server the concurrency is Little's law's fixed point,
//!   `C = λ·E[G]·τ̄(C)`, found by bisection below the largest concurrency that fits.

use super::plan::Plan;
use super::queueing::{Mg1, RequestClass, Ttft};
use super::setup::ServingSetup;
use super::traffic::Traffic;
use crate::error::Invalid;
use crate::flops::AttentionCounting;
use crate::units::Seconds;
use serde::{Deserialize, Serialize};

/// Why a load cannot be served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// The concurrency leaves no room in the step's token budget for prompt tokens.
    NoPrefillRoom,
    /// Prompts cannot be prefilled as fast as sequences finish (`f ≥ 1`).
    PrefillBound,
    /// The concurrency the rate needs does not fit in HBM.
    Memory,
}

/// One operating point of a co-located server.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ColocatedPoint {
    /// C: sequences decoding at once.
    pub concurrency: f64,
    /// `c = b − C`: prompt tokens in a mixed step.
    pub prefill_tokens_per_step: f64,
    /// τ_m.
    pub mixed_step_s: Seconds,
    /// τ_d.
    pub decode_step_s: Seconds,
    /// f: the share of steps that carry a prefill chunk.
    pub mixed_step_fraction: f64,
    /// τ̄, the mean time per output token.
    pub tpot_s: Seconds,
    /// Output tokens per second of the server.
    pub output_tokens_per_s: f64,
    /// Requests finished per second of the server.
    pub requests_per_s: f64,
    /// Time to first token at that rate.
    pub ttft: Ttft,
}

/// One server of the deployment: a replica doing both prefill and decode.
#[derive(Clone, Debug)]
pub struct Colocated<'a> {
    /// The replica.
    pub setup: &'a ServingSetup,
    /// Prompt and output lengths.
    pub traffic: &'a Traffic,
    /// b: tokens per step.
    pub budget: u64,
    /// The context decoding sequences read.
    pub context: u64,
    /// Prefill utilisation (1 = roofline).
    pub mfu: f64,
    /// Attention FLOP counting of the chunks.
    pub attention: AttentionCounting,
    /// Seconds every step costs beyond its FLOPs and bytes (the serving calibration's
    /// per-pass overhead, `efficiency::serving`; 0 on the roofline).
    pub step_overhead_s: f64,
}

/// A prompt of `tokens` split into chunks of at most `room` tokens: how many full chunks
/// precede the last one, and the last one's tokens (`⌈P/c⌉ − 1` and
/// `P − (⌈P/c⌉ − 1)·c`; a prompt of at most `room` tokens is one last chunk).
#[must_use]
pub fn chunks(tokens: f64, room: f64) -> (f64, f64) {
    let n = (tokens / room).ceil().max(1.0);
    (n - 1.0, tokens - (n - 1.0) * room)
}

impl<'a> Colocated<'a> {
    /// `plan`'s decode replica as a co-located server under its section: the section's
    /// token budget, the context its decoding sequences read of `traffic` (the section's),
    /// its prefill utilisation (1, the roofline, when it sets none), and `step_overhead_s`
    /// a step. The planner's report and the serving validation run the same server.
    #[must_use]
    pub fn of_plan(plan: &'a Plan<'_>, traffic: &'a Traffic, step_overhead_s: f64) -> Self {
        let s = plan.section;
        Colocated {
            setup: &plan.decode,
            traffic,
            budget: s.token_budget(),
            context: traffic.decode_context(s.kv_context),
            mfu: s.prefill.mfu.unwrap_or(1.0),
            attention: s.prefill.attention,
            step_overhead_s,
        }
    }
}

impl Colocated<'_> {
    /// τ_m and τ_d at concurrency `c` (τ_m with the chunk `b − c`, at least one token).
    ///
    /// # Errors
    /// From the collective model.
    pub fn steps(&self, c: f64) -> Result<(Seconds, Seconds), Invalid> {
        let chunk = (self.budget as f64 - c).max(1.0);
        let prompt = self.traffic.mean_prompt();
        // The chunk's prompt so far, averaged over a prompt's chunks: (P − c)/2.
        let prior = ((prompt - chunk) / 2.0).max(0.0).round() as u64;
        let mixed = self.setup.mixed_step(c, self.context, chunk, prior, self.mfu, self.attention)?;
        let decode = self.setup.decode(c, self.context, 1.0)?;
        let tau = Seconds(self.step_overhead_s);
        Ok((mixed.time.step_time_s + tau, decode.time.step_time_s + tau))
    }

    /// The own latency of a prompt of `tokens` at concurrency `c` (module docs): the wait
    /// `boundary` for the step in progress, `⌈P/c⌉ − 1` full mixed steps `mixed`, and the
    /// step carrying the last chunk.
    ///
    /// # Errors
    /// From the collective model.
    pub fn own_latency(&self, c: f64, tokens: f64, mixed: Seconds, boundary: f64) -> Result<f64, Invalid> {
        let room = self.budget as f64 - c;
        let (full, last) = chunks(tokens, room);
        let last_step = if last >= room {
            mixed.get()
        } else {
            let prior = (tokens - last).max(0.0).round() as u64;
            self.setup.mixed_step(c, self.context, last, prior, self.mfu, self.attention)?.time.step_time_s.get()
                + self.step_overhead_s
        };
        Ok(boundary + full * mixed.get() + last_step)
    }

    /// The operating point with `c` sequences in flight, each replaced by a new request
    /// as it ends (a closed loop, as benchmarks with a fixed concurrency run), its time
    /// to first token at the rate that implies.
    ///
    /// # Errors
    /// From the collective model.
    pub fn at_concurrency(&self, c: f64) -> Result<Result<ColocatedPoint, Limit>, Invalid> {
        self.point(c, None)
    }

    /// The steps and the prefill queue at concurrency `c` serving `rate` requests per
    /// second from Poisson arrivals (`None`: a closed loop of `c` clients, at the rate the
    /// concurrency sustains, `C / (E[G]·τ̄)`).
    ///
    /// # Errors
    /// From the collective model.
    pub fn queue(&self, c: f64, rate: Option<f64>) -> Result<Result<(ColocatedSteps, Mg1), Limit>, Invalid> {
        let room = self.budget as f64 - c;
        if room < 1.0 {
            return Ok(Err(Limit::NoPrefillRoom));
        }
        let (g, p) = (self.traffic.mean_output(), self.traffic.mean_prompt());
        let f = c * p / (g * room);
        if f.is_nan() || f >= 1.0 {
            return Ok(Err(Limit::PrefillBound));
        }
        let (mixed, decode) = self.steps(c)?;
        let tpot = mixed * f + decode * (1.0 - f);
        // The wait for the step in progress: half a decode step for Poisson arrivals, a
        // whole one in a closed loop.
        let boundary = if rate.is_some() { decode.get() / 2.0 } else { decode.get() };
        let rate = rate.unwrap_or(c / (g * tpot.get()));
        let classes = self.prefill_classes(c, mixed, boundary)?;
        let Some(q) = Mg1::new(rate, &classes).filter(Mg1::is_stable) else { return Ok(Err(Limit::PrefillBound)) };
        Ok(Ok((ColocatedSteps { concurrency: c, room, mixed, decode, fraction: f, tpot, rate }, q)))
    }

    /// The prompt lengths as the prefill lane's request classes at concurrency `c`: work
    /// `P_i·τ_m/c`, own latency [`Self::own_latency`] after `boundary`.
    ///
    /// # Errors
    /// From the collective model.
    pub fn prefill_classes(&self, c: f64, mixed: Seconds, boundary: f64) -> Result<Vec<RequestClass>, Invalid> {
        let room = self.budget as f64 - c;
        let mut classes = Vec::with_capacity(self.traffic.prompt.len());
        for (tokens, w) in &self.traffic.prompt {
            let t = *tokens as f64;
            let own_latency = self.own_latency(c, t, mixed, boundary)?;
            classes.push(RequestClass { weight: *w, work: t * mixed.get() / room, own_latency });
        }
        Ok(classes)
    }

    /// The point at concurrency `c`, serving `rate` requests per second (`None`: the
    /// rate the concurrency sustains).
    fn point(&self, c: f64, rate: Option<f64>) -> Result<Result<ColocatedPoint, Limit>, Invalid> {
        let (steps, q) = match self.queue(c, rate)? {
            Ok(x) => x,
            Err(l) => return Ok(Err(l)),
        };
        let Some(ttft) = q.ttft() else { return Ok(Err(Limit::PrefillBound)) };
        Ok(Ok(ColocatedPoint {
            concurrency: c,
            prefill_tokens_per_step: steps.room,
            mixed_step_s: steps.mixed,
            decode_step_s: steps.decode,
            mixed_step_fraction: steps.fraction,
            tpot_s: steps.tpot,
            output_tokens_per_s: steps.rate * self.traffic.mean_output(),
            requests_per_s: steps.rate,
            ttft,
        }))
    }

    /// The most concurrency that fits (`max_concurrency`) and leaves prompts room in the
    /// budget, and the largest rate a server sustains there, `C / (E[G]·τ̄(C))`: more
    /// requests per second need more servers.
    ///
    /// # Errors
    /// From the collective model.
    pub fn capacity(&self, max_concurrency: f64) -> Result<Result<(f64, f64), Limit>, Invalid> {
        let (g, p) = (self.traffic.mean_output(), self.traffic.mean_prompt());
        // f < 1 needs C·E[P] < E[G]·(b − C): C below b·E[G] / (E[G] + E[P]).
        let prefill_limit = self.budget as f64 * g / (g + p);
        let top = max_concurrency.min((prefill_limit * (1.0 - 1e-9)).ceil() - 1.0).min(self.budget as f64 - 1.0);
        if top.is_nan() || top < 1.0 {
            return Ok(Err(if max_concurrency < prefill_limit { Limit::Memory } else { Limit::NoPrefillRoom }));
        }
        let top = top.floor();
        let room = self.budget as f64 - top;
        let f = top * p / (g * room);
        let (m, d) = self.steps(top)?;
        Ok(Ok((top, top / (g * (m * f + d * (1.0 - f)).get()))))
    }

    /// The concurrency at `rate` requests per second: the smallest whole C with
    /// `λ·E[G]·τ̄(C) ≤ C` (Little's law; the batch holds whole sequences, and the step time
    /// jumps where a cache shard takes one more), at most `max_concurrency`.
    ///
    /// # Errors
    /// From the collective model.
    pub fn concurrency_at(&self, rate: f64, max_concurrency: f64) -> Result<Result<f64, Limit>, Invalid> {
        let (g, p) = (self.traffic.mean_output(), self.traffic.mean_prompt());
        let prefill_limit = self.budget as f64 * g / (g + p);
        let lacking = || if max_concurrency < prefill_limit { Limit::Memory } else { Limit::PrefillBound };
        if !rate.is_finite() || rate <= 0.0 {
            return Ok(Err(Limit::PrefillBound));
        }
        let (top, top_rate) = match self.capacity(max_concurrency)? {
            Ok(x) => x,
            Err(_) => return Ok(Err(lacking())),
        };
        if rate > top_rate {
            return Ok(Err(lacking()));
        }
        let enough = |c: f64| -> Result<bool, Invalid> {
            let room = self.budget as f64 - c;
            let f = c * p / (g * room);
            let (m, d) = self.steps(c)?;
            Ok(rate * g * (m * f + d * (1.0 - f)).get() <= c)
        };
        // Smallest whole C in [1, top] that is enough (false below it, true from it on).
        let (mut lo, mut hi) = (0.0_f64, top);
        while hi - lo > 1.0 {
            let mid = ((lo + hi) / 2.0).floor();
            if enough(mid)? {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Ok(Ok(hi))
    }

    /// The operating point at `rate` requests per second ([`Self::concurrency_at`]).
    ///
    /// # Errors
    /// From the collective model.
    pub fn at_rate(&self, rate: f64, max_concurrency: f64) -> Result<Result<ColocatedPoint, Limit>, Invalid> {
        match self.concurrency_at(rate, max_concurrency)? {
            Ok(c) => self.point(c, Some(rate)),
            Err(l) => Ok(Err(l)),
        }
    }

    /// The operating point at `rate` as its steps and queue (for callers that need only
    /// part of the time to first token).
    ///
    /// # Errors
    /// From the collective model.
    pub fn queue_at_rate(
        &self,
        rate: f64,
        max_concurrency: f64,
    ) -> Result<Result<(ColocatedSteps, Mg1), Limit>, Invalid> {
        match self.concurrency_at(rate, max_concurrency)? {
            Ok(c) => self.queue(c, Some(rate)),
            Err(l) => Ok(Err(l)),
        }
    }
}

/// A co-located server's steps at one concurrency and rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColocatedSteps {
    /// C.
    pub concurrency: f64,
    /// c = b − C.
    pub room: f64,
    /// τ_m.
    pub mixed: Seconds,
    /// τ_d.
    pub decode: Seconds,
    /// f.
    pub fraction: f64,
    /// τ̄.
    pub tpot: Seconds,
    /// Requests per second.
    pub rate: f64,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::hardware::catalog;
    use crate::hardware::topology::Topology;
    use crate::inference::options::InferenceSection;
    use crate::inference::plan::Plan;
    use crate::inference::queueing::tests::{quantile, Rng};
    use crate::presets;

    /// LLaMA 3-70B on a TPU v5e 4x4.
    pub(crate) fn plan_70b(section: &InferenceSection) -> Plan<'_> {
        let m = presets::get("llama-3-70b").unwrap().config;
        let chip = catalog::get("tpu-v5e").unwrap();
        let axes = Topology::tpu_slice(&[4, 4], 1).resolve(&chip).unwrap();
        Plan::new(&m, &chip, &axes, None, None, section).unwrap()
    }

    /// The co-located server of these tests and `finite_run`'s on `plan`'s decode setup: a
    /// 2,048-token budget, contexts of 2,304 tokens (2,048 + 256), `overhead` seconds a step.
    pub(crate) fn server<'a>(plan: &'a Plan, traffic: &'a Traffic, overhead: f64) -> Colocated<'a> {
        Colocated {
            setup: &plan.decode,
            traffic,
            budget: 2048,
            context: 2304,
            mfu: 1.0,
            attention: AttentionCounting::CausalHalf,
            step_overhead_s: overhead,
        }
    }

    /// Chunk counts by hand: 1,000 tokens in 448-token chunks are 448 + 448 + 104; 896 are
    /// two full chunks (one before the last); 467 under a 7,992-token room is one last
    /// chunk of 467.
    #[test]
    fn chunks_by_hand() {
        assert_eq!(chunks(1000.0, 448.0), (2.0, 104.0));
        assert_eq!(chunks(896.0, 448.0), (1.0, 448.0));
        assert_eq!(chunks(467.0, 7992.0), (0.0, 467.0));
        assert_eq!(chunks(1.0, 1.0), (0.0, 1.0));
    }

    /// The closed loop by hand from the step times the model computes: f = C·P/(G·c),
    /// τ̄ = f·τ_m + (1 − f)·τ_d, throughput C/τ̄ (LLaMA 3-70B on a v5e 4x4, 2,048-token
    /// prompts, 256-token outputs, budget 2,048, 32 sequences).
    #[test]
    fn closed_loop_by_hand() {
        let section = InferenceSection::new(2048, 256);
        let plan = plan_70b(&section);
        let traffic = Traffic::fixed(2048, 256);
        let cb = server(&plan, &traffic, 0.0);
        let p = cb.at_concurrency(32.0).unwrap().unwrap();
        let (m, d) = cb.steps(32.0).unwrap();
        let f = 32.0 * 2048.0 / (256.0 * 2016.0);
        assert!((p.mixed_step_fraction - f).abs() < 1e-12);
        assert!((p.tpot_s.get() - (f * m.get() + (1.0 - f) * d.get())).abs() < 1e-15);
        assert!((p.output_tokens_per_s - 32.0 / p.tpot_s.get()).abs() < 1e-9);
        assert!(m > d, "a mixed step carries 2,016 more tokens");
        // The prefill lane's utilisation is f·τ_m/τ̄.
        assert!((p.ttft.utilization - f * m.get() / p.tpot_s.get()).abs() < 1e-12);
        // Unloaded, a 2,048-token prompt in a closed loop waits for the decode step that
        // began as its predecessor's last token left (τ_d), then rides one full chunk of
        // 2,016 tokens (τ_m) and a last step carrying the remaining 2048 − 2016 = 32.
        let last = plan.decode.mixed_step(32.0, 2304, 32.0, 2016, 1.0, AttentionCounting::CausalHalf).unwrap();
        let own = d.get() + m.get() + last.time.step_time_s.get();
        assert!((p.ttft.service_s - own).abs() < 1e-15, "{} vs {own}", p.ttft.service_s);
        assert!(last.time.step_time_s < m, "32 prompt tokens cost less than 2,016");
        // At the rate this concurrency serves, Little's law returns the same concurrency.
        let back = cb.at_rate(p.requests_per_s, 1e6).unwrap().unwrap();
        assert_eq!(back.concurrency, 32.0);
        assert!((back.requests_per_s - p.requests_per_s).abs() < 1e-12);
        // A concurrency that takes the whole budget leaves no room for prompts; one that
        // finishes sequences faster than the budget can prefill them is prefill-bound.
        assert_eq!(cb.at_concurrency(2048.0).unwrap(), Err(Limit::NoPrefillRoom));
        assert_eq!(cb.at_concurrency(500.0).unwrap(), Err(Limit::PrefillBound));
        assert_eq!(cb.at_rate(1e9, 1e6).unwrap(), Err(Limit::PrefillBound));
        assert_eq!(cb.at_rate(p.requests_per_s, 8.0).unwrap(), Err(Limit::Memory));
    }

    /// The model against a step-by-step simulation of the engine it describes: Poisson
    /// arrivals, a queue of prompt tokens served first come first served, each step
    /// taking the C decode tokens and up to c prompt tokens (a step with `k < c` prompt
    /// tokens takes `τ_d + k/c·(τ_m − τ_d)`), a request's first token at the end of the
    /// step that finishes its prompt. The simulation includes what the model leaves out
    /// (a finishing prompt sharing its last step with the next). The mean time to first
    /// token agrees within 12% at heavy load (ρ up to 0.8) and at light load, where most
    /// prompts find the lane idle and ride a partial chunk; so does the 99th percentile
    /// where the queue sets it (ρ > 0.2), and the median at light load.
    #[test]
    fn ttft_matches_a_step_level_simulation() {
        let (tau_m, tau_d, c) = (0.060, 0.020, 2000.0);
        for (prompt, rate) in [(6000.0, 2.5), (6000.0, 4.5), (1500.0, 15.0), (1500.0, 2.0), (500.0, 5.0)] {
            // The model with these step times: work P·τ_m/c; own latency half a decode step
            // (Poisson arrivals), ⌈P/c⌉ − 1 full chunks and the step with the last k tokens.
            let (full, last) = chunks(prompt, c);
            let own_latency = tau_d / 2.0 + full * tau_m + tau_d + last / c * (tau_m - tau_d);
            let class = RequestClass { weight: 1.0, work: prompt * tau_m / c, own_latency };
            let model = Mg1::new(rate, &[class]).unwrap().ttft().unwrap();
            // The simulation.
            let mut rng = Rng::new(7);
            let (mut now, mut next_arrival) = (0.0, rng.exponential(rate));
            let mut queue: std::collections::VecDeque<(f64, f64)> = std::collections::VecDeque::new();
            let mut ttfts = Vec::new();
            while ttfts.len() < 400_000 {
                while next_arrival <= now {
                    queue.push_back((next_arrival, prompt));
                    next_arrival += rng.exponential(rate);
                }
                if queue.is_empty() {
                    now += tau_d;
                    continue;
                }
                let mut left = c;
                let mut done = Vec::new();
                for (i, (_, rest)) in queue.iter_mut().enumerate() {
                    let take = rest.min(left);
                    *rest -= take;
                    left -= take;
                    if *rest <= 0.0 {
                        done.push(i);
                    }
                    if left <= 0.0 {
                        break;
                    }
                }
                now += tau_d + (c - left) / c * (tau_m - tau_d);
                for _ in &done {
                    if let Some((arrived, _)) = queue.pop_front() {
                        ttfts.push(now - arrived);
                    }
                }
            }
            ttfts.drain(..10_000);
            ttfts.sort_by(f64::total_cmp);
            let mean = ttfts.iter().sum::<f64>() / ttfts.len() as f64;
            let (p50, p99) = (quantile(&ttfts, 0.5), quantile(&ttfts, 0.99));
            assert!((model.mean_s - mean).abs() < 0.12 * mean, "P {prompt} λ {rate}: mean {} vs {mean}", model.mean_s);
            if model.utilization > 0.2 {
                // Loaded: the queue sets the tail.
                assert!((model.p99_s - p99).abs() < 0.12 * p99, "P {prompt} λ {rate}: p99 {} vs {p99}", model.p99_s);
            } else {
                // Light load: most prompts find the lane idle, so the median is the own
                // latency. The wait for the step in progress, taken at its mean τ_d/2, is
                // what spreads the times: their 99th percentile waits nearly a whole τ_d,
                // which the model does not spread.
                assert!((model.p50_s - p50).abs() < 0.12 * p50, "P {prompt} λ {rate}: p50 {} vs {p50}", model.p50_s);
                assert!(
                    model.p99_s < p99 && p99 - model.p99_s < tau_d,
                    "P {prompt} λ {rate}: p99 {} vs {p99}",
                    model.p99_s
                );
            }
        }
    }
}
