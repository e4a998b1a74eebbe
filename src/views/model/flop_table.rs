//! Training FLOPs per component under all four conventions side by side, the selected one
//! marked, how they differ, and chart (b) for the selected convention.

use leptos::prelude::*;
use shardcalc_charts::flop_breakdown;
use shardcalc_charts::format::{percent, significant};
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::report::FlopsByConvention;

use super::derived::{summary, Derived};
use super::tables;
use crate::components::{ChartCanvas, DataTable};

/// How every convention's total differs from `selected`'s, as a definition list.
fn differences(f: &FlopsByConvention, selected: FlopConvention) -> impl IntoView {
    let base = f.get(selected).total_tflops_per_device_step;
    let items = FlopConvention::ALL.into_iter().map(|c| {
        let total = f.get(c).total_tflops_per_device_step;
        let versus = if c == selected {
            "selected".to_string()
        } else {
            let diff = total - base;
            let sign = if diff >= 0.0 { "+" } else { "−" };
            format!("{sign}{} vs {}", percent(diff.abs(), base), selected.label())
        };
        view! {
            <dt class:selected=c == selected>{format!("{}: {} TFLOPs ({versus})", c.label(), significant(total, 4))}</dt>
            <dd>{c.explanation()}</dd>
        }
    });
    view! { <dl class="differences">{items.collect_view()}</dl> }
}

/// The FLOPs table, its CSV download, the differences and the per-component chart.
#[component]
pub fn FlopSection(
    /// The memos the section reads.
    derived: Derived,
) -> impl IntoView {
    let report = derived.report;
    let conv = derived.convention;
    let chart = Memo::new(move |_| {
        report.with(|r| {
            r.as_ref()
                .map(|e| &e.report)
                .ok()
                .map(|r| flop_breakdown(&r.model.name, summary(r, conv.get()), conv.get()))
        })
    });
    let table = derived.of(move |r| tables::flops(&r.flops, conv.get()));
    let differences = move || {
        let selected = conv.get();
        report.with(|r| r.as_ref().ok().map(|e| differences(&e.report.flops, selected)))
    };
    let caption = Signal::derive(move || {
        format!(
            "Forward and backward (2× forward) TFLOPs of each component under the selected convention, {}.",
            conv.get().label()
        )
    });
    view! {
        <section class="result-section" aria-labelledby="flops-heading">
            <h3 id="flops-heading">"Training FLOPs per device and optimizer step"</h3>
            <DataTable
                id="flops-table"
                table=table
                caption="TFLOPs (10¹² FLOP) per component and convention: total, with forward and backward"
                row_headers=true
                exports="flops"
            />
            <h4>"How the conventions differ"</h4>
            {differences}
            <ChartCanvas id="chart-flops" chart=chart caption=caption />
        </section>
    }
}
