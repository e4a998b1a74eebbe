//! The answered collective queries (time, regime, bytes per link, latency floor, bandwidth
//! time), the chart of collective time against array size, and chapter 3's summary table.

use leptos::prelude::*;
use shardcalc_charts::catalog::query_points;
use shardcalc_charts::collective_times_chart;
use shardcalc_core::collectives::summary::collective_summary;
use shardcalc_core::collectives::{AxisLink, CollectiveKind};

use super::derived::Derived;
use super::tables;
use super::units::bytes;
use crate::components::{DataTable, Figure, RowIds, SceneChart};

/// `#collectives-table` (rows `#collective-result-<i>`) or `#collectives-error`, the chart
/// `#chart-collective-times`, and `#collective-summary-table`, with their exports.
#[component]
pub fn CollectivesSection(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let reports = derived.collectives;
    let table = Memo::new(move |_| reports.with(|r| r.as_ref().map(|r| tables::collectives(r)).unwrap_or_default()));
    let error = move || super::problem("collectives-error", reports.with(|r| r.as_ref().err().cloned()));
    let figure = Memo::new(move |_| {
        derived.resolved.with(|r| {
            let hw = r.as_ref().ok()?;
            let points = reports.with(|r| r.as_ref().map(|r| query_points(r)).unwrap_or_default());
            let c = collective_times_chart(&hw.chip.name, &hw.axes, &points);
            let knees: Vec<String> = c
                .lines
                .iter()
                .filter(|l| l.kind == CollectiveKind::AllGather)
                .filter_map(|l| Some(format!("over {} at {}", c.axis_sets.get(l.set)?, bytes(l.knee?.0))))
                .collect();
            let floor = if knees.is_empty() {
                "No hop latency is published for these links, so there is no latency floor.".to_string()
            } else {
                format!("The latency floor (hops × per-hop latency) ends, for an AllGather, {}.", knees.join(", "))
            };
            let caption = format!("Log-log; dots mark where the latency floor ends, rings are your collectives. {floor} Each set of axes nests inner networks first (book 3.2, 5.1.6).");
            Some(Figure { scene: c.scene(), caption })
        })
    });
    // The array and axes of the summary's "here" column: the first query's, else 32 MiB
    // over the first axis.
    let summary = Memo::new(move |_| {
        derived.resolved.with(|r| {
            let probe = r.as_ref().ok().map(|hw| {
                let (v, names) = derived.queries.with(|q| {
                    q.first().map_or_else(
                        || (33_554_432.0, hw.axes.first().map(|a| vec![a.name.clone()]).unwrap_or_default()),
                        |q| (q.array_bytes, q.axes.clone()),
                    )
                });
                let axes: Vec<AxisLink> = hw.axes.iter().filter(|a| names.contains(&a.name)).cloned().collect();
                (v, names.join(" + "), axes)
            });
            tables::summary(&collective_summary(), probe.as_ref())
        })
    });
    view! {
        <section class="result-section" aria-labelledby="collectives-heading">
            <h3 id="collectives-heading">"Collectives"</h3>
            {error}
            <DataTable
                id="collectives-table"
                table=table
                caption="Your collectives on this topology: time = max(latency floor, bandwidth time) per network, summed"
                row_headers=true
                row_ids=RowIds { key: None, prefix: "collective-result-" }
                exports="collectives"
            />
            <SceneChart id="chart-collective-times" figure=figure />
            <h4>"Summary of collective costs (book 3.4)"</h4>
            <DataTable
                id="collective-summary-table"
                table=summary
                caption="The book's table; “×AllGather” is the bandwidth-bound cost on a bidirectional ring, checked against the cost model"
                row_headers=true
                exports="collective-summary"
            />
        </section>
    }
}
