//! Communication of one microbatch on one device, per kind of parallelism (book 5.1
//! and the table of 5.2), as array bytes `V` (the [`crate::collectives`] convention:
//! the full gathered array) and seconds from [`crate::collectives::collective_cost`]
//! on the axes the mesh was placed on.

use super::memory::{gathered_bytes, microbatch_tokens};
use super::optimizer::ZeroStage;
use super::placement::{CostCache, CostModel};
use super::setup::{MeshContext, Setup};
use super::tensors::RematCost;
use crate::collectives::{point_to_point, CollectiveKind};
use crate::units::{Bytes, BytesPerSec, Seconds};

/// Seconds in the forward and backward pass, and the bytes `V` summed over collectives.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Traffic {
    /// Seconds in the forward pass.
    pub forward: f64,
    /// Seconds in the backward pass.
    pub backward: f64,
    /// Σ V over every collective.
    pub bytes: f64,
}

/// Every kind of parallelism's traffic for one microbatch (DP: once per step).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Comms {
    /// FSDP weight AllGathers and gradient ReduceScatters.
    pub fsdp: Traffic,
    /// DP gradient synchronisation, once per step (in `backward`).
    pub dp: Traffic,
    /// TP activation AllGathers and ReduceScatters.
    pub tp: Traffic,
    /// EP AllToAlls.
    pub ep: Traffic,
    /// CP K/V AllGathers and ReduceScatters.
    pub cp: Traffic,
    /// PP sends to the neighbouring stage.
    pub pp: Traffic,
}

/// Seconds of a collective of the full array `V` bytes (see [`crate::collectives`]).
pub type CollectiveTime<'a> = &'a dyn Fn(CollectiveKind, f64) -> f64;

/// FSDP (book 5.1.2): AllGather the weights in the forward pass, again in the backward
/// pass, and ReduceScatter the gradients: 4DF + 8DF bytes per layer in the book's
/// table (weights and gradients in bf16). `weight_bytes` and `grad_bytes` are the
/// gathered (unsharded over FSDP) arrays of one device.
#[must_use]
pub fn fsdp_traffic(weight_bytes: f64, grad_bytes: f64, time: CollectiveTime) -> Traffic {
    let ag = time(CollectiveKind::AllGather, weight_bytes);
    Traffic {
        forward: ag,
        backward: ag + time(CollectiveKind::ReduceScatter, grad_bytes),
        bytes: 2.0 * weight_bytes + grad_bytes,
    }
}

/// Of FSDP's backward traffic ([`fsdp_traffic`]), the seconds of the gradient
/// ReduceScatters: the backward less the forward, whose AllGathers it repeats.
#[must_use]
pub fn fsdp_reduction(t: &Traffic) -> f64 {
    (t.backward - t.forward).max(0.0)
}

/// DP (book 5.1.1): AllReduce the gradients once per step, 8DF bytes per layer; with
/// ZeRO-1/2 a ReduceScatter of the gradients and an AllGather of the updated weights,
/// the same volume. Not on the critical path.
#[must_use]
pub fn data_parallel_traffic(grad_bytes: f64, weight_bytes: f64, zero: ZeroStage, time: CollectiveTime) -> Traffic {
    let (seconds, bytes) = if zero.shards_optimizer() {
        (
            time(CollectiveKind::ReduceScatter, grad_bytes) + time(CollectiveKind::AllGather, weight_bytes),
            grad_bytes + weight_bytes,
        )
    } else {
        (time(CollectiveKind::AllReduce, grad_bytes), grad_bytes)
    };
    Traffic { forward: 0.0, backward: seconds, bytes }
}

/// Which blocks of a layer the backward pass re-runs (their collectives run again).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recomputed {
    /// The attention block.
    pub attention: bool,
    /// The MLP input projections (and an MoE layer's dispatch).
    pub mlp: bool,
    /// Dot-product attention (and so CP's K/V gather).
    pub context: bool,
}

fn count(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// Seconds and bytes of `counts` (forward, backward) collectives of the array `v`
/// that each take `one` second.
#[must_use]
pub fn repeated(v: f64, one: f64, counts: (f64, f64)) -> Traffic {
    Traffic { forward: counts.0 * one, backward: counts.1 * one, bytes: (counts.0 + counts.1) * v }
}

/// TP (book 5.1.3): each collective gathers `In[B, D_Y]` (or reduce-scatters
/// `Out[B, D]{U_Y}`) of the device's `tokens`: `V = B·D` activations.
#[must_use]
pub fn tensor_parallel_array(tokens: f64, d_model: f64, activation_bytes: f64) -> f64 {
    tokens * d_model * activation_bytes
}

/// TP (book 5.1.3): per block (attention, MLP) one AllGather and one ReduceScatter
/// forward, their transposes backward — 4BD + 4BD bytes per block in the book's
/// table — plus the forward pair again for each block the remat policy recomputes.
/// On the critical path.
#[must_use]
pub fn tensor_parallel_counts(layers: f64, redo: Recomputed) -> (f64, f64) {
    let again = 2.0 * (count(redo.attention) + count(redo.mlp));
    (4.0 * layers, (4.0 + again) * layers)
}

/// EP (book 4.4.1): each AllToAll moves what one device sends (its tokens × k × its
/// hidden slice × the capacity factor) to the `ep` devices: `V` = that shard × `ep`.
#[must_use]
pub fn expert_parallel_array(
    tokens: f64,
    per_token: f64,
    hidden: f64,
    activation_bytes: f64,
    capacity_factor: f64,
    ep: f64,
) -> f64 {
    tokens * per_token * hidden * activation_bytes * capacity_factor * ep
}

/// EP (book 4.4.1): two AllToAlls per MoE layer (dispatch to the experts, combine
/// back) forward, two backward, a third when the expert inputs are recomputed. On the
/// critical path: the experts cannot start before their tokens arrive.
#[must_use]
pub fn expert_parallel_counts(moe_layers: f64, redo: Recomputed) -> (f64, f64) {
    (2.0 * moe_layers, (2.0 + count(redo.mlp)) * moe_layers)
}

/// CP (ring attention; book 5.1.1's note on context parallelism): each collective
/// gathers the K/V of the whole sequence, `cp` devices' `tokens` each.
#[must_use]
pub fn context_parallel_array(tokens: f64, cp: f64, kv_per_token: f64, activation_bytes: f64) -> f64 {
    tokens * cp * kv_per_token * activation_bytes
}

/// CP: every layer gathers K/V forward, gathers them again and ReduceScatters their
/// gradient backward, once more when attention is recomputed. Overlaps with the
/// attention it feeds.
#[must_use]
pub fn context_parallel_counts(layers: f64, redo: Recomputed) -> (f64, f64) {
    (layers, (2.0 + count(redo.context)) * layers)
}

/// PP (book 5.1.5): one hop to the next stage with a microbatch's activations
/// (`bytes`) forward, its gradient back; once per chunk with interleaving.
#[must_use]
pub fn pipeline_traffic(bytes: f64, link: BytesPerSec, latency: Seconds, hops: u64) -> Traffic {
    let t = point_to_point(Bytes(bytes), 1.0, link, hops, latency).total.get();
    Traffic { forward: t, backward: t, bytes: 2.0 * bytes }
}

fn add(a: Traffic, b: Traffic) -> Traffic {
    Traffic { forward: a.forward + b.forward, backward: a.backward + b.backward, bytes: a.bytes + b.bytes }
}

/// The weight traffic of a mesh, which depends neither on the microbatch count nor on
/// remat: FSDP's per microbatch and DP's per step.
#[must_use]
pub fn weight_traffic(setup: &Setup, cache: &CostCache, mc: &MeshContext) -> (Traffic, Traffic) {
    let dt = &setup.options.dtypes;
    // Gathered and reduced in the format the matmuls use (fp32-stored weights are cast
    // before the dot, their gradients reduced before the cast back: `memory`'s docs);
    // ZeRO-1/2's gather of updated weights moves the stored format.
    let (w, g) = (gathered_bytes(dt.weights, dt.activations), gathered_bytes(dt.gradients, dt.activations));
    let w_stored = dt.weights.bytes();
    let mut fsdp = Traffic::default();
    for ([gather, scatter], params) in [(mc.fsdp_dense, mc.gathered_dense), (mc.fsdp_expert, mc.gathered_expert)] {
        if !gather.is_none() && params > 0.0 {
            let time = |kind: CollectiveKind, v: f64| {
                let model = if kind == CollectiveKind::ReduceScatter { scatter } else { gather };
                cache.time(model, kind, v)
            };
            fsdp = add(fsdp, fsdp_traffic(params * w, params * g, &time));
        }
    }
    let [first, second] = mc.dp;
    let dp = if first.is_none() {
        Traffic::default()
    } else {
        let time = |kind: CollectiveKind, v: f64| {
            let model = if kind == CollectiveKind::AllGather { second } else { first };
            cache.time(model, kind, v)
        };
        data_parallel_traffic(mc.params * g, mc.params * w_stored, setup.options.zero, &time)
    };
    (fsdp, dp)
}

/// The activation collectives of a mesh at one microbatch count: each array `V` and
/// the time of one collective of it, computed once for every remat policy.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ActivationCollectives {
    /// TP: (V, seconds of one).
    pub tp: (f64, f64),
    /// EP: (V, seconds of one AllToAll).
    pub ep: (f64, f64),
    /// CP: (V, seconds of one).
    pub cp: (f64, f64),
    /// PP sends of one microbatch.
    pub pp: Traffic,
    /// Layers on one stage.
    layers: f64,
    /// MoE layers on one stage.
    moe_layers: f64,
}

/// The activation collectives of `mc` at `microbatches`.
#[must_use]
pub fn activation_collectives(
    setup: &Setup,
    cache: &CostCache,
    mc: &MeshContext,
    microbatches: u64,
) -> ActivationCollectives {
    let p = &setup.profile;
    let a = setup.options.dtypes.activations.bytes();
    let tokens = microbatch_tokens(setup, mc, microbatches);
    let tp = mc.mesh.tp.max(1) as f64;
    // The stage with the most layers (all of them without pipelining).
    let share = mc.stage_layers / p.layers.max(1) as f64;
    // Each of a device's interleaved chunks sends its microbatch on.
    let chunks = setup.options.pipeline.chunks() as f64;
    let one = |model: CostModel, kind: CollectiveKind, v: f64| (v, cache.time(model, kind, v));
    let none = (0.0, 0.0);
    ActivationCollectives {
        tp: if mc.tp.is_none() {
            none
        } else {
            one(mc.tp, CollectiveKind::AllGather, tensor_parallel_array(tokens, p.d_model, a))
        },
        ep: match p.expert {
            Some(e) if !mc.ep.is_none() => {
                let v = expert_parallel_array(
                    tokens,
                    e.per_token as f64,
                    p.d_model / tp,
                    a,
                    setup.options.capacity_factor,
                    mc.mesh.ep as f64,
                );
                one(mc.ep, CollectiveKind::AllToAll, v)
            }
            _ => none,
        },
        cp: if mc.cp.is_none() {
            none
        } else {
            let split = if p.latent_kv { 1.0 } else { p.kv_split(mc.mesh.tp) };
            let v = context_parallel_array(tokens, mc.mesh.cp as f64, p.kv_elements_per_token_layer / split, a);
            one(mc.cp, CollectiveKind::AllGather, v)
        },
        pp: mc.pp_link.map_or(Traffic::default(), |(link, latency, hops)| {
            let t = pipeline_traffic(tokens * p.d_model / tp * a, link, Seconds(latency), hops);
            Traffic { forward: t.forward * chunks, backward: t.backward * chunks, bytes: t.bytes * chunks }
        }),
        layers: p.layers as f64 * share,
        moe_layers: p.moe_layers as f64 * share,
    }
}

/// The traffic of one microbatch on one device (DP's once per step) for a remat policy.
#[must_use]
pub fn comms(mc: &MeshContext, ac: &ActivationCollectives, remat: &RematCost) -> Comms {
    let redo = Recomputed {
        attention: remat.attention_block_recomputed,
        mlp: remat.mlp_block_recomputed,
        context: remat.context_recomputed,
    };
    Comms {
        fsdp: mc.fsdp_traffic,
        dp: mc.dp_traffic,
        tp: repeated(ac.tp.0, ac.tp.1, tensor_parallel_counts(ac.layers, redo)),
        ep: repeated(ac.ep.0, ac.ep.1, expert_parallel_counts(ac.moe_layers, redo)),
        cp: repeated(ac.cp.0, ac.cp.1, context_parallel_counts(ac.layers, redo)),
        pp: ac.pp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fsdp_reduction_is_the_reduce_scatter() {
        // AllGathers of 3 s, a ReduceScatter of 5 s: the backward's 8 s less the forward's 3.
        let time = |kind: CollectiveKind, v: f64| match kind {
            CollectiveKind::ReduceScatter => v * 5.0,
            _ => v * 3.0,
        };
        let t = fsdp_traffic(1.0, 1.0, &time);
        assert_eq!((t.forward, t.backward), (3.0, 8.0));
        assert_eq!(fsdp_reduction(&t), 5.0);
        assert_eq!(fsdp_reduction(&Traffic::default()), 0.0);
    }
}
