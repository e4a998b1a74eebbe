//! Parameters per component: the table (exact integers and short forms) and chart (a).

use leptos::prelude::*;
use shardcalc_charts::param_breakdown;

use super::derived::Derived;
use super::tables;
use crate::components::{ChartCanvas, DataTable};

/// `#params-table`, its exports and the total-vs-active chart.
#[component]
pub fn ParamSection(
    /// The memos the section reads.
    derived: Derived,
) -> impl IntoView {
    let report = derived.report;
    let chart = Memo::new(move |_| {
        report.with(|r| r.as_ref().map(|e| &e.report).ok().map(|r| param_breakdown(&r.model.name, &r.params)))
    });
    let table = derived.of(|r| tables::params(&r.params));
    view! {
        <section class="result-section" aria-labelledby="params-heading">
            <h3 id="params-heading">"Parameters"</h3>
            <DataTable
                id="params-table"
                table=table
                caption="Parameters per component (components with none are left out)"
                row_headers=true
                exports="params"
            />
            <ChartCanvas
                id="chart-params"
                chart=chart
                caption="Total parameters are every stored weight; active ones are what one token touches (k routed experts, all shared experts and every dense weight)."
            />
        </section>
    }
}
