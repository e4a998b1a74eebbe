//! Parameter counting, total and active, broken down by component (book 4.3, 4.5).
//!
//! Conventions (matching Hugging Face's safetensors counts):
//! - the input embedding is V·D; the output head is another D·V unless tied;
//! - a learned position table adds P·D;
//! - norms count their weights (and LayerNorm biases) under `norms`, linear biases and
//!   attention sinks under `biases`;
//! - "active" is what one token touches in a forward pass: every dense parameter plus k
//!   routed experts (and all shared experts) in each MoE layer; the input embedding is
//!   active (one row is read). MTP modules are reported separately and are not active
//!   at inference.

use crate::model::{Attention, AttentionBias, MlpKind, ModelConfig, NormKind};
use crate::units::Params;
use serde::{Deserialize, Serialize};

/// A parameter group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ParamComponent {
    /// Token embedding table, V·D.
    Embedding,
    /// Learned absolute position table, P·D.
    PositionEmbedding,
    /// Output projection (unembedding), D·V; zero when tied.
    Unembedding,
    /// Attention projection weights (Q, K, V, O or the MLA low-rank maps).
    Attention,
    /// Dense MLP weights in non-MoE layers.
    Mlp,
    /// Routed expert weights.
    RoutedExperts,
    /// Shared expert weights.
    SharedExperts,
    /// Router (gate) weights and router biases.
    Router,
    /// Norm weights (and LayerNorm biases), including QK-norm and MLA latent norms.
    Norms,
    /// Linear-layer biases and attention sinks.
    Biases,
    /// Multi-token-prediction modules (everything in them).
    Mtp,
}

impl ParamComponent {
    /// Every component, in display order.
    pub const ALL: [ParamComponent; 11] = [
        ParamComponent::Embedding,
        ParamComponent::PositionEmbedding,
        ParamComponent::Unembedding,
        ParamComponent::Attention,
        ParamComponent::Mlp,
        ParamComponent::RoutedExperts,
        ParamComponent::SharedExperts,
        ParamComponent::Router,
        ParamComponent::Norms,
        ParamComponent::Biases,
        ParamComponent::Mtp,
    ];

    /// Human-readable label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            ParamComponent::Embedding => "Embedding",
            ParamComponent::PositionEmbedding => "Position embedding",
            ParamComponent::Unembedding => "Unembedding (output head)",
            ParamComponent::Attention => "Attention projections",
            ParamComponent::Mlp => "Dense MLP",
            ParamComponent::RoutedExperts => "Routed experts",
            ParamComponent::SharedExperts => "Shared experts",
            ParamComponent::Router => "Router",
            ParamComponent::Norms => "Norms",
            ParamComponent::Biases => "Biases and sinks",
            ParamComponent::Mtp => "MTP modules",
        }
    }
}

/// One row of the breakdown.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParamRow {
    /// Which group.
    pub component: ParamComponent,
    /// Parameters stored.
    pub total: Params,
    /// Parameters one token touches.
    pub active: Params,
}

/// Parameter counts of a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParamCounts {
    /// All parameters stored, including MTP modules.
    pub total: Params,
    /// Parameters a token touches in the main model (excludes MTP).
    pub active: Params,
    /// Total without MTP modules (what most model cards quote).
    pub total_without_mtp: Params,
    /// Per-component rows, in [`ParamComponent::ALL`] order, zero rows included.
    pub rows: Vec<ParamRow>,
}

impl ParamCounts {
    /// The row for a component.
    #[must_use]
    pub fn get(&self, c: ParamComponent) -> ParamRow {
        self.rows.iter().copied().find(|r| r.component == c).unwrap_or(ParamRow {
            component: c,
            total: Params::ZERO,
            active: Params::ZERO,
        })
    }
}

/// Per-layer parameter groups of one decoder layer, split the way [`ParamCounts`] is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerParams {
    /// Attention projection weights.
    pub attention: f64,
    /// Norms inside the attention block (QK norm, MLA latent norms).
    pub attention_norms: f64,
    /// Attention biases and sinks.
    pub attention_biases: f64,
    /// Per-layer norms (pre/post attention/MLP).
    pub layer_norms: f64,
}

/// Attention parameters of one layer (book 4.3: 2·D·(N+K)·H for GQA).
#[must_use]
pub fn attention_layer_params(m: &ModelConfig) -> LayerParams {
    let d = m.d_model as f64;
    let norm_w = m.norm.kind.params_per_channel() as f64;
    match &m.attention {
        Attention::Gqa(a) => {
            let (n, k, h) = (a.num_heads as f64, a.num_kv_heads as f64, a.head_dim as f64);
            let attention = d * n * h + 2.0 * d * k * h + n * h * d;
            let attention_norms = if a.qk_norm { 2.0 * h * norm_w } else { 0.0 };
            let bias = match a.bias {
                AttentionBias::None => 0.0,
                AttentionBias::Qkv => n * h + 2.0 * k * h,
                AttentionBias::QkvO => n * h + 2.0 * k * h + d,
            };
            let sinks = if a.sinks { n } else { 0.0 };
            LayerParams { attention, attention_norms, attention_biases: bias + sinks, layer_norms: 0.0 }
        }
        Attention::Mla(a) => {
            let n = a.num_heads as f64;
            let qk = a.qk_nope_head_dim as f64 + a.qk_rope_head_dim as f64;
            let rope = a.qk_rope_head_dim as f64;
            let nope = a.qk_nope_head_dim as f64;
            let v = a.v_head_dim as f64;
            let r_kv = a.kv_lora_rank as f64;
            let (q, q_norm) = match a.q_lora_rank {
                Some(r) => {
                    let r = r as f64;
                    (d * r + r * n * qk, r * norm_w)
                }
                None => (d * n * qk, 0.0),
            };
            let kv = d * (r_kv + rope) + r_kv * n * (nope + v);
            let o = n * v * d;
            LayerParams {
                attention: q + kv + o,
                attention_norms: q_norm + r_kv * norm_w,
                attention_biases: 0.0,
                layer_norms: 0.0,
            }
        }
    }
}

/// Weights of one MLP of width `f` (book 4.3: 3·D·F gated, 2·D·F plain).
#[must_use]
pub fn mlp_weights(kind: MlpKind, d: u64, f: u64) -> f64 {
    kind.matrices() as f64 * d as f64 * f as f64
}

/// Biases of one MLP of width `f`: the input projections carry F each, the output D.
#[must_use]
pub fn mlp_biases(kind: MlpKind, d: u64, f: u64) -> f64 {
    (kind.matrices() - 1) as f64 * f as f64 + d as f64
}

/// Parameters of one MoE layer's FFN block: (routed total, routed active, shared,
/// router, biases total, biases active).
fn moe_layer(m: &ModelConfig) -> [f64; 6] {
    let Some(moe) = &m.moe else {
        return [0.0; 6];
    };
    let d = m.d_model;
    let e = moe.num_experts as f64;
    let k = moe.experts_per_token as f64;
    let one = mlp_weights(m.mlp.kind, d, moe.expert_d_ff);
    let shared = moe.shared_experts as f64 * mlp_weights(m.mlp.kind, d, moe.shared_width());
    let router = d as f64 * e + if moe.router_bias { e } else { 0.0 };
    let (b_one, b_shared) = if m.mlp.bias {
        (
            mlp_biases(m.mlp.kind, d, moe.expert_d_ff),
            moe.shared_experts as f64 * mlp_biases(m.mlp.kind, d, moe.shared_width()),
        )
    } else {
        (0.0, 0.0)
    };
    [e * one, k * one, shared, router, e * b_one + b_shared, k * b_one + b_shared]
}

/// Count the parameters of a model. Assumes `m` is valid (see [`ModelConfig::validate`]);
/// on an invalid model the counts are still finite but meaningless.
#[must_use]
pub fn count_params(m: &ModelConfig) -> ParamCounts {
    let d = m.d_model as f64;
    let v = m.vocab_size as f64;
    let l = m.num_layers as f64;
    let norm_w = m.norm.kind.params_per_channel() as f64;
    let (moe_layers, dense_layers) = m.moe_and_dense_layers();
    let (moe_l, dense_l) = (moe_layers as f64, dense_layers as f64);

    let attn = attention_layer_params(m);
    let layer_norms = m.norm.per_layer as f64 * d * norm_w;
    let dense_mlp = mlp_weights(m.mlp.kind, m.d_model, m.mlp.d_ff);
    let dense_bias = if m.mlp.bias { mlp_biases(m.mlp.kind, m.d_model, m.mlp.d_ff) } else { 0.0 };
    let [routed_t, routed_a, shared, router, moe_bias_t, moe_bias_a] = moe_layer(m);

    let embedding = v * d;
    let positions = m.embeddings.learned_positions as f64 * d;
    let unembedding = if m.embeddings.tied { 0.0 } else { d * v };
    let final_norm = d * norm_w;

    // One MTP module (DeepSeek-V3 2.2): embedding-norm and hidden-norm (D each), the
    // projection of [h; emb] (2D -> D), one transformer layer (MoE when the model is MoE),
    // the output-head norm, and optionally stored copies of embedding and head.
    let (mtp_total, mtp_active) = match &m.mtp {
        Some(mtp) if mtp.depth > 0 => {
            let depth = mtp.depth as f64;
            let layer_ffn_t =
                if m.moe.is_some() { routed_t + shared + router + moe_bias_t } else { dense_mlp + dense_bias };
            let layer_ffn_a =
                if m.moe.is_some() { routed_a + shared + router + moe_bias_a } else { dense_mlp + dense_bias };
            let common = 3.0 * d * norm_w
                + 2.0 * d * d
                + attn.attention
                + attn.attention_norms
                + attn.attention_biases
                + layer_norms;
            let copies = if mtp.stores_embedding_copies { v * d + d * v } else { 0.0 };
            (depth * (common + layer_ffn_t + copies), depth * (common + layer_ffn_a))
        }
        _ => (0.0, 0.0),
    };

    let row = |component, total: f64, active: f64| ParamRow { component, total: Params(total), active: Params(active) };
    let rows = vec![
        row(ParamComponent::Embedding, embedding, embedding),
        row(ParamComponent::PositionEmbedding, positions, positions),
        row(ParamComponent::Unembedding, unembedding, unembedding),
        row(ParamComponent::Attention, l * attn.attention, l * attn.attention),
        row(ParamComponent::Mlp, dense_l * dense_mlp, dense_l * dense_mlp),
        row(ParamComponent::RoutedExperts, moe_l * routed_t, moe_l * routed_a),
        row(ParamComponent::SharedExperts, moe_l * shared, moe_l * shared),
        row(ParamComponent::Router, moe_l * router, moe_l * router),
        row(
            ParamComponent::Norms,
            l * (layer_norms + attn.attention_norms) + final_norm,
            l * (layer_norms + attn.attention_norms) + final_norm,
        ),
        row(
            ParamComponent::Biases,
            l * attn.attention_biases + dense_l * dense_bias + moe_l * moe_bias_t,
            l * attn.attention_biases + dense_l * dense_bias + moe_l * moe_bias_a,
        ),
        row(ParamComponent::Mtp, mtp_total, mtp_active),
    ];
    let total: Params = rows.iter().map(|r| r.total).sum();
    let active: Params = rows.iter().filter(|r| r.component != ParamComponent::Mtp).map(|r| r.active).sum();
    ParamCounts { total, active, total_without_mtp: total - Params(mtp_total), rows }
}

/// Norm kind helper for the UI: parameters per norm of width D.
#[must_use]
pub fn norm_params(kind: NormKind, d: u64) -> f64 {
    kind.params_per_channel() as f64 * d as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    fn total(id: &str) -> u64 {
        let p = presets::get(id).unwrap_or_else(|| panic!("no preset {id}"));
        count_params(&p.config).total.exact().unwrap()
    }

    /// Hugging Face safetensors parameter counts, exact (issue #2's list).
    #[test]
    fn matches_hugging_face_exactly() {
        assert_eq!(total("llama-2-7b"), 6_738_415_616);
        assert_eq!(total("llama-3-8b"), 8_030_261_248);
        assert_eq!(total("llama-3-70b"), 70_553_706_496);
        assert_eq!(total("llama-3.1-405b"), 405_853_388_800);
        assert_eq!(total("mistral-7b"), 7_241_732_096);
        assert_eq!(total("mixtral-8x7b"), 46_702_792_704);
    }

    #[test]
    fn rows_sum_to_totals() {
        for p in presets::all() {
            let c = count_params(&p.config);
            let sum: f64 = c.rows.iter().map(|r| r.total.get()).sum();
            assert!((sum - c.total.get()).abs() < 1.0, "{}", p.id);
            assert!(c.active.get() <= c.total.get(), "{}", p.id);
        }
    }

    #[test]
    fn mixtral_active_is_two_experts() {
        let c = count_params(&presets::get("mixtral-8x7b").unwrap().config);
        // 32 layers x 2 experts x 3 x 4096 x 14336 = 11.27e9 routed active.
        assert_eq!(c.get(ParamComponent::RoutedExperts).active.exact(), Some(11_274_289_152));
        assert_eq!(c.active.exact(), Some(12_879_925_248));
    }

    #[test]
    fn deepseek_v3_is_671b_without_mtp_and_37b_active() {
        let c = count_params(&presets::get("deepseek-v3").unwrap().config);
        assert_eq!(c.total.exact(), Some(671_026_419_200));
        let active = c.active.get();
        assert!((37.0e9..38.0e9).contains(&active), "{active}");
    }
}
