//! The search under targets on the page (`inference.search`, run in the background worker:
//! `super::derived`): what it found in words and which target binds
//! (`#serving-search-explanation`), why nothing is feasible when nothing is
//! (`#serving-search-impossible`), what it searched and how long it took
//! (`#serving-search-stats`, with `data-seq` counting answers, `data-search-ms` the worker's
//! milliseconds and `data-shown-ms` those from the edit to the answer; `#serving-search-running`
//! while a newer search runs), the chips it left out (`#serving-search-excluded`), the
//! cost–latency chart (`#chart-serving-search-pareto`), the ranked table
//! (`#serving-search-ranked`) and the Pareto front (`#serving-search-front`), each row with
//! "Open", which applies that deployment to the scenario (`#serving-search-opened` says what
//! the scenario could not say exactly). Without a search, a button starts one.

use leptos::prelude::*;
use shardcalc_charts::format::{grouped, thousands};
use shardcalc_charts::serving::search_pareto_chart;
use shardcalc_charts::xy::XyChart;
use shardcalc_core::field::serving::search::start_search;
use shardcalc_core::inference::search::{Deployment, SearchReport};
use shardcalc_core::text::shortest;
use shardcalc_core::view::serving::open;

use super::charts::ServingChart;
use super::deployments::deployments_table;
use super::derived::{Derived, SearchState};
use super::rows::constraint_text;
use crate::components::{DataTable, RowAction, TableExports};

/// Every text of the section, computed together from the search's state.
#[derive(Clone, Debug, Default, PartialEq)]
struct Texts {
    asked: bool,
    running: bool,
    error: String,
    explanation: String,
    impossible: String,
    stats: String,
    excluded: String,
    seq: String,
    worker_ms: String,
    shown_ms: String,
}

fn texts(state: Option<&SearchState>) -> Texts {
    let Some(x) = state else { return Texts::default() };
    let mut t = Texts {
        asked: true,
        running: x.running,
        seq: x.answers.to_string(),
        // Not `f64::to_string`, which links Rust's float printing (13 KB raw) into the page.
        worker_ms: shortest(x.worker_ms),
        shown_ms: shortest(x.round_trip_ms),
        ..Texts::default()
    };
    match &x.last {
        Some(Err(e)) => t.error = format!("Cannot search: {}", e.join("; ")),
        Some(Ok(s)) => {
            t.explanation = s.explanation.clone();
            if let Some(u) = &s.impossible {
                t.impossible = format!("Impossible: {} — {}", constraint_text(u.constraint), u.reason);
            }
            t.stats = format!(
                "Searched {} servers (priced chip × mesh × TP/EP × formats holding the weights): {} configurations evaluated in {} ms in the background worker ({} ms from the edit to this answer); {} deployments meet the targets.",
                thousands(s.servers),
                thousands(s.evaluated),
                grouped(x.worker_ms, 1),
                grouped(x.round_trip_ms, 0),
                thousands(s.feasible)
            );
            if !s.excluded.is_empty() {
                let list: Vec<String> = s.excluded.iter().map(|e| format!("{} ({})", e.chip, e.reason)).collect();
                t.excluded = format!("Left out: {}.", list.join("; "));
            }
        }
        None => {}
    }
    t
}

/// A paragraph of text.
#[component]
fn Line(
    /// Element id.
    id: &'static str,
    /// Its class.
    class: &'static str,
    /// The text.
    text: Signal<String>,
) -> impl IntoView {
    view! { <p id=id class=class>{text}</p> }
}

/// The search's section.
#[component]
pub fn SearchResults(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let state = derived.state;
    let all = Memo::new(move |_| derived.search.with(|s| texts(s.as_ref())));
    let line = move |f: fn(&Texts) -> String| Signal::derive(move || all.with(f));
    let hidden = move |f: fn(&Texts) -> bool| Signal::derive(move || all.with(f));
    let chart: Memo<Option<XyChart>> =
        Memo::new(move |_| derived.with_search(|s| search_pareto_chart(&derived.model_name(), s)));
    let table = move |pick: fn(&SearchReport) -> &[Deployment]| {
        Memo::new(move |_| derived.with_search(|s| deployments_table(pick(s))).unwrap_or_default())
    };
    let ranked = table(|s| &s.ranked);
    let front = table(|s| &s.pareto);
    let opened = RwSignal::new(String::new());
    let open_row = move |pareto: bool, i: usize| {
        let row = derived.search.with_untracked(|r| {
            let s = r.as_ref()?.last.as_ref()?.as_ref().ok()?;
            if pareto { s.pareto.get(i) } else { s.ranked.get(i) }.cloned()
        });
        let Some(row) = row else { return };
        let (mut caveats, mut refused) = (Vec::new(), None);
        let result = state.try_update(|s| match open(s, &row) {
            Ok(c) => caveats = c,
            Err(e) => refused = Some(e),
        });
        let what = if pareto { "front" } else { "ranked" };
        opened.set(match (result, refused) {
            (Err(e), _) | (_, Some(e)) => format!("Cannot open {what} row {}: {e}", i + 1),
            _ if caveats.is_empty() => format!("Opened {what} row {}: the plan above is that deployment.", i + 1),
            _ => format!("Opened {what} row {} as the nearest scenario: {}.", i + 1, caveats.join("; ")),
        });
    };
    let action =
        move |pareto: bool| RowAction { label: "Open", stem: "open", on: Callback::new(move |i| open_row(pareto, i)) };
    let start = move |_| state.update(start_search);
    view! {
        <section class="result-section" aria-labelledby="serving-search-heading">
            <h3 id="serving-search-heading">"Cheapest deployment under the targets"</h3>
            <p id="serving-search-off" hidden=hidden(|t| t.asked)>
                "Search every priced chip, mesh, TP/EP split, format, batch and prefill:decode split for the cheapest deployment meeting the latency targets at the request rate. "
                <button type="button" class="small" id="serving-search-start" on:click=start>"Search"</button>
            </p>
            <Show when=move || all.with(|t| t.asked)>
                <Line id="serving-search-error" class="field-error" text=line(|t| t.error.clone()) />
                <p class="stale" id="serving-search-running" role="status" hidden=hidden(|t| !t.running)>
                    "Searching in the background for the current inputs…"
                </p>
                <Line id="serving-search-explanation" class="" text=line(|t| t.explanation.clone()) />
                <Line id="serving-search-impossible" class="field-error" text=line(|t| t.impossible.clone()) />
                <p
                    class="hint"
                    id="serving-search-stats"
                    data-seq=line(|t| t.seq.clone())
                    data-search-ms=line(|t| t.worker_ms.clone())
                    data-shown-ms=line(|t| t.shown_ms.clone())
                >
                    {line(|t| t.stats.clone())}
                </p>
                <Line id="serving-search-excluded" class="hint" text=line(|t| t.excluded.clone()) />
                <ServingChart
                    name="serving-search-pareto"
                    canvas="chart-serving-search-pareto"
                    data=chart
                    caption="Each point a deployment meeting every target: cost per million output tokens against the mean time to a request's last token. The line is the Pareto front (nothing else is both cheaper and faster); the cheapest is marked."
                />
                <Line id="serving-search-opened" class="hint" text=opened.into() />
                <h4>"The cheapest, ranked"</h4>
                <div class="table-wrap">
                    <DataTable id="serving-search-ranked" table=ranked action=action(false) />
                </div>
                <TableExports name="serving-search-ranked" table=ranked />
                <details class="subfields">
                    <summary>"Pareto front: the deployments no other is both cheaper and faster than"</summary>
                    <div class="table-wrap">
                        <DataTable id="serving-search-front" table=front action=action(true) />
                    </div>
                </details>
                <TableExports name="serving-search-front" table=front />
            </Show>
        </section>
    }
}
