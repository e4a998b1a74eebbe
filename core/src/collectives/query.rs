//! The collectives a scenario asks about (the hardware page's questions, book chapter 3):
//! each a collective of an array over named topology axes, checked against the topology,
//! and kept on it when the topology changes.

use super::CollectiveKind;
use crate::error::Checker;
use crate::hardware::topology::Topology;
use serde::{Deserialize, Serialize};

/// One entry of `collectives`: a collective of the full array `array_bytes` (see
/// `shardcalc_core::collectives` for which array that is) over named topology axes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CollectiveQuery {
    /// `all_gather`, `reduce_scatter`, `all_reduce` or `all_to_all`.
    pub kind: CollectiveKind,
    /// `V` in bytes.
    pub array_bytes: f64,
    /// Names of topology axes.
    pub axes: Vec<String>,
}

/// Checks `queries` against `topology` (problems to `c`, paths relative to the scenario:
/// `collectives[0].axes[1]`): sizes in range, at least one axis each, every axis the
/// topology's and none twice.
pub fn check(queries: &[CollectiveQuery], topology: Option<&Topology>, c: &mut Checker) {
    for (i, q) in queries.iter().enumerate() {
        c.range_f64(&format!("collectives[{i}].array_bytes"), q.array_bytes, 0.0, crate::hardware::MAX_QUANTITY);
        c.ensure(!q.axes.is_empty(), &format!("collectives[{i}].axes"), || "must name at least one axis".into());
        for (j, name) in q.axes.iter().enumerate() {
            let known = topology.is_some_and(|t| t.axes.iter().any(|a| &a.name == name));
            c.ensure(known || topology.is_none(), &format!("collectives[{i}].axes[{j}]"), || {
                format!("no topology axis is named {name:?}")
            });
            c.ensure(!q.axes[..j].contains(name), &format!("collectives[{i}].axes[{j}]"), || {
                format!("axis {name:?} is listed twice")
            });
        }
    }
}

/// Collective queries follow a new topology: axes it no longer has are dropped, and a query
/// left without axes runs over the first axis (so a new shape or chip is never refused because
/// of a query the user can fix afterwards).
pub fn keep_collectives_on(queries: &mut [CollectiveQuery], topology: Option<&Topology>) {
    let Some(t) = topology else { return };
    for q in queries {
        q.axes.retain(|name| t.axes.iter().any(|a| &a.name == name));
        if q.axes.is_empty() {
            q.axes.extend(t.axes.first().map(|a| a.name.clone()));
        }
    }
}
