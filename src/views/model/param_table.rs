//! Parameters per component: the table (exact integers and short forms, HTML text) and
//! chart (a).

use leptos::prelude::*;
use shardcalc_charts::format::{percent, short_count};
use shardcalc_charts::param_breakdown;
use shardcalc_core::report::ParamsReport;
use shardcalc_core::units::Params;

use super::csv;
use super::derived::Derived;
use super::results::exact_params;
use crate::components::{ChartCanvas, TableExports};
use crate::html_text::{attr, el, escape, table, with_short};

/// `#params-table` as HTML text: components with parameters, then the total
/// (`#params-total`, `#params-active`).
fn params_html(p: &ParamsReport) -> String {
    let total = p.total.get();
    let num = |id: &str, count: Params, short: f64| {
        el("td", &(" class=\"num\"".to_string() + &id_attr(id)), &with_short(&exact_params(count), &short_count(short)))
    };
    let mut body = String::new();
    for r in p.breakdown.iter().filter(|r| r.total.get() > 0.0) {
        body += &el(
            "tr",
            "",
            &(el("th", " scope=\"row\"", &escape(&r.label))
                + &num("", r.total, r.total.get())
                + &num("", r.active, r.active.get())
                + &el("td", " class=\"num\"", &escape(&percent(r.total.get(), total)))),
        );
    }
    body += &el(
        "tr",
        " class=\"total\"",
        &(el("th", " scope=\"row\"", "Total")
            + &num("params-total", p.total, total)
            + &num("params-active", p.active, p.active.get())
            + &el("td", " class=\"num\"", "100.0%")),
    );
    table(
        "params-table",
        "Parameters per component (components with none are left out)",
        &["Component", "#Total stored (parameters)", "#Active per token (parameters)", "#% of total"],
        &body,
    )
}

fn id_attr(id: &str) -> String {
    if id.is_empty() {
        String::new()
    } else {
        attr("id", id)
    }
}

/// The parameter table, its CSV download and the total-vs-active chart.
#[component]
pub fn ParamSection(
    /// The memos the section reads.
    derived: Derived,
) -> impl IntoView {
    let report = derived.report;
    let chart = Memo::new(move |_| {
        report.with(|r| r.as_ref().map(|e| &e.report).ok().map(|r| param_breakdown(&r.model.name, &r.params)))
    });
    // Text, compared before it is written: the table changes only when the parameters do.
    let html = Memo::new(move |_| {
        report.with(|r| r.as_ref().map(|e| &e.report).map(|r| params_html(&r.params)).unwrap_or_default())
    });
    let table = Signal::derive(move || {
        report.with(|r| r.as_ref().map(|e| &e.report).map(|r| csv::params(&r.params)).unwrap_or_default())
    });
    view! {
        <section class="result-section" aria-labelledby="params-heading">
            <h3 id="params-heading">"Parameters"</h3>
            <div inner_html=html></div>
            <div class="actions">
                <TableExports name="params" table=table />
            </div>
            <ChartCanvas
                id="chart-params"
                chart=chart
                caption="Total parameters are every stored weight; active ones are what one token touches (k routed experts, all shared experts and every dense weight)."
            />
        </section>
    }
}
