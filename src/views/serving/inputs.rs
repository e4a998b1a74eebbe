//! The serving form: the model (a preset here; anything else comes from the model page
//! through the link), the chip and topology, the prediction mode, then every field of
//! `shardcalc_core::field::serving` in its fieldset: workload, formats, sharding, prefill,
//! speculative decoding, cost and conventions.

use leptos::prelude::*;
use shardcalc_core::field::serving::{CONVENTIONS, COST, FORMATS, PREFILL, SHARDING, SPECULATIVE, WORKLOAD};
use shardcalc_core::field::Field;

use crate::components::{Fields, HardwarePicker, PredictionSwitch, PresetSelect};
use crate::state::use_app_state;

/// One fieldset of the form: `class`, legend, fields.
#[component]
fn Group(
    /// The fieldset's class (`serving-<name>`).
    class: &'static str,
    /// Its legend.
    legend: &'static str,
    /// Its fields.
    fields: &'static [Field],
) -> impl IntoView {
    view! {
        <fieldset class=class>
            <legend>{legend}</legend>
            <Fields group=fields />
        </fieldset>
    }
}

/// Every input of the serving view.
#[component]
pub fn ServingInputs() -> impl IntoView {
    let state = use_app_state();
    let fragment = state.shared_fragment_memo();
    view! {
        <fieldset class="serving-model">
            <legend>"Model"</legend>
            <div class="field preset">
                <label for="preset">"Preset"</label>
                <PresetSelect />
            </div>
            <p class="hint" id="preset-info">
                "Custom or imported models come from the "
                <a id="serving-edit-model" href=move || format!("index.html{}", fragment.get())>"model page"</a>
                "; the link carries the model here."
            </p>
        </fieldset>
        <HardwarePicker />
        <PredictionSwitch />
        <Group class="serving-workload" legend="Workload" fields=&WORKLOAD />
        <Group class="serving-dtypes" legend="Number formats" fields=&FORMATS />
        <Group class="serving-sharding" legend="Sharding" fields=&SHARDING />
        <Group class="serving-prefill" legend="Prefill" fields=&PREFILL />
        <Group class="serving-speculative" legend="Speculative decoding" fields=&SPECULATIVE />
        <Group class="serving-cost" legend="Cost" fields=&COST />
        <Group class="serving-advanced" legend="Conventions" fields=&CONVENTIONS />
    }
}
