//! The model view's form: the model's shape and blocks, the workload and the convention.

use leptos::prelude::*;
use shardcalc_core::model::MAX_LAYERS;

use super::attention_inputs::AttentionInputs;
use super::extras_inputs::ExtrasInputs;
use super::ffn_inputs::FfnInputs;
use super::layout_inputs::LayoutInputs;
use super::workload_inputs::{ConventionPicker, WorkloadInputs};
use crate::components::{ErrorSummary, NumberField, TextField};
use crate::field_spec::{count_spec, NumberKind, ANY_COUNT};

count_spec!(
    D_MODEL,
    "model.d_model",
    [model.d_model],
    "Model width D (d_model)",
    "",
    "the residual stream width (book 4.2's D)",
    ANY_COUNT,
);

count_spec!(
    LAYERS,
    "model.num_layers",
    [model.num_layers],
    "Layers L",
    "layers",
    "decoder layers, not counting MTP modules",
    NumberKind::Count { max: MAX_LAYERS },
);

count_spec!(
    VOCAB,
    "model.vocab_size",
    [model.vocab_size],
    "Vocabulary V",
    "tokens",
    "as stored, i.e. padded where the checkpoint pads it",
    ANY_COUNT,
);

/// Every field of the model and the workload. Its inputs are uncontrolled, so the caller
/// rebuilds it (keyed on `AppState::generation`) when the draft is replaced wholesale.
#[component]
pub fn ModelForm() -> impl IntoView {
    view! {
        <form class="model-form" novalidate on:submit=|ev| ev.prevent_default()>
            <ErrorSummary />
            <fieldset>
                <legend>"Shape"</legend>
                <TextField
                    path="model.name"
                    label="Name"
                    hint="shown in results and chart titles"
                    get=|d| d.model.name.clone()
                    set=|d, t| d.model.name = t.to_string()
                />
                <NumberField spec=&D_MODEL />
                <NumberField spec=&LAYERS />
                <NumberField spec=&VOCAB />
            </fieldset>
            <AttentionInputs />
            <LayoutInputs />
            <FfnInputs />
            <ExtrasInputs />
            <WorkloadInputs />
            <ConventionPicker />
        </form>
    }
}
