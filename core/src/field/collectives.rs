//! The fields of the collective queries (book chapter 3): per query, the collective, the
//! array size `V` and the topology axes it runs over; and adding and removing queries.

use super::input::{ItemField, List};
use super::{Choice, Kind, Options};
use crate::collectives::query::CollectiveQuery;
use crate::collectives::CollectiveKind;
use crate::scenario::Scenario;
use crate::text;

/// `collectives`.
pub static QUERIES: List<CollectiveQuery> =
    List { path: "collectives", items: |s| s.collectives.as_slice(), items_mut: |s| s.collectives.as_mut_slice() };

const KINDS: [(&str, &str); 4] = [
    ("all_gather", "AllGather"),
    ("reduce_scatter", "ReduceScatter"),
    ("all_reduce", "AllReduce"),
    ("all_to_all", "AllToAll"),
];

/// The id a collective has in the scenario (`all_gather`).
#[must_use]
pub fn kind_id(kind: CollectiveKind) -> &'static str {
    match kind {
        CollectiveKind::AllGather => "all_gather",
        CollectiveKind::ReduceScatter => "reduce_scatter",
        CollectiveKind::AllReduce => "all_reduce",
        CollectiveKind::AllToAll => "all_to_all",
    }
}

/// The topology's axis names.
fn axis_names(s: &Scenario) -> Vec<Choice> {
    let axes = s.hardware.iter().flat_map(|h| h.topology.iter()).flat_map(|t| t.axes.iter());
    axes.map(|a| Choice { value: a.name.clone(), label: format!("over {}", a.name), group: "" }).collect()
}

/// The fields of every query.
pub static QUERY_FIELDS: [ItemField<CollectiveQuery>; 3] = [
    ItemField::new(
        &QUERIES,
        "kind",
        "Collective",
        Kind::Choice {
            options: Options::Fixed(&KINDS),
            get: |q| kind_id(q.kind).into(),
            set: |q, v| {
                q.kind = CollectiveKind::ALL
                    .into_iter()
                    .find(|k| kind_id(*k) == v)
                    .ok_or_else(|| format!("unknown collective {v:?}"))?;
                Ok(())
            },
        },
    ),
    ItemField::new(
        &QUERIES,
        "array_bytes",
        "Array size V",
        Kind::Text {
            mode: super::InputMode::Text,
            get: |q| text::bytes_text(q.array_bytes),
            set: |q, t| {
                q.array_bytes = text::bytes(t)?;
                Ok(())
            },
        },
    )
    .unit("bytes (B, kB, MB, GB, KiB, MiB, GiB)")
    .hint("The full array: gathered on one chip (AllGather), the unreduced input (ReduceScatter), the array (AllReduce), the per-chip shard × the axis sizes (AllToAll)"),
    ItemField::new(
        &QUERIES,
        "axes",
        "Over the axes",
        Kind::Subset {
            options: Options::Computed(axis_names),
            get: |q| q.axes.clone(),
            set: |q, axes| {
                q.axes = axes;
                Ok(())
            },
        },
    ),
];

/// Adds a query: a copy of the last one, or 32 MiB gathered over the topology's first axis.
pub fn add_query(s: &mut Scenario) {
    let first = s.hardware.as_ref().and_then(|h| h.topology.as_ref()).and_then(|t| t.axes.first());
    let next = s.collectives.last().cloned().unwrap_or(CollectiveQuery {
        kind: CollectiveKind::AllGather,
        array_bytes: 33_554_432.0,
        axes: first.map(|a| a.name.clone()).into_iter().collect(),
    });
    s.collectives.push(next);
}

/// Removes query `i` (nothing when there is none).
pub fn remove_query(s: &mut Scenario, i: usize) {
    if i < s.collectives.len() {
        s.collectives.remove(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::apply;

    #[test]
    fn a_query_is_edited_field_by_field() {
        let mut s = crate::view::hardware::with_defaults(&Scenario::default());
        add_query(&mut s);
        assert_eq!(s.collectives.len(), 3);
        apply(&mut s, "collectives[2].array_bytes", "1GB").unwrap();
        apply(&mut s, "collectives[2].kind", "all_to_all").unwrap();
        apply(&mut s, "collectives[2].axes", "x, y").unwrap();
        assert_eq!(s.collectives[2].array_bytes, 1e9);
        assert_eq!(
            (s.collectives[2].kind, s.collectives[2].axes.clone()),
            (CollectiveKind::AllToAll, vec!["x".into(), "y".into()])
        );
        assert!(s.validate().is_ok());
        assert!(apply(&mut s, "collectives[2].array_bytes", "12 parsecs")
            .unwrap_err()
            .message
            .contains("unknown unit"));
        // No axis at all is refused by validation, at the query's axes.
        apply(&mut s, "collectives[0].axes", "").unwrap();
        let e = s.validate().unwrap_err();
        assert!(e.0.iter().any(|e| e.field == "collectives[0].axes" && e.message.contains("at least one axis")), "{e}");
        remove_query(&mut s, 2);
        remove_query(&mut s, 9);
        assert_eq!(s.collectives.len(), 2);
    }
}
