//! The summary table of book 3.4 ("Here's a summary"), as data a page can render.

use super::CollectiveKind;
use serde::{Deserialize, Serialize};

/// One row of the book's table of collective costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SummaryRow {
    /// The collective.
    pub kind: CollectiveKind,
    /// Display name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Sharding syntax.
    pub syntax: String,
    /// Runtime as the book writes it.
    pub runtime: String,
    /// Bandwidth-bound time on one bidirectional ring, in units of an AllGather of the
    /// same array (1, 1, 2, 1/4): what the test checks against the cost model. Over
    /// several axes the AllToAll is bisection-bound and its multiple smaller (see
    /// [`crate::collectives`]).
    pub multiple_of_all_gather: f64,
}

/// The table of book 3.4.
#[must_use]
pub fn collective_summary() -> Vec<SummaryRow> {
    let row = |kind, name: &str, description: &str, syntax: &str, runtime: &str, multiple| SummaryRow {
        kind,
        name: name.into(),
        description: description.into(),
        syntax: syntax.into(),
        runtime: runtime.into(),
        multiple_of_all_gather: multiple,
    };
    vec![
        row(
            CollectiveKind::AllGather,
            "AllGather",
            "Gathers all the shards of a sharded array along an axis, removing a subscript.",
            "[A_X, B] → [A, B]",
            "bytes / (bidirectional ICI bandwidth × num_axes)",
            1.0,
        ),
        row(
            CollectiveKind::ReduceScatter,
            "ReduceScatter",
            "Sums a partially summed array along an axis and shards it along another axis (adding a subscript).",
            "[A, B]{U_X} → [A_X, B]",
            "Same as AllGather",
            1.0,
        ),
        row(
            CollectiveKind::AllReduce,
            "AllReduce",
            "Sums a partially summed array along an axis. Removes a {U_X}. Combines an AllGather and ReduceScatter.",
            "[A_X, B]{U_Y} → [A_X, B]",
            "2 × AllGather",
            2.0,
        ),
        row(
            CollectiveKind::AllToAll,
            "AllToAll",
            "Gathers (replicates) an axis and shards a different dimension along the same axis.",
            "[A, B_X] → [A_X, B]",
            "AllGather / 4 for a bidirectional ring",
            0.25,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collectives::{collective_cost, AxisLink, AxisShape, Network, Regime};
    use crate::units::{Bytes, BytesPerSec, Seconds};

    /// Every row's multiple is what the cost model gives on a bidirectional ring, and
    /// the AllGather row is `bytes / (W_bidi × num_axes)`. On k rings of n the AllToAll
    /// is `n·(V/n^k)/(8W)` against the gather's `V/(2kW)`: a multiple of `k/(4·n^(k-1))`,
    /// the book's 1/4 for one ring and 1/32 for a 16×16 torus.
    #[test]
    fn table_matches_the_cost_model() {
        let axis = |name: &str| AxisLink {
            name: name.into(),
            size: 16,
            network: Network::ScaleUp,
            shape: AxisShape::Ring,
            link: BytesPerSec(4.5e10),
            hop_latency: Seconds(1e-6),
        };
        for axes in [vec![axis("x")], vec![axis("x"), axis("y")]] {
            let v = Bytes(1e9);
            let ag = collective_cost(CollectiveKind::AllGather, v, &axes).unwrap();
            let expected = v.get() / (9e10 * axes.len() as f64);
            assert!((ag.time.get() - expected).abs() < 1e-12 * expected);
            for row in collective_summary() {
                let c = collective_cost(row.kind, v, &axes).unwrap();
                assert_eq!(c.regime, Regime::Bandwidth);
                let ratio = c.time / ag.time;
                let k = axes.len() as f64;
                let multiple = if row.kind == CollectiveKind::AllToAll {
                    row.multiple_of_all_gather * k / 16f64.powf(k - 1.0)
                } else {
                    row.multiple_of_all_gather
                };
                assert!((ratio - multiple).abs() < 1e-12, "{}: {ratio}", row.name);
            }
        }
    }
}
