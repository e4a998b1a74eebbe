//! Parameters per component: the table (exact integers and short forms) and chart (a).

use leptos::prelude::*;
use shardcalc_charts::param_breakdown;

use super::derived::Derived;
use super::tables;
use crate::components::{ChartCanvas, DataTable, TableExports};

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
    let table = Memo::new(move |_| {
        report.with(|r| r.as_ref().map(|e| &e.report).map(|r| tables::params(&r.params)).unwrap_or_default())
    });
    view! {
        <section class="result-section" aria-labelledby="params-heading">
            <h3 id="params-heading">"Parameters"</h3>
            <div class="table-wrap">
                <DataTable
                    id="params-table"
                    table=table
                    caption="Parameters per component (components with none are left out)"
                    row_headers=true
                />
            </div>
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
