//! The mesh search: every way to split each network's devices over DP, FSDP, TP, EP,
//! CP and PP that the model's dimensions allow, placed on the physical axes, times
//! every microbatch count and remat policy; configurations that do not fit in HBM are
//! dropped, the rest ranked by step time, with the Pareto front of memory against
//! step time.
//!
//! Divisibility prunes first (TP must divide the heads and every hidden width — K/V
//! heads are replicated when K < TP —, EP the experts, PP the layers (times virtual
//! stages), CP the sequence; DP·FSDP·EP may not exceed the sequences, and a batch
//! that does not divide evenly is padded, its waste counted). Everything that does not
//! depend on the microbatch count or the remat policy is computed once per mesh
//! ([`MeshContext`]), and collective costs once per distinct set of axes
//! ([`CostCache`]), so that the inner loop is arithmetic without allocation.

use super::mesh::{mesh_of, network_index, NetworkSplit, Parallelism, NETWORKS};
use super::placement::CostCache;
use super::setup::{MeshContext, Setup};
use super::step::{rank, Microbatch};
use super::tensors::RematCost;

/// One ranked configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// Index of its mesh in [`SearchResult::splits`].
    pub mesh: usize,
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
        Self { mesh, microbatches, policy, step_time, memory, comm, rank: (step_time * 1e9).round() }
    }
}

/// What the search found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchResult {
    /// Meshes that divide the model and fit the topology.
    pub meshes: u64,
    /// Their degrees per network, in enumeration order.
    pub splits: Vec<NetworkSplit>,
    /// Configurations evaluated (meshes × microbatch counts × policies).
    pub evaluated: u64,
    /// Of those, the ones that fit in HBM.
    pub feasible: u64,
    /// The fastest, best first (ties: less memory first, then enumeration order).
    pub top: Vec<Candidate>,
    /// Memory against step time: no other feasible configuration is both faster and
    /// smaller. Sorted by memory.
    pub pareto: Vec<Candidate>,
    /// The configuration needing the least memory, feasible or not.
    pub smallest: Option<Candidate>,
}

/// Search knobs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// How many of the fastest to keep.
    pub top: usize,
    /// Only this microbatch count, when set.
    pub microbatches: Option<u64>,
    /// Largest microbatch count tried.
    pub max_microbatches: u64,
}

/// Whether a (total) mesh divides the model: TP the heads and widths, EP the experts,
/// PP the layers and virtual stages, CP the sequence.
#[must_use]
pub fn divides_model(setup: &Setup, degrees: &[u64; 6]) -> bool {
    let p = &setup.profile;
    let [_, _, tp, ep, cp, pp] = *degrees;
    let chunks = setup.options.pipeline.chunks();
    p.tp_divides(tp)
        && p.expert.map_or(ep == 1, |e| e.experts % ep == 0)
        && p.layers.is_multiple_of(pp.saturating_mul(chunks).max(1))
        && setup.seq_len.is_multiple_of(cp.max(1))
        && degrees[0].saturating_mul(degrees[1]).saturating_mul(ep) <= setup.sequences
}

/// Whether a partial product can still divide the model (a necessary condition).
fn partial_ok(setup: &Setup, axis: Parallelism, degree: u64, totals: &[u64; 6]) -> bool {
    let p = &setup.profile;
    let d = totals[axis as usize].saturating_mul(degree);
    match axis {
        Parallelism::Tp => p.heads.is_multiple_of(d),
        Parallelism::Ep => p.expert.map_or(d == 1, |e| e.experts % d == 0),
        Parallelism::Pp => p.layers.is_multiple_of(d),
        Parallelism::Cp => setup.seq_len.is_multiple_of(d),
        Parallelism::Dp | Parallelism::Fsdp => {
            let shards = totals[0].saturating_mul(totals[1]).saturating_mul(totals[3]).saturating_mul(degree);
            shards <= setup.sequences
        }
    }
}

/// The divisors of `n`, ascending.
pub(crate) fn divisors(n: u64) -> Vec<u64> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1u64;
    while d.saturating_mul(d) <= n {
        if n.is_multiple_of(d) {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

/// Call `visit` with every split of the networks' devices that passes [`partial_ok`]
/// and [`divides_model`].
pub fn for_each_split(setup: &Setup, visit: &mut dyn FnMut(&NetworkSplit)) {
    let divs: [Vec<u64>; 3] = setup.capacity.map(divisors);
    let mut split = [[1u64; 6]; 3];
    let mut totals = [1u64; 6];
    walk(setup, &divs, 0, 0, setup.capacity[0], &mut split, &mut totals, visit);
}

#[allow(clippy::too_many_arguments)]
fn walk(
    setup: &Setup,
    divs: &[Vec<u64>; 3],
    net: usize,
    k: usize,
    left: u64,
    split: &mut NetworkSplit,
    totals: &mut [u64; 6],
    visit: &mut dyn FnMut(&NetworkSplit),
) {
    let Some(&network) = NETWORKS.get(net) else {
        if divides_model(setup, totals) {
            visit(split);
        }
        return;
    };
    let order = Parallelism::order_on(network);
    let n = network_index(network);
    let Some(&axis) = order.get(k) else {
        if left == 1 {
            let next = setup.capacity.get(net + 1).copied().unwrap_or(1);
            walk(setup, divs, net + 1, 0, next, split, totals, visit);
        }
        return;
    };
    let last = k + 1 == order.len();
    for &d in divs.get(n).map_or(&[][..], Vec::as_slice) {
        if d > left {
            break;
        }
        if !left.is_multiple_of(d) || (last && d != left) || !partial_ok(setup, axis, d, totals) {
            continue;
        }
        split[n][axis as usize] = d;
        totals[axis as usize] *= d;
        walk(setup, divs, net, k + 1, left / d, split, totals, visit);
        totals[axis as usize] /= d;
        split[n][axis as usize] = 1;
    }
}

/// Microbatch counts tried for `sequences_per_shard`: its divisors up to the limit,
/// or only the fixed count (when it divides).
fn microbatch_counts(limits: &Limits, sequences_per_shard: u64, visit: &mut dyn FnMut(u64)) {
    if let Some(m) = limits.microbatches {
        if m >= 1 && sequences_per_shard.is_multiple_of(m) {
            visit(m);
        }
        return;
    }
    let mut d = 1u64;
    while d <= sequences_per_shard.min(limits.max_microbatches) {
        if sequences_per_shard.is_multiple_of(d) {
            visit(d);
        }
        d += 1;
    }
}

/// The ranking: faster first; among equal step times (everything hidden behind the
/// same compute is common in a roofline) less communication first — the simplest
/// strategy, as the Ironwood guide recommends — then less memory.
fn better(a: &Candidate, b: &Candidate) -> bool {
    (a.rank, a.comm, a.memory) < (b.rank, b.comm, b.memory)
}

fn keep_top(top: &mut Vec<Candidate>, n: usize, c: Candidate) {
    if n == 0 || (top.len() >= n && top.last().is_some_and(|last| !better(&c, last))) {
        return;
    }
    let at = top.partition_point(|x| !better(&c, x));
    top.insert(at, c);
    top.truncate(n);
}

fn keep_pareto(front: &mut Vec<Candidate>, c: Candidate) {
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

/// Run the search over `policies` (their costs precomputed).
pub fn search(setup: &Setup, cache: &mut CostCache, policies: &[RematCost], limits: &Limits) -> SearchResult {
    let mut result = SearchResult::default();
    for_each_split(setup, &mut |split| {
        let Some(mc) = MeshContext::new(setup, cache, split) else { return };
        let mesh = result.splits.len();
        result.splits.push(*split);
        result.meshes += 1;
        let cache: &CostCache = cache;
        microbatch_counts(limits, mc.sequences_per_shard, &mut |m| {
            let mb = Microbatch::new(setup, cache, &mc, m);
            for (i, cost) in policies.iter().enumerate() {
                let s = rank(setup, &mc, &mb, cost);
                result.evaluated += 1;
                if !s.step_time.is_finite() {
                    continue;
                }
                let c = Candidate::new(mesh, m, i, s.step_time, s.memory, s.comm);
                if result.smallest.is_none_or(|x| c.memory < x.memory) {
                    result.smallest = Some(c);
                }
                if !s.fits {
                    continue;
                }
                result.feasible += 1;
                keep_top(&mut result.top, limits.top, c);
                keep_pareto(&mut result.pareto, c);
            }
        });
    });
    result
}

impl SearchResult {
    /// The degrees per network of a candidate.
    #[must_use]
    pub fn split(&self, c: &Candidate) -> Option<NetworkSplit> {
        self.splits.get(c.mesh).copied()
    }

    /// The mesh of a candidate.
    #[must_use]
    pub fn mesh(&self, c: &Candidate) -> Option<super::mesh::Mesh> {
        self.split(c).map(|s| mesh_of(&s))
    }
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
        assert_eq!(divisors(12), [1, 2, 3, 4, 6, 12]);
    }
}
