//! The search: how many meshes and configurations it evaluated (and how long it took
//! here), the fastest configurations that fit, ranked, each explorable, and the Pareto
//! front of memory against step time, as tables with CSV.

use leptos::prelude::*;
use shardcalc_charts::format::{grouped, significant, thousands};
use shardcalc_charts::training::mesh_label;
use shardcalc_core::training::report::SearchRow;
use shardcalc_core::training::tensors::Remat;

use super::csv;
use super::derived::Derived;
use super::explore::explore;
use super::fields::current;
use super::headline::{bottleneck_label, seconds};
use crate::components::CsvButton;
use crate::state::use_app_state;

/// A table of search rows; with `explorable`, each row has an "Explore" button.
#[component]
fn RowsTable(
    /// Element id of the table.
    id: &'static str,
    /// The rows.
    rows: Memo<Vec<SearchRow>>,
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let state = use_app_state();
    let body = move || {
        rows.get()
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let row = r.clone();
                let on_explore = move |_| {
                    let remat = Remat::preset(&row.remat).unwrap_or_else(|| current(state, |t| t.remat.clone()));
                    explore(state, derived, row.mesh, row.microbatches, remat);
                };
                view! {
                    <tr>
                        <td class="num">{i + 1}</td>
                        <td>{mesh_label(&r.mesh)}</td>
                        <td>{csv::networks_text(&r)}</td>
                        <td class="num">{r.microbatches}</td>
                        <td>{r.remat.clone()}</td>
                        <td class="num">{seconds(r.step_time_s.get())}</td>
                        <td class="num">{significant(r.memory_bytes.get() / 1e9, 3)}</td>
                        <td class="num">{format!("{}%", significant(100.0 * r.mfu, 3))}</td>
                        <td class="num">{format!("{}%", significant(100.0 * r.hfu, 3))}</td>
                        <td>{bottleneck_label(r.bound)}</td>
                        <td><button type="button" class="small" id=format!("{id}-explore-{i}") on:click=on_explore>"Explore"</button></td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <div class="table-wrap">
            <table id=id>
                <thead>
                    <tr>
                        <th>"#"</th>
                        <th>"Mesh"</th>
                        <th>"On which network"</th>
                        <th>"Microbatches"</th>
                        <th>"Remat"</th>
                        <th>"Step time"</th>
                        <th>"GB / device"</th>
                        <th>"MFU"</th>
                        <th>"HFU"</th>
                        <th>"Binds"</th>
                        <th></th>
                    </tr>
                </thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

/// Search statistics, the ranked table and the Pareto front.
#[component]
pub fn Ranked(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let search = Memo::new(move |_| derived.shown.with(|b| b.as_ref().and_then(|r| r.search.clone())));
    let best_rows = Memo::new(move |_| search.with(|s| s.as_ref().map(|s| s.best.clone()).unwrap_or_default()));
    let pareto_rows = Memo::new(move |_| search.with(|s| s.as_ref().map(|s| s.pareto.clone()).unwrap_or_default()));
    let stats = move || {
        let ms = derived.searched.with(|s| s.as_ref().map_or(0.0, |(_, ms)| *ms));
        search.with(|s| {
            s.as_ref().map(|s| {
                format!(
                    "Searched {} meshes × microbatch counts × remat policies = {} configurations in {} ms here; {} fit in HBM.",
                    thousands(s.meshes),
                    thousands(s.evaluated),
                    grouped(ms, 1),
                    thousands(s.feasible)
                )
            })
        })
    };
    let best_csv = Signal::derive(move || best_rows.with(|r| csv::search_rows(r)));
    let pareto_csv = Signal::derive(move || pareto_rows.with(|r| csv::search_rows(r)));
    view! {
        <section class="result-section" aria-labelledby="training-ranked-heading">
            <h3 id="training-ranked-heading">"Every mesh, ranked"</h3>
            <p id="training-search-stats">{stats}</p>
            <RowsTable id="training-ranked" rows=best_rows derived=derived />
            <CsvButton name="training-ranked" csv=best_csv />
            <details class="subfields">
                <summary>{move || format!("Pareto front: {} configurations, none both faster and smaller than another", pareto_rows.with(Vec::len))}</summary>
                <RowsTable id="training-pareto" rows=pareto_rows derived=derived />
            </details>
            <CsvButton name="training-pareto" csv=pareto_csv />
        </section>
    }
}
