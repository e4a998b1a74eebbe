//! Training FLOPs per component under all four conventions side by side, the selected one
//! highlighted, how they differ (both as HTML text), and chart (b) for the selected
//! convention.

use leptos::prelude::*;
use shardcalc_charts::flop_breakdown;
use shardcalc_charts::format::{percent, si, significant};
use shardcalc_core::flops::{FlopComponent, FlopConvention};
use shardcalc_core::report::{FlopsByConvention, FlopsSummary};

use super::csv;
use super::derived::{summary, Derived};
use crate::components::{ChartCanvas, TableExports};
use crate::html_text::{attr, el, escape};

/// `class="num"` or `class="num selected"`, and an id when `id` is not empty.
fn num_attrs(selected: bool, id: &str) -> String {
    let mut out = attr("class", if selected { "num selected" } else { "num" });
    if !id.is_empty() {
        out += &attr("id", id);
    }
    out
}

/// One cell: total TFLOPs, with forward and backward underneath.
fn cell(total: f64, forward: f64, backward: f64) -> String {
    el("span", " class=\"tf\"", &escape(&significant(total, 4)))
        + &el(
            "span",
            " class=\"fb\"",
            &escape(&format!("fwd {} · bwd {}", significant(forward, 3), significant(backward, 3))),
        )
}

/// Components that are non-zero under some convention, in display order.
fn components(f: &FlopsByConvention) -> Vec<FlopComponent> {
    FlopComponent::ALL
        .into_iter()
        .filter(|c| {
            FlopConvention::ALL
                .iter()
                .any(|conv| f.get(*conv).rows.iter().any(|r| r.component == *c && r.total_tflops > 0.0))
        })
        .collect()
}

/// A summary row's value under one convention.
type SummaryValue = fn(&FlopsSummary) -> String;

/// `#flops-table` as HTML text, `selected` highlighted; its summary cells are
/// `#flops-total-<convention>`, `#flops-remat-…`, `#flops-hardware-…`, `#flops-per-token-…`.
fn flops_html(f: &FlopsByConvention, selected: FlopConvention) -> String {
    let mut header = "<thead><tr><th scope=\"col\">Component</th>".to_string();
    for c in FlopConvention::ALL {
        let tag = if c == selected { el("span", " class=\"tag\"", " (selected)") } else { String::new() };
        header +=
            &el("th", &(" scope=\"col\"".to_string() + &num_attrs(c == selected, "")), &(escape(c.label()) + &tag));
    }
    header += "</tr></thead>";
    let mut body = String::new();
    for component in components(f) {
        let mut cells = el("th", " scope=\"row\"", &escape(component.label()));
        for c in FlopConvention::ALL {
            let r = f.get(c).rows.iter().find(|r| r.component == component);
            let (t, fw, bw) = r.map_or((0.0, 0.0, 0.0), |r| (r.total_tflops, r.forward_tflops, r.backward_tflops));
            cells += &el("td", &num_attrs(c == selected, ""), &cell(t, fw, bw));
        }
        body += &el("tr", "", &cells);
    }
    let summary_rows: [(&str, &str, SummaryValue); 4] = [
        ("Total: model TFLOPs (MFU)", "flops-total", |s| significant(s.total_tflops_per_device_step, 4)),
        ("Remat recompute (forward)", "flops-remat", |s| significant(s.remat_recompute_tflops_per_device_step, 4)),
        ("Hardware TFLOPs (HFU)", "flops-hardware", |s| significant(s.hardware_tflops_per_device_step, 4)),
        ("Training FLOPs per token", "flops-per-token", |s| format!("{}FLOP", si(s.training_flops_per_token))),
    ];
    for (label, id, value) in summary_rows {
        let mut cells = el("th", " scope=\"row\"", &escape(label));
        for c in FlopConvention::ALL {
            cells += &el("td", &num_attrs(c == selected, &format!("{id}-{}", c.id())), &escape(&value(f.get(c))));
        }
        body += &el("tr", " class=\"total\"", &cells);
    }
    let caption = "TFLOPs (10¹² FLOP) per component and convention; each cell: total, then forward and backward";
    el(
        "div",
        " class=\"table-wrap\"",
        &el("table", " id=\"flops-table\"", &(el("caption", "", caption) + &header + &el("tbody", "", &body))),
    )
}

/// How every convention's total differs from `selected`'s, as an HTML `<dl>`.
fn differences_html(f: &FlopsByConvention, selected: FlopConvention) -> String {
    let base = f.get(selected).total_tflops_per_device_step;
    let mut items = String::new();
    for c in FlopConvention::ALL {
        let total = f.get(c).total_tflops_per_device_step;
        let versus = if c == selected {
            "selected".to_string()
        } else {
            let diff = total - base;
            let sign = if diff >= 0.0 { "+" } else { "−" };
            format!("{sign}{} vs {}", percent(diff.abs(), base), selected.label())
        };
        let term = format!("{}: {} TFLOPs ({versus})", c.label(), significant(total, 4));
        items += &el("dt", if c == selected { " class=\"selected\"" } else { "" }, &escape(&term));
        items += &el("dd", "", &escape(c.explanation()));
    }
    el("dl", " class=\"differences\"", &items)
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
    let table_html = Memo::new(move |_| {
        let selected = conv.get();
        report.with(|r| r.as_ref().map(|e| &e.report).map(|r| flops_html(&r.flops, selected)).unwrap_or_default())
    });
    let differences = Memo::new(move |_| {
        let selected = conv.get();
        report.with(|r| r.as_ref().map(|e| &e.report).map(|r| differences_html(&r.flops, selected)).unwrap_or_default())
    });
    let table = Signal::derive(move || {
        report.with(|r| r.as_ref().map(|e| &e.report).map(|r| csv::flops(&r.flops)).unwrap_or_default())
    });
    let caption = Signal::derive(move || {
        format!(
            "Forward and backward (2× forward) TFLOPs of each component under the selected convention, {}.",
            conv.get().label()
        )
    });
    view! {
        <section class="result-section" aria-labelledby="flops-heading">
            <h3 id="flops-heading">"Training FLOPs per device and optimizer step"</h3>
            <div inner_html=table_html></div>
            <div class="actions">
                <TableExports name="flops" table=table />
            </div>
            <h4>"How the conventions differ"</h4>
            <div inner_html=differences></div>
            <ChartCanvas id="chart-flops" chart=chart caption=caption />
        </section>
    }
}
