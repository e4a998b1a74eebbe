//! The training view (issue 4; book chapters 5–6): model, hardware, batch and the
//! training state on the left; the search's best mesh, whether it fits, step time, MFU,
//! days and cost, the book's thresholds, every mesh ranked, an explorable mesh, and
//! charts on the right. It computes only `training::plan` (never `report::evaluate`), in
//! the prediction mode of the switch (`#prediction-mode`), and the headline numbers' bands.
//!
//! | module | what |
//! |---|---|
//! | [`derived`] | memos: the search (only when its inputs change), the budget applied, the explored mesh |
//! | [`fields`], [`conflicts`] | how inputs reach `training` ([`fields::apply`]); planning problems at their fields |
//! | [`inputs`], [`remat_inputs`], [`explore`] | the form's fields as data; the explored mesh |
//! | [`form`] | the form as HTML text, one handler for every edit, the problems under the fields |
//! | [`headline`] | the headline numbers, with their uncertainty bands (`#<id>-band`) |
//! | [`thresholds`], [`ranked`], [`details`], [`charts`], [`csv`] | results, tables, charts, CSV |

pub mod charts;
pub mod conflicts;
pub mod csv;
pub mod derived;
pub mod details;
pub mod explore;
pub mod fields;
pub mod form;
pub mod headline;
pub mod html;
pub mod inputs;
pub mod ranked;
pub mod remat_inputs;
pub mod thresholds;

pub use derived::Derived;

use leptos::prelude::*;
use shardcalc_charts::format::short_count;
use shardcalc_core::params::count_params;
use shardcalc_core::training::section::{default_hardware, TrainingSection, DEFAULT_CHIP};

use crate::components::{HardwarePicker, PredictionSwitch, PresetPicker};
use crate::state::use_app_state;

/// The two-column training view (stacked on narrow screens).
#[component]
pub fn TrainingView() -> impl IntoView {
    let state = use_app_state();
    // A scenario without hardware or `training` starts from core's defaults (a v5p 4×4×4,
    // 2^20 tokens of 4096 per step), as the chart catalog does.
    if state.scenario.with_untracked(|s| s.hardware.is_none() || s.training.is_none()) {
        state.fill_defaults(|s| {
            s.hardware.get_or_insert_with(default_hardware);
            s.training.get_or_insert_with(TrainingSection::default);
        });
    }
    let derived = Derived::new(state);
    provide_context(derived);
    // HTML text like the results (escaped): no text node's rendering code on the page.
    let model_line = derived::text_of(derived, |d| {
        d.model.with(|m| {
            m.as_ref()
                .map(|m| {
                    html::escape(&format!(
                        "{}: {} parameters ({} active)",
                        m.name,
                        short_count(count_params(m).total.get()),
                        short_count(count_params(m).active.get())
                    ))
                })
                .unwrap_or_default()
        })
    });
    view! {
        <div class="columns training">
            <section class="inputs" aria-labelledby="training-inputs-heading">
                <h2 id="training-inputs-heading">"Inputs"</h2>
                <fieldset>
                    <legend>"Model"</legend>
                    <PresetPicker />
                    <p class="hint" id="training-model" inner_html=model_line></p>
                    <p class="hint">"A model edited or imported on the Model page comes here through the link at the top."</p>
                </fieldset>
                <HardwarePicker default_chip=DEFAULT_CHIP default_shape="4x4x4" />
                <div class="field-error conflict" id="hw-shape-conflict" aria-live="polite"></div>
                <PredictionSwitch />
                <form::TrainingForm derived=derived />
            </section>
            <section class="results" aria-labelledby="training-results-heading">
                <h2 id="training-results-heading">"Results"</h2>
                <conflicts::ConflictSummary derived=derived />
                <div class="results-body" class:is-stale=move || derived.is_stale()>
                    <headline::Headlines derived=derived />
                    <thresholds::Thresholds derived=derived />
                    <ranked::Ranked derived=derived />
                    <details::Details derived=derived />
                    <charts::TrainingCharts derived=derived />
                </div>
            </section>
        </div>
    }
}
