//! One training step on one device as a roofline (book 5.1: `T ≈ max(T_math,
//! T_comms)` per overlapped group): an ideal prediction, scaled only by the
//! [`super::setup::Efficiency`] hook.
//!
//! Per microbatch, the forward and the backward pass are each
//! `max(compute, overlapped comms) + critical-path comms`:
//! - overlapped with the pass's compute: FSDP weight gathers and gradient
//!   ReduceScatters, the DP gradient sync (in the last microbatch's backward only:
//!   gradients are final only then), pipeline sends, and TP when `overlap.tensor`;
//!   the book assumes the axes' collectives do not overlap each other, so they add;
//! - on the critical path: TP (book 5.1.3), EP's AllToAlls, and the part of CP's K/V
//!   traffic longer than the attention it overlaps with;
//! - host offload runs over PCIe beside compute; only its excess is exposed.
//!
//! A step is `M` microbatches plus the pipeline bubble of `(PP − 1)/v` microbatches.
//! Ignored: the optimizer update, load imbalance (embeddings on end stages, MoE
//! routing skew, causal-attention skew under CP), kernel efficiency, and the HBM
//! bandwidth of non-matmul work.

use super::comms::{comms, Traffic};
use super::memory::{memory, offload_bytes, MemoryParts};
use super::mesh::Parallelism;
use super::placement::CostCache;
use super::setup::{MeshContext, Setup};
use super::tensors::RematCost;
use serde::{Deserialize, Serialize};

/// One kind of parallelism's communication over a step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CommPart {
    /// Σ V over its collectives, bytes.
    pub bytes: f64,
    /// Seconds its collectives take.
    pub time: f64,
    /// Seconds of it not hidden behind compute.
    pub exposed: f64,
    /// Whether it is on the critical path (never hidden).
    pub critical: bool,
}

/// What limits the step (the book's roofline sense: the largest of compute, the
/// summed communication, the bubble and host offload).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    /// Matmul FLOPs.
    #[default]
    Compute,
    /// Collectives (the `axis` names the largest).
    Communication,
    /// The pipeline bubble.
    PipelineBubble,
    /// PCIe traffic of offloaded activations.
    HostOffload,
    /// Nothing fits in HBM.
    Memory,
}

/// Everything computed for one configuration.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepParts {
    /// Microbatches per step.
    pub microbatches: u64,
    /// HBM per device.
    pub memory: MemoryParts,
    /// Whether it fits in HBM.
    pub fits: bool,
    /// Communication by kind, in [`Parallelism::ALL`] order.
    pub comm: [CommPart; 6],
    /// Matmul seconds (hardware FLOPs over the achievable peak).
    pub compute: f64,
    /// Seconds idle in the pipeline bubble.
    pub bubble: f64,
    /// Seconds of host offload not hidden.
    pub offload_exposed: f64,
    /// Seconds of host offload traffic.
    pub offload: f64,
    /// Seconds per step.
    pub step_time: f64,
    /// Model FLOPs of one step (the convention's), useful work only.
    pub model_flops: f64,
    /// FLOPs the hardware executes: + recompute, padding, replicated K/V heads.
    pub hardware_flops: f64,
    /// Model FLOPs utilisation against the nominal peak.
    pub mfu: f64,
    /// Hardware FLOPs utilisation against the nominal peak.
    pub hfu: f64,
    /// What limits the step.
    pub bound: Resource,
    /// The largest communication, when communication binds.
    pub bound_axis: Option<Parallelism>,
}

/// Seconds to do `flops` spread evenly over `devices` at `peak` FLOP/s each (book 5.1:
/// `T_math = FLOPs / (N · C)`).
#[must_use]
pub fn compute_time(flops: f64, devices: f64, peak: f64) -> f64 {
    flops / (devices * peak)
}

fn share(part: f64, whole: f64, exposed: f64) -> f64 {
    if whole > 0.0 { exposed * part / whole } else { 0.0 }
}

/// Evaluate one configuration: `microbatches` per step and a remat policy's cost.
#[must_use]
pub fn evaluate(setup: &Setup, cache: &CostCache, mc: &MeshContext, microbatches: u64, remat: &RematCost) -> StepParts {
    let o = &setup.options;
    let m = microbatches.max(1) as f64;
    let devices = setup.devices.max(1) as f64;
    let peak = setup.peak * o.efficiency.flops;
    let pad = mc.padding;
    let kv_extra = setup.kv_forward * pad * (mc.mesh.tp.max(1) as f64 / setup.profile.kv_split(mc.mesh.tp) - 1.0);
    let recompute = pad
        * (remat.recompute_flops_per_token * setup.tokens()
            + if remat.context_recomputed { setup.attention_forward } else { 0.0 });
    let forward = setup.model_flops_forward * pad + kv_extra;
    let backward = (setup.model_flops - setup.model_flops_forward) * pad + 2.0 * kv_extra + recompute;
    let per_mb = |flops: f64| compute_time(flops / m, devices, peak);
    let (c_f, c_b) = (per_mb(forward), per_mb(backward));
    let a_f = per_mb(setup.attention_forward * pad);
    let a_b = 2.0 * a_f + if remat.context_recomputed { a_f } else { 0.0 };

    let c = comms(setup, cache, mc, microbatches, remat);
    let tp_overlapped = o.overlap.tensor;
    let tp_hidden = |t: f64| if tp_overlapped { t } else { 0.0 };
    let o_f = c.fsdp.forward + c.pp.forward + tp_hidden(c.tp.forward);
    let o_b = c.fsdp.backward + c.pp.backward + tp_hidden(c.tp.backward);
    let cp_exposed = |t: f64, attention: f64| if o.overlap.context { (t - attention).max(0.0) } else { t };
    let (cp_f, cp_b) = (cp_exposed(c.cp.forward, a_f), cp_exposed(c.cp.backward, a_b));
    let tp_critical = |t: f64| if tp_overlapped { 0.0 } else { t };
    let crit_f = tp_critical(c.tp.forward) + c.ep.forward + cp_f;
    let crit_b = tp_critical(c.tp.backward) + c.ep.backward + cp_b;
    let e_f = (o_f - c_f).max(0.0);
    let e_b = (o_b - c_b).max(0.0);
    let e_last = (o_b + c.dp.backward - c_b).max(0.0);

    let offload = setup.pcie.map_or(
        if remat.offloaded + remat.offloaded_kv > 0.0 { f64::INFINITY } else { 0.0 },
        |pcie| offload_bytes(setup, mc, microbatches, remat) / pcie,
    );
    let off_exposed = (offload - c_f).max(0.0) + (offload - c_b).max(0.0);
    let t_mb = c_f + e_f + crit_f + c_b + e_b + crit_b + off_exposed;
    let t_last = t_mb - e_b + e_last;
    let bubble = o.pipeline.bubble_microbatches(mc.mesh.pp) * t_mb;
    let step_time = (m - 1.0) * t_mb + t_last + bubble;

    // Exposed seconds per kind: overlapped traffic shares the excess over compute in
    // proportion to its time; critical-path traffic is exposed whole.
    let overlapped = |t: &Traffic, with_dp: bool| {
        let f = share(t.forward, o_f, e_f) * m;
        let b = share(t.backward, o_b, e_b) * (m - 1.0)
            + share(t.backward, o_b + if with_dp { c.dp.backward } else { 0.0 }, e_last);
        f + b
    };
    let mut comm = [CommPart::default(); 6];
    let whole = |t: &Traffic, times: f64| (t.forward + t.backward) * times;
    comm[Parallelism::Fsdp as usize] = CommPart { bytes: c.fsdp.bytes * m, time: whole(&c.fsdp, m), exposed: overlapped(&c.fsdp, false), critical: false };
    comm[Parallelism::Pp as usize] = CommPart { bytes: c.pp.bytes * m, time: whole(&c.pp, m), exposed: overlapped(&c.pp, false), critical: false };
    comm[Parallelism::Dp as usize] = CommPart {
        bytes: c.dp.bytes,
        time: c.dp.backward,
        exposed: share(c.dp.backward, o_b + c.dp.backward, e_last),
        critical: false,
    };
    comm[Parallelism::Tp as usize] = CommPart {
        bytes: c.tp.bytes * m,
        time: whole(&c.tp, m),
        exposed: if tp_overlapped { overlapped(&c.tp, false) } else { whole(&c.tp, m) },
        critical: !tp_overlapped,
    };
    comm[Parallelism::Ep as usize] = CommPart { bytes: c.ep.bytes * m, time: whole(&c.ep, m), exposed: whole(&c.ep, m), critical: true };
    comm[Parallelism::Cp as usize] = CommPart { bytes: c.cp.bytes * m, time: whole(&c.cp, m), exposed: (cp_f + cp_b) * m, critical: !o.overlap.context };
    // compute + Σ exposed + bubble + exposed offload = step_time exactly.
    let compute = (c_f + c_b) * m;
    let model_flops = setup.model_flops;
    let hardware_flops = forward + backward;
    let nominal = devices * setup.peak * step_time;
    let comm_total: f64 = comm.iter().map(|c| c.time).sum();
    let offload_total = 2.0 * offload * m;
    let memory = memory(setup, mc, microbatches, remat);
    let fits = memory.total() <= setup.hbm;
    let (bound, bound_axis) = bound_of(compute, &comm, comm_total, bubble, offload_total, fits);
    StepParts {
        microbatches,
        memory,
        fits,
        comm,
        compute,
        bubble,
        offload_exposed: off_exposed * m,
        offload: offload_total,
        step_time,
        model_flops,
        hardware_flops,
        mfu: model_flops / nominal,
        hfu: hardware_flops / nominal,
        bound,
        bound_axis,
    }
}

fn bound_of(
    compute: f64,
    comm: &[CommPart; 6],
    comm_total: f64,
    bubble: f64,
    offload: f64,
    fits: bool,
) -> (Resource, Option<Parallelism>) {
    if !fits {
        return (Resource::Memory, None);
    }
    let largest = Parallelism::ALL
        .iter()
        .copied()
        .max_by(|a, b| comm[*a as usize].time.total_cmp(&comm[*b as usize].time));
    let candidates = [
        (Resource::Compute, compute),
        (Resource::Communication, comm_total),
        (Resource::PipelineBubble, bubble),
        (Resource::HostOffload, offload),
    ];
    let (r, _) = candidates
        .iter()
        .fold((Resource::Compute, compute), |best, &(r, t)| if t > best.1 { (r, t) } else { best });
    (r, if r == Resource::Communication { largest } else { None })
}
