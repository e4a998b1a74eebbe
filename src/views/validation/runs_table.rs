//! The published runs: filters (chip, model, split), every run's measured and predicted
//! step time and MFU, its FLOPs in its own convention and today's, a CSV download, and a
//! link opening the run as a scenario on the training page.
//!
//! The table is HTML text with every run in it, written when the prediction changes; a filter
//! only sets or clears `hidden` on the rows whose visibility changes (the predictions are the
//! bundled table's, never recomputed).

use leptos::prelude::*;
use shardcalc_charts::scatter::chip_name;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::validation::fit::Split;
use shardcalc_core::validation::table::{generations, Predicted, RunRow};
use shardcalc_core::validation::PredictionMode;

use shardcalc_core::decimal::{fixed, shortest, signed};
use wasm_bindgen::JsCast;

use super::derived::{rows, Derived};
use super::{csv, mesh_text};
use crate::components::TableExports;
use crate::dom::event_value;
use crate::html_text::{attr, el, escape, table, with_short};
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

/// The three predicted cells of a run: step time and MFU, MFU error (flagged over 5 points)
/// with the step-time error, and what bounds the step.
fn predicted_cells(p: &Predicted) -> String {
    match p {
        Ok(c) => {
            let err_class = if c.error.mfu_pts.abs() > 5.0 { "num flag" } else { "num" };
            let planner = if c.fits { "" } else { "planner: over HBM" };
            el(
                "td",
                " class=\"num\"",
                &with_short(&format!("{} s", fixed(c.step_time_s, 2)), &format!("{}% MFU", fixed(c.mfu_pct, 1))),
            ) + &el(
                "td",
                &attr("class", err_class),
                &with_short(&signed(c.error.mfu_pts, 1), &format!("{}% step", signed(c.error.step_pct, 1))),
            ) + &el("td", "", &with_short(&super::bound_text(c), planner))
        }
        Err(e) => el("td", " colspan=\"3\" class=\"field-error\"", &escape(&format!("refused: {e}"))),
    }
}

/// One run's `<tr data-run>`, `hidden` when the filters leave it out.
fn row_html(r: &RunRow, mode: PredictionMode, hidden: bool) -> String {
    let mut attrs = attr("data-run", &r.id);
    if r.split == Split::HeldBack {
        attrs += " class=\"held-back\"";
    }
    if hidden {
        attrs += " hidden";
    }
    let link = r.scenario.as_ref().map(|s| {
        el("a", &(" class=\"open-training\"".to_string() + &attr("href", &training_link(s, mode))), "Open in Training")
    });
    let cells = el("th", " scope=\"row\"", &with_short(&r.id, &format!("{}, {}", r.published, r.split.label())))
        + &el("td", "", &with_short(&chip_name(&r.chip), &format!("{} chips, {} slice(s)", r.chips, r.slices)))
        + &el("td", "", &escape(&r.model))
        + &el(
            "td",
            "",
            &with_short(
                &mesh_text(&r.mesh),
                &format!("remat {}, {} × {} tokens", r.remat, shortest(r.per_device_batch), r.seq_len),
            ),
        )
        + &el(
            "td",
            " class=\"num\"",
            &with_short(&format!("{} / {}", fixed(r.tflops_then, 1), fixed(r.tflops_now, 1)), r.convention_then.id()),
        )
        + &el(
            "td",
            " class=\"num\"",
            &with_short(
                &format!("{} s", fixed(r.measured_step_s, 2)),
                &format!("{}% MFU", fixed(r.measured_mfu_pct, 1)),
            ),
        )
        + &predicted_cells(r.prediction(mode))
        + &el("td", "", &link.unwrap_or_default());
    el("tr", &attrs, &cells)
}

/// `#validation-runs` as HTML text: every run in `mode`, those with `keep` false hidden.
#[must_use]
pub fn runs_html(mode: PredictionMode, keep: &[bool]) -> String {
    let body: String =
        rows().iter().enumerate().map(|(i, r)| row_html(r, mode, !keep.get(i).copied().unwrap_or(true))).collect();
    let caption = format!(
        "Measured: step time and MFU from the published TFLOP/s. Predicted: the training planner on the run's own mesh, {}. TFLOPs per device-step in the run's own published convention (named under) and in today's MaxText one, which every MFU here uses. MFU errors over 5 points are marked; under each, the step-time error.",
        mode.label().to_lowercase()
    );
    table(
        "validation-runs",
        &caption,
        &[
            "Run",
            "Chip",
            "Model",
            "Mesh",
            "#TFLOPs then / now",
            "#Measured",
            "#Predicted",
            "#MFU error (pts)",
            "Bound",
            "Scenario",
        ],
        &body,
    )
}

/// The filters, the table and its CSV download.
#[component]
pub fn RunsTable(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let all = rows();
    let chips: Vec<(String, String)> = generations(all).into_iter().map(|c| (c.clone(), chip_name(&c))).collect();
    let models: Vec<(String, String)> =
        distinct(all.iter().map(|r| r.model.clone())).into_iter().map(|m| (m.clone(), m)).collect();
    let splits: Vec<(String, String)> =
        [Split::Fit, Split::HeldBack].iter().map(|s| (s.id().to_string(), s.label().to_string())).collect();
    let wrap = NodeRef::<leptos::html::Div>::new();
    // Written whole when the prediction changes; on a filter change, only the rows whose
    // visibility changes get or lose `hidden` (toggleAttribute with force changes nothing
    // on the others).
    Effect::new(move |written: Option<Option<PredictionMode>>| {
        let mode = derived.mode.get();
        let keep: Vec<bool> = derived.shown.with(|shown| (0..rows().len()).map(|i| shown.contains(&i)).collect());
        let target = wrap.get()?;
        if written.flatten() == Some(mode) {
            if let Ok(trs) = target.query_selector_all("#validation-runs tbody tr") {
                for (i, k) in keep.iter().enumerate() {
                    if let Some(tr) = trs.item(i as u32).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) {
                        let _ = tr.toggle_attribute_with_force("hidden", !k);
                    }
                }
            }
        } else {
            target.set_inner_html(&runs_html(mode, &keep));
        }
        Some(mode)
    });
    let count = move || {
        let total = rows().len();
        format!("Showing {} of {total} runs.", derived.shown.with(Vec::len))
    };
    let runs = Signal::derive(move || csv::runs(&derived.shown_rows()));
    view! {
        <section class="result-section" aria-labelledby="validation-runs-heading">
            <h3 id="validation-runs-heading">"Published runs"</h3>
            <div class="filters">
                <FilterSelect id="validation-filter-chip" label="Chip" options=chips target=derived.filter.chip />
                <FilterSelect id="validation-filter-model" label="Model" options=models target=derived.filter.model />
                <FilterSelect id="validation-filter-split" label="Split" options=splits target=derived.filter.split />
            </div>
            <p class="note" id="validation-count" role="status">{count}</p>
            <div node_ref=wrap></div>
            <div class="actions">
                <TableExports name="validation-runs" table=runs />
            </div>
        </section>
    }
}
