//! The serving form: the model (a preset here; anything else from the model page through the
//! link), the chip and topology, the workload, then formats, sharding and prefill, and
//! speculative decoding and price (their own files).

use leptos::prelude::*;

use super::dtype_inputs::FORMATS;
use super::fields::{
    count_text, optional_positive_count, optional_positive_real, positive_count, real_text, Field, Group, InferenceSpec,
};
use super::form::FormGroups;
use super::options_inputs::{CONVENTIONS, COST};
use super::sharding_inputs::{PREFILL, SHARDING};
use super::speculative_inputs::SpeculativeInputs;
use crate::components::{HardwarePicker, PredictionSwitch, PresetSelect};
use crate::state::use_app_state;

static PROMPT: InferenceSpec = InferenceSpec {
    path: "inference.prompt_len",
    id: "inference-prompt_len",
    label: "Prompt length P",
    unit: "tokens",
    hint: "Tokens prefilled per request",
    input_mode: "numeric",
    get: |s| s.prompt_len.to_string(),
    set: |t, s| {
        s.prompt_len = positive_count(t)?;
        Ok(())
    },
};

static OUTPUT: InferenceSpec = InferenceSpec {
    path: "inference.output_len",
    id: "inference-output_len",
    label: "Output length G",
    unit: "tokens",
    hint: "Tokens generated per request (decode steps)",
    input_mode: "numeric",
    get: |s| s.output_len.to_string(),
    set: |t, s| {
        s.output_len = positive_count(t)?;
        Ok(())
    },
};

static BATCH: InferenceSpec = InferenceSpec {
    path: "inference.batch",
    id: "inference-batch",
    label: "Batch B",
    unit: "sequences",
    hint: "Sequences decoded together per replica; empty = the largest that fits",
    input_mode: "numeric",
    get: |s| count_text(s.batch),
    set: |t, s| {
        s.batch = optional_positive_count(t)?;
        Ok(())
    },
};

static RATE: InferenceSpec = InferenceSpec {
    path: "inference.request_rate",
    id: "inference-request_rate",
    label: "Request rate",
    unit: "requests/s",
    hint: "To size the prefill and decode servers; empty = none",
    input_mode: "decimal",
    get: |s| real_text(s.request_rate),
    set: |t, s| {
        s.request_rate = optional_positive_real(t)?;
        Ok(())
    },
};

/// Prompt and output lengths, batch, request rate.
static WORKLOAD: Group = Group {
    legend: "Workload",
    class: "serving-workload",
    fields: &[Field::Text(&PROMPT), Field::Text(&OUTPUT), Field::Text(&BATCH), Field::Text(&RATE)],
};

/// The groups before speculative decoding.
static BEFORE: [&Group; 4] = [&WORKLOAD, &FORMATS, &SHARDING, &PREFILL];
/// The groups after it.
static AFTER: [&Group; 2] = [&COST, &CONVENTIONS];

/// Every input of the serving view. The fields are uncontrolled, so they are rebuilt from
/// the scenario when it is replaced wholesale (a link, a preset).
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
        <HardwarePicker default_chip="tpu-v5e" default_shape="" allow_no_topology=true />
        <PredictionSwitch />
        <FormGroups groups=&BEFORE />
        <SpeculativeInputs />
        <FormGroups groups=&AFTER />
    }
}
