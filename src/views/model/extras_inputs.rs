//! Norms, embeddings and multi-token prediction.

use leptos::prelude::*;
use shardcalc_core::model::{Mtp, NormKind};

use super::access::{count, mtp, text};
use crate::components::{CheckField, NumberField, SelectField};
use crate::field_spec::{count_spec, CheckSpec, NumberKind, NumberSpec, SelectSpec, ANY_COUNT};
use crate::state::use_app_state;

static NORM_KIND: SelectSpec = SelectSpec {
    path: "model.norm.kind",
    label: "Norm",
    hint: "RMSNorm has a weight per channel; LayerNorm a weight and a bias",
    options: &[("rms", "RMSNorm"), ("layer", "LayerNorm")],
    get: |d| match d.model.norm.kind {
        NormKind::Rms => "rms",
        NormKind::Layer => "layer",
    },
    set: |d, v| d.model.norm.kind = if v == "layer" { NormKind::Layer } else { NormKind::Rms },
};

count_spec!(
    NORMS_PER_LAYER,
    "model.norm.per_layer",
    [model.norm.per_layer],
    "Norms per layer",
    "",
    "2 (before attention and MLP) for most models, 4 for Gemma 2/3",
    ANY_COUNT,
);

static TIED: CheckSpec = CheckSpec {
    path: "model.embeddings.tied",
    label: "Tied embeddings",
    hint: "the output head reuses the input embedding table (counted once)",
    get: |d| d.model.embeddings.tied,
    set: |d, on| d.model.embeddings.tied = on,
};

count_spec!(
    LEARNED_POSITIONS,
    "model.embeddings.learned_positions",
    [model.embeddings.learned_positions],
    "Learned positions",
    "rows",
    "a learned absolute position table (GPT-3: 2,048); 0 for rotary models",
    ANY_COUNT,
);

static MTP_DEPTH: NumberSpec = NumberSpec {
    path: "model.mtp.depth",
    label: "MTP depth",
    unit: "modules",
    hint: "multi-token prediction modules; 0 = none (DeepSeek-V3: 1)",
    kind: NumberKind::Count { max: 16 },
    get: |d| text(mtp(d).map_or(0, |m| m.depth)),
    set: |d, n| {
        let Some(n) = count(n) else { return };
        let copies = mtp(d).is_some_and(|m| m.stores_embedding_copies);
        d.model.mtp = (n > 0).then_some(Mtp { depth: n, stores_embedding_copies: copies });
    },
};

static MTP_COPIES: CheckSpec = CheckSpec {
    path: "model.mtp.stores_embedding_copies",
    label: "MTP stores its own embedding and head",
    hint: "DeepSeek-V3's checkpoint does (685B on Hugging Face); FLOPs never count them twice",
    get: |d| mtp(d).is_some_and(|m| m.stores_embedding_copies),
    set: |d, on| {
        if let Some(m) = d.model.mtp.as_mut() {
            m.stores_embedding_copies = on;
        }
    },
};

/// Norms, embeddings and MTP fieldsets; the MTP copy flag appears when depth > 0.
#[component]
pub fn ExtrasInputs() -> impl IntoView {
    let state = use_app_state();
    let has_mtp = Memo::new(move |_| state.draft.with(|d| d.model.mtp.is_some()));
    view! {
        <fieldset>
            <legend>"Norms and embeddings"</legend>
            <SelectField spec=&NORM_KIND />
            <NumberField spec=&NORMS_PER_LAYER />
            <CheckField spec=&TIED />
            <NumberField spec=&LEARNED_POSITIONS />
        </fieldset>
        <fieldset>
            <legend>"Multi-token prediction"</legend>
            <NumberField spec=&MTP_DEPTH />
            <Show when=move || has_mtp.get()>
                <CheckField spec=&MTP_COPIES />
            </Show>
        </fieldset>
    }
}
