//! The answered collective queries (time, regime, bytes per link, latency floor, bandwidth
//! time), the chart of collective time against array size, and chapter 3's summary table.

use leptos::prelude::*;
use shardcalc_charts::catalog::query_points;
use shardcalc_charts::format::significant;
use shardcalc_charts::{collective_times_chart, Chart};
use shardcalc_core::collectives::summary::collective_summary;
use shardcalc_core::collectives::{collective_cost, Regime};
use shardcalc_core::units::Bytes;

use super::collective_inputs::kind_name;
use super::csv;
use super::derived::Derived;
use super::units::{bytes, seconds};
use crate::components::{ChartCanvas, CsvButton};

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

/// Results table and chart.
#[component]
pub fn CollectivesSection(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let reports = derived.collectives;
    let rows = move || {
        reports.with(|r| {
            let r = r.as_ref().ok()?;
            Some(
                r.iter()
                    .enumerate()
                    .map(|(i, c)| {
                        view! {
                            <tr id=format!("collective-result-{i}")>
                                <th scope="row">{format!("{}. {}", i + 1, kind_name(c.kind))}</th>
                                <td>{c.axes.join(" + ")}</td>
                                <td class="num">{bytes(c.array_bytes.get())}</td>
                                <td class="num time"><strong>{seconds(c.time_s.get())}</strong></td>
                                <td class="regime">{regime_name(c.regime)}</td>
                                <td class="num">{bytes(c.bytes_per_link.get())}</td>
                                <td class="num">{seconds(c.latency_floor_s.get())}</td>
                                <td class="num">{seconds(c.bandwidth_time_s.get())}</td>
                            </tr>
                        }
                    })
                    .collect_view(),
            )
        })
    };
    let error = move || reports.with(|r| r.as_ref().err().cloned());
    let chart = Memo::new(move |_| {
        derived.resolved.with(|r| {
            let hw = r.as_ref().ok()?;
            let points = reports.with(|r| r.as_ref().map(|r| query_points(r)).unwrap_or_default());
            Some(Chart::CollectiveTimes(collective_times_chart(&hw.chip.name, &hw.axes, &points)))
        })
    });
    let caption = Signal::derive(move || {
        chart.with(|c| match c {
            Some(Chart::CollectiveTimes(c)) => {
                let knees: Vec<String> = c
                    .lines
                    .iter()
                    .filter(|l| l.kind == shardcalc_core::collectives::CollectiveKind::AllGather)
                    .filter_map(|l| Some(format!("over {} at {}", c.axis_sets.get(l.set)?, bytes(l.knee?.0))))
                    .collect();
                let floor = if knees.is_empty() {
                    "No hop latency is published for these links, so there is no latency floor.".to_string()
                } else {
                    format!("The latency floor (hops × per-hop latency) ends, for an AllGather, {}.", knees.join(", "))
                };
                format!("Log-log; dots mark where the latency floor ends, rings are your collectives. {floor} Each set of axes nests inner networks first (book 3.2, 5.1.6).")
            }
            _ => String::new(),
        })
    });
    let csv_text = Signal::derive(move || reports.with(|r| r.as_ref().map(|r| csv::collectives(r)).unwrap_or_default()));
    view! {
        <section class="result-section" aria-labelledby="collectives-heading">
            <h3 id="collectives-heading">"Collectives"</h3>
            <p class="field-error" id="collectives-error">{error}</p>
            <div class="table-wrap">
                <table id="collectives-table">
                    <caption>"Your collectives on this topology: time = max(latency floor, bandwidth time) per network, summed"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Collective"</th>
                            <th scope="col">"Axes"</th>
                            <th scope="col" class="num">"V"</th>
                            <th scope="col" class="num">"Time"</th>
                            <th scope="col">"Regime"</th>
                            <th scope="col" class="num">"Bytes per link (one way)"</th>
                            <th scope="col" class="num">"Latency floor"</th>
                            <th scope="col" class="num">"Bandwidth time"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <div class="actions"><CsvButton name="collectives" csv=csv_text /></div>
            <ChartCanvas id="chart-collective-times" chart=chart caption=caption />
            <SummaryTable derived=derived />
        </section>
    }
}

/// Chapter 3's summary of collective costs (book 3.4), with each row's time on this
/// topology for the first query's array and axes.
#[component]
fn SummaryTable(derived: Derived) -> impl IntoView {
    // The array and axes the "here" column uses: the first query's, else 32 MiB over the first axis.
    let probe = Memo::new(move |_| {
        derived.resolved.with(|r| {
            let hw = r.as_ref().ok()?;
            let (v, names) = derived.queries.with(|q| {
                q.first().map_or_else(|| (33_554_432.0, hw.axes.first().map(|a| vec![a.name.clone()]).unwrap_or_default()), |q| (q.array_bytes, q.axes.clone()))
            });
            let axes: Vec<_> = hw.axes.iter().filter(|a| names.contains(&a.name)).cloned().collect();
            Some((v, names.join(" + "), axes))
        })
    });
    let rows = move || {
        let probe = probe.get();
        collective_summary()
            .into_iter()
            .map(|row| {
                let here = probe.as_ref().and_then(|(v, _, axes)| collective_cost(row.kind, Bytes(*v), axes).ok());
                view! {
                    <tr>
                        <th scope="row">{row.name.clone()}</th>
                        <td>{row.description.clone()}</td>
                        <td><code>{row.syntax.clone()}</code></td>
                        <td>{row.runtime.clone()}</td>
                        <td class="num">{significant(row.multiple_of_all_gather, 3)}</td>
                        <td class="num">{here.map(|c| format!("{} ({})", seconds(c.time.get()), regime_name(c.regime)))}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    let here_label = move || probe.with(|p| p.as_ref().map(|(v, names, _)| format!("Here: V = {} over {names}", bytes(*v))).unwrap_or_default());
    let csv_text = Signal::derive(move || csv::summary(&collective_summary()));
    view! {
        <h4>"Summary of collective costs (book 3.4)"</h4>
        <div class="table-wrap">
            <table id="collective-summary-table">
                <caption>"The book's table; “×AllGather” is the bandwidth-bound cost on a bidirectional ring, checked against the cost model"</caption>
                <thead>
                    <tr>
                        <th scope="col">"Operation"</th>
                        <th scope="col">"Description"</th>
                        <th scope="col">"Syntax"</th>
                        <th scope="col">"Runtime"</th>
                        <th scope="col" class="num">"×AllGather"</th>
                        <th scope="col" class="num" id="summary-here">{here_label}</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <div class="actions"><CsvButton name="collective-summary" csv=csv_text /></div>
    }
}
