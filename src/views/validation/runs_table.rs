//! The published runs: filters (chip, model, split), every run's measured and predicted
//! step time and MFU, its FLOPs in its own convention and today's, a CSV download, and a
//! link opening the run as a scenario on the training page.

use leptos::prelude::*;
use shardcalc_charts::scatter::chip_name;
use shardcalc_core::validation::fit::Split;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::validation::table::{generations, Predicted, RunRow};
use shardcalc_core::validation::PredictionMode;

use super::derived::{rows, Derived};
use super::{csv, mesh_text};
use crate::components::CsvButton;
use crate::dom::event_value;
use crate::state::url;

/// The training page with `scenario` (a run's or a guide point's: its model, chips, mesh,
/// batch and remat) in `mode`.
#[must_use]
pub fn training_link(scenario: &Scenario, mode: PredictionMode) -> String {
    let mut s = scenario.clone();
    s.conventions.prediction = mode;
    format!("training.html{}", url::fragment(&s))
}

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
    let opts = options
        .into_iter()
        .map(|(value, text)| view! { <option value=value>{text}</option> })
        .collect_view();
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

fn cells(p: &Predicted) -> AnyView {
    match p {
        Ok(c) => {
            let err_class = if c.error.mfu_pts.abs() > 5.0 { "num flag" } else { "num" };
            view! {
                <td class="num">{format!("{:.2} s", c.step_time_s)} <span class="short">{format!("{:.1}% MFU", c.mfu_pct)}</span></td>
                <td class=err_class>{format!("{:+.1}", c.error.mfu_pts)} <span class="short">{format!("{:+.1}% step", c.error.step_pct)}</span></td>
                <td>{super::bound_text(c)}{(!c.fits).then_some(view! { <span class="short">"planner: over HBM"</span> })}</td>
            }
            .into_any()
        }
        Err(e) => view! { <td colspan="3" class="field-error">{format!("refused: {e}")}</td> }.into_any(),
    }
}

fn row_view(r: &RunRow, mode: PredictionMode) -> impl IntoView {
    let link = r.scenario.as_ref().map(|s| training_link(s, mode));
    view! {
        <tr data-run=r.id.clone() class:held-back=r.split == Split::HeldBack>
            <th scope="row">{r.id.clone()} <span class="short">{format!("{}, {}", r.published, r.split.label())}</span></th>
            <td>{chip_name(&r.chip)} <span class="short">{format!("{} chips, {} slice(s)", r.chips, r.slices)}</span></td>
            <td>{r.model.clone()}</td>
            <td>{mesh_text(&r.mesh)} <span class="short">{format!("remat {}, {} × {} tokens", r.remat, r.per_device_batch, r.seq_len)}</span></td>
            <td class="num">{format!("{:.1} / {:.1}", r.tflops_then, r.tflops_now)} <span class="short">{r.convention_then.id()}</span></td>
            <td class="num">{format!("{:.2} s", r.measured_step_s)} <span class="short">{format!("{:.1}% MFU", r.measured_mfu_pct)}</span></td>
            {cells(r.prediction(mode))}
            <td>{link.map(|href| view! { <a class="open-training" href=href>"Open in Training"</a> })}</td>
        </tr>
    }
}

/// The filters, the table and its CSV download.
#[component]
pub fn RunsTable(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let all = rows();
    let chips: Vec<(String, String)> = generations(all).into_iter().map(|c| (c.clone(), chip_name(&c))).collect();
    let models: Vec<(String, String)> = distinct(all.iter().map(|r| r.model.clone())).into_iter().map(|m| (m.clone(), m)).collect();
    let splits: Vec<(String, String)> = [Split::Fit, Split::HeldBack].iter().map(|s| (s.id().to_string(), s.label().to_string())).collect();
    let body = move || {
        let mode = derived.mode.get();
        derived.shown_rows().into_iter().map(|r| row_view(r, mode)).collect_view()
    };
    let count = move || {
        let total = rows().len();
        format!("Showing {} of {total} runs.", derived.shown.with(Vec::len))
    };
    let csv_text = Signal::derive(move || csv::runs(&derived.shown_rows()));
    view! {
        <section class="result-section" aria-labelledby="validation-runs-heading">
            <h3 id="validation-runs-heading">"Published runs"</h3>
            <div class="filters">
                <FilterSelect id="validation-filter-chip" label="Chip" options=chips target=derived.filter.chip />
                <FilterSelect id="validation-filter-model" label="Model" options=models target=derived.filter.model />
                <FilterSelect id="validation-filter-split" label="Split" options=splits target=derived.filter.split />
            </div>
            <p class="note" id="validation-count" role="status">{count}</p>
            <div class="table-wrap">
                <table id="validation-runs">
                    <caption>{move || format!(
                        "Measured: step time and MFU from the published TFLOP/s. Predicted: the training planner on the run's own mesh, {}. TFLOPs per device-step in the run's own published convention (named under) and in today's MaxText one, which every MFU here uses. MFU errors over 5 points are marked; under each, the step-time error.",
                        derived.mode.get().label().to_lowercase()
                    )}</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Run"</th>
                            <th scope="col">"Chip"</th>
                            <th scope="col">"Model"</th>
                            <th scope="col">"Mesh"</th>
                            <th scope="col" class="num">"TFLOPs then / now"</th>
                            <th scope="col" class="num">"Measured"</th>
                            <th scope="col" class="num">"Predicted"</th>
                            <th scope="col" class="num">"MFU error (pts)"</th>
                            <th scope="col">"Bound"</th>
                            <th scope="col">"Scenario"</th>
                        </tr>
                    </thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
            <div class="actions">
                <CsvButton name="validation-runs" csv=csv_text />
            </div>
        </section>
    }
}
