//! The four collectives' names: as the page shows them and as the scenario's JSON writes them.

use shardcalc_core::collectives::CollectiveKind;

/// Display name of a collective.
#[must_use]
pub fn kind_name(kind: CollectiveKind) -> &'static str {
    match kind {
        CollectiveKind::AllGather => "AllGather",
        CollectiveKind::ReduceScatter => "ReduceScatter",
        CollectiveKind::AllReduce => "AllReduce",
        CollectiveKind::AllToAll => "AllToAll",
    }
}

/// The id serde gives a collective (`all_gather`), used as the drop-down's values.
#[must_use]
pub fn kind_id(kind: CollectiveKind) -> &'static str {
    match kind {
        CollectiveKind::AllGather => "all_gather",
        CollectiveKind::ReduceScatter => "reduce_scatter",
        CollectiveKind::AllReduce => "all_reduce",
        CollectiveKind::AllToAll => "all_to_all",
    }
}
