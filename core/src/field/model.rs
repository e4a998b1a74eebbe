//! The fields of the model (its shape, attention, layer layout, feed-forward block, norms,
//! embeddings, multi-token prediction; book chapter 4) and of the training step's workload.
//! Every model edit goes through [`crate::scenario::ModelSource::edit`], so a preset edited is named
//! `<name> (edited)` and one edited back is the preset again.

use super::{Field, InputMode, Kind, Min, Options};
use crate::flops::RematPolicy;
use crate::model::{
    Attention, AttentionBias, GqaAttention, LayerKind, LocalAttention, MlaAttention, MlpKind, ModelConfig, Moe, Mtp,
    NormKind, MAX_PATTERN,
};
use crate::scenario::Scenario;
use crate::text::{pattern, pattern_text};

/// `f` of the scenario's model (the type's default when the model does not resolve).
fn read<T: Default>(s: &Scenario, f: impl FnOnce(&ModelConfig) -> T) -> T {
    s.model.resolve().map(|m| f(&m)).unwrap_or_default()
}

/// Applies `f` to the scenario's model ([`crate::scenario::ModelSource::edit`]).
fn edit(s: &mut Scenario, f: impl FnOnce(&mut ModelConfig)) {
    s.model.edit(f);
}

fn gqa(m: &ModelConfig) -> Option<&GqaAttention> {
    match &m.attention {
        Attention::Gqa(a) => Some(a),
        Attention::Mla(_) => None,
    }
}

fn mla(m: &ModelConfig) -> Option<&MlaAttention> {
    match &m.attention {
        Attention::Mla(a) => Some(a),
        Attention::Gqa(_) => None,
    }
}

fn is_gqa(s: &Scenario) -> bool {
    read(s, |m| gqa(m).is_some())
}

fn is_mla(s: &Scenario) -> bool {
    read(s, |m| mla(m).is_some())
}

/// A whole-number field of the model at `$($place)+` (e.g. `d_model`, `mlp.d_ff`).
macro_rules! count_field {
    ($path:literal, $label:literal, $($place:tt)+) => {
        Field::new(
            $path,
            $label,
            Kind::Count { get: |s| read(s, |m| m.$($place)+), set: |s, v| edit(s, |m| m.$($place)+ = v) },
        )
    };
}

/// A whole-number field of the GQA attention block.
macro_rules! gqa_field {
    ($path:literal, $label:literal, $field:ident) => {
        Field::new(
            $path,
            $label,
            Kind::Count {
                get: |s| read(s, |m| gqa(m).map_or(0, |a| a.$field)),
                set: |s, v| {
                    edit(s, |m| {
                        if let Attention::Gqa(a) = &mut m.attention {
                            a.$field = v;
                        }
                    })
                },
            },
        )
        .when(is_gqa)
    };
}

/// A whole-number field of the MLA attention block.
macro_rules! mla_field {
    ($path:literal, $label:literal, $field:ident) => {
        Field::new(
            $path,
            $label,
            Kind::Count {
                get: |s| read(s, |m| mla(m).map_or(0, |a| a.$field)),
                set: |s, v| {
                    edit(s, |m| {
                        if let Attention::Mla(a) = &mut m.attention {
                            a.$field = v;
                        }
                    })
                },
            },
        )
        .when(is_mla)
    };
}

/// Switching between GQA and MLA keeps the heads and maps the head dimensions across.
fn set_attention_type(s: &mut Scenario, v: &str) -> Result<(), String> {
    if !matches!(v, "gqa" | "mla") {
        return Err(format!("unknown attention type {v:?}; use gqa or mla"));
    }
    edit(s, |m| {
        m.attention = match (v, &m.attention) {
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
            (_, same) => same.clone(),
        };
    });
    Ok(())
}

/// The shape: name, width, layers, vocabulary.
pub static SHAPE: [Field; 4] = [
    Field::new(
        "model.name",
        "Name",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| read(s, |m| m.name.clone()),
            set: |s, t| {
                let name = t.to_string();
                edit(s, |m| m.name = name);
                Ok(())
            },
        },
    )
    .hint("shown in results and chart titles"),
    count_field!("model.d_model", "Model width D (d_model)", d_model).hint("the residual stream width (book 4.2's D)"),
    count_field!("model.num_layers", "Layers L", num_layers)
        .unit("layers")
        .hint("decoder layers, not counting MTP modules"),
    count_field!("model.vocab_size", "Vocabulary V", vocab_size)
        .unit("tokens")
        .hint("as stored, i.e. padded where the checkpoint pads it"),
];

/// The attention block: its type, heads, and the fields of that type.
pub static ATTENTION: [Field; 12] = [
    Field::new(
        "model.attention.type",
        "Attention type",
        Kind::Choice {
            options: Options::Fixed(&[("gqa", "MHA / GQA / MQA"), ("mla", "MLA (multi-head latent)")]),
            get: |s| if is_mla(s) { "mla" } else { "gqa" }.into(),
            set: set_attention_type,
        },
    )
    .hint("GQA covers MHA (K = N) and MQA (K = 1); MLA is DeepSeek's latent attention"),
    Field::new(
        "model.attention.num_heads",
        "Query heads N",
        Kind::Count {
            get: |s| read(s, ModelConfig::num_heads),
            set: |s, v| {
                edit(s, |m| match &mut m.attention {
                    Attention::Gqa(a) => a.num_heads = v,
                    Attention::Mla(a) => a.num_heads = v,
                })
            },
        },
    )
    .unit("heads")
    .hint("attention heads per layer"),
    gqa_field!("model.attention.num_kv_heads", "KV heads K", num_kv_heads)
        .unit("heads")
        .hint("K = N is MHA, K = 1 is MQA, a divisor of N in between is GQA"),
    gqa_field!("model.attention.head_dim", "Head dim H", head_dim)
        .hint("independent of D (Gemma 2: 256 with D = 3,584)"),
    Field::new(
        "model.attention.qk_norm",
        "QK-norm",
        Kind::Flag {
            get: |s| read(s, |m| gqa(m).is_some_and(|a| a.qk_norm)),
            set: |s, on| {
                edit(s, |m| {
                    if let Attention::Gqa(a) = &mut m.attention {
                        a.qk_norm = on;
                    }
                })
            },
        },
    )
    .hint("a norm of width H on queries and on keys (Qwen3, Gemma 3)")
    .when(is_gqa),
    Field::new(
        "model.attention.bias",
        "Projection biases",
        Kind::Choice {
            options: Options::Fixed(&[("none", "none"), ("qkv", "Q, K, V"), ("qkv_o", "Q, K, V and O")]),
            get: |s| {
                read(s, |m| match gqa(m).map(|a| a.bias) {
                    Some(AttentionBias::Qkv) => "qkv",
                    Some(AttentionBias::QkvO) => "qkv_o",
                    _ => "none",
                })
                .into()
            },
            set: |s, v| {
                let bias = match v {
                    "none" => AttentionBias::None,
                    "qkv" => AttentionBias::Qkv,
                    "qkv_o" => AttentionBias::QkvO,
                    other => return Err(format!("unknown biases {other:?}")),
                };
                edit(s, |m| {
                    if let Attention::Gqa(a) = &mut m.attention {
                        a.bias = bias;
                    }
                });
                Ok(())
            },
        },
    )
    .hint("Qwen2: Q, K, V; GPT-3 and gpt-oss: Q, K, V and O")
    .when(is_gqa),
    Field::new(
        "model.attention.sinks",
        "Attention sinks",
        Kind::Flag {
            get: |s| read(s, |m| gqa(m).is_some_and(|a| a.sinks)),
            set: |s, on| {
                edit(s, |m| {
                    if let Attention::Gqa(a) = &mut m.attention {
                        a.sinks = on;
                    }
                })
            },
        },
    )
    .hint("one learned sink logit per head and layer (gpt-oss)")
    .when(is_gqa),
    Field::new(
        "model.attention.q_lora_rank",
        "Query LoRA rank",
        Kind::OptionalCount {
            get: |s| read(s, |m| mla(m).and_then(|a| a.q_lora_rank)),
            set: |s, v| {
                edit(s, |m| {
                    if let Attention::Mla(a) = &mut m.attention {
                        a.q_lora_rank = v;
                    }
                })
            },
        },
    )
    .hint("empty: queries are projected straight from D (DeepSeek-V3: 1,536)")
    .when(is_mla),
    mla_field!("model.attention.kv_lora_rank", "KV latent rank", kv_lora_rank)
        .hint("what the KV cache stores per token and layer (DeepSeek-V3: 512)"),
    mla_field!("model.attention.qk_nope_head_dim", "QK head dim without RoPE", qk_nope_head_dim)
        .hint("per head (DeepSeek-V3: 128)"),
    mla_field!("model.attention.qk_rope_head_dim", "RoPE head dim", qk_rope_head_dim)
        .hint("per head; the key part is shared across heads (DeepSeek-V3: 64)"),
    mla_field!("model.attention.v_head_dim", "Value head dim", v_head_dim).hint("per head (DeepSeek-V3: 128)"),
];

/// Window or chunk given when local attention is switched on.
const DEFAULT_SPAN: u64 = 4096;

fn span(m: &ModelConfig) -> Option<u64> {
    match m.layout.local {
        Some(LocalAttention::SlidingWindow { window }) => Some(window),
        Some(LocalAttention::Chunked { chunk }) => Some(chunk),
        None => None,
    }
}

fn local_kind(s: &Scenario) -> String {
    read(s, |m| match m.layout.local {
        None => "none",
        Some(LocalAttention::SlidingWindow { .. }) => "sliding_window",
        Some(LocalAttention::Chunked { .. }) => "chunked",
    })
    .into()
}

/// Which layers attend locally, and the repeating pattern.
pub static LAYOUT: [Field; 5] = [
    Field::new(
        "model.layout.local",
        "Local attention",
        Kind::Choice {
            options: Options::Fixed(&[
                ("none", "none (every layer global)"),
                ("sliding_window", "sliding window (Mistral, Gemma, gpt-oss)"),
                ("chunked", "chunked (Llama 4)"),
            ]),
            get: local_kind,
            set: |s, v| {
                if !matches!(v, "none" | "sliding_window" | "chunked") {
                    return Err(format!("unknown local attention {v:?}"));
                }
                edit(s, |m| {
                    let size = span(m).unwrap_or(DEFAULT_SPAN);
                    m.layout.local = match v {
                        "sliding_window" => Some(LocalAttention::SlidingWindow { window: size }),
                        "chunked" => Some(LocalAttention::Chunked { chunk: size }),
                        _ => None,
                    };
                });
                Ok(())
            },
        },
    )
    .hint("what the pattern's L layers do; G layers always attend to the whole context"),
    Field::new(
        "model.layout.local.window",
        "Window",
        Kind::Count {
            get: |s| read(s, |m| span(m).unwrap_or(0)),
            set: |s, v| {
                edit(s, |m| {
                    if let Some(LocalAttention::SlidingWindow { window }) = &mut m.layout.local {
                        *window = v;
                    }
                })
            },
        },
    )
    .unit("tokens")
    .hint("each query attends to at most this many tokens (Gemma 3: 1,024)")
    .when(|s| local_kind(s) == "sliding_window"),
    Field::new(
        "model.layout.local.chunk",
        "Chunk",
        Kind::Count {
            get: |s| read(s, |m| span(m).unwrap_or(0)),
            set: |s, v| {
                edit(s, |m| {
                    if let Some(LocalAttention::Chunked { chunk }) = &mut m.layout.local {
                        *chunk = v;
                    }
                })
            },
        },
    )
    .unit("tokens")
    .hint("queries attend within their chunk only (Llama 4 Scout: 8,192)")
    .when(|s| local_kind(s) == "chunked"),
    Field::new(
        "model.layout.locals_per_global",
        "Local layers per global layer",
        Kind::Text {
            mode: InputMode::Numeric,
            get: |s| read(s, |m| m.layout.locals_per_global().map(|n| n.to_string()).unwrap_or_default()),
            set: |s, t| {
                // Empty: a custom pattern, typed below.
                let Some(n) = crate::text::optional_count(t)? else { return Ok(()) };
                if n >= MAX_PATTERN as u64 {
                    return Err(format!("must be at most {} (got {n})", MAX_PATTERN - 1));
                }
                let mut p = vec![LayerKind::Local; usize::try_from(n).unwrap_or(0)];
                p.push(LayerKind::Global);
                edit(s, |m| m.layout.pattern = p);
                Ok(())
            },
        },
    )
    .hint("writes the pattern L…LG (Gemma 2: 1, Gemma 3: 5, Llama 4: 3); empty for a custom pattern"),
    Field::new(
        "model.layout.pattern",
        "Layer pattern",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| read(s, |m| pattern_text(&m.layout.pattern)),
            set: |s, t| {
                let p = pattern(t)?;
                edit(s, |m| m.layout.pattern = p);
                Ok(())
            },
        },
    )
    .hint("L = local, G = global, repeated over the layers: LLLLLG is five local then one global"),
];

fn has_moe(s: &Scenario) -> bool {
    read(s, |m| m.moe.is_some())
}

/// A whole-number field of the MoE block.
macro_rules! moe_field {
    ($path:literal, $label:literal, $field:ident) => {
        Field::new(
            $path,
            $label,
            Kind::Count {
                get: |s| read(s, |m| m.moe.as_ref().map_or(0, |x| x.$field)),
                set: |s, v| {
                    edit(s, |m| {
                        if let Some(x) = m.moe.as_mut() {
                            x.$field = v;
                        }
                    })
                },
            },
        )
        .when(has_moe)
    };
}

/// The dense MLP and, optionally, a mixture of experts.
pub static FFN: [Field; 12] = [
    Field::new(
        "model.mlp.kind",
        "MLP kind",
        Kind::Choice {
            options: Options::Fixed(&[("gated", "gated (3 matrices)"), ("plain", "plain (2 matrices)")]),
            get: |s| read(s, |m| if m.mlp.kind == MlpKind::Plain { "plain" } else { "gated" }).into(),
            set: |s, v| {
                let kind = match v {
                    "gated" => MlpKind::Gated,
                    "plain" => MlpKind::Plain,
                    other => return Err(format!("unknown MLP kind {other:?}")),
                };
                edit(s, |m| m.mlp.kind = kind);
                Ok(())
            },
        },
    )
    .hint("gated: 3·D·F weights (SwiGLU/GeGLU); plain: 2·D·F (GPT-3). Experts share the shape"),
    count_field!("model.mlp.d_ff", "MLP width F (d_ff)", mlp.d_ff)
        .hint("hidden width of the dense MLP; may be 0 when every layer is MoE"),
    Field::new(
        "model.mlp.bias",
        "MLP biases",
        Kind::Flag { get: |s| read(s, |m| m.mlp.bias), set: |s, on| edit(s, |m| m.mlp.bias = on) },
    )
    .hint("biases on the MLP and expert matrices (GPT-3, gpt-oss)"),
    Field::new(
        "model.moe",
        "Mixture of experts",
        Kind::Flag {
            get: has_moe,
            set: |s, on| {
                edit(s, |m| {
                    if on == m.moe.is_some() {
                        return;
                    }
                    m.moe = on.then(|| Moe {
                        num_experts: 8,
                        experts_per_token: 2,
                        expert_d_ff: m.mlp.d_ff.max(1),
                        shared_experts: 0,
                        shared_d_ff: None,
                        first_dense_layers: 0,
                        every: 1,
                        router_bias: false,
                    });
                })
            },
        },
    )
    .hint("routed experts replace the dense MLP in MoE layers (book 4.4.1)"),
    moe_field!("model.moe.num_experts", "Routed experts E", num_experts)
        .unit("experts")
        .hint("per MoE layer (DeepSeek-V3: 256)"),
    moe_field!("model.moe.experts_per_token", "Experts per token k", experts_per_token)
        .unit("experts")
        .hint("routed experts each token activates; at most E"),
    moe_field!("model.moe.expert_d_ff", "Expert width", expert_d_ff).hint("hidden width of one routed expert"),
    moe_field!("model.moe.shared_experts", "Shared experts", shared_experts)
        .unit("experts")
        .hint("always active, per MoE layer (DeepSeek-V3: 1)"),
    Field::new(
        "model.moe.shared_d_ff",
        "Shared expert width",
        Kind::OptionalCount {
            get: |s| read(s, |m| m.moe.as_ref().and_then(|x| x.shared_d_ff)),
            set: |s, v| {
                edit(s, |m| {
                    if let Some(x) = m.moe.as_mut() {
                        x.shared_d_ff = v;
                    }
                })
            },
        },
    )
    .hint("empty: the same as the routed expert width")
    .when(has_moe),
    moe_field!("model.moe.first_dense_layers", "First dense layers", first_dense_layers)
        .unit("layers")
        .hint("the first layers keep the dense MLP (DeepSeek-V3: 3)"),
    moe_field!("model.moe.every", "MoE every n-th layer", every)
        .hint("1 = every layer after the dense ones; 2 = alternate (Llama 4 Maverick)"),
    Field::new(
        "model.moe.router_bias",
        "Router bias",
        Kind::Flag {
            get: |s| read(s, |m| m.moe.as_ref().is_some_and(|x| x.router_bias)),
            set: |s, on| {
                edit(s, |m| {
                    if let Some(x) = m.moe.as_mut() {
                        x.router_bias = on;
                    }
                })
            },
        },
    )
    .hint("one extra parameter per expert (gpt-oss bias, DeepSeek-V3 score correction)")
    .when(has_moe),
];

/// Norms and embeddings.
pub static EXTRAS: [Field; 4] = [
    Field::new(
        "model.norm.kind",
        "Norm",
        Kind::Choice {
            options: Options::Fixed(&[("rms", "RMSNorm"), ("layer", "LayerNorm")]),
            get: |s| read(s, |m| if m.norm.kind == NormKind::Layer { "layer" } else { "rms" }).into(),
            set: |s, v| {
                let kind = match v {
                    "rms" => NormKind::Rms,
                    "layer" => NormKind::Layer,
                    other => return Err(format!("unknown norm {other:?}")),
                };
                edit(s, |m| m.norm.kind = kind);
                Ok(())
            },
        },
    )
    .hint("RMSNorm has a weight per channel; LayerNorm a weight and a bias"),
    count_field!("model.norm.per_layer", "Norms per layer", norm.per_layer)
        .hint("2 (before attention and MLP) for most models, 4 for Gemma 2/3"),
    Field::new(
        "model.embeddings.tied",
        "Tied embeddings",
        Kind::Flag { get: |s| read(s, |m| m.embeddings.tied), set: |s, on| edit(s, |m| m.embeddings.tied = on) },
    )
    .hint("the output head reuses the input embedding table (counted once)"),
    count_field!("model.embeddings.learned_positions", "Learned positions", embeddings.learned_positions)
        .unit("rows")
        .hint("a learned absolute position table (GPT-3: 2,048); 0 for rotary models"),
];

/// Multi-token prediction.
pub static MTP: [Field; 2] = [
    Field::new(
        "model.mtp.depth",
        "MTP depth",
        Kind::Count {
            get: |s| read(s, |m| m.mtp.as_ref().map_or(0, |x| x.depth)),
            set: |s, n| {
                edit(s, |m| {
                    let copies = m.mtp.as_ref().is_some_and(|x| x.stores_embedding_copies);
                    m.mtp = (n > 0).then_some(Mtp { depth: n, stores_embedding_copies: copies });
                })
            },
        },
    )
    .unit("modules")
    .hint("multi-token prediction modules; 0 = none (DeepSeek-V3: 1)"),
    Field::new(
        "model.mtp.stores_embedding_copies",
        "MTP stores its own embedding and head",
        Kind::Flag {
            get: |s| read(s, |m| m.mtp.as_ref().is_some_and(|x| x.stores_embedding_copies)),
            set: |s, on| {
                edit(s, |m| {
                    if let Some(x) = m.mtp.as_mut() {
                        x.stores_embedding_copies = on;
                    }
                })
            },
        },
    )
    .hint("DeepSeek-V3's checkpoint does (685B on Hugging Face); FLOPs never count them twice")
    .when(|s| read(s, |m| m.mtp.is_some())),
];

/// The training step per device: batch, sequence, accumulation, remat.
pub static WORKLOAD: [Field; 4] = [
    Field::new(
        "workload.per_device_batch",
        "Per-device batch",
        Kind::Real {
            min: Min::Positive,
            get: |s| s.workload.per_device_batch,
            set: |s, v| s.workload.per_device_batch = v,
        },
    )
    .unit("sequences")
    .hint("per device per micro-step; may be fractional, as in MaxText (0.5 = two devices per sequence)"),
    Field::new(
        "workload.seq_len",
        "Sequence length T",
        Kind::Count { get: |s| s.workload.seq_len, set: |s, v| s.workload.seq_len = v },
    )
    .unit("tokens")
    .hint("tokens per sequence (MaxText's max_target_length)"),
    Field::new(
        "workload.grad_accum",
        "Gradient accumulation",
        Kind::Count { get: |s| s.workload.grad_accum, set: |s, v| s.workload.grad_accum = v },
    )
    .unit("micro-steps")
    .hint("micro-steps per optimizer step"),
    enum_choice!(
        "workload.remat",
        "Rematerialisation",
        RematPolicy,
        [
            None => "none", "none: save every activation",
            SaveMatmuls => "save_matmuls", "save matmul outputs (book 4.4.2)",
            Full => "full", "full: recompute each layer",
        ],
        |s| s.workload.remat,
        |s| &mut s.workload.remat,
    )
    .hint("what the backward pass recomputes: adds hardware FLOPs (HFU), not model FLOPs (MFU)"),
];

/// Every group of the model's and the workload's fields, in the form's order.
pub static GROUPS: [&[Field]; 7] = [&SHAPE, &ATTENTION, &LAYOUT, &FFN, &EXTRAS, &MTP, &WORKLOAD];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ModelSource;

    #[test]
    fn editing_a_preset_names_it_and_the_pattern_fields_agree() {
        let mut s = Scenario::default();
        super::super::apply(&mut s, "model.d_model", "8192").unwrap();
        assert!(matches!(&s.model, ModelSource::Custom(m) if m.name.ends_with(" (edited)")));
        super::super::apply(&mut s, "model.d_model", "4096").unwrap();
        assert!(s.model.is_preset(), "edited back: the preset");
        super::super::apply(&mut s, "model.layout.locals_per_global", "5").unwrap();
        let text = |s: &Scenario, p| super::super::find(p).map(|f| f.text(s)).unwrap_or_default();
        assert_eq!(text(&s, "model.layout.pattern"), "LLLLLG");
        super::super::apply(&mut s, "model.layout.pattern", "LGLG").unwrap();
        assert_eq!(text(&s, "model.layout.locals_per_global"), "1");
        super::super::apply(&mut s, "model.layout.pattern", "GL").unwrap();
        assert_eq!(text(&s, "model.layout.locals_per_global"), "");
        super::super::apply(&mut s, "model.attention.type", "mla").unwrap();
        assert!(is_mla(&s) && !super::super::find("model.attention.num_kv_heads").unwrap().applies_to(&s));
    }
}
