//! Training FLOPs per component under all four conventions side by side, the selected one
//! highlighted, how they differ, and chart (b) for the selected convention.

use leptos::prelude::*;
use shardcalc_charts::format::{percent, si, significant};
use shardcalc_charts::flop_breakdown;
use shardcalc_core::flops::{FlopComponent, FlopConvention};
use shardcalc_core::report::FlopsByConvention;

use super::csv;
use super::derived::{summary, Derived};
use crate::components::{ChartCanvas, CsvButton};

/// One cell: total TFLOPs, with forward and backward underneath.
fn cell(total: f64, forward: f64, backward: f64) -> impl IntoView {
    view! {
        <span class="tf">{significant(total, 4)}</span>
        <span class="fb">"fwd " {significant(forward, 3)} " · bwd " {significant(backward, 3)}</span>
    }
}

/// Components that are non-zero under some convention, in display order.
fn components(f: &FlopsByConvention) -> Vec<FlopComponent> {
    FlopComponent::ALL
        .into_iter()
        .filter(|c| {
            FlopConvention::ALL.iter().any(|conv| {
                f.get(*conv).rows.iter().any(|r| r.component == *c && r.total_tflops > 0.0)
            })
        })
        .collect()
}

/// The FLOPs table, its CSV download, the differences and the per-component chart.
#[component]
pub fn FlopSection(
    /// The memos the section reads.
    derived: Derived,
) -> impl IntoView {
    let report = derived.report;
    let conv = derived.convention;
    let flops = Memo::new(move |_| report.with(|r| r.as_ref().ok().map(|r| r.flops.clone())));
    let chart = Memo::new(move |_| {
        report.with(|r| {
            r.as_ref().ok().map(|r| flop_breakdown(&r.model.name, summary(r, conv.get()), conv.get()))
        })
    });
    let header = move || {
        FlopConvention::ALL
            .iter()
            .map(|&c| {
                let selected = move || conv.get() == c;
                view! {
                    <th scope="col" class="num" class:selected=selected>
                        {c.label()}
                        {move || selected().then_some(view! { <span class="tag">" (selected)"</span> })}
                    </th>
                }
            })
            .collect_view()
    };
    let body = move || {
        flops.with(|f| {
            let f = f.as_ref()?;
            let selected = conv.get();
            let rows = components(f)
                .into_iter()
                .map(|component| {
                    let cells = FlopConvention::ALL
                        .iter()
                        .map(|&c| {
                            let r = f.get(c).rows.iter().find(|r| r.component == component);
                            let (t, fw, bw) = r.map_or((0.0, 0.0, 0.0), |r| (r.total_tflops, r.forward_tflops, r.backward_tflops));
                            view! { <td class="num" class:selected=c == selected>{cell(t, fw, bw)}</td> }
                        })
                        .collect_view();
                    view! { <tr><th scope="row">{component.label()}</th>{cells}</tr> }
                })
                .collect_view();
            let summary_row = |label: &'static str, id: &'static str, value: fn(&shardcalc_core::report::FlopsSummary) -> String| {
                let cells = FlopConvention::ALL
                    .iter()
                    .map(|&c| view! { <td class="num" class:selected=c == selected id=format!("{id}-{}", c.id())>{value(f.get(c))}</td> })
                    .collect_view();
                view! { <tr class="total"><th scope="row">{label}</th>{cells}</tr> }
            };
            Some(view! {
                {rows}
                {summary_row("Total: model TFLOPs (MFU)", "flops-total", |s| significant(s.total_tflops_per_device_step, 4))}
                {summary_row("Remat recompute (forward)", "flops-remat", |s| significant(s.remat_recompute_tflops_per_device_step, 4))}
                {summary_row("Hardware TFLOPs (HFU)", "flops-hardware", |s| significant(s.hardware_tflops_per_device_step, 4))}
                {summary_row("Training FLOPs per token", "flops-per-token", |s| format!("{}FLOP", si(s.training_flops_per_token)))}
            })
        })
    };
    let differences = move || {
        flops.with(|f| {
            let f = f.as_ref()?;
            let selected = conv.get();
            let base = f.get(selected).total_tflops_per_device_step;
            let items = FlopConvention::ALL
                .iter()
                .map(|&c| {
                    let total = f.get(c).total_tflops_per_device_step;
                    let versus = if c == selected {
                        "selected".to_string()
                    } else {
                        let diff = total - base;
                        let sign = if diff >= 0.0 { "+" } else { "−" };
                        format!("{sign}{} vs {}", percent(diff.abs(), base), selected.label())
                    };
                    view! {
                        <dt class:selected=c == selected>{c.label()} ": " {significant(total, 4)} " TFLOPs (" {versus} ")"</dt>
                        <dd>{c.explanation()}</dd>
                    }
                })
                .collect_view();
            Some(view! { <dl class="differences">{items}</dl> })
        })
    };
    let table = Signal::derive(move || flops.with(|f| f.as_ref().map(csv::flops).unwrap_or_default()));
    let caption = Signal::derive(move || {
        format!("Forward and backward (2× forward) TFLOPs of each component under the selected convention, {}.", conv.get().label())
    });
    view! {
        <section class="result-section" aria-labelledby="flops-heading">
            <h3 id="flops-heading">"Training FLOPs per device and optimizer step"</h3>
            <div class="table-wrap">
                <table id="flops-table">
                    <caption>"TFLOPs (10¹² FLOP) per component and convention; each cell: total, then forward and backward"</caption>
                    <thead>
                        <tr><th scope="col">"Component"</th>{header}</tr>
                    </thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
            <div class="actions">
                <CsvButton name="flops" table=table />
            </div>
            <h4>"How the conventions differ"</h4>
            {differences}
            <ChartCanvas id="chart-flops" chart=chart caption=caption />
        </section>
    }
}
