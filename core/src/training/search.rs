//! The mesh search: every way to split each network's devices over DP, FSDP, TP, EP,
//! CP and PP that the model's dimensions allow, placed on the physical axes, times
//! every ZeRO stage and pipeline schedule (with its virtual stages), microbatch count
//! and remat policy; configurations that do not fit in HBM are dropped, the rest ranked
//! by step time, with the Pareto front of memory against step time.
//!
//! **What may be chosen** (each rule is also a sentence of the report's
//! `search.constraints`, with the model's numbers):
//! - TP divides the heads and every hidden width (K/V heads are replicated when K < TP),
//!   and stays inside the scale-up network; EP divides the experts; CP divides the
//!   sequence; DP·FSDP·EP is at most the sequences (a batch that does not divide evenly
//!   is padded, its waste counted). Every axis but TP may cross the scale-out network
//!   ([`Parallelism::order_on`]).
//! - PP is at most the layers: stages may be uneven ([`super::pipeline`]: the largest
//!   stage sets the pace and the memory). The interleaved schedule's v divides the
//!   largest stage's layers (chunks of equal size) with PP·v at most the layers
//!   ([`pipelines`]), and needs a multiple of PP microbatches. GPipe is not tried unless
//!   asked for: it has 1F1B's bubble and holds more microbatches.
//! - ZeRO stages matter only with DP > 1 and schedules only with PP > 1: elsewhere the
//!   variants are identical and one is evaluated. ZeRO-3 over DP is FSDP over DP·FSDP,
//!   a mesh the search enumerates on its own: not evaluated twice.
//! - With one microbatch ZeRO-1 is dominated by ZeRO-2 (the same traffic, the gradients
//!   sharded too); with several the planner reduces gradients once per step, so ZeRO-2
//!   keeps the whole accumulator and equals ZeRO-1 ([`super::memory`]): one of the two is
//!   evaluated. ZeRO-0 is dominated wherever ZeRO-1/2's ReduceScatter + AllGather is no
//!   slower than its AllReduce (bf16 weights on a ring: the same time): everything else
//!   is the same and the optimizer state smaller.
//!
//! **Pruning without dropping an option.** Divisibility prunes partial products first.
//! A (mesh, ZeRO stage, schedule, microbatch count) whose training state alone exceeds
//! the usable HBM cannot fit with any policy and is skipped; once something fits, a
//! configuration that does not is skipped (when nothing fits at all the search runs
//! again without these bounds, to report the configuration needing the least memory).
//! Each configuration's memory is exact and cheap, and its step time is at least its
//! compute and bubble ([`step::bound`]): when the fastest found so far are all strictly
//! faster than that and a point of the Pareto front is as fast with no more memory, it
//! can enter neither, and is not timed.
//!
//! Everything that does not depend on the microbatch count or the remat policy is
//! computed once per mesh ([`MeshContext`], placed once and set to each ZeRO stage and
//! schedule in place), and collective costs once per distinct set of axes ([`CostCache`]),
//! so that the inner loop is arithmetic without allocation. (Sharing a microbatch's kernel
//! times between meshes that differ only in DP against FSDP saved 8% of the reference
//! search natively, 19.0 against 20.6 ms, for ~1 KB gzip of page: not kept.)

use super::front::{keep_pareto, keep_top, outclassed, Candidate};
use super::memory::state_bytes;
use super::mesh::{mesh_of, network_index, NetworkSplit, Parallelism, NETWORKS};
use super::optimizer::ZeroStage;
use super::pipeline::Pipeline;
use super::placement::CostCache;
use super::report::SkippedReport;
use super::setup::{MeshContext, Setup};
use super::space::{pipelines, Choices, Variant};
use super::step::{self, rank, Microbatch};
use super::tensors::RematCost;

/// What the search found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchResult {
    /// Meshes that divide the model and fit the topology.
    pub meshes: u64,
    /// Their degrees per network, in enumeration order.
    pub splits: Vec<NetworkSplit>,
    /// The ZeRO stages and schedules tried.
    pub variants: Vec<Variant>,
    /// Configurations timed (meshes × variants × microbatch counts × policies, less the
    /// skipped).
    pub evaluated: u64,
    /// Configurations that fit in HBM, timed or bounded ([`SkippedReport::bound`]).
    pub feasible: u64,
    /// What was not evaluated, and why.
    pub skipped: SkippedReport,
    /// The fastest, best first (ties: less communication, then less memory, then
    /// evaluation order).
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
/// CP the sequence; PP times the virtual stages at most the layers (uneven stages).
#[must_use]
pub fn divides_model(setup: &Setup, degrees: &[u64; 6]) -> bool {
    let p = &setup.profile;
    let [_, _, tp, ep, cp, pp] = *degrees;
    let chunks = setup.options.pipeline.chunks();
    p.tp_divides(tp)
        && p.expert.map_or(ep == 1, |e| e.experts % ep == 0)
        && pp.saturating_mul(chunks).max(1) <= p.layers
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
        Parallelism::Pp => d <= p.layers,
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

/// Call `visit` with every split of the networks' devices that passes `partial_ok`
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

/// The ZeRO-1/ZeRO-2 rule of the module docs, when both are searched and DP > 1:
/// `None` to evaluate, or why not.
fn zero_rule(zero: ZeroStage, microbatches: u64, both: bool) -> Option<fn(&mut SkippedReport, u64)> {
    match (both, zero.0, microbatches) {
        (true, 1, 1) => Some(|s, n| s.dominated += n),
        (true, 2, m) if m > 1 => Some(|s, n| s.identical += n),
        _ => None,
    }
}

/// Run the search over `policies` (their costs precomputed) and `choices`.
pub fn search(
    setup: &Setup,
    cache: &mut CostCache,
    policies: &[RematCost],
    choices: &Choices,
    limits: &Limits,
) -> SearchResult {
    let mut result = run(setup, cache, policies, choices, limits, true);
    if result.feasible == 0 && result.skipped.state_exceeds_hbm > 0 {
        result = run(setup, cache, policies, choices, limits, false);
    }
    result
}

/// The index of `v` in `variants`, added when new.
fn variant_index(variants: &mut Vec<Variant>, v: Variant) -> usize {
    variants.iter().position(|x| *x == v).unwrap_or_else(|| {
        variants.push(v);
        variants.len() - 1
    })
}

fn run(
    setup: &Setup,
    cache: &mut CostCache,
    policies: &[RematCost],
    choices: &Choices,
    limits: &Limits,
    prune: bool,
) -> SearchResult {
    let mut result = SearchResult::default();
    // Meshes are enumerated once, with the loosest pipeline rule (one chunk per stage).
    let mut loosest = setup.clone();
    loosest.options.pipeline = Pipeline::default();
    let own = [setup.options.zero];
    let zeros = if choices.zero_stages.is_empty() { &own[..] } else { &choices.zero_stages[..] };
    let own_schedule = [setup.options.pipeline.schedule];
    let schedules = if choices.schedules.is_empty() { &own_schedule[..] } else { &choices.schedules[..] };
    let one_and_two = zeros.iter().any(|z| z.0 == 1) && zeros.iter().any(|z| z.0 == 2);
    let usable = setup.usable_hbm();
    let layers = setup.profile.layers;
    let mut s = setup.clone();
    for_each_split(&loosest, &mut |split| {
        let mesh = mesh_of(split);
        let index = result.splits.len();
        result.splits.push(*split);
        result.meshes += 1;
        // ZeRO-3 over dp is FSDP over dp·fsdp: a mesh enumerated on its own.
        // ZeRO-1 and 2 before ZeRO-0, which they may dominate (below).
        // (Partitioned by hand, not `sort_by_key`: a stable sort would link driftsort, ~1.5 KB
        // gzip on the training page; docs/size.md, session 14.)
        let zeros_here: Vec<ZeroStage> = if mesh.dp > 1 {
            let kept = zeros.iter().copied().filter(|z| !z.shards_weights());
            kept.clone().filter(|z| z.0 != 0).chain(kept.filter(|z| z.0 == 0)).collect()
        } else {
            zeros[..1].to_vec()
        };
        let pipelines_here = pipelines(schedules, choices.max_virtual_stages, layers, mesh.pp);
        // Counts are in configurations: a microbatch count with a policy.
        let per_m = policies.len() as u64;
        let mut counts = 0u64;
        microbatch_counts(limits, setup.sequences.div_ceil(mesh.data_shards().max(1)).max(1), &mut |_| counts += 1);
        let variants_left_out = (zeros.len() * schedules.len())
            .saturating_sub(zeros_here.len() * if mesh.pp > 1 { schedules.len() } else { 1 });
        result.skipped.identical += variants_left_out as u64 * counts * per_m;
        // Placed once per mesh, in place for each variant: each ZeRO stage's cost models
        // looked up once, each schedule recomputing only what depends on its stages.
        // (No variant: DP > 1 with only ZeRO-3 listed, or no interleaving that fits.)
        let (Some(z), Some(p)) = (zeros_here.first(), pipelines_here.first()) else { return };
        s.options.zero = *z;
        s.options.pipeline = *p;
        let Some(mut mc) = MeshContext::new(&s, cache, split) else { return };
        for pipeline in &pipelines_here {
            // DP's gradient sync with ZeRO-1/2, for the ZeRO-0 rule.
            let mut sharded_sync: Option<f64> = None;
            for zero in &zeros_here {
                let v = Variant { zero: *zero, pipeline: *pipeline };
                s.options.zero = v.zero;
                s.options.pipeline = v.pipeline;
                mc.set_variant(&s, cache);
                if zero.shards_optimizer() {
                    sharded_sync = Some(mc.dp_traffic.backward);
                } else if sharded_sync.is_some_and(|t| t <= mc.dp_traffic.backward) {
                    let mut n = 0u64;
                    microbatch_counts(limits, mc.sequences_per_shard, &mut |m| {
                        n += u64::from(pipeline.takes_microbatches(mesh.pp, m));
                    });
                    result.skipped.dominated += n * per_m;
                    continue;
                }
                let mc = &mc;
                let vi = variant_index(&mut result.variants, v);
                let cache: &CostCache = cache;
                microbatch_counts(limits, mc.sequences_per_shard, &mut |m| {
                    if !v.pipeline.takes_microbatches(mesh.pp, m) {
                        result.skipped.microbatches += per_m;
                        return;
                    }
                    if let Some(skip) = zero_rule(v.zero, m, one_and_two && mesh.dp > 1) {
                        skip(&mut result.skipped, per_m);
                        return;
                    }
                    // The state alone: no policy can make it fit.
                    if prune && state_bytes(&s, mc, m) > usable {
                        result.skipped.state_exceeds_hbm += per_m;
                        return;
                    }
                    let mb = Microbatch::new(&s, cache, mc, m);
                    for (i, cost) in policies.iter().enumerate() {
                        if prune {
                            let (lower, memory) = step::bound(&s, mc, &mb, cost);
                            let memory = memory.total();
                            if memory > usable && result.feasible > 0 {
                                result.skipped.too_large += 1;
                                continue;
                            }
                            if memory <= usable && outclassed(&result, limits.top, lower, memory) {
                                result.feasible += 1;
                                result.skipped.bound += 1;
                                continue;
                            }
                        }
                        let r = rank(&s, mc, &mb, cost);
                        result.evaluated += 1;
                        if !r.step_time.is_finite() {
                            continue;
                        }
                        let c = Candidate { variant: vi, ..Candidate::new(index, m, i, r.step_time, r.memory, r.comm) };
                        if result.smallest.is_none_or(|x| c.memory < x.memory) {
                            result.smallest = Some(c);
                        }
                        if !r.fits {
                            continue;
                        }
                        result.feasible += 1;
                        keep_top(&mut result.top, limits.top, c);
                        keep_pareto(&mut result.pareto, c);
                    }
                });
            }
        }
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

    /// The ZeRO stage and schedule of a candidate.
    #[must_use]
    pub fn variant(&self, c: &Candidate) -> Option<Variant> {
        self.variants.get(c.variant).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisors_ascend() {
        assert_eq!(divisors(12), [1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(1), [1]);
    }
}
