//! Collective communication costs (book chapter 3): AllGather, ReduceScatter,
//! AllReduce and AllToAll over one or several mesh axes.
//!
//! **Which array size.** Every function takes `array_bytes` = `V`, the book's "full
//! array": the bytes of the array as one chip holds it when it is *not* sharded over
//! the collective's axes. For an AllGather that is the gathered output on one chip;
//! for a ReduceScatter the unreduced input on one chip; for an AllReduce the array on
//! one chip (input = output); for an AllToAll the shard on one chip times the product
//! of the axis sizes. Sharding over *other* axes is already divided out: for
//! `AllGather_X(A[B_X, D_Y])` pass `V = bytes(B·D)/|Y|` (book Solution 3.2).
//!
//! **Model.** Within one network (die-to-die, scale-up, scale-out) the axes work at
//! once; the time is `max(latency floor, bandwidth time)` with the floor = hops ×
//! per-hop latency summed over the axes (book: `max(T_min·Σ|X_i|/2, V/(W·n_axes))`).
//! - A gather (AllGather, ReduceScatter, AllReduce) over several axes moves along all of
//!   them at once and their bandwidths add (book 3.2 "multiple axes": `V / (W · n_axes)`).
//! - An AllToAll over several torus axes is bisection-bound: with dimension-ordered
//!   routing, axis `i`'s links carry exactly a 1D AllToAll of the per-chip shard `B`
//!   (every chip sends `B/N` to each of the `N` chips; a ring along axis `i` sees
//!   `B/n_i` for every pair of its chips), and the axes run at once, so the time is the
//!   slowest axis's, `max_i f_i·n_i·B / W_i` with `f_i` the 1D fraction of
//!   [`ring::busiest_link_fraction`]: `n_max·B / (8W)` on a torus with wraparound and
//!   even sizes, `n_max·B / (4W)` without (see [`all_to_all_time`]). Treating the whole
//!   `V = N·B` as a 1D AllToAll on every axis with the axes' rates added, as for a gather,
//!   is 8× too slow on a 16×16 torus and 5.3× on a 4×4×4.
//!
//! Networks nest hierarchically, inner first: a ReduceScatter inside the scale-up
//! domain shrinks what crosses the scale-out network (an AllReduce over ICI × DCN is
//! ReduceScatter(ICI, V) + AllReduce(DCN, V/|ICI|) + AllGather(ICI, V)).

pub mod query;
pub mod ring;
pub mod summary;

use crate::error::{Checker, Invalid};
pub use crate::hardware::axis::{AxisLink, AxisShape, Network, MAX_AXIS_SIZE};
use crate::units::{Bytes, BytesPerSec, Seconds};
pub use ring::Pattern;
use serde::{Deserialize, Serialize};

/// The four primitives of book 3.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CollectiveKind {
    /// `[A_X, B] → [A, B]`.
    AllGather,
    /// `[A, B]{U_X} → [A_X, B]`: same cost as an AllGather.
    ReduceScatter,
    /// `[A_X, B]{U_Y} → [A_X, B]`: ReduceScatter + AllGather, twice the cost.
    AllReduce,
    /// `[A, B_X] → [A_X, B]`: a quarter of an AllGather on one bidirectional ring;
    /// bisection-bound over several torus axes.
    AllToAll,
}
crate::serde_names::deserialize_by_name!(CollectiveKind { AllGather => "all_gather", ReduceScatter => "reduce_scatter", AllReduce => "all_reduce", AllToAll => "all_to_all" });

impl CollectiveKind {
    /// Every kind, in the book's table order.
    pub const ALL: [CollectiveKind; 4] =
        [CollectiveKind::AllGather, CollectiveKind::ReduceScatter, CollectiveKind::AllReduce, CollectiveKind::AllToAll];

    /// The movement pattern and how many times it runs (an AllReduce is a
    /// ReduceScatter then an AllGather).
    #[must_use]
    pub fn pattern_and_passes(self) -> (Pattern, u64) {
        match self {
            CollectiveKind::AllGather | CollectiveKind::ReduceScatter => (Pattern::Gather, 1),
            CollectiveKind::AllReduce => (Pattern::Gather, 2),
            CollectiveKind::AllToAll => (Pattern::AllToAll, 1),
        }
    }
}

/// Whether the time is set by per-hop latency or by bandwidth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// Nothing moves (every axis has one chip).
    None,
    /// Latency-bound: hops × per-hop latency exceeds the transfer time.
    Latency,
    /// Bandwidth-bound: bytes over bandwidth exceeds the latency floor.
    Bandwidth,
    /// Some networks latency-bound, others bandwidth-bound.
    Mixed,
}

/// What one axis carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AxisTraffic {
    /// Axis name.
    pub axis: String,
    /// Bytes over the busiest link of this axis, one direction.
    pub bytes_per_link: Bytes,
    /// Sequential hops on this axis.
    pub hops: u64,
}

/// The cost of one collective.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CollectiveCost {
    /// Which collective.
    pub kind: CollectiveKind,
    /// `V`, the full array (see the module docs).
    pub array_bytes: Bytes,
    /// Estimated time: per network `max(latency floor, bandwidth time)`, summed.
    pub time: Seconds,
    /// Hops × per-hop latency, summed over axes.
    pub latency_floor: Seconds,
    /// Bytes over bandwidth, summed over networks.
    pub bandwidth_time: Seconds,
    /// Which term sets `time`.
    pub regime: Regime,
    /// Bytes over the busiest link of any axis, one direction.
    pub bytes_per_link: Bytes,
    /// Per-axis traffic.
    pub axes: Vec<AxisTraffic>,
}

/// Smallest link bandwidth accepted, in bytes per second. A topology's links are at least
/// 1 B/s (`hardware::topology`), but the planners scale them by achievable fractions of
/// bandwidth (`training.efficiency.dcn`, the calibration's 0.165 for DCN), each at least
/// 10⁻⁶: a 1.5 B/s link at 16.5% is 0.25 B/s and must still cost a finite time, or the step
/// model subtracts infinities (found by the million-scenario no-panic test, case 714543).
/// With arrays of at most 10³⁰ B a time stays below ~10⁴³ s, far from `f64`'s range.
pub const MIN_LINK: f64 = 1e-12;

fn validate(array_bytes: Bytes, axes: &[AxisLink]) -> Result<(), Invalid> {
    let mut c = Checker::new();
    c.range_f64("array_bytes", array_bytes.get(), 0.0, crate::hardware::MAX_QUANTITY);
    c.ensure(!axes.is_empty(), "axes", || "must name at least one axis".into());
    for (i, a) in axes.iter().enumerate() {
        c.range(&format!("axes[{i}].size"), a.size, 1, MAX_AXIS_SIZE);
        c.range_f64(&format!("axes[{i}].link"), a.link.get(), MIN_LINK, crate::hardware::MAX_QUANTITY);
        c.range_f64(&format!("axes[{i}].hop_latency"), a.hop_latency.get(), 0.0, 1e6);
    }
    c.finish()
}

/// The axes of one network, merged where they share a switch: torus axes add their
/// links (book 3.2); axes on a switch or full mesh share one egress, so they act as
/// one axis of the product size.
fn effective_axes(group: &[&AxisLink]) -> Vec<AxisLink> {
    let torus = group.iter().all(|a| a.shape.is_torus());
    if torus || group.len() <= 1 {
        return group.iter().map(|a| (*a).clone()).collect();
    }
    let size = group.iter().map(|a| a.size).product::<u64>();
    let link = group.iter().map(|a| a.link).fold(BytesPerSec(f64::INFINITY), BytesPerSec::min);
    let shape =
        if group.iter().all(|a| a.shape == AxisShape::FullMesh) { AxisShape::FullMesh } else { AxisShape::Switch };
    let hop_latency = group.iter().map(|a| a.hop_latency).fold(Seconds::ZERO, Seconds::max);
    let name = group.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join("+");
    let network = group.first().map_or(Network::ScaleUp, |a| a.network);
    vec![AxisLink { name, size, network, shape, link, hop_latency }]
}

/// A gather's bytes over the busiest link of each axis of one network, which share the
/// array in proportion to their rates so that all finish together (book 3.2: bandwidths
/// add): the time is `V / Σ_i (W_i / f_i)` for `passes` passes.
fn gather_busiest_links(passes: u64, group: &[AxisLink], v: Bytes) -> Vec<Bytes> {
    let per_pass = |a: &AxisLink| passes as f64 * ring::busiest_link_fraction(Pattern::Gather, a.shape, a.size);
    let rate: f64 = group.iter().map(|a| if per_pass(a) > 0.0 { a.link.get() / per_pass(a) } else { 0.0 }).sum();
    group
        .iter()
        .map(|a| if per_pass(a) > 0.0 && rate > 0.0 { a.link * Seconds(v.get() / rate) } else { Bytes::ZERO })
        .collect()
}

/// An AllToAll's bytes over the busiest link of each axis of one network: with `B = V/N`
/// per chip, axis `i` carries a 1D AllToAll of `B` per chip, `f_i·n_i·B` (see the module
/// docs); its time is the slowest axis's.
fn all_to_all_busiest_links(group: &[AxisLink], v: Bytes) -> Vec<Bytes> {
    let chips: f64 = group.iter().map(|a| a.size as f64).product();
    let shard = v / chips.max(1.0);
    group
        .iter()
        .map(|a| shard * (a.size as f64 * ring::busiest_link_fraction(Pattern::AllToAll, a.shape, a.size)))
        .collect()
}

/// Bandwidth time of an AllToAll of `shard_bytes` per chip over the torus (or switch)
/// axes of one network: `max_i f_i·n_i·B / W_i` (see the module docs). A 16×16 torus
/// with wraparound: `16·B / (8W)`; a 4×8 without: `8·B / (4W)`.
#[must_use]
pub fn all_to_all_time(shard_bytes: Bytes, axes: &[AxisLink]) -> Seconds {
    let chips: f64 = axes.iter().map(|a| a.size as f64).product();
    all_to_all_busiest_links(axes, shard_bytes * chips)
        .into_iter()
        .zip(axes)
        .map(|(b, a)| b / a.link)
        .fold(Seconds::ZERO, Seconds::max)
}

/// Cost of `kind` over `axes` for the full array `V = array_bytes` (book 3.2–3.4).
///
/// # Errors
/// Non-finite or negative sizes, bandwidths or latencies, named by field
/// (`array_bytes`, `axes[1].link`, ...).
pub fn collective_cost(kind: CollectiveKind, array_bytes: Bytes, axes: &[AxisLink]) -> Result<CollectiveCost, Invalid> {
    validate(array_bytes, axes)?;
    let (pattern, passes) = kind.pattern_and_passes();
    // The networks present, inner to outer (not a sort and dedup: see `crate::small_sort`).
    let networks: Vec<Network> = Network::ALL.into_iter().filter(|n| axes.iter().any(|a| a.network == *n)).collect();
    let groups: Vec<Vec<AxisLink>> =
        networks.iter().map(|n| effective_axes(&axes.iter().filter(|a| a.network == *n).collect::<Vec<_>>())).collect();
    let sizes: Vec<f64> = groups.iter().map(|g| g.iter().map(|a| a.size as f64).product()).collect();
    let mut cost = CollectiveCost {
        kind,
        array_bytes,
        time: Seconds::ZERO,
        latency_floor: Seconds::ZERO,
        bandwidth_time: Seconds::ZERO,
        regime: Regime::None,
        bytes_per_link: Bytes::ZERO,
        axes: Vec::new(),
    };
    let (mut latency_groups, mut bandwidth_groups) = (0, 0);
    for (g, group) in groups.iter().enumerate() {
        // The array this network sees: inner networks already gathered / still to
        // scatter (gathers), or every other network's share (AllToAll).
        let others: f64 = match pattern {
            Pattern::Gather => sizes.iter().take(g).product(),
            Pattern::AllToAll => sizes.iter().enumerate().filter(|(h, _)| *h != g).map(|(_, s)| s).product(),
        };
        let v = array_bytes / others;
        let busiest = match pattern {
            Pattern::Gather => gather_busiest_links(passes, group, v),
            Pattern::AllToAll => all_to_all_busiest_links(group, v),
        };
        let bandwidth = group.iter().zip(&busiest).map(|(a, b)| *b / a.link).fold(Seconds::ZERO, Seconds::max);
        let mut latency = Seconds::ZERO;
        for (a, bytes) in group.iter().zip(busiest) {
            let hops = passes * ring::hops(pattern, a.shape, a.size);
            latency += a.hop_latency * hops as f64;
            cost.bytes_per_link = cost.bytes_per_link.max(bytes);
            cost.axes.push(AxisTraffic { axis: a.name.clone(), bytes_per_link: bytes, hops });
        }
        let moves = group.iter().any(|a| a.size > 1);
        if moves {
            if latency > bandwidth {
                latency_groups += 1;
            } else {
                bandwidth_groups += 1;
            }
        }
        cost.latency_floor += latency;
        cost.bandwidth_time += bandwidth;
        cost.time += latency.max(bandwidth);
    }
    cost.regime = match (latency_groups, bandwidth_groups) {
        (0, 0) => Regime::None,
        (_, 0) => Regime::Latency,
        (0, _) => Regime::Bandwidth,
        _ => Regime::Mixed,
    };
    Ok(cost)
}

/// AllGather of the gathered array `V` (book 3.2 Case 2: `V / W_bidi` on a full ring).
///
/// # Errors
/// As [`collective_cost`].
pub fn all_gather(array_bytes: Bytes, axes: &[AxisLink]) -> Result<CollectiveCost, Invalid> {
    collective_cost(CollectiveKind::AllGather, array_bytes, axes)
}

/// ReduceScatter of the unreduced per-chip array `V` (book 3.2 Case 3: as an AllGather).
///
/// # Errors
/// As [`collective_cost`].
pub fn reduce_scatter(array_bytes: Bytes, axes: &[AxisLink]) -> Result<CollectiveCost, Invalid> {
    collective_cost(CollectiveKind::ReduceScatter, array_bytes, axes)
}

/// AllReduce of the per-chip array `V` (book 3.2 Case 3: `2·V / W_bidi`).
///
/// # Errors
/// As [`collective_cost`].
pub fn all_reduce(array_bytes: Bytes, axes: &[AxisLink]) -> Result<CollectiveCost, Invalid> {
    collective_cost(CollectiveKind::AllReduce, array_bytes, axes)
}

/// AllToAll of the array `V` = per-chip shard × axis sizes (book 3.3.1: `V / (4·W_bidi)`
/// on a bidirectional ring).
///
/// # Errors
/// As [`collective_cost`].
pub fn all_to_all(array_bytes: Bytes, axes: &[AxisLink]) -> Result<CollectiveCost, Invalid> {
    collective_cost(CollectiveKind::AllToAll, array_bytes, axes)
}

/// A point-to-point copy over `links` parallel links, `hops` away (book Solution 2.5):
/// the first byte arrives after `hops × latency`; the whole array after
/// `max(that, bytes / (links × link))`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Transfer {
    /// Time until the first byte arrives.
    pub first_byte: Seconds,
    /// Time until the whole array has arrived.
    pub total: Seconds,
}

/// See [`Transfer`].
#[must_use]
pub fn point_to_point(bytes: Bytes, links: f64, link: BytesPerSec, hops: u64, hop_latency: Seconds) -> Transfer {
    let first_byte = hop_latency * hops as f64;
    Transfer { first_byte, total: first_byte.max(bytes / (link * links)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: f64 = 9e10; // one-way bytes/s of one link (TPU v5p ICI)
    const B: f64 = 1e8; // bytes each chip holds before the AllToAll

    fn torus(sizes: &[u64], shape: AxisShape) -> Vec<AxisLink> {
        sizes
            .iter()
            .zip(["x", "y", "z"])
            .map(|(&size, name)| AxisLink {
                name: name.into(),
                size,
                network: Network::ScaleUp,
                shape,
                link: BytesPerSec(W),
                hop_latency: Seconds::ZERO,
            })
            .collect()
    }

    fn a2a(axes: &[AxisLink]) -> f64 {
        let chips: f64 = axes.iter().map(|a| a.size as f64).product();
        collective_cost(CollectiveKind::AllToAll, Bytes(chips * B), axes).unwrap().time.get()
    }

    fn close(got: f64, want: f64) -> bool {
        (got - want).abs() <= 1e-12 * want
    }

    /// Hand counts (per-chip shard `B`, one-way link `W`). A k-D torus with wraparound and
    /// even sides: cutting the largest axis `n` in half cuts `2·N/n` links, and
    /// `(N/2)·(N/2)·B/N = N·B/4` crosses each way, so `T = n·B/(8W)`. Without wraparound
    /// the cut has `N/n` links: `T = n·B/(4W)`. An odd side cuts ⌊n/2⌋⌈n/2⌉ of `n²`.
    #[test]
    fn multi_axis_alltoall_is_bisection_bound() {
        use AxisShape::{Line, Ring};
        let cases: [(&[u64], AxisShape, f64); 9] = [
            // 1D ring of 8: 8·B/(8W), as before (book footnote 6: a quarter of a gather).
            (&[8], Ring, 8.0 * B / (8.0 * W)),
            // 16×16 torus: 16·B/(8W) = 2.2 ms (adding the axes' rates gave 8× more).
            (&[16, 16], Ring, 16.0 * B / (8.0 * W)),
            // 4×4×4 torus: 4·B/(8W) (adding the rates gave 5.3× more).
            (&[4, 4, 4], Ring, 4.0 * B / (8.0 * W)),
            // 4×8 torus: the 8 axis binds, 8·B/(8W).
            (&[4, 8], Ring, 8.0 * B / (8.0 * W)),
            // 4×8 without wraparound: half the cut links, 8·B/(4W).
            (&[4, 8], Line, 8.0 * B / (4.0 * W)),
            // 16×16 without wraparound: 16·B/(4W).
            (&[16, 16], Line, 16.0 * B / (4.0 * W)),
            // 2×4×4 without wraparound (a v5p 2x4x4): 4·B/(4W).
            (&[2, 4, 4], Line, 4.0 * B / (4.0 * W)),
            // Odd sides: a 5×3 torus, ⌊5/2⌋⌈5/2⌉ = 6 of 25 pieces of the shard cross the
            // cut of the 5 axis each way over 2 links per ring: 6·B/(2·5·W).
            (&[5, 3], Ring, 6.0 * B / (10.0 * W)),
            // A 7×2 line: 3·4 = 12 of 49 cross one link per row: 12·B/(7·W).
            (&[7, 2], Line, 12.0 * B / (7.0 * W)),
        ];
        for (sizes, shape, want) in cases {
            let got = a2a(&torus(sizes, shape));
            assert!(close(got, want), "{sizes:?} {shape:?}: {got} s, hand count {want} s");
        }
        // Mixed: a 4 ring (4·B/8W = 0.5 B/W) beside an 8 line (8·B/4W = 2 B/W).
        let mut mixed = torus(&[4, 8], Ring);
        mixed[1].shape = Line;
        assert!(close(a2a(&mixed), 8.0 * B / (4.0 * W)));
        // A slower link on the smaller axis can bind: 4 ring at W/8 vs 16 ring at W.
        let mut slow = torus(&[4, 16], Ring);
        slow[0].link = BytesPerSec(W / 8.0);
        assert!(close(a2a(&slow), 4.0 * B / (8.0 * W / 8.0)));
        assert!(close(all_to_all_time(Bytes(B), &slow).get(), 4.0 * B / W));
    }

    /// Route every piece of a multi-axis AllToAll dimension by dimension (ties split
    /// evenly between the two ways round a ring) and count what crosses each directed
    /// link: the busiest link's bytes over `W` is the model's time.
    #[test]
    fn multi_axis_alltoall_matches_routing_every_piece() {
        fn route(load: &mut HashMapLoad, sizes: &[u64], wrap: bool, at: Vec<u64>, dst: &[u64], dim: usize, w: f64) {
            if dim == sizes.len() {
                return;
            }
            let n = sizes[dim];
            let (s, d) = (at[dim], dst[dim]);
            let go = |forward: bool, steps: u64, w: f64, load: &mut HashMapLoad| {
                let mut p = at.clone();
                for _ in 0..steps {
                    *load.entry((p.clone(), dim, forward)).or_insert(0.0) += w;
                    p[dim] = if forward { (p[dim] + 1) % n } else { (p[dim] + n - 1) % n };
                }
                route(load, sizes, wrap, p, dst, dim + 1, w);
            };
            if !wrap {
                if d >= s {
                    go(true, d - s, w, load);
                } else {
                    go(false, s - d, w, load);
                }
                return;
            }
            let up = (d + n - s) % n;
            if up == 0 {
                go(true, 0, w, load);
            } else if 2 * up == n {
                go(true, up, w / 2.0, load);
                go(false, up, w / 2.0, load);
            } else if 2 * up < n {
                go(true, up, w, load);
            } else {
                go(false, n - up, w, load);
            }
        }
        type HashMapLoad = std::collections::HashMap<(Vec<u64>, usize, bool), f64>;
        fn coords(sizes: &[u64]) -> Vec<Vec<u64>> {
            sizes.iter().fold(vec![vec![]], |acc, &n| {
                acc.into_iter().flat_map(|c| (0..n).map(move |i| [c.clone(), vec![i]].concat())).collect()
            })
        }
        let shapes: [&[u64]; 7] = [&[4, 4], &[4, 8], &[3, 5], &[6, 4], &[4, 4, 4], &[2, 3, 4], &[16, 16]];
        for sizes in shapes {
            for wrap in [true, false] {
                // Rings of 2 are lines (one link between the two chips).
                if wrap && sizes.contains(&2) {
                    continue;
                }
                let chips = coords(sizes);
                let piece = B / chips.len() as f64;
                let mut load = HashMapLoad::new();
                for s in &chips {
                    for d in &chips {
                        route(&mut load, sizes, wrap, s.clone(), d, 0, piece);
                    }
                }
                let busiest = load.values().copied().fold(0.0, f64::max);
                let shape = if wrap { AxisShape::Ring } else { AxisShape::Line };
                let got = a2a(&torus(sizes, shape));
                assert!(close(got, busiest / W), "{sizes:?} wrap={wrap}: model {got} s, routed {} s", busiest / W);
            }
        }
    }

    /// The unidirectional ring of book Exercise 3.10, by hand for 8 chips and a shard
    /// `B = V/8` per chip: a gather passes each of the 7 other shards over every link
    /// (`7B/W`), a ReduceScatter likewise, an AllReduce twice that, an AllToAll
    /// `1+2+…+7 = 28` pieces of `B/8` (`3.5·B/W`). Each pays 7 hops of latency (14 for the
    /// AllReduce).
    #[test]
    fn unidirectional_ring_by_hand() {
        let mut axes = torus(&[8], AxisShape::UnidirectionalRing);
        axes[0].hop_latency = Seconds(1e-6);
        let v = 8.0 * B;
        let hand = [
            (CollectiveKind::AllGather, 7.0 * B / W, 7),
            (CollectiveKind::ReduceScatter, 7.0 * B / W, 7),
            (CollectiveKind::AllReduce, 14.0 * B / W, 14),
            (CollectiveKind::AllToAll, 28.0 * (B / 8.0) / W, 7),
        ];
        for (kind, want, hops) in hand {
            let c = collective_cost(kind, Bytes(v), &axes).unwrap();
            assert!(close(c.bandwidth_time.get(), want), "{kind:?}: {:?} vs {want}", c.bandwidth_time);
            assert_eq!(c.axes[0].hops, hops, "{kind:?}");
            assert!(close(c.latency_floor.get(), hops as f64 * 1e-6), "{kind:?}");
            // Small arrays are latency-bound: 8 bytes cannot fill a microsecond of a link.
            let tiny = collective_cost(kind, Bytes(8.0), &axes).unwrap();
            assert_eq!(tiny.regime, Regime::Latency, "{kind:?}");
        }
        // A line of 8 is not a one-way ring for the AllToAll: its middle link carries 16
        // pieces of B/8 (2·B/W), not 28.
        let line = torus(&[8], AxisShape::Line);
        let c = collective_cost(CollectiveKind::AllToAll, Bytes(v), &line).unwrap();
        assert!(close(c.time.get(), 16.0 * (B / 8.0) / W));
        // Two one-way axes (8×4): the 8 axis binds at 28 pieces of B/8 per link.
        let two = torus(&[8, 4], AxisShape::UnidirectionalRing);
        assert!(close(a2a(&two), 28.0 * (B / 8.0) / W));
    }
}
