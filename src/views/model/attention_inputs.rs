//! The attention block: MHA/GQA/MQA or MLA, with their dimensions and options.

use leptos::prelude::*;
use shardcalc_core::model::{Attention, AttentionBias, GqaAttention, MlaAttention, MAX_HEADS};

use super::access::{count, gqa, gqa_mut, mla, mla_mut, text};
use crate::components::{CheckField, NumberField, SelectField};
use crate::field_spec::{CheckSpec, NumberKind, NumberSpec, SelectSpec, ANY_COUNT};
use crate::state::{use_app_state, Draft};

const HEADS_KIND: NumberKind = NumberKind::Count { max: MAX_HEADS };

static KIND: SelectSpec = SelectSpec {
    path: "model.attention.type",
    label: "Attention type",
    hint: "GQA covers MHA (K = N) and MQA (K = 1); MLA is DeepSeek's latent attention",
    options: &[("gqa", "MHA / GQA / MQA"), ("mla", "MLA (multi-head latent)")],
    get: |d| if mla(d).is_some() { "mla" } else { "gqa" },
    set: set_kind,
};

fn set_kind(d: &mut Draft, value: &str) {
    let next = match (value, &d.model.attention) {
        ("mla", Attention::Gqa(a)) => Attention::Mla(MlaAttention {
            num_heads: a.num_heads,
            q_lora_rank: None,
            kv_lora_rank: 512,
            qk_nope_head_dim: a.head_dim,
            qk_rope_head_dim: 64,
            v_head_dim: a.head_dim,
        }),
        ("gqa", Attention::Mla(a)) => Attention::Gqa(GqaAttention {
            num_heads: a.num_heads,
            num_kv_heads: a.num_heads,
            head_dim: a.v_head_dim,
            qk_norm: false,
            bias: AttentionBias::None,
            sinks: false,
        }),
        _ => return,
    };
    d.model.attention = next;
    d.forget("model.attention");
}

static HEADS: NumberSpec = NumberSpec {
    path: "model.attention.num_heads",
    label: "Query heads N",
    unit: "heads",
    hint: "attention heads per layer",
    kind: HEADS_KIND,
    get: |d| Some(d.model.num_heads().to_string()),
    set: |d, n| {
        if let Some(n) = count(n) {
            match &mut d.model.attention {
                Attention::Gqa(a) => a.num_heads = n,
                Attention::Mla(a) => a.num_heads = n,
            }
        }
    },
};

static KV_HEADS: NumberSpec = NumberSpec {
    path: "model.attention.num_kv_heads",
    label: "KV heads K",
    unit: "heads",
    hint: "K = N is MHA, K = 1 is MQA, a divisor of N in between is GQA",
    kind: HEADS_KIND,
    get: |d| gqa(d).and_then(|a| text(a.num_kv_heads)),
    set: |d, n| {
        if let (Some(a), Some(n)) = (gqa_mut(d), count(n)) {
            a.num_kv_heads = n;
        }
    },
};

static HEAD_DIM: NumberSpec = NumberSpec {
    path: "model.attention.head_dim",
    label: "Head dim H",
    unit: "",
    hint: "independent of D (Gemma 2: 256 with D = 3,584)",
    kind: ANY_COUNT,
    get: |d| gqa(d).and_then(|a| text(a.head_dim)),
    set: |d, n| {
        if let (Some(a), Some(n)) = (gqa_mut(d), count(n)) {
            a.head_dim = n;
        }
    },
};

static QK_NORM: CheckSpec = CheckSpec {
    path: "model.attention.qk_norm",
    label: "QK-norm",
    hint: "a norm of width H on queries and on keys (Qwen3, Gemma 3)",
    get: |d| gqa(d).is_some_and(|a| a.qk_norm),
    set: |d, on| {
        if let Some(a) = gqa_mut(d) {
            a.qk_norm = on;
        }
    },
};

static SINKS: CheckSpec = CheckSpec {
    path: "model.attention.sinks",
    label: "Attention sinks",
    hint: "one learned sink logit per head and layer (gpt-oss)",
    get: |d| gqa(d).is_some_and(|a| a.sinks),
    set: |d, on| {
        if let Some(a) = gqa_mut(d) {
            a.sinks = on;
        }
    },
};

static BIAS: SelectSpec = SelectSpec {
    path: "model.attention.bias",
    label: "Projection biases",
    hint: "Qwen2: Q, K, V; GPT-3 and gpt-oss: Q, K, V and O",
    options: &[("none", "none"), ("qkv", "Q, K, V"), ("qkv_o", "Q, K, V and O")],
    get: |d| match gqa(d).map(|a| a.bias) {
        Some(AttentionBias::Qkv) => "qkv",
        Some(AttentionBias::QkvO) => "qkv_o",
        _ => "none",
    },
    set: |d, v| {
        let bias = match v {
            "qkv" => AttentionBias::Qkv,
            "qkv_o" => AttentionBias::QkvO,
            _ => AttentionBias::None,
        };
        if let Some(a) = gqa_mut(d) {
            a.bias = bias;
        }
    },
};

/// An MLA dimension field.
macro_rules! mla_field {
    ($name:ident, $field:ident, $label:literal, $hint:literal) => {
        static $name: NumberSpec = NumberSpec {
            path: concat!("model.attention.", stringify!($field)),
            label: $label,
            unit: "",
            hint: $hint,
            kind: ANY_COUNT,
            get: |d| mla(d).and_then(|a| text(a.$field)),
            set: |d, n| {
                if let (Some(a), Some(n)) = (mla_mut(d), count(n)) {
                    a.$field = n;
                }
            },
        };
    };
}

mla_field!(KV_LORA, kv_lora_rank, "KV latent rank", "what the KV cache stores per token and layer (DeepSeek-V3: 512)");
mla_field!(QK_NOPE, qk_nope_head_dim, "QK head dim without RoPE", "per head (DeepSeek-V3: 128)");
mla_field!(
    QK_ROPE,
    qk_rope_head_dim,
    "RoPE head dim",
    "per head; the key part is shared across heads (DeepSeek-V3: 64)"
);
mla_field!(V_HEAD, v_head_dim, "Value head dim", "per head (DeepSeek-V3: 128)");

static Q_LORA: NumberSpec = NumberSpec {
    path: "model.attention.q_lora_rank",
    label: "Query LoRA rank",
    unit: "",
    hint: "empty: queries are projected straight from D (DeepSeek-V3: 1,536)",
    kind: NumberKind::OptionalCount { max: crate::parse::MAX_COUNT },
    get: |d| mla(d).map(|a| a.q_lora_rank.map(|r| r.to_string()).unwrap_or_default()),
    set: |d, n| {
        if let Some(a) = mla_mut(d) {
            a.q_lora_rank = count(n);
        }
    },
};

/// The attention fieldset: the type, then the fields of that type. The legend shows the
/// variant the numbers make (MHA, GQA, MQA or MLA).
#[component]
pub fn AttentionInputs() -> impl IntoView {
    let state = use_app_state();
    let is_mla = Memo::new(move |_| state.draft.with(|d| mla(d).is_some()));
    let label = Memo::new(move |_| state.draft.with(|d| d.model.attention_label()));
    view! {
        <fieldset>
            <legend>"Attention: " <span id="attention-label">{label}</span></legend>
            <SelectField spec=&KIND />
            <NumberField spec=&HEADS />
            <Show
                when=move || is_mla.get()
                fallback=|| {
                    view! {
                        <NumberField spec=&KV_HEADS />
                        <NumberField spec=&HEAD_DIM />
                        <CheckField spec=&QK_NORM />
                        <SelectField spec=&BIAS />
                        <CheckField spec=&SINKS />
                    }
                }
            >
                <NumberField spec=&Q_LORA />
                <NumberField spec=&KV_LORA />
                <NumberField spec=&QK_NOPE />
                <NumberField spec=&QK_ROPE />
                <NumberField spec=&V_HEAD />
            </Show>
        </fieldset>
    }
}
