//! Ranking and the cost–latency Pareto front of the search's candidates: cost is US
//! dollars per hour for the request rate, latency the mean time to a request's last token
//! (`E[TTFT] + E[G]·TPOT`). Ties break on latency, then on a stable key of the choice, so
//! the order never depends on the order candidates were found in.

use super::report::Candidate;
use std::cmp::Ordering;

/// Cheapest first, then fastest, then by the choice's key.
#[must_use]
pub fn by_cost(a: &Candidate, b: &Candidate) -> Ordering {
    a.usd_per_hour
        .total_cmp(&b.usd_per_hour)
        .then(a.latency_s.total_cmp(&b.latency_s))
        .then_with(|| a.choice.key().cmp(&b.choice.key()))
}

/// Indices of `candidates` in [`by_cost`] order.
#[must_use]
pub fn ranked(candidates: &[Candidate]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_unstable_by(|&i, &j| by_cost(&candidates[i], &candidates[j]));
    order
}

/// Indices of the candidates no other is at least as cheap and as fast as (and strictly
/// one of them), cheapest first: walking in [`by_cost`] order, each point faster than
/// every cheaper one.
#[must_use]
pub fn front(candidates: &[Candidate]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let mut fastest = f64::INFINITY;
    for i in ranked(candidates) {
        let c = &candidates[i];
        if c.latency_s < fastest {
            // Same cost as the previous point and faster: the previous one is dominated.
            if let Some(&last) = out.last() {
                if candidates[last].usd_per_hour == c.usd_per_hour {
                    out.pop();
                }
            }
            out.push(i);
            fastest = c.latency_s;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::report::Choice;
    use super::*;
    use crate::inference::targets::Constraint;

    fn cand(cost: f64, latency: f64, n: u64) -> Candidate {
        Candidate {
            choice: Choice::Colocated { config: 0, servers: n, concurrency: 1.0 },
            usd_per_hour: cost,
            ttft_mean_s: 0.0,
            tpot_s: 0.0,
            latency_s: latency,
            binds: Constraint::Throughput,
            decode_binds: None,
        }
    }

    /// By hand: (cost, latency) = (1, 9), (2, 5), (2, 4), (3, 6), (4, 1): the front is
    /// (1, 9), (2, 4), (4, 1); (2, 5) ties (2, 4) on cost and is slower, (3, 6) is slower
    /// than the cheaper (2, 4).
    #[test]
    fn front_by_hand() {
        let c = [cand(1.0, 9.0, 1), cand(2.0, 5.0, 2), cand(2.0, 4.0, 3), cand(3.0, 6.0, 4), cand(4.0, 1.0, 5)];
        assert_eq!(front(&c), [0, 2, 4]);
        assert_eq!(ranked(&c), [0, 2, 1, 3, 4]);
        // Brute force: i is on the front iff no j is ≤ on both and < on one.
        for (i, a) in c.iter().enumerate() {
            let dominated = c.iter().any(|b| {
                b.usd_per_hour <= a.usd_per_hour
                    && b.latency_s <= a.latency_s
                    && (b.usd_per_hour < a.usd_per_hour || b.latency_s < a.latency_s)
            });
            assert_eq!(!dominated, front(&c).contains(&i), "{i}");
        }
    }
}
