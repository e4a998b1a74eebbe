//! The feed-forward block: the dense MLP and, optionally, a mixture of experts.

use leptos::prelude::*;
use shardcalc_core::model::{MlpKind, Moe};

use super::access::{count, moe, moe_mut, text};
use crate::components::{CheckField, NumberField, SelectField};
use crate::field_spec::{count_spec, CheckSpec, NumberKind, NumberSpec, SelectSpec, ANY_COUNT};
use crate::state::use_app_state;

static MLP_KIND: SelectSpec = SelectSpec {
    path: "model.mlp.kind",
    label: "MLP kind",
    hint: "gated: 3·D·F weights (SwiGLU/GeGLU); plain: 2·D·F (GPT-3). Experts share the shape",
    options: &[("gated", "gated (3 matrices)"), ("plain", "plain (2 matrices)")],
    get: |d| match d.model.mlp.kind {
        MlpKind::Gated => "gated",
        MlpKind::Plain => "plain",
    },
    set: |d, v| {
        d.model.mlp.kind = if v == "plain" { MlpKind::Plain } else { MlpKind::Gated };
    },
};

count_spec!(
    D_FF,
    "model.mlp.d_ff",
    [model.mlp.d_ff],
    "MLP width F (d_ff)",
    "",
    "hidden width of the dense MLP; may be 0 when every layer is MoE",
    ANY_COUNT,
);

static MLP_BIAS: CheckSpec = CheckSpec {
    path: "model.mlp.bias",
    label: "MLP biases",
    hint: "biases on the MLP and expert matrices (GPT-3, gpt-oss)",
    get: |d| d.model.mlp.bias,
    set: |d, on| d.model.mlp.bias = on,
};

static MOE_ON: CheckSpec = CheckSpec {
    path: "model.moe",
    label: "Mixture of experts",
    hint: "routed experts replace the dense MLP in MoE layers (book 4.4.1)",
    get: |d| d.model.moe.is_some(),
    set: |d, on| {
        d.model.moe = on.then(|| Moe {
            num_experts: 8,
            experts_per_token: 2,
            expert_d_ff: d.model.mlp.d_ff.max(1),
            shared_experts: 0,
            shared_d_ff: None,
            first_dense_layers: 0,
            every: 1,
            router_bias: false,
        });
        // Keep the toggle's own path; forget the hidden fields' text and problems.
        for field in [
            "num_experts",
            "experts_per_token",
            "expert_d_ff",
            "shared_experts",
            "shared_d_ff",
            "first_dense_layers",
            "every",
            "router_bias",
        ] {
            d.forget(&format!("model.moe.{field}"));
        }
    },
};

/// A count field of the MoE block.
macro_rules! moe_field {
    ($name:ident, $field:ident, $label:literal, $unit:literal, $hint:literal) => {
        static $name: NumberSpec = NumberSpec {
            path: concat!("model.moe.", stringify!($field)),
            label: $label,
            unit: $unit,
            hint: $hint,
            kind: ANY_COUNT,
            get: |d| moe(d).and_then(|m| text(m.$field)),
            set: |d, n| {
                if let (Some(m), Some(n)) = (moe_mut(d), count(n)) {
                    m.$field = n;
                }
            },
        };
    };
}

moe_field!(EXPERTS, num_experts, "Routed experts E", "experts", "per MoE layer (DeepSeek-V3: 256)");
moe_field!(
    TOP_K,
    experts_per_token,
    "Experts per token k",
    "experts",
    "routed experts each token activates; at most E"
);
moe_field!(EXPERT_FF, expert_d_ff, "Expert width", "", "hidden width of one routed expert");
moe_field!(SHARED, shared_experts, "Shared experts", "experts", "always active, per MoE layer (DeepSeek-V3: 1)");
moe_field!(
    FIRST_DENSE,
    first_dense_layers,
    "First dense layers",
    "layers",
    "the first layers keep the dense MLP (DeepSeek-V3: 3)"
);
moe_field!(
    EVERY,
    every,
    "MoE every n-th layer",
    "",
    "1 = every layer after the dense ones; 2 = alternate (Llama 4 Maverick)"
);

static SHARED_FF: NumberSpec = NumberSpec {
    path: "model.moe.shared_d_ff",
    label: "Shared expert width",
    unit: "",
    hint: "empty: the same as the routed expert width",
    kind: NumberKind::OptionalCount { max: crate::parse::MAX_COUNT },
    get: |d| moe(d).map(|m| m.shared_d_ff.map(|w| w.to_string()).unwrap_or_default()),
    set: |d, n| {
        if let Some(m) = moe_mut(d) {
            m.shared_d_ff = count(n);
        }
    },
};

static ROUTER_BIAS: CheckSpec = CheckSpec {
    path: "model.moe.router_bias",
    label: "Router bias",
    hint: "one extra parameter per expert (gpt-oss bias, DeepSeek-V3 score correction)",
    get: |d| moe(d).is_some_and(|m| m.router_bias),
    set: |d, on| {
        if let Some(m) = moe_mut(d) {
            m.router_bias = on;
        }
    },
};

/// The MLP and MoE fieldsets; the MoE fields appear when MoE is on. The legend shows how
/// many layers are MoE and how many dense.
#[component]
pub fn FfnInputs() -> impl IntoView {
    let state = use_app_state();
    let has_moe = Memo::new(move |_| state.draft.with(|d| d.model.moe.is_some()));
    let split = Memo::new(move |_| {
        state.draft.with(|d| {
            let (moe, dense) = d.model.moe_and_dense_layers();
            format!("{dense} dense, {moe} MoE layers")
        })
    });
    view! {
        <fieldset>
            <legend>"Feed-forward: " {split}</legend>
            <SelectField spec=&MLP_KIND />
            <NumberField spec=&D_FF />
            <CheckField spec=&MLP_BIAS />
            <CheckField spec=&MOE_ON />
            <Show when=move || has_moe.get()>
                <div class="subfields">
                    <NumberField spec=&EXPERTS />
                    <NumberField spec=&TOP_K />
                    <NumberField spec=&EXPERT_FF />
                    <NumberField spec=&SHARED />
                    <NumberField spec=&SHARED_FF />
                    <NumberField spec=&FIRST_DENSE />
                    <NumberField spec=&EVERY />
                    <CheckField spec=&ROUTER_BIAS />
                </div>
            </Show>
        </fieldset>
    }
}
