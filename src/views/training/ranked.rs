//! The search: how many meshes and configurations it evaluated (and how long it took here,
//! also as `data-search-ms` for the browser benchmark), every rule it applied and what it
//! skipped and why, the fastest configurations that fit, ranked with their ZeRO stage and
//! schedule, each explorable, and the Pareto front of memory against step time, as tables
//! with their downloads.

use leptos::prelude::*;
use shardcalc_charts::format::{grouped, thousands};
use shardcalc_core::decimal::shortest;
use shardcalc_core::training::report::SearchReport;
use shardcalc_core::view::training::explore_row;

use super::derived::{ok, plans_table, Derived};
use super::tables;
use crate::components::{DataTable, RowAction, TableExports};

/// The search's size and time; follows every search (`searched`), even one that finds the
/// same plan.
fn stats(d: &Derived) -> String {
    d.searched.track();
    let ms = d.search_ms.get_value();
    d.with_shown(|b| {
        b.and_then(|r| r.search.as_ref())
            .map(|s| {
                format!(
                    "Searched {} meshes × microbatch counts × remat policies × ZeRO stages × schedules: {} configurations timed in {} ms here; {} fit in HBM.",
                    thousands(s.meshes),
                    thousands(s.evaluated),
                    grouped(ms, 1),
                    thousands(s.feasible)
                )
            })
            .unwrap_or_default()
    })
}

/// The search's rules with this model's numbers, and what it skipped, in a collapsed
/// section (`#training-search-rules`): two tables with their downloads.
#[component]
fn SearchRules(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let (rules, skipped) = (plans_table(derived, tables::search_rules), plans_table(derived, tables::search_skipped));
    view! {
        <details class="subfields" id="training-search-rules">
            <summary>"What the search may choose, and what it skipped"</summary>
            <div class="table-wrap">
                <DataTable id="training-search-constraints" table=rules />
            </div>
            <div class="table-wrap">
                <DataTable id="training-search-skipped" table=skipped />
            </div>
            <div class="actions">
                <TableExports name="training-search-constraints" table=rules />
                <TableExports name="training-search-skipped" table=skipped />
            </div>
        </details>
    }
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
            <p
                id="training-search-stats"
                data-search-ms=move || {
                    derived.searched.track();
                    shortest(derived.search_ms.get_value())
                }
            >
                {move || stats(&derived)}
            </p>
            <SearchRules derived=derived />
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
