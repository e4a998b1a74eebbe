//! The model view's form: the model's shape and blocks, the workload and the convention.

use leptos::prelude::*;
use shardcalc_core::model::MAX_LAYERS;

use super::access::{count, text};
use super::attention_inputs::AttentionInputs;
use super::extras_inputs::ExtrasInputs;
use super::ffn_inputs::FfnInputs;
use super::layout_inputs::LayoutInputs;
use super::workload_inputs::{ConventionPicker, WorkloadInputs};
use crate::components::{ErrorSummary, NumberField, TextField};
use crate::field_spec::{NumberKind, NumberSpec, ANY_COUNT};

static D_MODEL: NumberSpec = NumberSpec {
    path: "model.d_model",
    label: "Model width D (d_model)",
    unit: "",
    hint: "the residual stream width (book 4.2's D)",
    kind: ANY_COUNT,
    get: |d| text(d.model.d_model),
    set: |d, n| {
        if let Some(n) = count(n) {
            d.model.d_model = n;
        }
    },
};

static LAYERS: NumberSpec = NumberSpec {
    path: "model.num_layers",
    label: "Layers L",
    unit: "layers",
    hint: "decoder layers, not counting MTP modules",
    kind: NumberKind::Count { max: MAX_LAYERS },
    get: |d| text(d.model.num_layers),
    set: |d, n| {
        if let Some(n) = count(n) {
            d.model.num_layers = n;
        }
    },
};

static VOCAB: NumberSpec = NumberSpec {
    path: "model.vocab_size",
    label: "Vocabulary V",
    unit: "tokens",
    hint: "as stored, i.e. padded where the checkpoint pads it",
    kind: ANY_COUNT,
    get: |d| text(d.model.vocab_size),
    set: |d, n| {
        if let Some(n) = count(n) {
            d.model.vocab_size = n;
        }
    },
};

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
