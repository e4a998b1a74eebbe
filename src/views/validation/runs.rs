//! The published runs: filters (chip, model, side of the interleaved split), every run's
//! measured and predicted step time and MFU, in sample and held back, its FLOPs in its own
//! convention and today's, exports, and a link opening the run as a scenario on the
//! training page. The page's table holds every run, built when the prediction changes; a
//! filter only marks the rows it drops (`filtered-out`, not displayed), so a filter change
//! rewrites those rows' classes, not every cell (the repaint budget). The exports and the
//! count hold the runs the filters keep.

use leptos::prelude::*;
use shardcalc_charts::scatter::chip_name;
use shardcalc_core::validation::fit::Split;
use shardcalc_core::validation::table::generations;

use super::derived::{table, Derived};
use super::tables;
use crate::components::{DataTable, RowIds, TableExports};
use crate::dom::event_value;

fn distinct(values: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// A filter's drop-down: "All" and one option per value.
#[component]
fn FilterSelect(
    /// Element id.
    id: &'static str,
    /// Label text.
    label: &'static str,
    /// (value, label) pairs.
    options: Vec<(String, String)>,
    /// Where the choice goes (`None` = all).
    target: RwSignal<Option<String>>,
) -> impl IntoView {
    let opts = options.into_iter().map(|(value, text)| view! { <option value=value>{text}</option> }).collect_view();
    view! {
        <div class="field filter">
            <label for=id>{label}</label>
            <select
                id=id
                on:change=move |ev| {
                    let v = event_value(&ev);
                    target.set((!v.is_empty()).then_some(v));
                }
            >
                <option value="">"All"</option>
                {opts}
            </select>
        </div>
    }
}

/// The filters, `#validation-count`, `#validation-runs` and its exports.
#[component]
pub fn RunsTable(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let all = &table().runs;
    let chips: Vec<(String, String)> = generations(all).into_iter().map(|c| (c.clone(), chip_name(&c))).collect();
    let models: Vec<(String, String)> =
        distinct(all.iter().map(|r| r.model.clone())).into_iter().map(|m| (m.clone(), m)).collect();
    let splits: Vec<(String, String)> =
        [Split::Fit, Split::HeldBack].iter().map(|s| (s.id().to_string(), s.label().to_string())).collect();
    // Exported and counted: the runs the filters keep.
    let runs = Memo::new(move |_| tables::runs(table(), &derived.shown_runs(), derived.mode.get()));
    // Shown: every run, the dropped ones marked.
    let every = Memo::new(move |_| {
        let rows: Vec<_> = all.iter().collect();
        tables::runs(table(), &rows, derived.mode.get())
    });
    let shown = Memo::new(move |_| {
        let mut t = every.get();
        t.classes.resize(t.rows.len(), String::new());
        for (class, run) in t.classes.iter_mut().zip(all) {
            if !derived.filter.keeps(run) {
                class.push_str(if class.is_empty() { "filtered-out" } else { " filtered-out" });
            }
        }
        t
    });
    let count = move || format!("Showing {} of {} runs.", runs.with(|t| t.rows.len()), all.len());
    view! {
        <section class="result-section" aria-labelledby="validation-runs-heading">
            <h3 id="validation-runs-heading">"Published runs"</h3>
            <div class="filters">
                <FilterSelect id="validation-filter-chip" label="Chip" options=chips target=derived.filter.chip />
                <FilterSelect id="validation-filter-model" label="Model" options=models target=derived.filter.model />
                <FilterSelect id="validation-filter-split" label="Interleaved split" options=splits target=derived.filter.split />
            </div>
            <p class="note" id="validation-count" role="status">{count}</p>
            <div class="table-wrap">
            <DataTable
                id="validation-runs"
                table=shown
                caption="Measured: step time and MFU from the published TFLOP/s. Predicted: the training planner on the run's own mesh, in the mode shown, and (calibrated) by the fit that never saw the run's chip. TFLOPs per device-step in the run's own published convention and in today's MaxText one, which every MFU here uses. Rows whose MFU error is over 5 points are marked."
                row_headers=true
                row_ids=RowIds { key: Some(0), prefix: "run-" }
            />
            </div>
            <div class="actions"><TableExports name="validation-runs" table=runs /></div>
        </section>
    }
}
