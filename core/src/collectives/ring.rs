//! How much of an array crosses the busiest link of one mesh axis, and in how many
//! hops (book 3.2 and 3.3.1), for each way an axis can be wired.
//!
//! `V` is always the full array of the collective (see [`super`]); a fraction `f`
//! means the busiest link carries `f·V` bytes in one direction.

use serde::{Deserialize, Serialize};

/// How the chips along one mesh axis are connected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AxisShape {
    /// A torus axis with its wraparound link: a bidirectional ring (book 3.2).
    Ring,
    /// A torus axis without wraparound (a slice smaller than the full axis): the end
    /// chips have one neighbour. Also the cost of a unidirectional ring.
    Line,
    /// Every chip reaches every other through a switch (NVLink, DCN); the link is the
    /// chip's whole egress.
    Switch,
    /// Every chip has its own direct link to every other (MI300X Infinity Fabric).
    FullMesh,
}

/// What moves: every shard to everyone (AllGather, ReduceScatter) or a different
/// piece to everyone (AllToAll).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// AllGather / ReduceScatter (AllReduce is two of these).
    Gather,
    /// AllToAll.
    AllToAll,
}

fn half_floor(n: u64) -> f64 {
    (n / 2) as f64
}

/// Bytes over the busiest link, one direction, as a fraction of the full array `V`
/// of an axis of `n` chips.
///
/// - Ring, gather: ⌊n/2⌋ steps of `V/n` (book: `V/W_bidi`, exactly for even `n`).
/// - Line, gather: `(n-1)/n` — the end chip receives everything through one link
///   (book Pop Quiz 2: 3 hops of the shard on a v5e axis of 4).
/// - Ring, AllToAll: `1/8` for even `n` (book footnote 6: a quarter of a gather);
///   `(n²-1)/(8n²)` for odd `n`.
/// - Line, AllToAll: ⌊n/2⌋⌈n/2⌉/n², the traffic crossing the middle link.
/// - Switch: a gather sends `(n-1)/n` out of each chip, an AllToAll `(n-1)/n²`.
/// - Full mesh: each peer link carries one shard `1/n` (gather) or `1/n²` (AllToAll).
///
/// A ring of 2 is a line: both neighbours are the same chip.
#[must_use]
pub fn busiest_link_fraction(pattern: Pattern, shape: AxisShape, n: u64) -> f64 {
    if n <= 1 {
        return 0.0;
    }
    let nf = n as f64;
    let shape = if shape == AxisShape::Ring && n == 2 { AxisShape::Line } else { shape };
    match (pattern, shape) {
        (Pattern::Gather, AxisShape::Ring) => half_floor(n) / nf,
        (Pattern::Gather, AxisShape::Line | AxisShape::Switch) => (nf - 1.0) / nf,
        (Pattern::Gather, AxisShape::FullMesh) => 1.0 / nf,
        (Pattern::AllToAll, AxisShape::Ring) => {
            if n.is_multiple_of(2) {
                0.125
            } else {
                (nf * nf - 1.0) / (8.0 * nf * nf)
            }
        }
        (Pattern::AllToAll, AxisShape::Line) => half_floor(n) * (nf - half_floor(n)) / (nf * nf),
        (Pattern::AllToAll, AxisShape::Switch) => (nf - 1.0) / (nf * nf),
        (Pattern::AllToAll, AxisShape::FullMesh) => 1.0 / (nf * nf),
    }
}

/// Sequential hops, each paying the per-hop latency: the farthest distance on a ring
/// (⌊n/2⌋, book 3.2 "|X|/2 hops") or a line (`n-1`); a switch runs a gather as a ring
/// of `n-1` steps and an AllToAll in one; a full mesh does either in one.
#[must_use]
pub fn hops(pattern: Pattern, shape: AxisShape, n: u64) -> u64 {
    if n <= 1 {
        return 0;
    }
    match (pattern, shape) {
        (_, AxisShape::Ring) => n / 2,
        (_, AxisShape::Line) | (Pattern::Gather, AxisShape::Switch) => n - 1,
        (Pattern::AllToAll, AxisShape::Switch) | (_, AxisShape::FullMesh) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alltoall_is_a_quarter_of_a_gather_on_even_rings() {
        for n in [4_u64, 8, 16, 32] {
            let g = busiest_link_fraction(Pattern::Gather, AxisShape::Ring, n);
            let a = busiest_link_fraction(Pattern::AllToAll, AxisShape::Ring, n);
            assert!((a / g - 0.25).abs() < 1e-12, "{n}");
        }
    }

    #[test]
    fn line_is_the_unidirectional_ring() {
        // Book 3.4: V/W · (N-1)/N for a unidirectional gather.
        assert!((busiest_link_fraction(Pattern::Gather, AxisShape::Line, 16) - 15.0 / 16.0).abs() < 1e-12);
        assert_eq!(hops(Pattern::Gather, AxisShape::Line, 4), 3);
        assert_eq!(hops(Pattern::Gather, AxisShape::Ring, 4), 2);
    }
}
