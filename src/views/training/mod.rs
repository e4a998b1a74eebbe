//! The training view (issue 4; book chapters 5–6): model, hardware, batch and the training
//! state on the left; the search's best mesh, whether it fits, step time, MFU, days and cost,
//! the book's thresholds, every mesh ranked, an explorable mesh, and charts on the right.
//! Everything it shows is `shardcalc_core::view::training`'s (`shardcalc eval --view
//! training` prints the same), in the prediction mode of the switch (`#prediction-mode`).
//!
//! | module | what |
//! |---|---|
//! | [`derived`] | memos over core's stages: the search (only when its inputs change), the budget applied, the explored mesh, the bands |
//! | [`form`] | the fields (`shardcalc_core::field::training`), the explored mesh and its buttons |
//! | [`conflicts`] | the planning problems' summary (the fields show them too) |
//! | [`maxtext_paste`] | a MaxText command line, launch script or config in; a MaxText log against the plan (issue 19) |
//! | [`headline`] | the headline numbers (the calibrated prediction by default), the roofline beside them (`#<id>-roofline`) and their uncertainty bands (`#<id>-band`) |
//! | [`step`] | where the step goes: every term with its source, as a sentence, a chart and a table |
//! | [`thresholds`], [`ranked`], [`details`], [`tables`], [`charts`] | results: tables (each one `Table`: page, CSV, Markdown) and charts |
//!
//! Adding a control: describe it in `shardcalc_core::field::training` (path, label, unit,
//! hint, typed get/set) and put it in one of that module's groups; the form renders every
//! group, and `shardcalc eval --set` reads it too. Its problems show at it when core's
//! validation or the planner names its path (or lists it as related). See docs/architecture.md.

pub mod charts;
pub mod conflicts;
pub mod derived;
pub mod details;
pub mod form;
pub mod headline;
pub mod maxtext_paste;
pub mod ranked;
pub mod step;
pub mod tables;
pub mod thresholds;

pub use derived::Derived;

use leptos::prelude::*;
use shardcalc_charts::format::short_count;
use shardcalc_core::params::count_params;
use shardcalc_core::view::training::with_defaults;

use crate::components::{HardwarePicker, PlanProblems, PredictionSwitch, PresetPicker};
use crate::state::use_app_state;

/// The two-column training view (stacked on narrow screens).
#[component]
pub fn TrainingView() -> impl IntoView {
    let state = use_app_state();
    // A scenario without hardware or `training` is shown with core's defaults (a v5p
    // 4×4×4, 2^20 tokens of 4096 per step), which it shares only after an edit.
    state.use_defaults(with_defaults);
    let derived = Derived::new(state);
    provide_context(PlanProblems(derived.conflicts));
    let model_line = move || {
        derived.inputs.with(|i| {
            i.as_ref()
                .map(|i| {
                    let c = count_params(&i.model);
                    format!(
                        "{}: {} parameters ({} active)",
                        i.model.name,
                        short_count(c.total.get()),
                        short_count(c.active.get())
                    )
                })
                .unwrap_or_default()
        })
    };
    view! {
        <div class="columns training">
            <section class="inputs" aria-labelledby="training-inputs-heading">
                <h2 id="training-inputs-heading">"Inputs"</h2>
                <fieldset>
                    <legend>"Model"</legend>
                    <PresetPicker />
                    <p class="hint" id="training-model">{model_line}</p>
                    <p class="hint">"A model edited or imported on the Model page comes here through the link at the top."</p>
                </fieldset>
                <HardwarePicker />
                <PredictionSwitch />
                <form::TrainingForm derived=derived />
                // A MaxText run or log pasted in (issue 19): the reading is the worker's, so the
                // page carries only the boxes (~5.5 KB gzip; docs/size.md).
                <maxtext_paste::MaxTextPaste />
            </section>
            <section class="results" aria-labelledby="training-results-heading">
                <h2 id="training-results-heading">"Results"</h2>
                <conflicts::ConflictSummary derived=derived />
                <div class="results-body" class:is-stale=move || derived.is_stale()>
                    <headline::Headlines derived=derived />
                    <step::StepTerms derived=derived />
                    <thresholds::Thresholds derived=derived />
                    <ranked::Ranked derived=derived />
                    <details::Details derived=derived />
                    <charts::TrainingCharts derived=derived />
                </div>
            </section>
        </div>
    }
}
