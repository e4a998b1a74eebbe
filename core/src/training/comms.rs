//! Communication of one microbatch on one device, per kind of parallelism (book 5.1
//! and the table of 5.2), as array bytes `V` (the [`crate::collectives`] convention:
//! the full gathered array) and seconds from [`crate::collectives::collective_cost`]
//! on the axes the mesh was placed on.

use super::memory::microbatch_tokens;
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
    if b { 1.0 } else { 0.0 }
}

/// TP (book 5.1.3): per block (attention, MLP) AllGather `In[B, D_Y]` and
/// ReduceScatter `Out[B, D]{U_Y}` forward, the transposes backward — 4BD + 4BD bytes
/// per block in the book's table for `tokens` = B in bf16 — plus the forward pair
/// again for each recomputed block; `layers` layers. On the critical path.
#[must_use]
pub fn tensor_parallel_traffic(tokens: f64, d_model: f64, activation_bytes: f64, layers: f64, redo: Recomputed, time: CollectiveTime) -> Traffic {
    let v = tokens * d_model * activation_bytes;
    let one = time(CollectiveKind::AllGather, v);
    let again = 2.0 * (count(redo.attention) + count(redo.mlp));
    let (n_f, n_b) = (4.0 * layers, (4.0 + again) * layers);
    Traffic { forward: n_f * one, backward: n_b * one, bytes: (n_f + n_b) * v }
}

/// EP (book 4.4.1): two AllToAlls per MoE layer (dispatch to the experts, combine
/// back) forward, two backward, a third when the expert inputs are recomputed.
/// `shard_bytes` is what one device sends per AllToAll (its tokens × k × its hidden
/// slice × the capacity factor); `V` is that times the `ep` devices. On the critical
/// path: the experts cannot start before their tokens arrive.
#[must_use]
pub fn expert_parallel_traffic(shard_bytes: f64, ep: f64, moe_layers: f64, redo: Recomputed, time: CollectiveTime) -> Traffic {
    let v = shard_bytes * ep;
    let one = time(CollectiveKind::AllToAll, v);
    let (n_f, n_b) = (2.0 * moe_layers, (2.0 + count(redo.mlp)) * moe_layers);
    Traffic { forward: n_f * one, backward: n_b * one, bytes: (n_f + n_b) * v }
}

/// CP (ring attention; book 5.1.1's note on context parallelism): every layer gathers
/// the K/V of the whole sequence (`kv_bytes`) forward, gathers it again and
/// ReduceScatters its gradient backward (once more when attention is recomputed).
/// Overlaps with the attention it feeds.
#[must_use]
pub fn context_parallel_traffic(kv_bytes: f64, layers: f64, redo: Recomputed, time: CollectiveTime) -> Traffic {
    let one = time(CollectiveKind::AllGather, kv_bytes);
    let (n_f, n_b) = (layers, (2.0 + count(redo.context)) * layers);
    Traffic { forward: n_f * one, backward: n_b * one, bytes: (n_f + n_b) * kv_bytes }
}

/// PP (book 5.1.5): one hop to the next stage with a microbatch's activations
/// (`bytes`) forward, its gradient back.
#[must_use]
pub fn pipeline_traffic(bytes: f64, link: BytesPerSec, latency: Seconds, hops: u64) -> Traffic {
    let t = point_to_point(Bytes(bytes), 1.0, link, hops, latency).total.get();
    Traffic { forward: t, backward: t, bytes: 2.0 * bytes }
}

fn add(a: Traffic, b: Traffic) -> Traffic {
    Traffic { forward: a.forward + b.forward, backward: a.backward + b.backward, bytes: a.bytes + b.bytes }
}

/// The traffic of one microbatch on one device of a mesh (DP's once per step).
#[must_use]
pub fn comms(setup: &Setup, cache: &CostCache, mc: &MeshContext, microbatches: u64, remat: &RematCost) -> Comms {
    let p = &setup.profile;
    let dt = &setup.options.dtypes;
    let (w, g, a) = (dt.weights.bytes(), dt.gradients.bytes(), dt.activations.bytes());
    let tokens = microbatch_tokens(setup, mc, microbatches);
    let (tp, pp) = (mc.mesh.tp.max(1) as f64, mc.mesh.pp.max(1) as f64);
    let redo = Recomputed {
        attention: remat.attention_block_recomputed,
        mlp: remat.mlp_block_recomputed,
        context: remat.context_recomputed,
    };
    let on = |model: CostModel| move |kind: CollectiveKind, v: f64| cache.time(model, kind, v);
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
        data_parallel_traffic(mc.params * g, mc.params * w, setup.options.zero, &time)
    };
    let tp_traffic = if mc.tp.is_none() {
        Traffic::default()
    } else {
        tensor_parallel_traffic(tokens, p.d_model, a, p.layers as f64 / pp, redo, &on(mc.tp))
    };
    let ep = match p.expert {
        Some(e) if !mc.ep.is_none() => {
            let shard = tokens * e.per_token as f64 * p.d_model / tp * a * setup.options.capacity_factor;
            expert_parallel_traffic(shard, mc.mesh.ep as f64, p.moe_layers as f64 / pp, redo, &on(mc.ep))
        }
        _ => Traffic::default(),
    };
    let cp = if mc.cp.is_none() {
        Traffic::default()
    } else {
        let split = if p.latent_kv { 1.0 } else { p.kv_split(mc.mesh.tp) };
        let kv = tokens * mc.mesh.cp as f64 * p.kv_elements_per_token_layer / split * a;
        context_parallel_traffic(kv, p.layers as f64 / pp, redo, &on(mc.cp))
    };
    let pp_traffic = mc.pp_link.map_or(Traffic::default(), |(link, latency, hops)| {
        pipeline_traffic(tokens * p.d_model / tp * a, link, Seconds(latency), hops)
    });
    Comms { fsdp, dp, tp: tp_traffic, ep, cp, pp: pp_traffic }
}
