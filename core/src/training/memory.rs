//! HBM per device during a training step (book 5.1, 6.2): the training state, the
//! activations the backward pass needs, and the largest transient working set.
//!
//! - Weights, gradients and optimizer state shard over TP (K/V projections over
//!   min(TP, K) when K < TP: replicated heads), pipeline stages, EP (experts) and the
//!   ZeRO-3 axes (fsdp, cp, ep; dp at ZeRO-3); ZeRO-1/2 also shard the optimizer state
//!   and gradients over `dp`. The worst pipeline stage holds the larger embedding.
//! - Saved activations: the remat policy's kept tensors ([`super::tensors`]: only those
//!   the backward pass reads) for the device's tokens of one microbatch (sequences/CP),
//!   split over TP (the book's `In[B, D_Y]`), for its stage's layers (L/PP, or the
//!   largest stage's when PP does not divide L), times the microbatches in flight
//!   ([`super::pipeline`]).
//! - Transient, the larger of two moments that do not overlap:
//!   - **one layer at work**: its FSDP-gathered weights and their unreduced gradients,
//!     once (the custom-model guide: FSDP must hold "a full, single layer of weights";
//!     "10B params per layer [...] 40GiB of bf16 weights and gradients"), gathered in
//!     the format the matmuls read (MaxText casts its fp32 `weight_dtype` kernels to
//!     `dtype` before the dot, `layers/linears.py` at 101dcdc, and its sharding guide
//!     counts "All gather params EM in bf16"); plus the next layer's weights when the
//!     gather crosses the scale-out network, where XLA's collective pipeliner prefetches
//!     them into the previous scan iteration (`xla_tpu_enable_ag_backward_pipelining`,
//!     set by MaxText's v5p scripts: "Pipelines all-gathers (currently megascale
//!     all-gathers) backwards through scan loops", `configs/README.md`); plus what the
//!     layer's backward brings back (the tensors its policy recomputes or offloaded,
//!     [`RematCost::dropped`]), a materialised attention score matrix and, with CP, the
//!     gathered K/V of the whole sequence;
//!   - **the loss**: the fp32 logits of a microbatch.
//! - Not counted (what `reserved_hbm_fraction` is for): cotangents inside a layer's
//!   backward, XLA's fusion temporaries, allocator fragmentation, the runtime's own.
//!
//! Host memory for offloaded tensors is reported, not bounded.

use super::mesh::{network_index, Parallelism};
use super::pipeline::Pipeline;
use super::setup::{zero3_axes, AttentionKernel, MeshContext, Setup};
use super::tensors::RematCost;
use crate::collectives::Network;
use crate::dtype::DType;
use serde::{Deserialize, Serialize};

/// Which moment sets the transient peak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Transient {
    /// None (nothing gathered, recomputed or materialised).
    #[default]
    None,
    /// One layer at work: gathered weights and gradients, what its backward
    /// rematerialises, attention buffers.
    Layer,
    /// The logits of one microbatch in fp32.
    Logits,
}

/// One layer's working set, bytes per device.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerWork {
    /// Its FSDP-gathered weights.
    pub weights: f64,
    /// The next layer's gathered weights (prefetched over the scale-out network).
    pub prefetch: f64,
    /// Its weight gradients before the ReduceScatter.
    pub gradients: f64,
    /// The activations its backward recomputes or reads back from the host.
    pub rematerialised: f64,
    /// A materialised score matrix and CP's gathered K/V.
    pub attention: f64,
}

impl LayerWork {
    /// The whole working set.
    #[must_use]
    pub fn total(&self) -> f64 {
        self.weights + self.prefetch + self.gradients + self.rematerialised + self.attention
    }
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
    /// The transient peak: the larger of `layer` and `logits`.
    pub transient: f64,
    /// Which one.
    pub transient_kind: Transient,
    /// One layer at work.
    pub layer: LayerWork,
    /// The fp32 logits of a microbatch.
    pub logits: f64,
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

/// Bytes per parameter of a weight gathered for a matmul (and of its unreduced
/// gradient): the stored format, or the activations' when narrower (the module docs).
#[must_use]
pub fn gathered_bytes(stored: DType, activations: DType) -> f64 {
    stored.bytes().min(activations.bytes())
}

/// Whether the ZeRO-3 group of the dense weights spans the scale-out network.
fn gathers_over_scale_out(setup: &Setup, mc: &MeshContext) -> bool {
    let row = mc.split.get(network_index(Network::ScaleOut));
    zero3_axes(setup.options.zero, false).iter().any(|a: &Parallelism| row.is_some_and(|r| r[*a as usize] > 1))
}

/// Training state per device (weights, gradients, optimizer state, master weights), in
/// [`MemoryParts`] order. ZeRO-2 shards the gradients over `dp` only with one
/// microbatch: the planner reduces them once per step, so with several it keeps the
/// whole accumulator (ZeRO-1's memory; a per-microbatch ReduceScatter, DeepSpeed's
/// ZeRO-2, would trade that for M× the traffic).
#[must_use]
pub fn state_parts(setup: &Setup, mc: &MeshContext, microbatches: u64) -> [f64; 4] {
    let o = &setup.options;
    let p = &setup.profile;
    let opt_params = mc.params / mc.dp_optimizer_shards;
    let grad_shards = if microbatches > 1 { 1.0 } else { mc.dp_gradient_shards };
    [
        mc.params * o.dtypes.weights.bytes(),
        if o.store_gradients { mc.params / grad_shards * o.dtypes.gradients.bytes() } else { 0.0 },
        opt_params * o.optimizer.state_per_param(p.factored_fraction) * o.dtypes.optimizer.bytes(),
        if o.optimizer.master_weights() { opt_params * DType::Fp32.bytes() } else { 0.0 },
    ]
}

/// [`state_parts`] summed: what no remat policy or transient changes.
#[must_use]
pub fn state_bytes(setup: &Setup, mc: &MeshContext, microbatches: u64) -> f64 {
    state_parts(setup, mc, microbatches).iter().sum()
}

/// Everything in a device's memory that does not depend on the remat policy, for one
/// mesh and microbatch count.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemoryBase {
    /// Weights, gradients, optimizer state, master weights; the layer's gathered
    /// weights, gradients and attention buffers; the logits.
    pub parts: MemoryParts,
    /// Bytes of one microbatch per kept element per token summed over layers: its
    /// tokens on this device over its stage's share of the layers, in the activation
    /// format.
    per_element: f64,
    /// The same for one layer (a layer's backward works on one microbatch).
    per_layer_element: f64,
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
    let act = o.dtypes.activations;
    let pipeline: &Pipeline = &o.pipeline;
    let tokens = microbatch_tokens(setup, mc, microbatches);

    let sharded = mc.params < mc.gathered_dense + mc.gathered_expert;
    let layer_params = p.largest_layer_dense / tp + p.largest_layer_expert / (ep * tp);
    let (layer_weights, prefetch, layer_gradients) = if sharded {
        let w = layer_params * gathered_bytes(o.dtypes.weights, act);
        let next = if gathers_over_scale_out(setup, mc) { w } else { 0.0 };
        (w, next, layer_params * gathered_bytes(o.dtypes.gradients, act))
    } else {
        (0.0, 0.0, 0.0)
    };
    let scores = match o.attention {
        AttentionKernel::Flash => 0.0,
        AttentionKernel::Materialized => tokens * p.heads as f64 / tp * setup.seq_len as f64 * DType::Fp32.bytes(),
    };
    let kv_split = if p.latent_kv { 1.0 } else { p.kv_split(m.tp) };
    let gathered_kv =
        if cp > 1 { tokens * cp as f64 * p.kv_elements_per_token_layer / kv_split * act.bytes() } else { 0.0 };
    let [weights, gradients, optimizer, master_weights] = state_parts(setup, mc, microbatches);
    MemoryBase {
        parts: MemoryParts {
            weights,
            gradients,
            optimizer,
            master_weights,
            layer: LayerWork {
                weights: layer_weights,
                prefetch,
                gradients: layer_gradients,
                rematerialised: 0.0,
                attention: scores + gathered_kv,
            },
            logits: tokens * p.vocab / tp * DType::Fp32.bytes(),
            in_flight: pipeline.in_flight(m.pp, microbatches),
            ..MemoryParts::default()
        },
        per_element: tokens * mc.stage_layers / p.layers.max(1) as f64 * act.bytes(),
        per_layer_element: tokens / p.layers.max(1) as f64 * act.bytes(),
        inv_tp: 1.0 / tp,
        inv_kv: 1.0 / p.kv_split(m.tp),
    }
}

/// The memory of one configuration: the base plus the policy's saved activations
/// (TP splits every tensor TP ways, K and V min(TP, K) ways) for the microbatches in
/// flight, and what one layer's backward brings back.
#[must_use]
pub fn memory(base: &MemoryBase, remat: &RematCost) -> MemoryParts {
    let saved = base.per_element * (remat.kept * base.inv_tp + remat.kept_kv * base.inv_kv);
    let offloaded = base.per_element * (remat.offloaded * base.inv_tp + remat.offloaded_kv * base.inv_kv);
    let layer = LayerWork {
        rematerialised: base.per_layer_element * (remat.dropped * base.inv_tp + remat.dropped_kv * base.inv_kv),
        ..base.parts.layer
    };
    let logits = base.parts.logits;
    let (transient_kind, transient) = if layer.total() <= 0.0 && logits <= 0.0 {
        (Transient::None, 0.0)
    } else if layer.total() >= logits {
        (Transient::Layer, layer.total())
    } else {
        (Transient::Logits, logits)
    };
    MemoryParts {
        activations: saved * base.parts.in_flight,
        offloaded: offloaded * base.parts.in_flight,
        offloaded_per_microbatch: offloaded,
        layer,
        transient,
        transient_kind,
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
