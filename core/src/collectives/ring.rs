//! How much of an array crosses the busiest link of one mesh axis, and in how many
//! hops (book 3.2 and 3.3.1), for each way an axis can be wired.
//!
//! `V` is always the full array of the collective (see [`super`]); a fraction `f`
//! means the busiest link carries `f·V` bytes in one direction.

pub use crate::hardware::axis::AxisShape;

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
/// of an axis of `n` chips (`V = n·B` for a shard `B` per chip).
///
/// - Ring, gather: ⌊n/2⌋ steps of `V/n` (book: `V/W_bidi`, exactly for even `n`).
/// - Line or unidirectional ring, gather: `(n-1)/n` — the end chip receives everything
///   through one link (book Pop Quiz 2: 3 hops of the shard on a v5e axis of 4), and a
///   one-way ring passes every shard `n-1` times (book 3.4: `V/W · (N-1)/N`).
/// - Ring, AllToAll: `1/8` for even `n` (book footnote 6: a quarter of a gather);
///   `(n²-1)/(8n²)` for odd `n`. Both are ⌊n/2⌋⌈n/2⌉/(2n²): the bisection cut of a
///   ring crosses two links, and `⌊n/2⌋·⌈n/2⌉` pieces of `V/n²` cross it each way.
/// - Line, AllToAll: ⌊n/2⌋⌈n/2⌉/n², the traffic crossing the middle link (one link).
/// - Unidirectional ring, AllToAll: `(n-1)/(2n)` (book Solution 3.10 b: the pieces
///   travel 1, 2, …, n-1 hops, `n(n-1)/2` pieces of `V/n²` over each link), half a
///   gather. Not a line: a line of even `n` carries `1/4`, less than `(n-1)/(2n)`.
/// - Switch: a gather sends `(n-1)/n` out of each chip, an AllToAll `(n-1)/n²`.
/// - Full mesh: each peer link carries one shard `1/n` (gather) or `1/n²` (AllToAll).
///
/// A bidirectional ring of 2 is a line: both neighbours are the same chip.
#[must_use]
pub fn busiest_link_fraction(pattern: Pattern, shape: AxisShape, n: u64) -> f64 {
    if n <= 1 {
        return 0.0;
    }
    let nf = n as f64;
    let shape = if shape == AxisShape::Ring && n == 2 { AxisShape::Line } else { shape };
    // Pieces of V/n² crossing the middle of the axis each way: ⌊n/2⌋·⌈n/2⌉.
    let bisection = half_floor(n) * (nf - half_floor(n)) / (nf * nf);
    match (pattern, shape) {
        (Pattern::Gather, AxisShape::Ring) => half_floor(n) / nf,
        (Pattern::Gather, AxisShape::Line | AxisShape::UnidirectionalRing | AxisShape::Switch) => (nf - 1.0) / nf,
        (Pattern::Gather, AxisShape::FullMesh) => 1.0 / nf,
        (Pattern::AllToAll, AxisShape::Ring) => bisection / 2.0,
        (Pattern::AllToAll, AxisShape::Line) => bisection,
        (Pattern::AllToAll, AxisShape::UnidirectionalRing) => (nf - 1.0) / (2.0 * nf),
        (Pattern::AllToAll, AxisShape::Switch) => (nf - 1.0) / (nf * nf),
        (Pattern::AllToAll, AxisShape::FullMesh) => 1.0 / (nf * nf),
    }
}

/// Sequential hops, each paying the per-hop latency: the farthest distance on a ring
/// (⌊n/2⌋, book 3.2 "|X|/2 hops"), a line or a unidirectional ring (`n-1`); a switch
/// runs a gather as a ring of `n-1` steps and an AllToAll in one; a full mesh does
/// either in one.
#[must_use]
pub fn hops(pattern: Pattern, shape: AxisShape, n: u64) -> u64 {
    if n <= 1 {
        return 0;
    }
    match (pattern, shape) {
        (_, AxisShape::Ring) => n / 2,
        (_, AxisShape::Line | AxisShape::UnidirectionalRing) | (Pattern::Gather, AxisShape::Switch) => n - 1,
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
    fn all_lists_every_shape_at_its_ordinal() {
        // `training::placement` keys its cache on `shape as u8` and reads it back from ALL.
        for (i, s) in AxisShape::ALL.iter().enumerate() {
            assert_eq!(*s as usize, i);
        }
    }

    #[test]
    fn a_line_costs_a_unidirectional_ring_for_gathers_only() {
        // Book 3.4: V/W · (N-1)/N for a unidirectional gather, and a line's end link too.
        for shape in [AxisShape::Line, AxisShape::UnidirectionalRing] {
            assert!((busiest_link_fraction(Pattern::Gather, shape, 16) - 15.0 / 16.0).abs() < 1e-12);
            assert_eq!(hops(Pattern::Gather, shape, 4), 3);
        }
        assert_eq!(hops(Pattern::Gather, AxisShape::Ring, 4), 2);
        // AllToAll on 8 chips: a line's middle link carries 4·4 pieces of V/64 = V/4; a
        // one-way ring's every link 1+2+…+7 = 28 pieces = 7V/16 (book Solution 3.10 b).
        assert!((busiest_link_fraction(Pattern::AllToAll, AxisShape::Line, 8) - 16.0 / 64.0).abs() < 1e-12);
        assert!(
            (busiest_link_fraction(Pattern::AllToAll, AxisShape::UnidirectionalRing, 8) - 28.0 / 64.0).abs() < 1e-12
        );
    }

    /// Book Solution 3.10: on a one-way ring an AllToAll is half a gather; adding the other
    /// direction wins 2× for the gather and 4× for the AllToAll (in the large-D limit; exactly
    /// for D ≡ 0 mod 2, up to the (D-1)/D and D/(D-1) factors).
    #[test]
    fn exercise_3_10_ratios() {
        for n in [4_u64, 8, 16, 64] {
            let f = |p, s| busiest_link_fraction(p, s, n);
            let uni_ratio =
                f(Pattern::AllToAll, AxisShape::UnidirectionalRing) / f(Pattern::Gather, AxisShape::UnidirectionalRing);
            assert!((uni_ratio - 0.5).abs() < 1e-12, "{n}");
            let gather_win = f(Pattern::Gather, AxisShape::UnidirectionalRing) / f(Pattern::Gather, AxisShape::Ring);
            let a2a_win = f(Pattern::AllToAll, AxisShape::UnidirectionalRing) / f(Pattern::AllToAll, AxisShape::Ring);
            let nf = n as f64;
            assert!((gather_win - 2.0 * (nf - 1.0) / nf).abs() < 1e-12, "{n}");
            assert!((a2a_win - 4.0 * (nf - 1.0) / nf).abs() < 1e-12, "{n}");
        }
    }

    /// Route every piece of one axis by hand and count what crosses each directed link: the
    /// fractions above are the busiest link's count, for every shape and size up to 13.
    #[test]
    fn fractions_match_a_count_of_every_piece() {
        // Directed links: (from, +1) as index 2·i, (from, -1) as 2·i+1.
        fn walk(load: &mut [f64], n: usize, from: usize, steps: usize, forward: bool, weight: f64) {
            let mut at = from;
            for _ in 0..steps {
                load[2 * at + usize::from(!forward)] += weight;
                at = if forward { (at + 1) % n } else { (at + n - 1) % n };
            }
        }
        for n in 2..=13_usize {
            let piece = 1.0 / (n * n) as f64; // an AllToAll piece, V/n²
            let shard = 1.0 / n as f64; // a gather shard, V/n
            for shape in [AxisShape::Ring, AxisShape::Line, AxisShape::UnidirectionalRing] {
                let (mut a2a, mut gather) = (vec![0.0; 2 * n], vec![0.0; 2 * n]);
                for s in 0..n {
                    for d in (0..n).filter(|&d| d != s) {
                        let up = (d + n - s) % n; // hops going +1
                        match shape {
                            AxisShape::UnidirectionalRing => walk(&mut a2a, n, s, up, true, piece),
                            AxisShape::Line if d > s => walk(&mut a2a, n, s, d - s, true, piece),
                            AxisShape::Line => walk(&mut a2a, n, s, s - d, false, piece),
                            _ if n == 2 || 2 * up == n => {
                                // Ties (and a ring of 2, whose two links are one) split evenly.
                                walk(&mut a2a, n, s, up, true, piece / 2.0);
                                walk(&mut a2a, n, s, n - up, false, piece / 2.0);
                            }
                            _ if 2 * up < n => walk(&mut a2a, n, s, up, true, piece),
                            _ => walk(&mut a2a, n, s, n - up, false, piece),
                        }
                    }
                    // A gather forwards each shard to every chip once: both ways along a line,
                    // once round a one-way ring, halfway each way round a ring.
                    match shape {
                        AxisShape::UnidirectionalRing => walk(&mut gather, n, s, n - 1, true, shard),
                        AxisShape::Line => {
                            walk(&mut gather, n, s, n - 1 - s, true, shard);
                            walk(&mut gather, n, s, s, false, shard);
                        }
                        _ if n == 2 => {
                            walk(&mut gather, n, s, 1, true, shard / 2.0);
                            walk(&mut gather, n, s, 1, false, shard / 2.0);
                        }
                        _ => {
                            walk(&mut gather, n, s, n / 2, true, shard);
                            walk(&mut gather, n, s, (n - 1) / 2, false, shard);
                        }
                    }
                }
                let busiest = |load: &[f64]| load.iter().copied().fold(0.0, f64::max);
                // A ring of 2 is one bidirectional link: what its two "directions" carry is one link's.
                let two = if shape == AxisShape::Ring && n == 2 { 2.0 } else { 1.0 };
                let (a, g) = (busiest(&a2a) * two, busiest(&gather) * two);
                let n = n as u64;
                assert!((a - busiest_link_fraction(Pattern::AllToAll, shape, n)).abs() < 1e-12, "{shape:?} {n}: {a}");
                assert!((g - busiest_link_fraction(Pattern::Gather, shape, n)).abs() < 1e-12, "{shape:?} {n}: {g}");
            }
        }
    }
}
