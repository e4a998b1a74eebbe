//! The architecture of a decoder-only transformer: one type that covers dense, GQA/MQA,
//! MLA, sliding-window and chunked attention, gated and plain MLPs, MoE with shared
//! experts and dense-first or interleaved layers, tied or untied embeddings, learned
//! position tables and multi-token prediction.
//!
//! Book section 4.2 names the dimensions: D = `d_model`, F = `d_ff`, N = query heads,
//! K = KV heads, H = head dim, L = layers, V = vocab.

mod attention_de;
mod layout;
mod validate;

pub use layout::{minimal_period, AttentionLayout, LayerKind, LocalAttention};
pub use validate::{
    largest_divisor_at_most, MAX_EXPERTS, MAX_HEADS, MAX_HEAD_DIM, MAX_LAYERS, MAX_PATTERN, MAX_TOKENS, MAX_VOCAB,
    MAX_WIDTH,
};

use serde::{Deserialize, Serialize};

/// A decoder-only transformer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Display name.
    pub name: String,
    /// D, the residual stream width.
    pub d_model: u64,
    /// L, the number of decoder layers (not counting MTP modules).
    pub num_layers: u64,
    /// V, the vocabulary size (as stored, i.e. padded where the checkpoint pads it).
    pub vocab_size: u64,
    /// The attention block.
    pub attention: Attention,
    /// Which layers attend globally and which locally (sliding window or chunks).
    #[serde(default)]
    pub layout: AttentionLayout,
    /// The dense MLP (used by every layer that is not an MoE layer).
    pub mlp: Mlp,
    /// Mixture of experts, if any.
    #[serde(default)]
    pub moe: Option<Moe>,
    /// Normalisation layers.
    #[serde(default)]
    pub norm: Norm,
    /// How the attention and MLP blocks of a layer connect (default sequential). Changes
    /// neither parameters nor FLOPs, only which activations the backward pass reads
    /// (`training::tensors`).
    #[serde(default, skip_serializing_if = "BlockLayout::is_sequential")]
    pub block: BlockLayout,
    /// Token and position embeddings.
    #[serde(default)]
    pub embeddings: Embeddings,
    /// Multi-token prediction modules (DeepSeek-V3), if any.
    #[serde(default)]
    pub mtp: Option<Mtp>,
}

// JSON: `{"type": "gqa", …GqaAttention's fields}` or `{"type": "mla", …MlaAttention's
// fields}`. Read by a hand-written `Deserialize` (attention_de.rs) rather than serde's
// internally tagged derive, which buffers the object and costs every page KBs of wasm;
// `Serialize` and the schema are derived. (A plain comment: the doc comment is the
// schema's description.)
/// The attention block of every layer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Attention {
    /// Multi-head, grouped-query or multi-query attention: K = N is MHA, K = 1 is MQA,
    /// anything that divides N is GQA (book 4.2, note 2).
    Gqa(GqaAttention),
    /// Multi-head latent attention (DeepSeek-V2/V3): low-rank KV (and optionally Q)
    /// projections with a separate rotary part.
    Mla(MlaAttention),
}

/// MHA / GQA / MQA.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GqaAttention {
    /// N, query heads.
    pub num_heads: u64,
    /// K, key/value heads; must divide N.
    pub num_kv_heads: u64,
    /// H, the head dimension (independent of D).
    pub head_dim: u64,
    /// RMS norm on queries and keys, one weight vector of size H each (Qwen3, Gemma 3).
    #[serde(default)]
    pub qk_norm: bool,
    /// Which projections carry a bias.
    #[serde(default)]
    pub bias: AttentionBias,
    /// One learned attention-sink logit per head and layer (gpt-oss).
    #[serde(default)]
    pub sinks: bool,
}

/// Multi-head latent attention.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MlaAttention {
    /// N, attention heads.
    pub num_heads: u64,
    /// Rank of the query down-projection; `None` projects queries directly from D.
    #[serde(default)]
    pub q_lora_rank: Option<u64>,
    /// Rank of the compressed KV latent (what the KV cache stores).
    pub kv_lora_rank: u64,
    /// Per-head query/key dimension without rotary embedding.
    pub qk_nope_head_dim: u64,
    /// Per-head rotary dimension (the key part is shared across heads).
    pub qk_rope_head_dim: u64,
    /// Per-head value dimension.
    pub v_head_dim: u64,
}

/// Biases on the attention projections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AttentionBias {
    /// No biases (Llama, Mistral, DeepSeek, Gemma).
    #[default]
    None,
    /// Biases on Q, K and V only (Qwen2).
    Qkv,
    /// Biases on Q, K, V and the output projection (GPT-3, gpt-oss).
    QkvO,
}
crate::serde_names::deserialize_by_name!(AttentionBias { None => "none", Qkv => "qkv", QkvO => "qkv_o" });

/// The shape of an MLP (dense or one expert).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MlpKind {
    /// Gated (SwiGLU/GeGLU): W_in1, W_in2 and W_out, 3·D·F parameters (book 4.3).
    #[default]
    Gated,
    /// Plain: W_in and W_out, 2·D·F parameters (GPT-3, the 2023 MaxText base model).
    Plain,
}
crate::serde_names::deserialize_by_name!(MlpKind { Gated => "gated", Plain => "plain" });

impl MlpKind {
    /// Number of D×F matrices.
    #[must_use]
    pub fn matrices(self) -> u64 {
        match self {
            MlpKind::Gated => 3,
            MlpKind::Plain => 2,
        }
    }
}

/// The dense MLP.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Mlp {
    /// Gated or plain; also the shape of every expert.
    pub kind: MlpKind,
    /// F, the hidden width of the dense MLP. Unused (may be 0) when every layer is MoE.
    pub d_ff: u64,
    /// Whether the MLP matrices (and every expert's) carry biases.
    #[serde(default)]
    pub bias: bool,
}

/// Mixture of experts (book 4.4.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Moe {
    /// E, routed experts per MoE layer.
    pub num_experts: u64,
    /// k, routed experts each token activates.
    pub experts_per_token: u64,
    /// Hidden width of one routed expert.
    pub expert_d_ff: u64,
    /// Always-active shared experts per MoE layer.
    #[serde(default)]
    pub shared_experts: u64,
    /// Hidden width of one shared expert; defaults to `expert_d_ff`.
    #[serde(default)]
    pub shared_d_ff: Option<u64>,
    /// The first this-many layers use the dense MLP (DeepSeek-V3: 3).
    #[serde(default)]
    pub first_dense_layers: u64,
    /// Of the remaining layers, every n-th is MoE (Llama 4 Maverick: 2). 1 = all.
    #[serde(default = "one")]
    pub every: u64,
    /// The router carries one extra parameter per expert (a linear bias in gpt-oss,
    /// the score-correction bias in DeepSeek-V3).
    #[serde(default)]
    pub router_bias: bool,
}

fn one() -> u64 {
    1
}

impl Moe {
    /// Tokens per batch for the expert matmuls to be compute bound: each expert sees
    /// about B·k/E tokens, so B > B_crit·E/k (book Solution 4.8).
    #[must_use]
    pub fn compute_bound_batch(&self, dense_critical_batch: f64) -> f64 {
        dense_critical_batch * self.num_experts as f64 / self.experts_per_token as f64
    }

    /// Hidden width of one shared expert.
    #[must_use]
    pub fn shared_width(&self) -> u64 {
        self.shared_d_ff.unwrap_or(self.expert_d_ff)
    }
}

/// Which normalisation layers a model has.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Norm {
    /// RMSNorm (weight only) or LayerNorm (weight and bias).
    pub kind: NormKind,
    /// Norms of width D per decoder layer: 2 (pre-attention, pre-MLP) for most models,
    /// 4 for Gemma 2/3 (pre and post around both blocks).
    pub per_layer: u64,
}

impl Default for Norm {
    fn default() -> Self {
        Self { kind: NormKind::Rms, per_layer: 2 }
    }
}

/// How a decoder layer's attention and MLP blocks connect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum BlockLayout {
    /// The MLP reads the residual stream after the attention block (`x + attn(norm(x))`,
    /// then `+ mlp(norm(·))`): LLaMA, Mistral, Gemma, DeepSeek, GPT-3. The default.
    #[default]
    Sequential,
    /// Attention and MLP read the same normed input and add to the residual together
    /// (`x + attn(norm(x)) + mlp(norm(x))`): GPT-J, PaLM, and MaxText's `default` decoder
    /// block (`DecoderLayer` in `layers/decoders.py`; the 2023 base model of the published
    /// runs, `MaxText/layers/models.py` at 101dcdc).
    Parallel,
}
crate::serde_names::deserialize_by_name!(BlockLayout { Sequential => "sequential", Parallel => "parallel" });

impl BlockLayout {
    /// Whether it is the default (left out of JSON).
    #[must_use]
    pub fn is_sequential(&self) -> bool {
        *self == BlockLayout::Sequential
    }
}

/// RMSNorm or LayerNorm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum NormKind {
    /// RMSNorm: one weight per channel.
    #[default]
    Rms,
    /// LayerNorm: a weight and a bias per channel.
    Layer,
}
crate::serde_names::deserialize_by_name!(NormKind { Rms => "rms", Layer => "layer" });

impl NormKind {
    /// Parameters per normalised channel.
    #[must_use]
    pub fn params_per_channel(self) -> u64 {
        match self {
            NormKind::Rms => 1,
            NormKind::Layer => 2,
        }
    }
}

/// Token and position embeddings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Embeddings {
    /// The output projection reuses the input embedding table (counted once).
    #[serde(default)]
    pub tied: bool,
    /// Rows of a learned absolute position table (GPT-3: 2048); 0 for rotary models.
    #[serde(default)]
    pub learned_positions: u64,
}

/// Multi-token prediction (DeepSeek-V3 section 2.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Mtp {
    /// Number of sequential MTP modules (DeepSeek-V3: 1).
    pub depth: u64,
    /// Whether the checkpoint stores its own copy of the embedding and output head for
    /// each module (DeepSeek-V3's does, which is why Hugging Face shows 685B and not 671B
    /// + 11.5B). They are shared at training time, so FLOPs never count them twice.
    #[serde(default)]
    pub stores_embedding_copies: bool,
}

impl ModelConfig {
    /// Number of MoE layers and dense-MLP layers, in that order.
    #[must_use]
    pub fn moe_and_dense_layers(&self) -> (u64, u64) {
        let l = self.num_layers;
        match &self.moe {
            None => (0, l),
            Some(m) => {
                let every = m.every.max(1);
                let first = m.first_dense_layers.min(l);
                // Layer i (0-based) is MoE when i >= first and (i + 1) % every == 0,
                // i.e. j = i + 1 in (first, l] divisible by `every`.
                let moe = l / every - first / every;
                (moe, l - moe)
            }
        }
    }

    /// Number of query heads.
    #[must_use]
    pub fn num_heads(&self) -> u64 {
        match &self.attention {
            Attention::Gqa(a) => a.num_heads,
            Attention::Mla(a) => a.num_heads,
        }
    }

    /// A short label for the attention variant: MHA, GQA, MQA or MLA.
    #[must_use]
    pub fn attention_label(&self) -> &'static str {
        match &self.attention {
            Attention::Gqa(a) if a.num_kv_heads == a.num_heads => "MHA",
            Attention::Gqa(a) if a.num_kv_heads == 1 => "MQA",
            Attention::Gqa(_) => "GQA",
            Attention::Mla(_) => "MLA",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> ModelConfig {
        ModelConfig {
            name: "t".into(),
            d_model: 64,
            num_layers: 61,
            vocab_size: 100,
            attention: Attention::Gqa(GqaAttention {
                num_heads: 4,
                num_kv_heads: 4,
                head_dim: 16,
                qk_norm: false,
                bias: AttentionBias::None,
                sinks: false,
            }),
            layout: AttentionLayout::default(),
            mlp: Mlp { kind: MlpKind::Gated, d_ff: 128, bias: false },
            moe: None,
            norm: Norm::default(),
            block: BlockLayout::Sequential,
            embeddings: Embeddings::default(),
            mtp: None,
        }
    }

    fn moe(first: u64, every: u64) -> Moe {
        Moe {
            num_experts: 8,
            experts_per_token: 2,
            expert_d_ff: 32,
            shared_experts: 0,
            shared_d_ff: None,
            first_dense_layers: first,
            every,
            router_bias: false,
        }
    }

    #[test]
    fn deepseek_v3_has_58_moe_layers() {
        let mut m = base();
        m.moe = Some(moe(3, 1));
        assert_eq!(m.moe_and_dense_layers(), (58, 3));
    }

    #[test]
    fn interleaved_moe_counts_like_maxtext() {
        // MaxText (get_dense_moe_layers, LLAMA4): num_moe = L // interleave_moe_layer_step.
        let mut m = base();
        m.num_layers = 48;
        m.moe = Some(moe(0, 2));
        assert_eq!(m.moe_and_dense_layers(), (24, 24));
        m.moe = Some(moe(0, 1));
        assert_eq!(m.moe_and_dense_layers(), (48, 0));
    }

    #[test]
    fn brute_force_agrees_with_closed_form() {
        for l in 0..40u64 {
            for first in 0..10u64 {
                for every in 1..5u64 {
                    let mut m = base();
                    m.num_layers = l;
                    m.moe = Some(moe(first, every));
                    let brute = (0..l).filter(|i| *i >= first && (i + 1) % every == 0).count();
                    assert_eq!(m.moe_and_dense_layers().0, brute as u64, "l={l} first={first} every={every}");
                }
            }
        }
    }

    #[test]
    fn attention_labels() {
        let mut m = base();
        assert_eq!(m.attention_label(), "MHA");
        if let Attention::Gqa(a) = &mut m.attention {
            a.num_kv_heads = 1;
        }
        assert_eq!(m.attention_label(), "MQA");
    }

    #[test]
    fn json_uses_a_type_tag_for_attention() {
        let m = base();
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["attention"]["type"], "gqa");
        let back: ModelConfig = serde_json::from_value(json).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let mut json = serde_json::to_value(base()).unwrap();
        json["attention"]["num_kv_head"] = 8.into();
        let err = serde_json::from_value::<ModelConfig>(json).unwrap_err().to_string();
        assert!(err.contains("num_kv_head"), "{err}");
    }
}
