//! The training step's shape and the FLOP convention.

use leptos::prelude::*;
use shardcalc_core::flops::{FlopConvention, RematPolicy};

use super::span_note::SpanNote;
use crate::components::{NumberField, SelectField};
use crate::dom::event_value;
use crate::field_spec::{count_spec, Number, NumberKind, NumberSpec, SelectSpec, ANY_COUNT};
use crate::state::use_app_state;

static BATCH: NumberSpec = NumberSpec {
    path: "workload.per_device_batch",
    label: "Per-device batch",
    unit: "sequences",
    hint: "per device per micro-step; may be fractional, as in MaxText (0.5 = two devices per sequence)",
    kind: NumberKind::PositiveReal,
    get: |d| Some(shardcalc_core::decimal::shortest(d.workload.per_device_batch)),
    set: |d, n| {
        if let Number::Real(x) = n {
            d.workload.per_device_batch = x;
        }
    },
};

count_spec!(
    SEQ_LEN,
    "workload.seq_len",
    [workload.seq_len],
    "Sequence length T",
    "tokens",
    "tokens per sequence (MaxText's max_target_length)",
    ANY_COUNT,
);

count_spec!(
    GRAD_ACCUM,
    "workload.grad_accum",
    [workload.grad_accum],
    "Gradient accumulation",
    "micro-steps",
    "micro-steps per optimizer step",
    ANY_COUNT,
);

static REMAT: SelectSpec = SelectSpec {
    path: "workload.remat",
    label: "Rematerialisation",
    hint: "what the backward pass recomputes: adds hardware FLOPs (HFU), not model FLOPs (MFU)",
    options: &[
        ("none", "none: save every activation"),
        ("save_matmuls", "save matmul outputs (book 4.4.2)"),
        ("full", "full: recompute each layer"),
    ],
    get: |d| match d.workload.remat {
        RematPolicy::None => "none",
        RematPolicy::SaveMatmuls => "save_matmuls",
        RematPolicy::Full => "full",
    },
    set: |d, v| {
        d.workload.remat = match v {
            "save_matmuls" => RematPolicy::SaveMatmuls,
            "full" => RematPolicy::Full,
            _ => RematPolicy::None,
        };
    },
};

/// Batch, sequence, accumulation and remat.
#[component]
pub fn WorkloadInputs() -> impl IntoView {
    view! {
        <fieldset>
            <legend>"Training step, per device"</legend>
            <NumberField spec=&BATCH />
            <NumberField spec=&SEQ_LEN />
            <SpanNote field="workload-seq_len" />
            <NumberField spec=&GRAD_ACCUM />
            <SelectField spec=&REMAT />
        </fieldset>
    }
}

/// The four FLOP conventions as radio buttons, with the chosen one's explanation.
#[component]
pub fn ConventionPicker() -> impl IntoView {
    let state = use_app_state();
    let current = Memo::new(move |_| state.draft.with(|d| d.conventions.flops));
    let initial = current.get_untracked();
    let on_change = move |ev: leptos::ev::Event| {
        if let Some(c) = FlopConvention::parse(&event_value(&ev)) {
            state.edit(|d| d.conventions.flops = c);
        }
    };
    let radios = FlopConvention::ALL
        .iter()
        .map(|&c| {
            let id = format!("convention-{}", c.id());
            let for_id = id.clone();
            view! {
                <label class="radio" for=for_id>
                    <input
                        type="radio"
                        name="convention"
                        id=id
                        value=c.id()
                        checked=c == initial
                        on:change=on_change
                    />
                    {c.label()}
                </label>
            }
        })
        .collect_view();
    view! {
        <fieldset class="conventions">
            <legend>"FLOP convention"</legend>
            <div class="radios">{radios}</div>
            <p class="hint" id="convention-explanation">{move || current.get().explanation()}</p>
        </fieldset>
    }
}
