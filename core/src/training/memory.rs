//! HBM per device during a training step (book 5.1, 6.2): the training state, the
//! activations the backward pass needs, and the largest transient buffer.
//!
//! - Weights, gradients and optimizer state shard over TP (K/V projections over
//!   min(TP, K) when K < TP: replicated heads), pipeline stages, EP (experts) and the
//!   ZeRO-3 axes (fsdp, cp, ep; dp at ZeRO-3); ZeRO-1/2 also shard the optimizer state
//!   and gradients over `dp`. The worst pipeline stage holds the larger embedding.
//! - Saved activations: the remat policy's kept tensors for the device's tokens of one
//!   microbatch (sequences/CP), split over TP (the book's `In[B, D_Y]`), for its L/PP
//!   layers, times the microbatches in flight ([`super::pipeline`]).
//! - Transient, the largest of: one layer's gathered weights and unreduced gradients
//!   under FSDP (MaxText custom-model guide: "a full, single layer of weights"); the
//!   fp32 logits of a microbatch; a materialised attention score matrix plus, with CP,
//!   the gathered K/V of the whole sequence.
//!
//! Host memory for offloaded tensors is reported, not bounded.

use super::pipeline::Pipeline;
use super::setup::{AttentionKernel, MeshContext, Setup};
use super::tensors::RematCost;
use crate::dtype::DType;
use serde::{Deserialize, Serialize};

/// Which buffer sets the transient peak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Transient {
    /// None (nothing sharded, nothing materialised).
    #[default]
    None,
    /// One layer's FSDP-gathered weights and gradients.
    FsdpLayer,
    /// Logits of one microbatch in fp32.
    Logits,
    /// One layer's attention scores and/or CP-gathered K/V.
    Attention,
}

/// Bytes per device.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemoryParts {
    /// Weights.
    pub weights: f64,
    /// Gradients.
    pub gradients: f64,
    /// Optimizer state.
    pub optimizer: f64,
    /// fp32 master weights.
    pub master_weights: f64,
    /// Saved activations.
    pub activations: f64,
    /// The largest transient buffer.
    pub transient: f64,
    /// Which one.
    pub transient_kind: Transient,
    /// Offloaded activations in host memory (not counted in HBM).
    pub offloaded: f64,
    /// Bytes one microbatch offloads (and reads back).
    pub offloaded_per_microbatch: f64,
    /// Microbatches' activations in flight.
    pub in_flight: f64,
}

impl MemoryParts {
    /// HBM in use at the peak.
    #[must_use]
    pub fn total(&self) -> f64 {
        self.weights + self.gradients + self.optimizer + self.master_weights + self.activations + self.transient
    }
}

/// Tokens of one microbatch on one device (its sequences over CP; TP devices share them).
#[must_use]
pub fn microbatch_tokens(setup: &Setup, mc: &MeshContext, microbatches: u64) -> f64 {
    mc.sequences_per_shard as f64 / microbatches.max(1) as f64 * setup.seq_len as f64 / mc.mesh.cp.max(1) as f64
}

/// Everything in a device's memory that does not depend on the remat policy, for one
/// mesh and microbatch count.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemoryBase {
    /// Weights, gradients, optimizer state, master weights; transient and its kind.
    pub parts: MemoryParts,
    /// Bytes of one microbatch per kept element per token summed over layers: its
    /// tokens on this device over its L/PP layers, in the activation format.
    per_element: f64,
    /// 1/TP.
    inv_tp: f64,
    /// 1/min(TP, K).
    inv_kv: f64,
}

/// The policy-independent memory of a mesh at a microbatch count.
#[must_use]
pub fn memory_base(setup: &Setup, mc: &MeshContext, microbatches: u64) -> MemoryBase {
    let o = &setup.options;
    let p = &setup.profile;
    let m = &mc.mesh;
    let (tp, ep, cp) = (m.tp.max(1) as f64, m.ep.max(1) as f64, m.cp.max(1));
    let grad_bytes = o.dtypes.gradients.bytes();
    let weight_bytes = o.dtypes.weights.bytes();
    let opt_params = mc.params / mc.dp_optimizer_shards;
    let pipeline: &Pipeline = &o.pipeline;
    let tokens = microbatch_tokens(setup, mc, microbatches);

    let sharded = mc.params < mc.gathered_dense + mc.gathered_expert;
    let fsdp_layer = if sharded {
        (p.largest_layer_dense / tp + p.largest_layer_expert / (ep * tp)) * (weight_bytes + grad_bytes)
    } else {
        0.0
    };
    let logits = tokens * p.vocab / tp * DType::Fp32.bytes();
    let scores = match o.attention {
        AttentionKernel::Flash => 0.0,
        AttentionKernel::Materialized => tokens * p.heads as f64 / tp * setup.seq_len as f64 * DType::Fp32.bytes(),
    };
    let kv_split = if p.latent_kv { 1.0 } else { p.kv_split(m.tp) };
    let gathered_kv = if cp > 1 {
        tokens * cp as f64 * p.kv_elements_per_token_layer / kv_split * o.dtypes.activations.bytes()
    } else {
        0.0
    };
    let candidates =
        [(Transient::FsdpLayer, fsdp_layer), (Transient::Logits, logits), (Transient::Attention, scores + gathered_kv)];
    let (transient_kind, transient) =
        candidates.iter().fold((Transient::None, 0.0), |best, &(k, v)| if v > best.1 { (k, v) } else { best });
    MemoryBase {
        parts: MemoryParts {
            weights: mc.params * weight_bytes,
            gradients: if o.store_gradients { mc.params / mc.dp_gradient_shards * grad_bytes } else { 0.0 },
            optimizer: opt_params * o.optimizer.state_per_param(p.factored_fraction) * o.dtypes.optimizer.bytes(),
            master_weights: if o.optimizer.master_weights() { opt_params * DType::Fp32.bytes() } else { 0.0 },
            transient,
            transient_kind,
            in_flight: pipeline.in_flight(m.pp, microbatches),
            ..MemoryParts::default()
        },
        per_element: tokens / m.pp.max(1) as f64 * o.dtypes.activations.bytes(),
        inv_tp: 1.0 / tp,
        inv_kv: 1.0 / p.kv_split(m.tp),
    }
}

/// The memory of one configuration: the base plus the policy's saved activations
/// (TP splits every tensor TP ways, K and V min(TP, K) ways) for the microbatches in
/// flight.
#[must_use]
pub fn memory(base: &MemoryBase, remat: &RematCost) -> MemoryParts {
    let saved = base.per_element * (remat.kept * base.inv_tp + remat.kept_kv * base.inv_kv);
    let offloaded = base.per_element * (remat.offloaded * base.inv_tp + remat.offloaded_kv * base.inv_kv);
    MemoryParts {
        activations: saved * base.parts.in_flight,
        offloaded: offloaded * base.parts.in_flight,
        offloaded_per_microbatch: offloaded,
        ..base.parts
    }
}

/// Largest model pure data parallelism can train (book 5.1.1 takeaway: HBM / 10 with
/// bf16 weights and fp32 Adam): parameters that fit when every device holds all of
/// the training state.
#[must_use]
pub fn max_params_pure_dp(hbm_bytes: f64, state_bytes_per_param: f64) -> f64 {
    hbm_bytes / state_bytes_per_param
}
