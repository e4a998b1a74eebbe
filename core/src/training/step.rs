//! One training step on one device (book 5.1: `T ≈ max(T_math, T_comms)` per
//! overlapped group), shared by the roofline and the calibrated physical model: they
//! differ only in how long the device's kernels take ([`super::kernels`]).
//!
//! Per microbatch, the forward and the backward pass are each
//! `max(compute, overlapped comms) + critical-path comms`, where compute is every kernel
//! the pass runs (the roofline: its FLOPs at the peak; the physical model: matmuls,
//! attention, elementwise and loss HBM traffic, MoE dispatch, and what the remat policy
//! recomputes):
//! - overlapped with the pass's compute: FSDP weight gathers and gradient
//!   ReduceScatters, the DP gradient sync (in the last microbatch's backward only:
//!   gradients are final only then), pipeline sends, and TP (EP) when
//!   `overlap.tensor` (`overlap.expert`);
//!   the book assumes the axes' collectives do not overlap each other, so they add;
//! - on the critical path by default: TP (book 5.1.3), EP's AllToAlls (a layer's
//!   experts wait for their tokens); and always the part of CP's K/V
//!   traffic longer than the attention it overlaps with;
//! - host offload runs over PCIe beside compute; only its excess is exposed;
//! - `efficiency.overlap` < 1 (the calibrated `overlap`, times the user's) serialises
//!   that fraction of the overlappable traffic: `(1 − w)·comms + max(w·comms − compute,
//!   0)` is exposed; the collectives the chip's SparseCores drive
//!   (`overlap.sparse_core`) hide at the user's fraction alone (the calibrated one is the
//!   TensorCores'), so a pass exposes `Σ (1 − wᵢ)·tᵢ + max(Σ wᵢ·tᵢ − compute, 0)` over
//!   the two drivers (CP's K/V gathers against the attention they feed);
//! - the physical model on GPUs puts the weight-gradient reductions (the DP sync, FSDP's
//!   ReduceScatters) on the critical path: XLA's GPU scheduler leaves them exposed
//!   ([`crate::efficiency::rates::gradient_reductions_overlap`]).
//!
//! A step is `M` microbatches plus the pipeline bubble of `(PP − 1)/v` microbatches,
//! plus (physical model) the wait for the slowest of the slices in lockstep (DCN per-slice
//! synchronisation: [`crate::efficiency::Calibration::straggler_factor`] of the step) and
//! the optimizer update and gradient accumulation, which wait for the gradients; every
//! kernel runs at the pace of the pipeline stage with the most layers when PP does not
//! divide them. Ignored: load imbalance of embeddings on end stages and of causal
//! attention under CP.

use super::comms::{activation_collectives, comms, fsdp_reduction, ActivationCollectives, Comms, Traffic};
use super::kernels::{physical_times, roofline_times, step_update_seconds, KernelTimes};
use super::memory::{memory, memory_base, MemoryBase, MemoryParts};
use super::mesh::{network_index, Parallelism};
use super::placement::CostCache;
use super::setup::{MeshContext, Setup};
use super::tensors::RematCost;
use crate::collectives::Network;
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
    /// Whether the chip's SparseCores drive it (`training.overlap.sparse_core`).
    pub sparse_core: bool,
}

/// What binds a step: the resource whose time is the largest (book 1.1, 5.1); the
/// largest *loss* is a separate question ([`largest_loss`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Bottleneck {
    /// Matmul FLOPs.
    #[default]
    Compute,
    /// Collectives taking longer than the compute (`axis` names the longest kind).
    Communication,
    /// The pipeline bubble.
    PipelineBubble,
    /// PCIe traffic of offloaded activations.
    HostOffload,
    /// Nothing fits in HBM.
    Memory,
}

impl Bottleneck {
    /// In a word or two: `compute`, `communication`, `pipeline bubble`, `host offload`,
    /// `memory`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Bottleneck::Compute => "compute",
            Bottleneck::Communication => "communication",
            Bottleneck::PipelineBubble => "pipeline bubble",
            Bottleneck::HostOffload => "host offload",
            Bottleneck::Memory => "memory",
        }
    }
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
    /// Seconds the device computes: the sum of `terms` but the optimizer's.
    pub compute: f64,
    /// What the compute is made of.
    pub terms: ComputeTerms,
    /// Seconds idle in the pipeline bubble.
    pub bubble: f64,
    /// Seconds waiting for the slowest slice (DCN per-slice synchronisation).
    pub sync: f64,
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
    pub bound: Bottleneck,
    /// The largest communication, when communication binds.
    pub bound_axis: Option<Parallelism>,
}

/// Seconds per step of each kind of kernel on one device.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ComputeTerms {
    /// Weight matmuls, forward, backward and recomputed.
    pub matmul: f64,
    /// Dot-product attention kernels (and recomputed attention).
    pub attention: f64,
    /// Norms, rotary, residual adds, activations, embedding (and their re-run).
    pub elementwise: f64,
    /// Log-softmax over the vocabulary and its gradient.
    pub loss: f64,
    /// MoE router, permutes and padded dispatch.
    pub moe: f64,
    /// Optimizer update and gradient accumulation.
    pub optimizer: f64,
}

/// Seconds to do `flops` spread evenly over `devices` at `peak` FLOP/s each (book 5.1:
/// `T_math = FLOPs / (N · C)`).
#[must_use]
pub fn compute_time(flops: f64, devices: f64, peak: f64) -> f64 {
    flops / (devices * peak)
}

/// Communication overlapped with one pass's compute: traffic driven by the TensorCores and
/// traffic driven by the SparseCores, each with the fraction `w` of it that hides. The
/// unhidden fraction of each is serialised; what hides competes for the pass's compute, and
/// its excess over the compute shows: `exposed = Σ (1 − wᵢ)·tᵢ + max(Σ wᵢ·tᵢ − compute, 0)`
/// (with one kind of driver, the step model's `(1 − w)·comm + max(w·comm − compute, 0)`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Overlapped {
    /// `Σ wᵢ·tᵢ`: the traffic that hides behind compute while there is compute.
    hidden: f64,
    /// `max(hidden − compute, 0)`.
    excess: f64,
    /// Seconds added to the pass.
    exposed: f64,
}

impl Overlapped {
    #[inline(always)]
    fn new(parts: [(f64, f64); 2], compute: f64) -> Self {
        let [(t0, w0), (t1, w1)] = parts;
        let hidden = w0 * t0 + w1 * t1;
        let excess = (hidden - compute).max(0.0);
        Self { hidden, excess, exposed: (1.0 - w0) * t0 + (1.0 - w1) * t1 + excess }
    }

    /// The exposed seconds of `part` of the traffic, overlapped at `w`: its serialised
    /// fraction and its share of the excess (the shares add up to `exposed`).
    fn exposed_of(&self, part: f64, w: f64) -> f64 {
        let excess = if self.hidden > 0.0 { self.excess * w * part / self.hidden } else { 0.0 };
        (1.0 - w) * part + excess
    }
}

/// Everything about one mesh at one microbatch count that no remat policy changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Microbatch {
    /// Microbatches per step.
    pub count: u64,
    memory: MemoryBase,
    collectives: ActivationCollectives,
    /// Forward FLOPs of a step as executed (padding, replicated K/V heads included).
    forward_flops: f64,
    /// Backward FLOPs of a step without recompute.
    backward_flops: f64,
    /// Padded tokens of a step (recompute FLOPs per token scale with them).
    tokens: f64,
    /// Padded forward attention FLOPs of a step.
    attention_flops: f64,
    /// The device's kernels in one microbatch.
    kernels: KernelTimes,
    /// `kernels`' forward and backward sums (what the search reads).
    forward_s: f64,
    backward_s: f64,
    /// Once-a-step work after the gradients: the optimizer update and gradient
    /// accumulation (physical model; 0 for the roofline).
    update: f64,
    /// How much longer slices in lockstep take than one, as a fraction of the step
    /// (physical model: [`crate::efficiency::Calibration::straggler_factor`] of the
    /// mesh's scale-out degree; 0 for the roofline).
    straggler: f64,
}

/// A step's forward, backward and forward attention FLOPs as executed on `mc`'s mesh:
/// the batch's padding and the K/V heads TP replicates included.
fn executed_flops(setup: &Setup, mc: &MeshContext) -> (f64, f64, f64) {
    let pad = mc.padding;
    let kv_extra = setup.kv_forward * pad * (mc.mesh.tp.max(1) as f64 / setup.profile.kv_split(mc.mesh.tp) - 1.0);
    let forward = setup.model_flops_forward * pad + kv_extra;
    let backward = (setup.model_flops - setup.model_flops_forward) * pad + 2.0 * kv_extra;
    (forward, backward, setup.attention_forward * pad)
}

/// The device's kernels in one microbatch at `microbatches` per step, before the slowest
/// pipeline stage's share: they depend on the mesh and the count only, not on the ZeRO
/// stage or the schedule.
#[must_use]
pub fn kernel_times(setup: &Setup, mc: &MeshContext, microbatches: u64) -> KernelTimes {
    match &setup.rates {
        Some(r) => physical_times(setup, mc, microbatches, r),
        None => {
            let (forward, backward, attention) = executed_flops(setup, mc);
            let m = microbatches.max(1) as f64;
            let spf = compute_time(1.0 / m, setup.devices.max(1) as f64, setup.peak * setup.options.efficiency.flops);
            roofline_times(forward, backward, attention, spf)
        }
    }
}

impl Microbatch {
    /// Precompute a mesh at `microbatches` per step.
    #[must_use]
    pub fn new(setup: &Setup, cache: &CostCache, mc: &MeshContext, microbatches: u64) -> Self {
        let kernels = kernel_times(setup, mc, microbatches);
        let pad = mc.padding;
        let (forward_flops, backward_flops, attention_flops) = executed_flops(setup, mc);
        let slices: u64 = mc.split[network_index(Network::ScaleOut)].iter().product();
        let straggler = setup.calibration.map_or(0.0, |c| c.straggler_factor(slices));
        let update = setup.rates.as_ref().map_or(0.0, |r| {
            let (update, accumulate) = step_update_seconds(setup, mc, microbatches, r);
            update + accumulate
        });
        // Every stage waits for the one with the most layers (uneven stages); its weights,
        // and so its optimizer update, are as much larger.
        let imbalance = mc.stage_imbalance(setup.profile.layers);
        let (kernels, update) = (kernels.scaled(imbalance), update * imbalance);
        Self {
            count: microbatches.max(1),
            memory: memory_base(setup, mc, microbatches),
            collectives: activation_collectives(setup, cache, mc, microbatches),
            forward_flops,
            backward_flops,
            tokens: setup.tokens() * pad,
            attention_flops,
            forward_s: kernels.forward(),
            backward_s: kernels.backward(),
            kernels,
            update,
            straggler,
        }
    }
}

/// [`evaluate`] without a precomputed [`Microbatch`].
#[must_use]
pub fn evaluate_config(
    setup: &Setup,
    cache: &CostCache,
    mc: &MeshContext,
    microbatches: u64,
    remat: &RematCost,
) -> StepParts {
    evaluate(setup, mc, &Microbatch::new(setup, cache, mc, microbatches), remat)
}

/// What a step's time is made of, for one configuration: shared by the search's
/// ranking ([`rank`]) and the full breakdown ([`evaluate`]), so the two cannot differ.
struct Timeline {
    /// Microbatches.
    m: f64,
    /// The traffic of one microbatch (DP's of the step).
    c: Comms,
    /// Forward and backward compute seconds of one microbatch (recompute included).
    c_f: f64,
    c_b: f64,
    /// Seconds recomputed per microbatch: matmuls, attention, elementwise, MoE dispatch.
    r_matmul: f64,
    r_attention: f64,
    r_elementwise: f64,
    r_moe: f64,
    /// Backward FLOPs of the step, recompute included.
    backward: f64,
    /// Communication overlapped with the forward pass, the backward pass, and the last
    /// microbatch's backward pass (with DP's gradient sync).
    f: Overlapped,
    b: Overlapped,
    last: Overlapped,
    /// CP traffic exposed in each pass.
    cp_f: f64,
    cp_b: f64,
    /// DP's part of the last microbatch's exposed traffic.
    dp_exposed: f64,
    /// FSDP's gradient ReduceScatters of one microbatch when on the critical path (GPUs).
    fsdp_reduction_critical: f64,
    /// HBM per device.
    memory: MemoryParts,
    /// PCIe seconds of one microbatch one way, and the part of both ways not hidden.
    offload: f64,
    off_exposed: f64,
    /// Pipeline bubble.
    bubble: f64,
    /// Waiting for the slowest slice.
    sync: f64,
    /// Seconds per step.
    step_time: f64,
}

/// Seconds of one microbatch's forward and backward kernels on one device, recompute
/// included: what [`timeline`] adds communication, offload and the bubble to.
#[inline(always)]
fn pass_seconds(mb: &Microbatch, remat: &RematCost) -> (f64, f64) {
    let k = &mb.kernels;
    let on = |b: bool, t: f64| if b { t } else { 0.0 };
    let recompute = remat.recompute_flops_per_token * mb.tokens * k.seconds_per_recomputed_flop
        + on(remat.context_recomputed, k.attention_forward)
        + on(remat.elementwise_recomputed, k.elementwise_recompute)
        + on(remat.mlp_block_recomputed, k.moe_forward);
    (mb.forward_s, mb.backward_s + recompute)
}

// Inlined so that `rank` computes only what it reads.
#[inline(always)]
fn timeline(setup: &Setup, mc: &MeshContext, mb: &Microbatch, remat: &RematCost) -> Timeline {
    let o = &setup.options;
    let m = mb.count as f64;
    let k = &mb.kernels;
    let on = |b: bool, t: f64| if b { t } else { 0.0 };
    let recompute_flops = remat.recompute_flops_per_token * mb.tokens;
    let backward =
        mb.backward_flops + recompute_flops + if remat.context_recomputed { mb.attention_flops } else { 0.0 };
    let r_matmul = recompute_flops * k.seconds_per_recomputed_flop;
    let r_attention = on(remat.context_recomputed, k.attention_forward);
    let r_elementwise = on(remat.elementwise_recomputed, k.elementwise_recompute);
    let r_moe = on(remat.mlp_block_recomputed, k.moe_forward);
    let (c_f, c_b) = (mb.forward_s, mb.backward_s + r_matmul + r_attention + r_elementwise + r_moe);
    let a_f = k.attention_forward;
    let a_b = k.attention_backward + r_attention;

    let c = comms(mc, &mb.collectives, remat);
    let tp_overlapped = o.overlap.tensor;
    let ep_overlapped = o.overlap.expert;
    let hidden = |t: f64, overlapped: bool| if overlapped { t } else { 0.0 };
    let critical = |t: f64, overlapped: bool| if overlapped { 0.0 } else { t };
    // Who drives each overlapped collective: the SparseCores take the collectives (FSDP,
    // DP, TP, EP) when offloaded; pipeline sends stay the TensorCores'.
    let (w_tc, w_sc) = (o.efficiency.overlap, o.offload_overlap);
    let w_gathers = if o.sparse_core { w_sc } else { w_tc };
    // The weight-gradient reductions overlap the backward pass, or (GPUs) wait for it.
    let reductions_overlap = setup.rates.is_none_or(|r| r.gradient_reductions_overlap);
    let fsdp_reduction_critical = if reductions_overlap { 0.0 } else { fsdp_reduction(&c.fsdp) };
    let gathers_f = c.fsdp.forward + hidden(c.tp.forward, tp_overlapped) + hidden(c.ep.forward, ep_overlapped);
    let gathers_b = c.fsdp.backward - fsdp_reduction_critical
        + hidden(c.tp.backward, tp_overlapped)
        + hidden(c.ep.backward, ep_overlapped);
    let f = Overlapped::new([(c.pp.forward, w_tc), (gathers_f, w_gathers)], c_f);
    let b = Overlapped::new([(c.pp.backward, w_tc), (gathers_b, w_gathers)], c_b);
    // The DP sync overlaps the last microbatch's backward, or (GPUs) waits for it.
    let (last, e_last, dp_exposed) = if reductions_overlap {
        let last = Overlapped::new([(c.pp.backward, w_tc), (gathers_b + c.dp.backward, w_gathers)], c_b);
        (last, last.exposed, last.exposed_of(c.dp.backward, w_gathers))
    } else {
        (b, b.exposed + c.dp.backward, c.dp.backward)
    };
    // CP's K/V gathers overlap with the attention they feed (ring attention), at the same
    // fraction as every other overlapped gather.
    let cp_exposed = |t: f64, attention: f64| {
        if o.overlap.context {
            Overlapped::new([(t, w_gathers), (0.0, w_gathers)], attention).exposed
        } else {
            t
        }
    };
    let (cp_f, cp_b) = (cp_exposed(c.cp.forward, a_f), cp_exposed(c.cp.backward, a_b));
    let crit_f = critical(c.tp.forward, tp_overlapped) + critical(c.ep.forward, ep_overlapped) + cp_f;
    let crit_b = critical(c.tp.backward, tp_overlapped)
        + critical(c.ep.backward, ep_overlapped)
        + cp_b
        + fsdp_reduction_critical;
    let (e_f, e_b) = (f.exposed, b.exposed);

    let memory = memory(&mb.memory, remat);
    let offload = setup.pcie.map_or(if memory.offloaded_per_microbatch > 0.0 { f64::INFINITY } else { 0.0 }, |pcie| {
        memory.offloaded_per_microbatch / pcie
    });
    let off_exposed = (offload - c_f).max(0.0) + (offload - c_b).max(0.0);
    let t_mb = c_f + e_f + crit_f + c_b + e_b + crit_b + off_exposed;
    let t_last = t_mb - e_b + e_last;
    let bubble = o.pipeline.bubble_microbatches(mc.mesh.pp) * t_mb;
    let sync = ((m - 1.0) * t_mb + t_last + bubble) * mb.straggler;
    let step_time = (m - 1.0) * t_mb + t_last + bubble + sync + mb.update;
    Timeline {
        m,
        c,
        c_f,
        c_b,
        r_matmul,
        r_attention,
        r_elementwise,
        r_moe,
        backward,
        f,
        b,
        last,
        cp_f,
        cp_b,
        dp_exposed,
        fsdp_reduction_critical,
        memory,
        offload,
        off_exposed,
        bubble,
        sync,
        step_time,
    }
}

/// Seconds each kind's collectives take over a step, in [`Parallelism::ALL`] order.
#[inline(always)]
fn comm_times(t: &Timeline) -> [f64; 6] {
    let whole = |x: &Traffic| (x.forward + x.backward) * t.m;
    let c = &t.c;
    [t.c.dp.backward, whole(&c.fsdp), whole(&c.tp), whole(&c.ep), whole(&c.cp), whole(&c.pp)]
}

/// What the search ranks a configuration by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ranked {
    /// Seconds per step.
    pub step_time: f64,
    /// HBM per device at the peak.
    pub memory: f64,
    /// Whether it fits in HBM.
    pub fits: bool,
    /// Seconds of communication per step, hidden or not.
    pub comm: f64,
}

/// Step time, memory and communication of one configuration: [`evaluate`] without
/// the breakdown (what the search computes for every configuration).
#[must_use]
pub fn rank(setup: &Setup, mc: &MeshContext, mb: &Microbatch, remat: &RematCost) -> Ranked {
    let t = timeline(setup, mc, mb, remat);
    let memory = t.memory.total();
    Ranked { step_time: t.step_time, memory, fits: memory <= setup.usable_hbm(), comm: comm_times(&t).iter().sum() }
}

/// A lower bound on [`rank`]'s step time, and the exact memory, without looking at
/// communication: a step is at least its compute (recompute included) and the bubble
/// over it, every other term of the timeline being non-negative. What the search prunes
/// with.
#[must_use]
pub fn bound(setup: &Setup, mc: &MeshContext, mb: &Microbatch, remat: &RematCost) -> (f64, MemoryParts) {
    let (c_f, c_b) = pass_seconds(mb, remat);
    let bubble = setup.options.pipeline.bubble_microbatches(mc.mesh.pp);
    ((mb.count as f64 + bubble) * (c_f + c_b) * (1.0 + mb.straggler) + mb.update, memory(&mb.memory, remat))
}

/// Evaluate one configuration: a mesh at a microbatch count with a remat policy.
#[must_use]
pub fn evaluate(setup: &Setup, mc: &MeshContext, mb: &Microbatch, remat: &RematCost) -> StepParts {
    let o = &setup.options;
    let t = timeline(setup, mc, mb, remat);
    let Timeline { m, c, c_f, c_b, dp_exposed, fsdp_reduction_critical, .. } = t;
    let times = comm_times(&t);
    let step_time = t.step_time;
    // Exposed seconds per kind: overlapped traffic (driven by the TensorCores at `w_tc`, by
    // the SparseCores at `w_sc`: every kind but the pipeline's sends when offloaded)
    // serialises its unhidden fraction and shares the pass's excess over compute in
    // proportion to the time it hides; critical-path traffic is exposed whole.
    let sc = o.sparse_core;
    let w_gathers = if sc { o.offload_overlap } else { o.efficiency.overlap };
    let share_exposed = |x: &Traffic, w: f64| {
        t.f.exposed_of(x.forward, w) * m + t.b.exposed_of(x.backward, w) * (m - 1.0) + t.last.exposed_of(x.backward, w)
    };
    let mut comm = [CommPart::default(); 6];
    comm[Parallelism::Dp as usize] = CommPart {
        bytes: c.dp.bytes,
        time: times[Parallelism::Dp as usize],
        exposed: dp_exposed,
        critical: !setup.rates.is_none_or(|r| r.gradient_reductions_overlap),
        sparse_core: sc,
    };
    let kind = |p: Parallelism, x: &Traffic, overlapped: bool, gather: bool| CommPart {
        bytes: x.bytes * m,
        time: times[p as usize],
        exposed: if overlapped {
            share_exposed(x, if gather { w_gathers } else { o.efficiency.overlap })
        } else {
            times[p as usize]
        },
        critical: !overlapped,
        sparse_core: sc && gather && overlapped,
    };
    // FSDP: its overlapped part's share, and its ReduceScatters whole where critical (GPUs).
    let fsdp_overlapped = Traffic { backward: c.fsdp.backward - fsdp_reduction_critical, ..c.fsdp };
    comm[Parallelism::Fsdp as usize] = CommPart {
        exposed: share_exposed(&fsdp_overlapped, w_gathers) + fsdp_reduction_critical * m,
        ..kind(Parallelism::Fsdp, &c.fsdp, true, true)
    };
    comm[Parallelism::Pp as usize] = kind(Parallelism::Pp, &c.pp, true, false);
    comm[Parallelism::Tp as usize] = kind(Parallelism::Tp, &c.tp, o.overlap.tensor, true);
    comm[Parallelism::Ep as usize] = kind(Parallelism::Ep, &c.ep, o.overlap.expert, true);
    comm[Parallelism::Cp as usize] = CommPart {
        bytes: c.cp.bytes * m,
        time: times[Parallelism::Cp as usize],
        exposed: (t.cp_f + t.cp_b) * m,
        critical: !o.overlap.context,
        sparse_core: sc && o.overlap.context,
    };
    // compute + Σ exposed + bubble + sync + exposed offload + optimizer = step_time exactly.
    let compute = (c_f + c_b) * m;
    let k = &mb.kernels;
    let terms = ComputeTerms {
        matmul: (k.matmul_forward + k.matmul_backward + t.r_matmul) * m,
        attention: (k.attention_forward + k.attention_backward + t.r_attention) * m,
        elementwise: (k.elementwise_forward + k.elementwise_backward + t.r_elementwise) * m,
        loss: (k.loss_forward + k.loss_backward) * m,
        moe: (k.moe_forward + k.moe_backward + t.r_moe) * m,
        optimizer: mb.update,
    };
    let model_flops = setup.model_flops;
    let hardware_flops = mb.forward_flops + t.backward;
    let nominal = setup.devices.max(1) as f64 * setup.peak * step_time;
    let fits = t.memory.total() <= setup.usable_hbm();
    let offload = 2.0 * t.offload * m;
    let (bound, bound_axis) = bound_of(compute, &comm, t.sync, t.bubble, offload, fits);
    StepParts {
        microbatches: mb.count,
        memory: t.memory,
        fits,
        comm,
        compute,
        terms,
        bubble: t.bubble,
        sync: t.sync,
        offload_exposed: t.off_exposed * m,
        offload,
        step_time,
        model_flops,
        hardware_flops,
        mfu: model_flops / nominal,
        hfu: hardware_flops / nominal,
        bound,
        bound_axis,
    }
}

/// What binds (book 1.1 and 5.1: a step is bound by whichever of its times is largest,
/// "comms-bound" when `T_comms > T_math`): the step's compute, one kind of parallelism's
/// collectives (waiting for the slowest slice counts as data parallelism's: the DCN
/// synchronisation of the gradients), the pipeline bubble, or the PCIe traffic of host
/// offload. Collectives that take less time than the compute bind nothing even when part
/// of them is exposed (the overlap is never perfect): that part is a loss, which
/// [`largest_loss`] names.
fn bound_of(
    compute: f64,
    comm: &[CommPart; 6],
    sync: f64,
    bubble: f64,
    offload: f64,
    fits: bool,
) -> (Bottleneck, Option<Parallelism>) {
    if !fits {
        return (Bottleneck::Memory, None);
    }
    let (axis, comm_time) = largest_kind(comm, sync, |c| c.time);
    let times = [
        (Bottleneck::Communication, comm_time),
        (Bottleneck::PipelineBubble, bubble),
        (Bottleneck::HostOffload, offload),
    ];
    let (r, _) =
        times.iter().fold((Bottleneck::Compute, compute), |best, &(r, t)| if t > best.1 { (r, t) } else { best });
    (r, if r == Bottleneck::Communication { axis } else { None })
}

/// The kind of parallelism whose communication seconds (`of` each kind's part) are the
/// largest, with them; waiting `sync` for the slowest slice counts as data parallelism's.
fn largest_kind(comm: &[CommPart; 6], sync: f64, of: fn(&CommPart) -> f64) -> (Option<Parallelism>, f64) {
    Parallelism::ALL
        .iter()
        .map(|p| (*p, of(&comm[*p as usize]) + if *p == Parallelism::Dp { sync } else { 0.0 }))
        .fold((None, 0.0), |best, (p, t)| if t > best.1 { (Some(p), t) } else { best })
}

/// The largest of the step's losses (time the step spends not computing, the
/// optimizer's update aside): one kind of parallelism's exposed collectives (with the wait
/// for the slowest slice for data parallelism), the bubble, or exposed host offload, with
/// its seconds; `None` when nothing is lost.
#[must_use]
pub fn largest_loss(s: &StepParts) -> Option<(Bottleneck, Option<Parallelism>, f64)> {
    let (axis, exposed) = largest_kind(&s.comm, s.sync, |c| c.exposed);
    [
        (Bottleneck::Communication, axis, exposed),
        (Bottleneck::PipelineBubble, None, s.bubble),
        (Bottleneck::HostOffload, None, s.offload_exposed),
    ]
    .into_iter()
    .filter(|l| l.2 > 0.0)
    .fold(None, |best: Option<(Bottleneck, Option<Parallelism>, f64)>, l| match best {
        Some(b) if b.2 >= l.2 => Some(b),
        _ => Some(l),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Llama 3 8B on 64 v5p as the Training page opens it: 2.475 s of compute, the DP
    /// gradient all-reduce 0.3 s long of which 0.012 s shows. Compute binds (book 5.1:
    /// T_comms < T_math); the exposed DP time is the largest loss, not what binds.
    #[test]
    fn a_little_exposed_communication_does_not_bind() {
        let mut comm = [CommPart::default(); 6];
        comm[Parallelism::Dp as usize] = CommPart { time: 0.3, exposed: 0.012, ..CommPart::default() };
        comm[Parallelism::Fsdp as usize] = CommPart { time: 1.9, exposed: 0.004, ..CommPart::default() };
        assert_eq!(bound_of(2.475, &comm, 0.0, 0.0, 0.0, true), (Bottleneck::Compute, None));
        let s = StepParts { comm, compute: 2.475, step_time: 2.491, fits: true, ..StepParts::default() };
        assert_eq!(largest_loss(&s), Some((Bottleneck::Communication, Some(Parallelism::Dp), 0.012)));
        // The slowest slice's wait adds to DP's: 0.3 + 2.2 s of DP against 2.475 s of compute.
        assert_eq!(bound_of(2.475, &comm, 2.2, 0.0, 0.0, true), (Bottleneck::Communication, Some(Parallelism::Dp)));
    }

    /// A collective longer than the compute binds (T_comms > T_math), the longest kind
    /// named; a bubble or PCIe traffic longer than both binds instead; nothing fits → memory.
    #[test]
    fn the_longest_time_binds() {
        let mut comm = [CommPart::default(); 6];
        comm[Parallelism::Tp as usize] = CommPart { time: 1.2, exposed: 0.4, critical: false, ..CommPart::default() };
        comm[Parallelism::Fsdp as usize] = CommPart { time: 1.1, exposed: 0.5, ..CommPart::default() };
        assert_eq!(bound_of(1.0, &comm, 0.0, 0.0, 0.0, true), (Bottleneck::Communication, Some(Parallelism::Tp)));
        assert_eq!(bound_of(1.0, &comm, 0.0, 1.3, 0.0, true), (Bottleneck::PipelineBubble, None));
        assert_eq!(bound_of(1.0, &comm, 0.0, 1.3, 1.4, true), (Bottleneck::HostOffload, None));
        assert_eq!(bound_of(1.0, &comm, 0.0, 0.0, 0.0, false), (Bottleneck::Memory, None));
        // The largest loss is FSDP's 0.5 s exposed, not TP's longer but better hidden 1.2 s.
        let s = StepParts { comm, compute: 1.0, step_time: 1.9, fits: true, ..StepParts::default() };
        assert_eq!(largest_loss(&s), Some((Bottleneck::Communication, Some(Parallelism::Fsdp), 0.5)));
        let idle = StepParts { compute: 1.0, step_time: 1.0, fits: true, ..StepParts::default() };
        assert_eq!(largest_loss(&idle), None);
    }
}
