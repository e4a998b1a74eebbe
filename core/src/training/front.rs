//! The fastest configurations and the Pareto front of memory against step time, kept as
//! the search's configurations arrive, and whether one whose step time is only bounded
//! can still enter either ([`super::search`] skips it otherwise).

use super::search::SearchResult;

/// One ranked configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// Index of its mesh in [`SearchResult::splits`].
    pub mesh: usize,
    /// Index of its ZeRO stage and schedule in [`SearchResult::variants`].
    pub variant: usize,
    /// Microbatches per step.
    pub microbatches: u64,
    /// Index into the policies searched.
    pub policy: usize,
    /// Seconds per step.
    pub step_time: f64,
    /// HBM per device.
    pub memory: f64,
    /// Seconds of communication per step, hidden or not.
    pub comm: f64,
    /// The step time to the nanosecond (configurations closer than that tie).
    pub rank: f64,
}

impl Candidate {
    /// A candidate with its rank.
    #[must_use]
    pub fn new(mesh: usize, microbatches: u64, policy: usize, step_time: f64, memory: f64, comm: f64) -> Self {
        Self { mesh, variant: 0, microbatches, policy, step_time, memory, comm, rank: (step_time * 1e9).round() }
    }
}

/// The ranking: faster first; among equal step times (everything hidden behind the
/// same compute is common in a roofline) less communication first — the simplest
/// strategy, as the Ironwood guide recommends — then less memory.
pub(crate) fn better(a: &Candidate, b: &Candidate) -> bool {
    (a.rank, a.comm, a.memory) < (b.rank, b.comm, b.memory)
}

pub(crate) fn keep_top(top: &mut Vec<Candidate>, n: usize, c: Candidate) {
    if n == 0 || (top.len() >= n && top.last().is_some_and(|last| !better(&c, last))) {
        return;
    }
    let at = top.partition_point(|x| !better(&c, x));
    top.insert(at, c);
    top.truncate(n);
}

pub(crate) fn keep_pareto(front: &mut Vec<Candidate>, c: Candidate) {
    let t = c.rank;
    let mut at = front.partition_point(|x| x.memory <= c.memory);
    if at > 0 && front.get(at - 1).is_some_and(|x| x.rank <= t) {
        return;
    }
    while at > 0 && front.get(at - 1).is_some_and(|x| x.memory == c.memory) {
        front.remove(at - 1);
        at -= 1;
    }
    let end = at + front.get(at..).map_or(0, |rest| rest.iter().take_while(|x| x.rank >= t).count());
    front.drain(at..end);
    front.insert(at, c);
}

/// Whether a fitting configuration of step time at least `lower` and `memory` bytes can
/// enter neither the `top` fastest found so far nor the Pareto front: the top is full of
/// strictly faster ones, and a front point is as fast as `lower` with no more memory.
pub(crate) fn outclassed(result: &SearchResult, top: usize, lower: f64, memory: f64) -> bool {
    let rank = (lower * 1e9).round();
    let top_full = top == 0 || (result.top.len() >= top && result.top.last().is_some_and(|x| x.rank < rank));
    let at = result.pareto.partition_point(|x| x.memory <= memory);
    top_full && at > 0 && result.pareto.get(at - 1).is_some_and(|x| x.rank <= rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(t: f64, m: f64) -> Candidate {
        Candidate::new(0, 1, 0, t, m, 0.0)
    }

    #[test]
    fn pareto_keeps_only_undominated_points() {
        let mut f = Vec::new();
        for (t, m) in [(5.0, 1.0), (4.0, 2.0), (4.5, 3.0), (1.0, 9.0), (3.0, 2.0), (2.0, 9.0), (1.0, 9.0)] {
            keep_pareto(&mut f, cand(t, m));
        }
        let pts: Vec<(f64, f64)> = f.iter().map(|c| (c.memory, c.step_time)).collect();
        assert_eq!(pts, [(1.0, 5.0), (2.0, 3.0), (9.0, 1.0)]);
    }

    #[test]
    fn top_is_sorted_and_bounded() {
        let mut top = Vec::new();
        for t in [5.0, 1.0, 4.0, 2.0, 3.0] {
            keep_top(&mut top, 3, cand(t, 1.0));
        }
        let ts: Vec<f64> = top.iter().map(|c| c.step_time).collect();
        assert_eq!(ts, [1.0, 2.0, 3.0]);
    }

    #[test]
    fn a_bound_is_outclassed_only_by_faster_and_smaller() {
        let mut r = SearchResult::default();
        for (t, m) in [(1.0, 9.0), (2.0, 4.0), (3.0, 1.0)] {
            keep_top(&mut r.top, 2, cand(t, m));
            keep_pareto(&mut r.pareto, cand(t, m));
        }
        // The top (1 s, 2 s) is full; (2 s, 4 B) is as fast as a bound of 2.5 s with no
        // more memory than 5 B; nothing is as small as 3 B and as fast as 2.5 s.
        assert!(outclassed(&r, 2, 2.5, 5.0));
        assert!(!outclassed(&r, 2, 2.5, 3.0));
        // A bound that could still enter the top: evaluate.
        assert!(!outclassed(&r, 3, 2.5, 5.0));
        assert!(!outclassed(&r, 2, 1.5, 9.5));
    }
}
