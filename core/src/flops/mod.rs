//! FLOP accounting for a training step, per component, under four explicit conventions.
//!
//! Book section 4.1: a matmul of an `[N, P]` activation with a `[P, M]` weight costs
//! 2·N·P·M FLOPs forward and twice that backward (gradient with respect to the input
//! and to the weight), so training costs 6·N·P·M. Book 4.3 applies this to every
//! matmul of a transformer layer; the conventions below differ only in what they do
//! with dot-product attention, the input embedding and the MTP module.

mod attention;
mod convention;
mod series;
mod workload;

pub use attention::{attention_pairs, causal_window_pairs, dot_attention_intensity, AttentionCounting};
pub use convention::{FlopConvention, MtpCounting};
pub use series::{attention_crossover, flops_vs_seq_len, FlopsAtLength};
pub use workload::{RematPolicy, Workload, MAX_SEQ_LEN, MIN_PER_DEVICE_BATCH};

use crate::model::{Attention, ModelConfig};
use crate::params::{count_params, mlp_weights, ParamComponent};
use crate::units::{Flops, FlopsPerSec, Seconds};
use serde::{Deserialize, Serialize};

/// A group of FLOPs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FlopComponent {
    /// Input-embedding lookup: a gather, free in matmul conventions.
    Embedding,
    /// Q, K, V, O projections (or the MLA low-rank maps).
    AttentionProjections,
    /// Dot-product attention: QKᵀ and the weighted sum of V.
    AttentionDot,
    /// Dense MLP layers.
    Mlp,
    /// The k routed experts each token visits.
    RoutedExperts,
    /// Shared experts.
    SharedExperts,
    /// Router logits.
    Router,
    /// Output projection to the vocabulary.
    Unembedding,
    /// Multi-token-prediction modules.
    Mtp,
    /// Norms and biases (only 6·N·D counts them, as parameters).
    Other,
}

impl FlopComponent {
    /// Every component, in display order.
    pub const ALL: [FlopComponent; 10] = [
        FlopComponent::Embedding,
        FlopComponent::AttentionProjections,
        FlopComponent::AttentionDot,
        FlopComponent::Mlp,
        FlopComponent::RoutedExperts,
        FlopComponent::SharedExperts,
        FlopComponent::Router,
        FlopComponent::Unembedding,
        FlopComponent::Mtp,
        FlopComponent::Other,
    ];

    /// Human-readable label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            FlopComponent::Embedding => "Embedding lookup",
            FlopComponent::AttentionProjections => "Attention projections (QKVO)",
            FlopComponent::AttentionDot => "Dot-product attention",
            FlopComponent::Mlp => "Dense MLP",
            FlopComponent::RoutedExperts => "Routed experts",
            FlopComponent::SharedExperts => "Shared experts",
            FlopComponent::Router => "Router",
            FlopComponent::Unembedding => "Unembedding",
            FlopComponent::Mtp => "MTP modules",
            FlopComponent::Other => "Norms and biases",
        }
    }

    /// True for FLOPs that multiply learnable weights (MaxText's "learnable weight
    /// TFLOPs"); false for dot-product attention ("attention TFLOPs").
    #[must_use]
    pub fn is_learnable(self) -> bool {
        self != FlopComponent::AttentionDot
    }
}

/// FLOPs of one component for one device and one optimizer step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FlopRow {
    /// Which component.
    pub component: FlopComponent,
    /// Forward pass.
    pub forward: Flops,
    /// Backward pass (twice the forward for every matmul, book 4.1.1).
    pub backward: Flops,
}

impl FlopRow {
    /// Forward plus backward.
    #[must_use]
    pub fn total(&self) -> Flops {
        self.forward + self.backward
    }
}

/// FLOPs of one training step on one device under one convention.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FlopsReport {
    /// The convention used.
    pub convention: FlopConvention,
    /// Tokens per device per optimizer step.
    pub tokens_per_device_step: f64,
    /// Per-component rows, in [`FlopComponent::ALL`] order, zero rows included.
    pub rows: Vec<FlopRow>,
    /// Model FLOPs (what MFU divides by): forward + backward, all components.
    pub total: Flops,
    /// The part that multiplies learnable weights.
    pub learnable: Flops,
    /// The dot-product-attention part.
    pub attention: Flops,
    /// Extra forward FLOPs the remat policy recomputes in the backward pass.
    pub remat_recompute: Flops,
    /// Hardware FLOPs (what HFU divides by): `total + remat_recompute`.
    pub hardware_total: Flops,
}

impl FlopsReport {
    /// The row for a component.
    #[must_use]
    pub fn get(&self, c: FlopComponent) -> FlopRow {
        self.rows.iter().copied().find(|r| r.component == c).unwrap_or(FlopRow {
            component: c,
            forward: Flops::ZERO,
            backward: Flops::ZERO,
        })
    }

    /// Training FLOPs per token (total / tokens).
    #[must_use]
    pub fn per_token(&self) -> Flops {
        if self.tokens_per_device_step > 0.0 {
            self.total / self.tokens_per_device_step
        } else {
            Flops::ZERO
        }
    }
}

/// Forward matmul FLOPs per token of each weight group (book 4.3: 2 FLOPs per weight).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ForwardPerToken {
    /// Attention projections summed over layers.
    pub attention_projections: f64,
    /// Dense MLP layers.
    pub mlp: f64,
    /// Routed experts (k per token).
    pub routed: f64,
    /// Shared experts.
    pub shared: f64,
    /// Router.
    pub router: f64,
    /// Unembedding.
    pub unembedding: f64,
    /// Every MTP module's weight matmuls (excluding its attention dot): the `[h; emb]`
    /// projection, its decoder layer and the (shared) output head, times depth.
    pub mtp_weights: f64,
    /// Every MTP module's decoder layer only (attention projections and the last layer's
    /// FFN), times depth: what MaxText counts ([`MtpCounting::DecoderLayer`]).
    pub mtp_layer_weights: f64,
}

/// Weight matmuls of one layer's attention block, in weights touched per token.
#[must_use]
pub fn attention_projection_weights(m: &ModelConfig) -> f64 {
    let d = m.d_model as f64;
    match &m.attention {
        Attention::Gqa(a) => {
            let (n, k, h) = (a.num_heads as f64, a.num_kv_heads as f64, a.head_dim as f64);
            // Q and O are D×N×H, K and V are D×K×H (book 4.3: 2·D·(N+K)·H).
            2.0 * d * n * h + 2.0 * d * k * h
        }
        Attention::Mla(a) => {
            let n = a.num_heads as f64;
            let qk = a.qk_nope_head_dim as f64 + a.qk_rope_head_dim as f64;
            let r_kv = a.kv_lora_rank as f64;
            let q = match a.q_lora_rank {
                Some(r) => d * r as f64 + r as f64 * n * qk,
                None => d * n * qk,
            };
            let kv =
                d * (r_kv + a.qk_rope_head_dim as f64) + r_kv * n * (a.qk_nope_head_dim as f64 + a.v_head_dim as f64);
            q + kv + n * a.v_head_dim as f64 * d
        }
    }
}

/// Forward FLOPs per token of every weight group.
#[must_use]
pub fn forward_per_token(m: &ModelConfig) -> ForwardPerToken {
    let d = m.d_model;
    let l = m.num_layers as f64;
    let (moe_layers, dense_layers) = m.moe_and_dense_layers();
    let proj = attention_projection_weights(m);
    let dense = mlp_weights(m.mlp.kind, d, m.mlp.d_ff);
    let (routed, shared, router) = match &m.moe {
        Some(moe) => (
            moe.experts_per_token as f64 * mlp_weights(m.mlp.kind, d, moe.expert_d_ff),
            moe.shared_experts as f64 * mlp_weights(m.mlp.kind, d, moe.shared_width()),
            d as f64 * moe.num_experts as f64,
        ),
        None => (0.0, 0.0, 0.0),
    };
    let unembed = d as f64 * m.vocab_size as f64;
    // The last layer's FFN: MoE when the model has experts (its last layer is an MoE one).
    let last_ffn = if m.moe.is_some() { routed + shared + router } else { dense };
    let mtp_depth = m.mtp.as_ref().map_or(0.0, |mtp| mtp.depth as f64);
    let mtp_layer_weights = mtp_depth * (proj + last_ffn);
    // [h; emb] projection 2D -> D, one layer, and the (shared) output head.
    let mtp_weights = mtp_layer_weights + mtp_depth * (2.0 * (d as f64) * (d as f64) + unembed);
    ForwardPerToken {
        attention_projections: 2.0 * l * proj,
        mlp: 2.0 * dense_layers as f64 * dense,
        routed: 2.0 * moe_layers as f64 * routed,
        shared: 2.0 * moe_layers as f64 * shared,
        router: 2.0 * moe_layers as f64 * router,
        unembedding: 2.0 * unembed,
        mtp_weights: 2.0 * mtp_weights,
        mtp_layer_weights: 2.0 * mtp_layer_weights,
    }
}

/// Forward dot-product-attention FLOPs of one query–key pair summed over heads:
/// 2·N·H for QKᵀ plus 2·N·H for the weighted sum of V (book 4.3), or for MLA
/// 2·N·(qk_nope + qk_rope) + 2·N·v.
#[must_use]
pub fn attention_flops_per_pair(m: &ModelConfig) -> f64 {
    match &m.attention {
        Attention::Gqa(a) => 4.0 * a.num_heads as f64 * a.head_dim as f64,
        Attention::Mla(a) => {
            2.0 * a.num_heads as f64 * (a.qk_nope_head_dim as f64 + a.qk_rope_head_dim as f64 + a.v_head_dim as f64)
        }
    }
}

/// Forward dot-product-attention FLOPs for one sequence of `t` tokens, all layers
/// (plus MTP layers when `include_mtp`).
#[must_use]
pub fn attention_forward_per_sequence(m: &ModelConfig, t: u64, counting: AttentionCounting, include_mtp: bool) -> f64 {
    let (global, local) = m.layout.counts(m.num_layers);
    let per_pair = attention_flops_per_pair(m);
    let g = attention_pairs(t, None, counting);
    let lo = attention_pairs(t, m.layout.local, counting);
    let mtp_layers = match (&m.mtp, include_mtp) {
        (Some(mtp), true) => mtp.depth as f64,
        _ => 0.0,
    };
    per_pair * ((global as f64 + mtp_layers) * g + local as f64 * lo)
}

/// FLOPs of one training step on one device.
///
/// The model and workload are assumed valid; see [`ModelConfig::validate`] and
/// [`Workload::validate`].
#[must_use]
pub fn training_flops(m: &ModelConfig, w: &Workload, convention: FlopConvention) -> FlopsReport {
    let tokens = w.tokens_per_device();
    let sequences = w.per_device_batch * w.grad_accum as f64;
    let zero = |component| FlopRow { component, forward: Flops::ZERO, backward: Flops::ZERO };
    let mut rows: Vec<FlopRow> = FlopComponent::ALL.iter().map(|c| zero(*c)).collect();
    let mut set = |c: FlopComponent, fwd: f64| {
        if let Some(r) = rows.iter_mut().find(|r| r.component == c) {
            r.forward = Flops(fwd);
            r.backward = Flops(2.0 * fwd);
        }
    };

    let fpt = forward_per_token(m);
    match convention {
        FlopConvention::SixNd => {
            // 6·N·D with N the active parameters (input embedding included, MTP not):
            // 2 forward + 4 backward FLOPs per parameter per token.
            let p = count_params(m);
            let a = |c: ParamComponent| p.get(c).active.get() * 2.0 * tokens;
            set(FlopComponent::Embedding, a(ParamComponent::Embedding) + a(ParamComponent::PositionEmbedding));
            set(FlopComponent::AttentionProjections, a(ParamComponent::Attention));
            set(FlopComponent::Mlp, a(ParamComponent::Mlp));
            set(FlopComponent::RoutedExperts, a(ParamComponent::RoutedExperts));
            set(FlopComponent::SharedExperts, a(ParamComponent::SharedExperts));
            set(FlopComponent::Router, a(ParamComponent::Router));
            set(FlopComponent::Unembedding, a(ParamComponent::Unembedding));
            set(FlopComponent::Other, a(ParamComponent::Norms) + a(ParamComponent::Biases));
        }
        FlopConvention::MaxText | FlopConvention::Notebook | FlopConvention::Book => {
            let counting = convention.attention_counting();
            set(FlopComponent::AttentionProjections, fpt.attention_projections * tokens);
            set(FlopComponent::Mlp, fpt.mlp * tokens);
            set(FlopComponent::RoutedExperts, fpt.routed * tokens);
            set(FlopComponent::SharedExperts, fpt.shared * tokens);
            set(FlopComponent::Router, fpt.router * tokens);
            set(FlopComponent::Unembedding, fpt.unembedding * tokens);
            set(FlopComponent::AttentionDot, attention_forward_per_sequence(m, w.seq_len, counting, false) * sequences);
            // Each MTP module attends over the whole sequence like a global layer.
            let mtp_dot = attention_forward_per_sequence(m, w.seq_len, counting, true)
                - attention_forward_per_sequence(m, w.seq_len, counting, false);
            match convention.mtp_counting() {
                MtpCounting::NotCounted => {}
                MtpCounting::DecoderLayer => {
                    set(FlopComponent::Mtp, fpt.mtp_layer_weights * tokens + mtp_dot * sequences)
                }
                MtpCounting::WholeModule => set(FlopComponent::Mtp, fpt.mtp_weights * tokens + mtp_dot * sequences),
            }
        }
    }

    let total: Flops = rows.iter().map(FlopRow::total).sum();
    let attention = rows.iter().filter(|r| !r.component.is_learnable()).map(FlopRow::total).sum();
    let learnable = rows.iter().filter(|r| r.component.is_learnable()).map(FlopRow::total).sum();
    let fwd = |c: FlopComponent| rows.iter().find(|r| r.component == c).map_or(0.0, |r| r.forward.get());
    let remat_recompute = Flops(match w.remat {
        RematPolicy::None => 0.0,
        RematPolicy::SaveMatmuls => fwd(FlopComponent::AttentionDot),
        RematPolicy::Full => [
            FlopComponent::AttentionProjections,
            FlopComponent::AttentionDot,
            FlopComponent::Mlp,
            FlopComponent::RoutedExperts,
            FlopComponent::SharedExperts,
            FlopComponent::Router,
            FlopComponent::Other,
        ]
        .iter()
        .map(|c| fwd(*c))
        .sum(),
    });
    FlopsReport {
        convention,
        tokens_per_device_step: tokens,
        rows,
        total,
        learnable,
        attention,
        remat_recompute,
        hardware_total: total + remat_recompute,
    }
}

/// Model FLOPs utilisation: useful model FLOPs over what `chips` chips at `peak`
/// FLOP/s could do in `time` (book Solution 4.7).
#[must_use]
pub fn model_flops_utilization(model_flops: Flops, chips: f64, time: Seconds, peak: FlopsPerSec) -> f64 {
    model_flops.get() / (chips * (peak * time).get())
}

#[cfg(test)]
mod tests;
