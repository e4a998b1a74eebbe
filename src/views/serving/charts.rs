//! The serving charts (data from `shardcalc_charts::serving`, tested natively): the book's
//! four (latency against throughput, the step's terms, KV memory, the prefill:decode ratio)
//! and continuous batching against concurrency (throughput, latency), each redrawn only when
//! its data change, with PNG and SVG downloads and its points as CSV and Markdown. The
//! search's chart is the search section's.

use leptos::prelude::*;
use shardcalc_charts::serving::{
    concurrency_latency_chart, concurrency_throughput_chart, kv_memory_chart, pareto_chart, prefill_decode_ratio_chart,
    step_breakdown_chart,
};
use shardcalc_charts::table::Table;
use shardcalc_charts::xy::XyChart;
use shardcalc_core::inference::InferenceReport;

use super::derived::Derived;
use shardcalc_core::text::shortest;

use crate::components::{ChartCanvas, TableExports};

/// A chart's lines as a table: `series,<x label>,<y label>` with one row per point.
#[must_use]
pub fn xy_table(c: &XyChart) -> Table {
    let mut out = Table::new(["series".to_string(), c.x.label.clone(), c.y.label.clone()]);
    for s in &c.series {
        for (x, y) in &s.points {
            out.push([s.name.clone(), shortest(*x), shortest(*y)]);
        }
    }
    out
}

/// One chart: its memo, caption and CSV/Markdown buttons.
#[component]
pub fn ServingChart(
    /// Chart name in the catalog; the canvas is `#chart-<name>`, the CSV button `#<name>-csv`.
    name: &'static str,
    /// Canvas id (`chart-<name>`).
    canvas: &'static str,
    /// The chart's data.
    data: Memo<Option<XyChart>>,
    /// What it shows, under it.
    caption: &'static str,
) -> impl IntoView {
    let caption = Signal::derive(move || {
        let note = data.with(|d| d.as_ref().and_then(|d| d.note.clone())).map(|n| format!(" {n}")).unwrap_or_default();
        format!("{caption}{note}")
    });
    let table = Signal::derive(move || data.with(|d| d.as_ref().map(xy_table).unwrap_or_default()));
    view! {
        <ChartCanvas id=canvas chart=data caption=caption />
        <div class="actions">
            <TableExports name=name table=table />
        </div>
    }
}

/// The charts section.
#[component]
pub fn ServingCharts(
    /// The memos the charts read.
    derived: Derived,
) -> impl IntoView {
    let build = move |f: fn(&str, &InferenceReport) -> XyChart| {
        Memo::new(move |_| {
            let name = derived.model_name();
            derived.with_report(|r| f(&name, r))
        })
    };
    let pareto = build(pareto_chart);
    let breakdown = build(step_breakdown_chart);
    let kv = build(kv_memory_chart);
    let throughput = build(concurrency_throughput_chart);
    let latency = Memo::new(move |_| {
        let name = derived.model_name();
        let targets = derived.targets();
        derived.with_report(|r| concurrency_latency_chart(&name, &targets, r))
    });
    let ratio = Memo::new(move |_| {
        let name = derived.model_name();
        let (p, g) = derived.lengths();
        derived.with_report(|r| prefill_decode_ratio_chart(&name, p, g, r))
    });
    view! {
        <section class="result-section" aria-labelledby="serving-charts-heading">
            <h3 id="serving-charts-heading">"Charts"</h3>
            <ServingChart
                name="serving-pareto"
                canvas="chart-serving-pareto"
                data=pareto
                caption="Every batch that fits is a point: small batches are fast but leave the chips idle, large ones are efficient but slow (book 8.2). Longer contexts fit smaller batches and read more KV per step."
            />
            <ServingChart
                name="serving-breakdown"
                canvas="chart-serving-breakdown"
                data=breakdown
                caption="The decode step is KV loading plus the larger of parameter loading and FLOPs (book 7.1.5), overlapped with the collectives. Past the critical batch the matmuls are compute-bound; past the largest batch nothing fits."
            />
            <ServingChart
                name="serving-kv-memory"
                canvas="chart-serving-kv-memory"
                data=kv
                caption="KV caches grow linearly with context (local layers stop at their window); where the total crosses HBM, the batch no longer fits on this topology."
            />
            <ServingChart
                name="serving-concurrency-throughput"
                canvas="chart-serving-concurrency-throughput"
                data=throughput
                caption="Continuous batching with chunked prefill: each step decodes every sequence in flight and fills the rest of its token budget with prompt tokens (Sarathi-Serve, vLLM, SGLang, TensorRT-LLM). More sequences in flight share each weight load, until the caches fill HBM or the budget leaves no room for prompts."
            />
            <ServingChart
                name="serving-concurrency-latency"
                canvas="chart-serving-concurrency-latency"
                data=latency
                caption="Time per output token is the mean step (decode steps and steps carrying a prefill chunk); the time to first token is the prefill lane's M/G/1 queue at the rate that concurrency serves, plus the prompt's chunks. Dashed lines: the targets."
            />
            <ServingChart
                name="serving-ratio"
                canvas="chart-serving-ratio"
                data=ratio
                caption="Prefill servers needed per decode server so that both stay busy: t_prefill·B / (t_step·G) (book 8.1.2). Long prompts and short answers need more prefill."
            />
        </section>
    }
}
