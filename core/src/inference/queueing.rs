//! Time to first token with queueing: requests arrive at random and wait for the prefill
//! capacity of their server. The model, stated once and used by co-located continuous
//! batching and by disaggregated prefill servers alike:
//!
//! - **Arrivals** are Poisson at rate λ per server (a load balancer that splits a Poisson
//!   stream at random gives every server a Poisson stream; smarter routing, such as
//!   join-the-shortest-queue, waits less, so this is conservative).
//! - **One FCFS server per queue** does the prefill work: request class `i` (a prompt
//!   length of the traffic mix, with probability `w_i`) brings `s_i` seconds of work, so
//!   the queue is **M/G/1** (M/D/1 for a single prompt length), utilisation `ρ = λ·E[S]`,
//!   stable for `ρ < 1`.
//! - **Waiting time** `W`: its mean is Pollaczek–Khinchine's `E[W] = λ·E[S²] / (2·(1 − ρ))`
//!   (Kleinrock, *Queueing Systems* vol. 1, 1975, eq. 5.63); `P(W > 0) = ρ`; its tail is
//!   the Cramér–Lundberg asymptote `P(W > t) ≈ C·e^{−θt}`, θ the positive root of
//!   `λ·(M_S(θ) − 1) = θ` (M_S the moment generating function of S) and
//!   `C = (1 − ρ) / (λ·M_S'(θ) − 1)` (Asmussen, *Applied Probability and Queues*, 2003,
//!   ch. XIII.5; exact for M/M/1, where it gives `ρ·e^{−(μ−λ)t}`). The body of the
//!   distribution is fitted by two exponentials that keep all three exact facts:
//!   `P(W > t) = ρ·(a·e^{−θt} + (1 − a)·e^{−βt})` with `a = C/ρ` (the tail) and β set so
//!   that the mean is Pollaczek–Khinchine's (`a/θ + (1 − a)/β = E[W]/ρ`); at `t = 0` it is
//!   ρ. Where no such β exists (rare), `min(ρ, C·e^{−θt})`.
//! - **Time to first token** of class `i` is `W + r_i`: the wait plus the request's own
//!   latency `r_i` (its prefill pass, chunks or batch, and for disaggregated serving the KV
//!   transfer), `W` independent of the request's own class (FCFS, Poisson). Quantiles
//!   solve `Σ_i w_i·P(W > t − r_i) = 1 − p` by bisection.
//!
//! Tested against a hand computation (M/D/1 at ρ = 0.5) and discrete-event simulations of
//! M/D/1 and two-class M/G/1 queues in this module's tests.

use serde::{Deserialize, Serialize};

/// One request class: its probability, the server work it brings and its own latency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RequestClass {
    /// Share of requests (normalised by [`Mg1::new`]).
    pub weight: f64,
    /// Seconds of the server's time the request occupies.
    pub work: f64,
    /// Seconds from the start of its service to its first token.
    pub own_latency: f64,
}

/// An M/G/1 queue with per-class own latencies.
#[derive(Clone, Debug, PartialEq)]
pub struct Mg1 {
    rate: f64,
    classes: Vec<RequestClass>,
    rho: f64,
    mean_work: f64,
    second_moment: f64,
    /// (θ, C) of the tail and β of the body's second exponential (see the module docs),
    /// solved on first use; the tail is `None` when nothing queues (λ = 0) or the queue is
    /// unstable, β `None` to use the tail alone.
    shape: std::cell::OnceCell<WaitShape>,
}

/// (θ, C) of the waiting time's tail and β of its body (module docs).
type WaitShape = (Option<(f64, f64)>, Option<f64>);

/// Time to first token: mean and quantiles (seconds), with the queue's utilisation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Ttft {
    /// Mean: `E[W]` + the mean own latency.
    pub mean_s: f64,
    /// Median.
    pub p50_s: f64,
    /// 99th percentile.
    pub p99_s: f64,
    /// `E[W]`, Pollaczek–Khinchine.
    pub queue_mean_s: f64,
    /// The mean own latency (no queueing).
    pub service_s: f64,
    /// ρ = λ·E\[S\] of the prefill server.
    pub utilization: f64,
}

/// Below this utilisation nothing is considered to queue (avoids θ → ∞).
const NO_LOAD: f64 = 1e-12;

impl Mg1 {
    /// A queue with arrivals at `rate` per second and `classes` (weights normalised).
    /// `None` when there is no class with a positive weight, or a number is not finite or
    /// negative.
    #[must_use]
    pub fn new(rate: f64, classes: &[RequestClass]) -> Option<Self> {
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        if !ok(rate) || classes.iter().any(|c| !ok(c.weight) || !ok(c.work) || !ok(c.own_latency)) {
            return None;
        }
        let total: f64 = classes.iter().map(|c| c.weight).sum();
        if total.is_nan() || total <= 0.0 || total.is_infinite() {
            return None;
        }
        let classes: Vec<RequestClass> = classes
            .iter()
            .filter(|c| c.weight > 0.0)
            .map(|c| RequestClass { weight: c.weight / total, ..*c })
            .collect();
        let mean_work: f64 = classes.iter().map(|c| c.weight * c.work).sum();
        let second_moment: f64 = classes.iter().map(|c| c.weight * c.work * c.work).sum();
        let rho = rate * mean_work;
        Some(Self { rate, classes, rho, mean_work, second_moment, shape: std::cell::OnceCell::new() })
    }

    /// ρ = λ·E\[S\].
    #[must_use]
    pub fn utilization(&self) -> f64 {
        self.rho
    }

    /// ρ < 1.
    #[must_use]
    pub fn is_stable(&self) -> bool {
        self.rho < 1.0
    }

    /// `E[W] = λ·E[S²] / (2·(1 − ρ))`; `None` when unstable.
    #[must_use]
    pub fn mean_wait(&self) -> Option<f64> {
        if !self.is_stable() {
            return None;
        }
        Some(self.rate * self.second_moment / (2.0 * (1.0 - self.rho)))
    }

    /// `M_S(θ)` and `M_S'(θ)`.
    fn mgf(&self, theta: f64) -> (f64, f64) {
        self.classes.iter().fold((0.0, 0.0), |(m, d), c| {
            let e = (theta * c.work).min(700.0).exp();
            (m + c.weight * e, d + c.weight * c.work * e)
        })
    }

    /// The tail and body, solved once.
    fn shape(&self) -> WaitShape {
        *self.shape.get_or_init(|| {
            if self.rho > NO_LOAD && self.rho < 1.0 && self.second_moment > 0.0 {
                let tail = self.cramer_lundberg();
                (tail, tail.and_then(|t| self.body_rate(t)))
            } else {
                (None, None)
            }
        })
    }

    /// θ > 0 with `λ·(M(θ) − 1) = θ`, and `C = (1 − ρ) / (λ·M'(θ) − 1)`. The root lies
    /// below `2·(1 − ρ) / (λ·E[S²])` (from `e^x ≥ 1 + x + x²/2`), where
    /// `g(θ) = λ·(M(θ) − 1) − θ` is negative below the root and positive above, and
    /// convex: bisection on a log scale while `θ·max S` is large (the exponentials would
    /// overflow Newton's steps), then Newton's method from the right, which converges
    /// monotonically.
    fn cramer_lundberg(&self) -> Option<(f64, f64)> {
        let g = |t: f64| self.rate * (self.mgf(t).0 - 1.0) - t;
        let mut hi = 2.0 * (1.0 - self.rho) / (self.rate * self.second_moment);
        if !hi.is_finite() || hi <= 0.0 {
            return None;
        }
        let mut lo = hi * 1e-9;
        if g(lo) >= 0.0 {
            return None;
        }
        let s_max = self.classes.iter().map(|c| c.work).fold(0.0, f64::max);
        for _ in 0..200 {
            if hi * s_max <= 30.0 || hi / lo - 1.0 < 1e-13 {
                break;
            }
            let mid = (lo * hi).sqrt();
            if g(mid) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let mut theta = hi;
        for _ in 0..100 {
            let (m, dm) = self.mgf(theta);
            let slope = self.rate * dm - 1.0;
            let value = self.rate * (m - 1.0) - theta;
            if !(slope > 0.0 && value.is_finite()) {
                break;
            }
            let next = (theta - value / slope).max(lo);
            if (theta - next).abs() <= 1e-14 * theta {
                theta = next;
                break;
            }
            theta = next;
        }
        let slope = self.rate * self.mgf(theta).1 - 1.0;
        let c = if slope.is_finite() && slope > 0.0 { (1.0 - self.rho) / slope } else { self.rho };
        Some((theta, c.clamp(0.0, 1.0)))
    }

    /// β with `a/θ + (1 − a)/β = E[W]/ρ`, `a = C/ρ`, when it is positive and differs from θ.
    fn body_rate(&self, (theta, c): (f64, f64)) -> Option<f64> {
        let a = c / self.rho;
        let rest = self.mean_wait()? / self.rho - a / theta;
        let beta = (1.0 - a) / rest;
        (beta.is_finite() && beta > 0.0 && (beta - theta).abs() > 1e-9 * theta).then_some(beta)
    }

    /// `P(W > t)`: 1 below zero, then the fit of the module docs; 1 everywhere when unstable.
    #[must_use]
    pub fn wait_exceeds(&self, t: f64) -> f64 {
        if !self.is_stable() {
            return 1.0;
        }
        if t < 0.0 {
            return 1.0;
        }
        match self.shape() {
            (Some((theta, c)), Some(beta)) => {
                let a = c / self.rho;
                (self.rho * (a * (-theta * t).exp() + (1.0 - a) * (-beta * t).exp())).max(0.0).min(self.rho)
            }
            (Some((theta, c)), None) => self.rho.min(c * (-theta * t).exp()),
            (None, _) => 0.0,
        }
    }

    /// True when the time to first token meets a median target `p50` and a
    /// 99th-percentile target `p99` (each optional): `P(T > p50) ≤ 0.5` and
    /// `P(T > p99) ≤ 0.01`, one evaluation each (no quantile solve); false when unstable.
    #[must_use]
    pub fn meets(&self, p50: Option<f64>, p99: Option<f64>) -> bool {
        let ok = |t: Option<f64>, p: f64| t.is_none_or(|t| self.ttft_exceeds(t * (1.0 + 1e-9)) <= 1.0 - p);
        self.is_stable() && ok(p50, 0.5) && ok(p99, 0.99)
    }

    /// `P(T > t)` for the time to first token `T = W + r_i`.
    #[must_use]
    pub fn ttft_exceeds(&self, t: f64) -> f64 {
        self.classes.iter().map(|c| c.weight * self.wait_exceeds(t - c.own_latency)).sum()
    }

    /// The `p`-quantile of the time to first token (`p` in (0, 1)); `None` when unstable.
    #[must_use]
    pub fn ttft_quantile(&self, p: f64) -> Option<f64> {
        if !(self.is_stable() && p > 0.0 && p < 1.0) {
            return None;
        }
        let target = 1.0 - p;
        let own_max = self.classes.iter().map(|c| c.own_latency).fold(0.0, f64::max);
        let mut lo = 0.0;
        // Beyond own_max every class waits past t − own_max: C·e^{−θ(t − own_max)} ≤ target.
        let mut hi = match self.shape().0 {
            Some((theta, c)) if c > target => own_max + (c / target).ln() / theta,
            _ => own_max,
        }
        .max(1e-300);
        if self.ttft_exceeds(hi) > target {
            // Only from rounding; widen until it holds.
            let step = hi.max(1e-9);
            while self.ttft_exceeds(hi) > target && hi.is_finite() {
                hi += step;
            }
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.ttft_exceeds(mid) > target {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-12 * hi.max(1e-300) {
                break;
            }
        }
        Some(hi)
    }

    /// Mean, median and 99th percentile of the time to first token; `None` when unstable.
    #[must_use]
    pub fn ttft(&self) -> Option<Ttft> {
        let queue = self.mean_wait()?;
        let service = self.mean_own_latency();
        Some(Ttft {
            mean_s: queue + service,
            p50_s: self.ttft_quantile(0.5)?,
            p99_s: self.ttft_quantile(0.99)?,
            queue_mean_s: queue,
            service_s: service,
            utilization: self.rho,
        })
    }

    /// E\[S\].
    #[must_use]
    pub fn mean_work(&self) -> f64 {
        self.mean_work
    }

    /// The mean own latency `Σ w_i·r_i` (the time to first token with no queue).
    #[must_use]
    pub fn mean_own_latency(&self) -> f64 {
        self.classes.iter().map(|c| c.weight * c.own_latency).sum()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn md1(rate: f64, s: f64) -> Mg1 {
        Mg1::new(rate, &[RequestClass { weight: 1.0, work: s, own_latency: s }]).unwrap()
    }

    /// By hand, M/D/1 with λ = 0.5/s and S = 1 s (ρ = 0.5): E[W] = ρ·S / (2(1 − ρ)) = 0.5 s;
    /// θ solves 0.5·(e^θ − 1) = θ: θ = 1.25643 (e^1.25643 = 3.51286 = 1 + 2θ);
    /// C = 0.5 / (0.5·e^θ − 1) = 0.5 / 0.75643 = 0.66100; so
    /// p99(T) = 1 + ln(0.66100 / 0.01) / 1.25643 = 1 + 3.33610 = 4.3361 s, and the median is
    /// P(W > t − 1) = 0.5 = ρ at t = 1: the service time.
    #[test]
    fn md1_by_hand() {
        let q = md1(0.5, 1.0);
        assert_eq!(q.utilization(), 0.5);
        assert!((q.mean_wait().unwrap() - 0.5).abs() < 1e-12);
        let (theta, c) = q.shape().0.unwrap();
        assert!((theta - 1.256_431).abs() < 1e-5, "{theta}");
        assert!((c - 0.661_003).abs() < 1e-5, "{c}");
        let t = q.ttft().unwrap();
        assert!((t.mean_s - 1.5).abs() < 1e-12);
        assert!((t.p99_s - 4.3361).abs() < 1e-3, "{}", t.p99_s);
        assert!((t.p50_s - 1.0).abs() < 1e-9, "{}", t.p50_s);
    }

    /// M/M/1 is where Cramér–Lundberg is exact: P(W > t) = ρ·e^{−(μ − λ)t}. A service time
    /// that is exponential is not a finite mix, so this checks the algebra on a fine mix
    /// approximating it: θ → μ − λ and C → ρ.
    #[test]
    fn exponential_service_recovers_mm1() {
        let (mu, rate) = (1.0, 0.6);
        let n = 4000;
        let classes: Vec<RequestClass> = (0..n)
            .map(|i| {
                let u = (i as f64 + 0.5) / n as f64;
                let s = -(1.0 - u).ln() / mu;
                RequestClass { weight: 1.0, work: s, own_latency: 0.0 }
            })
            .collect();
        let q = Mg1::new(rate, &classes).unwrap();
        let (theta, c) = q.shape().0.unwrap();
        assert!((theta - (mu - rate)).abs() < 0.01, "{theta}");
        assert!((c - rate / mu).abs() < 0.02, "{c}");
    }

    #[test]
    fn unstable_and_idle_queues() {
        assert!(md1(1.0, 1.0).ttft().is_none());
        assert!(md1(2.0, 1.0).mean_wait().is_none());
        let idle = md1(0.0, 1.0);
        let t = idle.ttft().unwrap();
        assert_eq!((t.mean_s, t.p50_s, t.p99_s), (1.0, 1.0, 1.0));
        assert!(Mg1::new(f64::NAN, &[]).is_none());
        assert!(Mg1::new(1.0, &[]).is_none());
        assert!(Mg1::new(1.0, &[RequestClass { weight: 0.0, work: 1.0, own_latency: 1.0 }]).is_none());
        // A tiny load: the tail never matters, quantiles are the service.
        let t = md1(1e-9, 1.0).ttft().unwrap();
        assert!((t.p99_s - 1.0).abs() < 1e-6);
    }

    /// xorshift64*, for the simulations.
    pub(crate) struct Rng(u64);
    impl Rng {
        pub(crate) fn new(seed: u64) -> Self {
            Self(seed.max(1))
        }
        pub(crate) fn unit(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            ((self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        }
        pub(crate) fn exponential(&mut self, rate: f64) -> f64 {
            -self.unit().ln() / rate
        }
    }

    pub(crate) fn quantile(sorted: &[f64], p: f64) -> f64 {
        sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
    }

    /// Discrete-event simulation of the FCFS queue (Lindley: W_{n+1} = max(0, W_n + S_n −
    /// A_{n+1})) with classes drawn by weight; returns the sorted times to first token.
    fn simulate(rate: f64, classes: &[RequestClass], n: usize, seed: u64) -> Vec<f64> {
        let mut rng = Rng::new(seed);
        let total: f64 = classes.iter().map(|c| c.weight).sum();
        let pick = |u: f64| {
            let mut acc = 0.0;
            for c in classes {
                acc += c.weight / total;
                if u < acc {
                    return *c;
                }
            }
            classes[classes.len() - 1]
        };
        let mut wait = 0.0;
        let mut out = Vec::with_capacity(n);
        for i in 0..n + 10_000 {
            let c = pick(rng.unit());
            if i >= 10_000 {
                out.push(wait + c.own_latency);
            }
            wait = (wait + c.work - rng.exponential(rate)).max(0.0);
        }
        out.sort_by(f64::total_cmp);
        out
    }

    /// The model against `n` simulated requests: the mean within 2%, the 99th percentile
    /// within 4%, and in the body, where a flat distribution magnifies small errors in
    /// time, the probabilities: `P(T > t)` at the simulated median and 90th percentile
    /// within 2.5 points of 0.5 and 0.1.
    fn check_against_simulation(rate: f64, classes: &[RequestClass], seed: u64) {
        let q = Mg1::new(rate, classes).unwrap();
        let t = q.ttft().unwrap();
        let sim = simulate(rate, classes, 1_000_000, seed);
        let mean = sim.iter().sum::<f64>() / sim.len() as f64;
        assert!((t.mean_s - mean).abs() < 0.02 * mean, "mean {} vs simulated {mean}", t.mean_s);
        let p99 = quantile(&sim, 0.99);
        assert!((t.p99_s - p99).abs() < 0.04 * p99, "p99 {} vs simulated {p99}", t.p99_s);
        for p in [0.5, 0.9] {
            let at = quantile(&sim, p);
            let model = q.ttft_exceeds(at);
            assert!((model - (1.0 - p)).abs() < 0.025, "P(T > {at}) = {model}, simulated {}", 1.0 - p);
        }
    }

    /// M/D/1 at ρ = 0.5 and 0.8: the formulas against a million simulated requests
    /// (mean within 2%, median within 5%, 99th percentile within 4%).
    #[test]
    fn md1_matches_a_simulation() {
        for (rho, seed) in [(0.5, 1), (0.8, 2)] {
            check_against_simulation(rho / 0.3, &[RequestClass { weight: 1.0, work: 0.3, own_latency: 0.3 }], seed);
        }
    }

    /// Two prompt lengths (short and long, 3:1), own latencies longer than their work
    /// (a prefill pass plus a KV transfer): M/G/1 against the simulation.
    #[test]
    fn mg1_two_classes_match_a_simulation() {
        let classes = [
            RequestClass { weight: 3.0, work: 0.1, own_latency: 0.15 },
            RequestClass { weight: 1.0, work: 0.9, own_latency: 1.0 },
        ];
        for (rate, seed) in [(1.5, 4), (2.8, 5)] {
            check_against_simulation(rate, &classes, seed);
        }
    }
}
