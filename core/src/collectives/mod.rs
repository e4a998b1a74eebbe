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
//! once and their bandwidths add (book 3.2 "multiple axes": `V / (W · n_axes)`); the
//! time is `max(latency floor, bandwidth time)` with the floor = hops × per-hop
//! latency summed over the axes (book: `max(T_min·Σ|X_i|/2, V/(W·n_axes))`).
//! Networks nest hierarchically, inner first: a ReduceScatter inside the scale-up
//! domain shrinks what crosses the scale-out network (an AllReduce over ICI × DCN is
//! ReduceScatter(ICI, V) + AllReduce(DCN, V/|ICI|) + AllGather(ICI, V)).

pub mod ring;
pub mod summary;

use crate::error::{Checker, Invalid};
use crate::units::{Bytes, BytesPerSec, Seconds};
pub use ring::{AxisShape, Pattern};
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
    /// `[A, B_X] → [A_X, B]`: a quarter of an AllGather on a bidirectional ring.
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

/// Which network an axis runs over; collectives nest inner to outer in this order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Network {
    /// Between the chiplets of one package (Ironwood die-to-die).
    DieToDie,
    /// ICI, NVLink, Infinity Fabric.
    #[default]
    ScaleUp,
    /// DCN, InfiniBand, Ethernet.
    ScaleOut,
}
crate::serde_names::deserialize_by_name!(Network { DieToDie => "die_to_die", ScaleUp => "scale_up", ScaleOut => "scale_out" });

/// One mesh axis as the cost model sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AxisLink {
    /// Mesh axis name (`x`, `fsdp`, `dcn`, ...).
    pub name: String,
    /// Chips along the axis.
    pub size: u64,
    /// Network the axis runs over.
    pub network: Network,
    /// Ring, line, switch or full mesh.
    pub shape: AxisShape,
    /// One-way bytes per second of one link along the axis (one ICI link; a GPU's
    /// whole NVLink or NIC egress on a switch; one peer link on a full mesh).
    pub link: BytesPerSec,
    /// Fixed cost of one hop.
    pub hop_latency: Seconds,
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

/// Largest axis size accepted.
pub const MAX_AXIS_SIZE: u64 = 1 << 30;

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
    let torus = group.iter().all(|a| matches!(a.shape, AxisShape::Ring | AxisShape::Line));
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

/// Cost of `kind` over `axes` for the full array `V = array_bytes` (book 3.2–3.4).
///
/// # Errors
/// Non-finite or negative sizes, bandwidths or latencies, named by field
/// (`array_bytes`, `axes[1].link`, ...).
pub fn collective_cost(kind: CollectiveKind, array_bytes: Bytes, axes: &[AxisLink]) -> Result<CollectiveCost, Invalid> {
    validate(array_bytes, axes)?;
    let (pattern, passes) = kind.pattern_and_passes();
    let mut networks: Vec<Network> = axes.iter().map(|a| a.network).collect();
    networks.sort_unstable();
    networks.dedup();
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
        let mut rate = 0.0;
        let mut latency = Seconds::ZERO;
        for a in group {
            let f = passes as f64 * ring::busiest_link_fraction(pattern, a.shape, a.size);
            if f > 0.0 {
                rate += a.link.get() / f;
            }
            latency += a.hop_latency * (passes * ring::hops(pattern, a.shape, a.size)) as f64;
        }
        let bandwidth = if rate > 0.0 { Seconds(v.get() / rate) } else { Seconds::ZERO };
        for a in group {
            let hops = passes * ring::hops(pattern, a.shape, a.size);
            let bytes = if hops > 0 { a.link * bandwidth } else { Bytes::ZERO };
            cost.bytes_per_link = cost.bytes_per_link.max(bytes);
            cost.axes.push(AxisTraffic { axis: a.name.clone(), bytes_per_link: bytes, hops });
        }
        if rate > 0.0 {
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
