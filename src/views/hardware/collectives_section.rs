//! The answered collective queries (time, regime, bytes per link, latency floor, bandwidth
//! time), the chart of collective time against array size, and chapter 3's summary table.

use leptos::prelude::*;
use shardcalc_charts::catalog::query_points;
use shardcalc_charts::collective_times_chart;
use shardcalc_charts::format::significant;
use shardcalc_core::collectives::summary::collective_summary;
use shardcalc_core::collectives::{collective_cost, AxisLink, CollectiveKind, Regime};
use shardcalc_core::report_hardware::CollectiveReport;
use shardcalc_core::units::Bytes;

use super::collective_kinds::kind_name;
use super::derived::Derived;
use super::units::{bytes, seconds};
use super::{csv, html};
use crate::components::{Figure, SceneChart, TableExports};

/// Display name of a regime.
#[must_use]
pub fn regime_name(r: Regime) -> &'static str {
    match r {
        Regime::None => "nothing moves",
        Regime::Latency => "latency-bound",
        Regime::Bandwidth => "bandwidth-bound",
        Regime::Mixed => "mixed",
    }
}

/// The answered collectives as an HTML table.
#[must_use]
pub fn collectives_html(reports: &[CollectiveReport]) -> String {
    let rows: Vec<html::Row> = reports
        .iter()
        .enumerate()
        .map(|(i, c)| {
            html::row(
                format!("{}. {}", i + 1, kind_name(c.kind)),
                vec![
                    html::text(c.axes.join(" + ")),
                    html::num(bytes(c.array_bytes.get())),
                    html::raw(format!("<strong>{}</strong>", html::escape(&seconds(c.time_s.get())))),
                    html::text(regime_name(c.regime)),
                    html::num(bytes(c.bytes_per_link.get())),
                    html::num(seconds(c.latency_floor_s.get())),
                    html::num(seconds(c.bandwidth_time_s.get())),
                ],
            )
            .id(format!("collective-result-{i}"))
        })
        .collect();
    html::table(
        "collectives-table",
        "Your collectives on this topology: time = max(latency floor, bandwidth time) per network, summed",
        &[
            "Collective",
            "Axes",
            "#V",
            "#Time",
            "Regime",
            "#Bytes per link (one way)",
            "#Latency floor",
            "#Bandwidth time",
        ],
        &rows,
    )
}

/// Chapter 3's summary of collective costs (book 3.4) as an HTML table, with each row's
/// time for `probe` = (V, axes label, axes) on this topology.
#[must_use]
pub fn summary_html(probe: Option<&(f64, String, Vec<AxisLink>)>) -> String {
    let here = probe.map_or_else(String::new, |(v, names, _)| format!("Here: V = {} over {names}", bytes(*v)));
    let rows: Vec<html::Row> = collective_summary()
        .into_iter()
        .map(|row| {
            let time = probe
                .and_then(|(v, _, axes)| collective_cost(row.kind, Bytes(*v), axes).ok())
                .map(|c| format!("{} ({})", seconds(c.time.get()), regime_name(c.regime)))
                .unwrap_or_default();
            html::row(
                row.name.clone(),
                vec![
                    html::text(row.description.clone()),
                    html::raw(format!("<code>{}</code>", html::escape(&row.syntax))),
                    html::text(row.runtime.clone()),
                    html::num(significant(row.multiple_of_all_gather, 3)),
                    html::num(time),
                ],
            )
        })
        .collect();
    let mut out = String::from("<h4>Summary of collective costs (book 3.4)</h4>");
    out += &html::table(
        "collective-summary-table",
        "The book's table; “×AllGather” is the bandwidth-bound cost on a bidirectional ring, checked against the cost model",
        &["Operation", "Description", "Syntax", "Runtime", "#×AllGather", &format!("#{here}")],
        &rows,
    );
    out
}

/// Results table, chart and the summary table.
#[component]
pub fn CollectivesSection(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let reports = derived.collectives;
    let body = move || {
        reports.with(|r| match r {
            Ok(r) => collectives_html(r),
            Err(e) => format!("<p class=\"field-error\" id=\"collectives-error\">{}</p>", html::escape(e)),
        })
    };
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
    let summary = move || {
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
            summary_html(probe.as_ref())
        })
    };
    let csv_text =
        Signal::derive(move || reports.with(|r| r.as_ref().map(|r| csv::collectives(r)).unwrap_or_default()));
    let summary_csv = Signal::derive(move || csv::summary(&collective_summary()));
    view! {
        <section class="result-section" aria-labelledby="collectives-heading">
            <h3 id="collectives-heading">"Collectives"</h3>
            <div inner_html=body></div>
            <div class="actions"><TableExports name="collectives" table=csv_text /></div>
            <SceneChart id="chart-collective-times" figure=figure />
            <div inner_html=summary></div>
            <div class="actions"><TableExports name="collective-summary" table=summary_csv /></div>
        </section>
    }
}
