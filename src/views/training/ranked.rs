//! The search: how many meshes and configurations it evaluated (and how long it took
//! here), the fastest configurations that fit, ranked, each explorable, and the Pareto
//! front of memory against step time, as tables with CSV.

use leptos::prelude::*;
use shardcalc_charts::format::{grouped, significant, thousands};
use shardcalc_charts::training::mesh_label;
use shardcalc_core::training::report::{SearchReport, SearchRow};
use shardcalc_core::training::tensors::Remat;

use super::csv;
use super::derived::{text_of, Derived};
use super::explore::explore;
use super::fields::current;
use super::headline::{bottleneck_label, seconds};
use super::html;
use crate::components::CsvButton;
use crate::state::{use_app_state, AppState};

/// Header of the ranked and Pareto tables.
const HEADERS: [&str; 11] =
    ["#", "Mesh", "On which network", "Microbatches", "Remat", "Step time", "GB / device", "MFU", "HFU", "Binds", ""];

/// A table of search rows as HTML text (`id`), each row with an "Explore" button
/// `#<id>-explore-<i>` (clicks are handled by [`on_explore`] on the wrapper).
fn rows_html(id: &str, rows: &[SearchRow]) -> String {
    let mut out = String::new();
    html::open_table(&mut out, id, &HEADERS);
    for (i, r) in rows.iter().enumerate() {
        out.push_str("<tr>");
        html::cell(&mut out, &(i + 1).to_string(), true);
        html::cell(&mut out, &mesh_label(&r.mesh), false);
        html::cell(&mut out, &csv::networks_text(r), false);
        html::cell(&mut out, &r.microbatches.to_string(), true);
        html::cell(&mut out, &r.remat, false);
        html::cell(&mut out, &seconds(r.step_time_s.get()), true);
        html::cell(&mut out, &significant(r.memory_bytes.get() / 1e9, 3), true);
        html::cell(&mut out, &format!("{}%", significant(100.0 * r.mfu, 3)), true);
        html::cell(&mut out, &format!("{}%", significant(100.0 * r.hfu, 3)), true);
        html::cell(&mut out, bottleneck_label(r.bound), false);
        out.push_str(&format!(
            "<td><button type=\"button\" class=\"small\" id=\"{}-explore-{i}\">Explore</button></td></tr>",
            html::escape(id)
        ));
    }
    html::close_table(&mut out);
    out
}

/// A click in the section: on a row's "Explore" button (`#training-ranked-explore-<i>` or
/// `#training-pareto-explore-<i>`), explores that row's mesh, microbatches and remat.
fn on_explore(ev: &leptos::ev::MouseEvent, state: AppState, derived: Derived) {
    use leptos::wasm_bindgen::JsCast;
    let Some(id) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).map(|e| e.id()) else { return };
    let Some((table, i)) = id.rsplit_once("-explore-") else { return };
    let Ok(i) = i.parse::<usize>() else { return };
    let pareto = table == "training-pareto";
    let row = derived.shown.with_untracked(|b| {
        let s = super::derived::ok(b)?.search.as_ref()?;
        if pareto { s.pareto.get(i) } else { s.best.get(i) }.cloned()
    });
    let Some(row) = row else { return };
    let remat = Remat::preset(&row.remat).unwrap_or_else(|| current(state, |t| t.remat.clone()));
    let variant = shardcalc_core::training::space::Variant { zero: row.zero_stage, pipeline: row.pipeline };
    explore(state, derived, row.mesh, row.microbatches, remat, variant);
}

/// `f` of the shown plan's search, or empty text.
fn of_search(d: &Derived, f: impl FnOnce(&SearchReport) -> String) -> String {
    d.with_shown(|b| b.and_then(|r| r.search.as_ref()).map(f).unwrap_or_default())
}

fn stats(d: &Derived) -> String {
    let ms = d.search_ms.get_value();
    of_search(d, |s| {
        format!(
            "Searched {} meshes × microbatch counts × remat policies = {} configurations in {} ms here; {} fit in HBM.",
            thousands(s.meshes),
            thousands(s.evaluated),
            grouped(ms, 1),
            thousands(s.feasible)
        )
    })
}

/// Search statistics, the ranked table and the Pareto front.
#[component]
pub fn Ranked(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let state = use_app_state();
    let text = |f: fn(&Derived) -> String| text_of(derived, f);
    let best_csv = Signal::derive(text(|d| of_search(d, |s| csv::search_rows(&s.best))));
    let pareto_csv = Signal::derive(text(|d| of_search(d, |s| csv::search_rows(&s.pareto))));
    view! {
        <section class="result-section" aria-labelledby="training-ranked-heading" on:click=move |ev| on_explore(&ev, state, derived)>
            <div inner_html=text(|d| {
                let mut out = String::from("<h3 id=\"training-ranked-heading\">Every mesh, ranked</h3>");
                html::element(&mut out, "p", "training-search-stats", "", &stats(d));
                out + &of_search(d, |s| rows_html("training-ranked", &s.best))
            })></div>
            <CsvButton name="training-ranked" csv=best_csv />
            <details class="subfields">
                <summary inner_html=text(|d| format!("Pareto front: {} configurations, none both faster and smaller than another", d.with_shown(|b| b.and_then(|r| r.search.as_ref()).map_or(0, |s| s.pareto.len()))))></summary>
                <div inner_html=text(|d| of_search(d, |s| rows_html("training-pareto", &s.pareto)))></div>
            </details>
            <CsvButton name="training-pareto" csv=pareto_csv />
        </section>
    }
}
