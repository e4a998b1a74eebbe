//! The search: how many meshes and configurations it evaluated (and how long it took here),
//! the fastest configurations that fit, ranked, each explorable, and the Pareto front of
//! memory against step time, as tables with their downloads.

use leptos::prelude::*;
use shardcalc_charts::format::{grouped, thousands};
use shardcalc_core::training::report::SearchReport;
use shardcalc_core::view::training::explore_row;

use super::derived::{ok, Derived};
use super::tables;
use crate::components::{DataTable, RowAction, TableExports};

fn stats(d: &Derived) -> String {
    let ms = d.search_ms.get_value();
    d.with_shown(|b| {
        b.and_then(|r| r.search.as_ref())
            .map(|s| {
                format!(
                    "Searched {} meshes × microbatch counts × remat policies = {} configurations in {} ms here; {} fit in HBM.",
                    thousands(s.meshes),
                    thousands(s.evaluated),
                    grouped(ms, 1),
                    thousands(s.feasible)
                )
            })
            .unwrap_or_default()
    })
}

/// Search statistics, the ranked table and the Pareto front.
#[component]
pub fn Ranked(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let state = derived.state;
    let rows = move |pick: fn(&SearchReport) -> &[shardcalc_core::training::report::SearchRow]| {
        Memo::new(move |_| {
            derived.with_shown(|b| {
                b.and_then(|r| r.search.as_ref()).map(|s| tables::search_rows(pick(s))).unwrap_or_default()
            })
        })
    };
    let best = rows(|s| &s.best);
    let pareto = rows(|s| &s.pareto);
    // Explore the configuration of row `i` of the best or the Pareto rows.
    let explore = move |pareto: bool, i: usize| {
        let row = derived.shown.with_untracked(|b| {
            let s = ok(b)?.search.as_ref()?;
            if pareto { s.pareto.get(i) } else { s.best.get(i) }.cloned()
        });
        if let Some(row) = row {
            state.update(|s| explore_row(s, &row));
        }
    };
    let action =
        |pareto: bool| RowAction { label: "Explore", stem: "explore", on: Callback::new(move |i| explore(pareto, i)) };
    let front = move || pareto.with(|t| t.rows.len());
    view! {
        <section class="result-section" aria-labelledby="training-ranked-heading">
            <h3 id="training-ranked-heading">"Every mesh, ranked"</h3>
            <p id="training-search-stats">{move || stats(&derived)}</p>
            <div class="table-wrap">
                <DataTable id="training-ranked" table=best action=action(false) />
            </div>
            <TableExports name="training-ranked" table=best />
            <details class="subfields">
                <summary>{move || format!("Pareto front: {} configurations, none both faster and smaller than another", front())}</summary>
                <div class="table-wrap">
                    <DataTable id="training-pareto" table=pareto action=action(true) />
                </div>
            </details>
            <TableExports name="training-pareto" table=pareto />
        </section>
    }
}
