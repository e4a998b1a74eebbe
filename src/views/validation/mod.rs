//! The validation view (issues 8, 16 and 17): how far the training planner and the serving
//! model are from published measurements. The prediction switch (`conventions.prediction`),
//! headline errors on runs held back from the fit, the grouped splits, the errors per chip
//! generation, the predicted-vs-measured scatter and the residuals by chip, every run
//! (filterable, exported, each opening its scenario on the training page), the
//! calibration's parameters, the guide's design points, and the serving validation (its
//! own section, [`serving`]). Everything comes from `shardcalc_core::view::validation` over
//! core's bundled tables (computed natively by the same code, kept current by its tests), so
//! the page plans nothing.
//!
//! Element ids: `#prediction-mode` (`#prediction-ideal`, `#prediction-calibrated`),
//! `#validation-headline` (cards `#card-held-back-mfu`, `#card-held-back-step`,
//! `#card-bias`, values `#<card>-value`), `#validation-splits`, `#validation-summary`,
//! `#chart-validation-scatter`, `#chart-validation-residuals`, `#validation-filter-chip`,
//! `#validation-filter-model`, `#validation-filter-split`, `#validation-count`,
//! `#validation-runs` (rows `#run-<id>`, the filtered ones; links in the last column),
//! `#validation-calibration` (rows `#parameter-<id>`), `#validation-guide`,
//! `#validation-unpredicted`, `#validation-case-studies` (rows `#case-<id>`), and the serving
//! section's `#serving-validation-sides`, `#serving-validation-groups`,
//! `#chart-validation-serving`, `#serving-validation-runs` (rows `#serving-run-<id>`).
//! Every table exports as `validation-runs`, ... (`-csv`, `-md`).

mod cards;
mod charts;
mod derived;
mod runs;
pub mod serving;
pub mod tables;

pub use derived::Derived;

use leptos::prelude::*;
use shardcalc_core::validation::calibration;

use crate::components::{DataTable, PredictionSwitch, RowIds};
use crate::state::use_app_state;

/// The grouped splits and the errors per chip generation.
#[component]
fn SplitTables(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let splits = Memo::new(move |_| derived.eval.with(|e| tables::splits(&e.splits)));
    let generations = Memo::new(move |_| derived.eval.with(|e| tables::generations(&e.by_generation)));
    let rules = move || {
        derived.eval.with(|e| {
            e.splits
                .iter()
                .map(|s| view! { <li><strong>{s.label.clone()}</strong>": "{s.rule.clone()}</li> })
                .collect_view()
        })
    };
    view! {
        <section class="result-section" aria-labelledby="validation-splits-heading">
            <h3 id="validation-splits-heading">"Held back: the grouped splits"</h3>
            <p class="note">
                "Each fold refits the calibration without the runs it holds back, then predicts them. A group of near-duplicates (one chip and one model shape, differing only in slices) is never split between the fitted and held-back sides. The goal (issue 16): a median |MFU error| of at most 5 points on every split."
            </p>
            <ul class="notes">{rules}</ul>
            <DataTable
                id="validation-splits"
                table=splits
                caption="Calibrated predictions of held-back runs, MFU in today's MaxText convention; per split, every fold pooled, then each fold with the parameters it fitted."
                group_by=0
                row_headers=true
                exports="validation-splits"
            />
            <h3 id="validation-summary-heading">"Error per chip generation"</h3>
            <DataTable
                id="validation-summary"
                table=generations
                caption="MFU errors in percentage points, step-time errors in % of the measured step; p90 is the nearest-rank 90th percentile. In sample: the bundled calibration, fitted on every run. Held back: fitted without the chip generation's runs."
                row_headers=true
                exports="validation-summary"
            />
        </section>
    }
}

/// The calibration's parameters, the guide's design points and what nothing predicts.
#[component]
fn ReferenceTables(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let file = calibration::bundled_file();
    let parameters = Memo::new(move |_| file.map(tables::calibration).unwrap_or_default());
    let about = file.map_or_else(
        || "The bundled calibration could not be read.".to_string(),
        |f| {
            format!(
                "Fitted on {}. Objective: {}. The held-back step-time errors run from {}% to {}% (10th to 90th percentile, each run predicted by a fit that never saw its chip): the band around calibrated numbers on the training and serving pages.",
                f.split,
                f.objective,
                shardcalc_core::decimal::signed(f.residuals.step_pct_p10, 1),
                shardcalc_core::decimal::signed(f.residuals.step_pct_p90, 1)
            )
        },
    );
    let cases = Memo::new(move |_| derived.eval.with(|e| tables::case_studies(&e.case_studies)));
    let guides = Memo::new(move |_| tables::guides(derived::table(), derived.mode.get()));
    let unpredicted = Memo::new(move |_| tables::unpredicted(derived::table()));
    view! {
        <section class="result-section" aria-labelledby="validation-calibration-heading">
            <h3 id="validation-calibration-heading">"The calibration"</h3>
            <p class="note">{about}</p>
            <DataTable
                id="validation-calibration"
                table=parameters
                caption="The physical parameters, each shared by every chip (core/data/calibration.json)."
                row_headers=true
                row_ids=RowIds { key: Some(0), prefix: "parameter-" }
                exports="validation-calibration"
            />
        </section>
        <section class="result-section" aria-labelledby="validation-case-studies-heading">
            <h3 id="validation-case-studies-heading">"The Ironwood guide's case studies"</h3>
            <p class="note">
                "Each change the guide measured on 64 TPU7x chips, planned before and after by the calibrated model on a public model standing for the guide's (the assumptions are in docs/validation.md)."
            </p>
            <DataTable
                id="validation-case-studies"
                table=cases
                row_headers=true
                row_ids=RowIds { key: Some(0), prefix: "case-" }
                exports="validation-case-studies"
            />
        </section>
        <section class="result-section" aria-labelledby="validation-guide-heading">
            <h3 id="validation-guide-heading">"Design points of the MaxText custom-config guide"</h3>
            <p class="note">
                "Not published runs: the guide states an MFU for a model and a mesh and leaves the rest out. What is assumed is listed per point; these never enter the fit or the statistics above."
            </p>
            <DataTable id="validation-guide" table=guides row_headers=true exports="validation-guide" />
            <h4>"Published numbers nothing here predicts"</h4>
            <DataTable id="validation-unpredicted" table=unpredicted row_headers=true exports="validation-unpredicted" />
        </section>
    }
}

/// The validation page's panel.
#[component]
pub fn ValidationView() -> impl IntoView {
    let state = use_app_state();
    let derived = Derived::new(state);
    view! {
        <div class="validation">
            <h2>"Predicted vs measured"</h2>
            <p class="intro">
                "Published MaxText training runs (TPU v4, v5e, v5p, 2023; H100, 2024), each planned on its own mesh and remat policy, against the step time and MFU their published TFLOP/s imply. The roofline runs every matmul at peak and every overlapped collective for free: a bound no run beats. The calibrated model, the headline, counts every kernel the step runs at the rate its shape allows on the chip (matmuls padded to the MXU tile, attention at its head dimension's utilisation, HBM-bound norms, losses and the optimizer update, collectives on the placed axes) and five physical parameters, each shared by every chip: the sustained kernel fraction, the achieved HBM bandwidth, the scale-out bandwidth, the overlap efficiency and the slice step-time spread. The grouped splits refit them without the runs they hold back. Each run opens as a scenario on the training page; below the training runs, the serving model against published serving measurements."
            </p>
            <PredictionSwitch />
            <cards::ValidationCards derived=derived />
            <SplitTables derived=derived />
            <charts::ValidationCharts derived=derived />
            <runs::RunsTable derived=derived />
            <ReferenceTables derived=derived />
            <serving::ServingValidationSection derived=derived />
        </div>
    }
}
