//! Parameters per component: the table (exact integers and short forms) and chart (a).

use leptos::prelude::*;
use shardcalc_charts::format::{percent, short_count};
use shardcalc_charts::param_breakdown;

use super::csv;
use super::derived::Derived;
use super::results::exact_params;
use crate::components::{ChartCanvas, CsvButton};

/// The parameter table, its CSV download and the total-vs-active chart.
#[component]
pub fn ParamSection(
    /// The memos the section reads.
    derived: Derived,
) -> impl IntoView {
    let report = derived.report;
    let params = Memo::new(move |_| report.with(|r| r.as_ref().ok().map(|r| r.params.clone())));
    let chart = Memo::new(move |_| {
        report.with(|r| r.as_ref().ok().map(|r| param_breakdown(&r.model.name, &r.params)))
    });
    let rows = move || {
        params.with(|p| {
            let p = p.as_ref()?;
            let total = p.total.get();
            let body = p
                .breakdown
                .iter()
                .filter(|r| r.total.get() > 0.0)
                .map(|r| {
                    view! {
                        <tr>
                            <th scope="row">{r.label.clone()}</th>
                            <td class="num">{exact_params(r.total)} <span class="short">{short_count(r.total.get())}</span></td>
                            <td class="num">{exact_params(r.active)} <span class="short">{short_count(r.active.get())}</span></td>
                            <td class="num">{percent(r.total.get(), total)}</td>
                        </tr>
                    }
                })
                .collect_view();
            Some(view! {
                {body}
                <tr class="total">
                    <th scope="row">"Total"</th>
                    <td class="num" id="params-total">{exact_params(p.total)} <span class="short">{short_count(total)}</span></td>
                    <td class="num" id="params-active">{exact_params(p.active)} <span class="short">{short_count(p.active.get())}</span></td>
                    <td class="num">"100.0%"</td>
                </tr>
            })
        })
    };
    let table = Signal::derive(move || params.with(|p| p.as_ref().map(csv::params).unwrap_or_default()));
    view! {
        <section class="result-section" aria-labelledby="params-heading">
            <h3 id="params-heading">"Parameters"</h3>
            <div class="table-wrap">
                <table id="params-table">
                    <caption>"Parameters per component (components with none are left out)"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Component"</th>
                            <th scope="col" class="num">"Total stored (parameters)"</th>
                            <th scope="col" class="num">"Active per token (parameters)"</th>
                            <th scope="col" class="num">"% of total"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <div class="actions">
                <CsvButton name="params" table=table />
            </div>
            <ChartCanvas
                id="chart-params"
                chart=chart
                caption="Total parameters are every stored weight; active ones are what one token touches (k routed experts, all shared experts and every dense weight)."
            />
        </section>
    }
}
