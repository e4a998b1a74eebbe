//! Everything fixed for one plan (model, batch, chip, options), computed once, and
//! everything fixed for one mesh (placement, collective cost models, sharding),
//! computed once per mesh, so that evaluating a microbatch count and remat policy is
//! plain arithmetic.

use super::comms::{weight_traffic, Traffic};
use super::mesh::{mesh_of, Mesh, NetworkSplit, Parallelism};
use super::optimizer::{Optimizer, TrainingDtypes, ZeroStage};
use super::pipeline::Pipeline;
use super::placement::{place, CostCache, CostModel, Placement};
use super::profile::ModelProfile;
use crate::collectives::CollectiveKind;
use crate::efficiency::{Calibration, KernelRates};
use crate::flops::FlopConvention;
use crate::units::BytesPerSec;
use serde::{Deserialize, Serialize};

/// The user's own achievable fractions of peak, 1.0 by default. They scale the roofline
/// and, in the calibrated mode (`conventions.prediction`), the physical model's rates on
/// top of its calibrated parameters ([`crate::efficiency::calibration`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Efficiency {
    /// Fraction of the peak matmul FLOP/s.
    #[serde(default = "unit")]
    pub flops: f64,
    /// Fraction of the scale-up (ICI, NVLink; also die-to-die) link bandwidth.
    #[serde(default = "unit")]
    pub ici: f64,
    /// Fraction of the scale-out (DCN) bandwidth.
    #[serde(default = "unit")]
    pub dcn: f64,
    /// Fraction of the PCIe bandwidth (host offload).
    #[serde(default = "unit")]
    pub pcie: f64,
    /// Fraction of the communication that overlaps with compute (see [`Overlap`]) that
    /// actually hides behind it; the rest adds to the step. 1.0 = the roofline's
    /// perfect overlap, 0.0 = every collective serialised.
    #[serde(default = "unit")]
    pub overlap: f64,
}

fn unit() -> f64 {
    1.0
}

impl Default for Efficiency {
    fn default() -> Self {
        Self { flops: 1.0, ici: 1.0, dcn: 1.0, pcie: 1.0, overlap: 1.0 }
    }
}

/// Which communication hides behind compute. FSDP weight gathers, gradient
/// reductions (DP, FSDP) and pipeline sends always overlap (book 5.1.1–5.1.2: "not on
/// critical path").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Overlap {
    /// TP's activation AllGathers and ReduceScatters overlap with the layer's matmuls
    /// (collective matmuls, book 3). Default false: they are on the critical path
    /// (book 5.1.3).
    #[serde(default)]
    pub tensor: bool,
    /// CP's K/V passing overlaps with the attention it feeds (ring attention).
    /// Default true; only the part longer than the attention FLOPs is exposed.
    #[serde(default = "yes")]
    pub context: bool,
    /// EP's AllToAlls overlap with other microbatches' compute (DeepSeek-V3's DualPipe,
    /// batch splitting). Default false: a layer's experts wait for their tokens.
    #[serde(default)]
    pub expert: bool,
    /// The chip's SparseCores drive the collectives that overlap with compute: the
    /// AllGathers, ReduceScatters and AllReduces of FSDP, DP, TP when `tensor` and CP when
    /// `context` (XLA's `xla_tpu_enable_sparse_core_collective_offload_*` flags; the
    /// Ironwood guide, "Utilizing SparseCore"), and EP's AllToAlls when `expert` (MaxText's
    /// `moe_sparse_core_offload_targets: ep_collectives`, PR #5140). Pipeline sends stay
    /// the TensorCores'. Offloaded collectives run beside the TensorCores instead of
    /// inside their schedule, so they hide completely behind the compute they overlap
    /// with (the calibrated `overlap`, fitted on runs whose TensorCores drove their
    /// collectives, no longer applies to them). Absent: the chip's default
    /// (`sparse_cores.offload_by_default`: on for TPU7x, off elsewhere); refused on a chip
    /// without SparseCores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sparse_core: Option<bool>,
}

fn yes() -> bool {
    true
}

impl Default for Overlap {
    fn default() -> Self {
        Self { tensor: false, context: true, expert: false, sparse_core: None }
    }
}

/// How attention is computed, for its memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AttentionKernel {
    /// Flash / splash attention: the score matrix never reaches HBM (default).
    #[default]
    Flash,
    /// The `[tokens, heads, keys]` fp32 score matrix of one layer is materialised.
    Materialized,
}
crate::serde_names::deserialize_by_name!(AttentionKernel { Flash => "flash", Materialized => "materialized" });

/// How the routed experts' matmuls run (MaxText's `sparse_matmul`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MoeKernel {
    /// Grouped matmuls over ragged expert groups (Megablox; `sparse_matmul: true`, the
    /// default): each device computes its tokens' rows, plus a row tile per expert-group
    /// boundary, at the pace of the busiest device.
    #[default]
    Grouped,
    /// Padded experts (`sparse_matmul: false`): every expert computes `capacity_factor` ×
    /// its balanced share (tokens beyond it are dropped), through dispatch and combine
    /// einsums.
    Padded,
}
crate::serde_names::deserialize_by_name!(MoeKernel { Grouped => "grouped", Padded => "padded" });

/// The planner's options (validated; see [`super::section::TrainingSection`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The optimizer.
    pub optimizer: Optimizer,
    /// Number formats.
    pub dtypes: TrainingDtypes,
    /// Whether gradients occupy memory (false reproduces the book's 10 bytes/param).
    pub store_gradients: bool,
    /// ZeRO stage of the `dp` axis.
    pub zero: ZeroStage,
    /// Pipeline schedule.
    pub pipeline: Pipeline,
    /// MoE capacity factor: dispatched tokens per expert over the balanced share.
    pub capacity_factor: f64,
    /// Attention kernel.
    pub attention: AttentionKernel,
    /// Routed-expert kernel.
    pub moe_kernel: MoeKernel,
    /// What overlaps.
    pub overlap: Overlap,
    /// Whether the SparseCores drive the overlapped AllGathers, ReduceScatters and
    /// AllReduces (`overlap.sparse_core`, resolved against the chip's default).
    pub sparse_core: bool,
    /// Achievable fractions of peak; `efficiency.overlap` is the fraction of overlapped
    /// communication the TensorCores hide (the user's times the calibrated).
    pub efficiency: Efficiency,
    /// The fraction of overlapped communication the SparseCores hide: the user's own
    /// `efficiency.overlap` (the calibrated fraction is the TensorCores'); equal to
    /// `efficiency.overlap` without offload.
    pub offload_overlap: f64,
    /// FLOP convention of model FLOPs (MFU, compute time).
    pub convention: FlopConvention,
    /// Fraction of HBM kept free of the planned buffers ([`super::memory`]).
    pub reserved_hbm_fraction: f64,
}

/// One plan's fixed inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// The model.
    pub profile: ModelProfile,
    /// Options.
    pub options: Options,
    /// Sequences per optimizer step.
    pub sequences: u64,
    /// Tokens per sequence.
    pub seq_len: u64,
    /// Devices in the topology (chiplets when a die-to-die axis is used).
    pub devices: u64,
    /// Devices per chip (the die-to-die axes' product).
    pub devices_per_chip: u64,
    /// Devices per network, in [`super::mesh::NETWORKS`] order.
    pub capacity: [u64; 3],
    /// Nominal peak FLOP/s of one device in the compute format (MFU's denominator).
    pub peak: f64,
    /// HBM of one device.
    pub hbm: f64,
    /// PCIe of one device, one way, after efficiency; `None` when unpublished.
    pub pcie: Option<f64>,
    /// Model FLOPs of one step (forward + backward), the convention's.
    pub model_flops: f64,
    /// Their forward part.
    pub model_flops_forward: f64,
    /// Forward dot-product-attention FLOPs of one step.
    pub attention_forward: f64,
    /// Forward FLOPs of the K and V projections of one step.
    pub kv_forward: f64,
    /// The physical model's kernel rates of one device (the calibrated prediction);
    /// `None` for the roofline.
    pub rates: Option<KernelRates>,
    /// The calibration of the physical model (`None` for the roofline).
    pub calibration: Option<Calibration>,
}

impl Setup {
    /// Tokens per optimizer step.
    #[must_use]
    pub fn tokens(&self) -> f64 {
        self.sequences as f64 * self.seq_len as f64
    }

    /// HBM of one device the planned buffers may fill: its capacity less the reserve.
    #[must_use]
    pub fn usable_hbm(&self) -> f64 {
        self.hbm * (1.0 - self.options.reserved_hbm_fraction)
    }
}

/// A mesh with everything the evaluation needs that does not depend on microbatches
/// or remat.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshContext {
    /// The mesh.
    pub mesh: Mesh,
    /// Its degrees per network.
    pub split: NetworkSplit,
    /// Where it sits.
    pub placement: Placement,
    /// The ZeRO stage its cost models and shards are for.
    pub zero: ZeroStage,
    /// Sequences each data shard processes per step (rounded up: padding).
    pub sequences_per_shard: u64,
    /// Computed over useful sequences (≥ 1 when the batch does not divide evenly).
    pub padding: f64,
    /// Layers on the device with the most (all of them without pipelining; uneven
    /// stages: [`super::pipeline::Pipeline::stage_layers`]).
    pub stage_layers: f64,
    /// Weights one device stores, in parameters.
    pub params: f64,
    /// Dense weights of one stage as one device gathers them (FSDP), in parameters.
    pub gathered_dense: f64,
    /// Expert weights of one stage as one device gathers them.
    pub gathered_expert: f64,
    /// ZeRO-1/2 divisor of the optimizer state (and master weights) over `dp`.
    pub dp_optimizer_shards: f64,
    /// ZeRO-2 divisor of the gradients over `dp`.
    pub dp_gradient_shards: f64,
    /// FSDP gather over fsdp·cp·ep (·dp at ZeRO-3) and its ReduceScatter.
    pub fsdp_dense: [CostModel; 2],
    /// FSDP gather of the experts over fsdp·cp (·dp) and its ReduceScatter.
    pub fsdp_expert: [CostModel; 2],
    /// DP gradient AllReduce (ZeRO-0) or ReduceScatter + AllGather (ZeRO-1/2).
    pub dp: [CostModel; 2],
    /// Both of `dp`'s forms once looked up (ZeRO-0, ZeRO-1/2), for the search's variants.
    dp_forms: [Option<[CostModel; 2]>; 2],
    /// TP AllGather (= ReduceScatter) of activations.
    pub tp: CostModel,
    /// EP AllToAll.
    pub ep: CostModel,
    /// CP AllGather (= ReduceScatter) of K/V.
    pub cp: CostModel,
    /// Pipeline neighbour link: one-way bandwidth, per-hop latency, hops.
    pub pp_link: Option<(BytesPerSec, f64, u64)>,
    /// FSDP traffic of one microbatch.
    pub fsdp_traffic: Traffic,
    /// DP traffic of one step.
    pub dp_traffic: Traffic,
}

/// The logical axes weights are ZeRO-3-sharded over (dense weights: fsdp, cp, ep and
/// dp at ZeRO-3; experts: fsdp, cp and dp at ZeRO-3).
#[must_use]
pub fn zero3_axes(zero: ZeroStage, experts: bool) -> &'static [Parallelism] {
    use Parallelism::{Cp, Dp, Ep, Fsdp};
    match (zero.shards_weights(), experts) {
        (false, false) => &[Fsdp, Cp, Ep],
        (true, false) => &[Fsdp, Cp, Ep, Dp],
        (false, true) => &[Fsdp, Cp],
        (true, true) => &[Fsdp, Cp, Dp],
    }
}

impl MeshContext {
    /// How much longer the slowest pipeline stage works than an even split would:
    /// its layers over L/PP (1 without pipelining or with stages that divide L).
    #[must_use]
    pub fn stage_imbalance(&self, layers: u64) -> f64 {
        if self.mesh.pp <= 1 || layers == 0 {
            1.0
        } else {
            self.stage_layers * self.mesh.pp as f64 / layers as f64
        }
    }

    /// Place `split` and precompute its sharding; `None` when it does not fit the
    /// topology.
    #[must_use]
    pub fn new(setup: &Setup, cache: &mut CostCache, split: &NetworkSplit) -> Option<Self> {
        let mesh = mesh_of(split);
        let placement = place(split, cache.axes())?;
        let shards = mesh.data_shards().max(1);
        let sequences_per_shard = setup.sequences.div_ceil(shards).max(1);
        let padding = (shards * sequences_per_shard) as f64 / setup.sequences.max(1) as f64;
        let mut mc = Self {
            mesh,
            split: *split,
            placement,
            zero: setup.options.zero,
            sequences_per_shard,
            padding,
            stage_layers: 0.0,
            params: 0.0,
            gathered_dense: 0.0,
            gathered_expert: 0.0,
            dp_optimizer_shards: 1.0,
            dp_gradient_shards: 1.0,
            fsdp_dense: [CostModel::NONE; 2],
            fsdp_expert: [CostModel::NONE; 2],
            dp: [CostModel::NONE; 2],
            dp_forms: [None; 2],
            tp: cache.model(CollectiveKind::AllGather, &placement, &[Parallelism::Tp]),
            ep: cache.model(CollectiveKind::AllToAll, &placement, &[Parallelism::Ep]),
            cp: cache.model(CollectiveKind::AllGather, &placement, &[Parallelism::Cp]),
            pp_link: cache.neighbour_link(&placement, Parallelism::Pp),
            fsdp_traffic: Traffic::default(),
            dp_traffic: Traffic::default(),
        };
        mc.zero_models(setup, cache, None);
        mc.stages(setup, cache);
        Some(mc)
    }

    /// Make it the same mesh under `setup`'s ZeRO stage and schedule (the search's
    /// variants), in place: the placement and the cost models that depend on neither
    /// kept, the rest recomputed. Then equal to [`MeshContext::new`] with `setup`.
    pub fn set_variant(&mut self, setup: &Setup, cache: &mut CostCache) {
        let before = self.zero;
        if before != setup.options.zero {
            self.zero = setup.options.zero;
            self.zero_models(setup, cache, Some(before));
        }
        self.stages(setup, cache);
    }

    /// The cost models and shard counts that depend on the ZeRO stage; with the stage
    /// `before` them, only the models that differ (ZeRO-0 to 2 gather and scatter over
    /// the same axes; ZeRO-1 and 2 synchronise DP alike).
    fn zero_models(&mut self, setup: &Setup, cache: &mut CostCache, before: Option<ZeroStage>) {
        let zero = self.zero;
        let placement = &self.placement;
        let dp = self.mesh.dp.max(1) as f64;
        let kinds = [CollectiveKind::AllGather, CollectiveKind::ReduceScatter];
        let same_gathers = before.is_some_and(|b| b.shards_weights() == zero.shards_weights());
        let same_sync = same_gathers && before.is_some_and(|b| b.shards_optimizer() == zero.shards_optimizer());
        if !same_gathers {
            self.fsdp_dense = kinds.map(|k| cache.model(k, placement, zero3_axes(zero, false)));
            // A dense model gathers no experts: no cost models to look up.
            self.fsdp_expert = if setup.profile.expert.is_some() {
                kinds.map(|k| cache.model(k, placement, zero3_axes(zero, true)))
            } else {
                [CostModel::NONE; 2]
            };
        }
        self.dp_optimizer_shards = if zero.shards_optimizer() && !zero.shards_weights() { dp } else { 1.0 };
        self.dp_gradient_shards = if zero.shards_gradients() && !zero.shards_weights() { dp } else { 1.0 };
        if same_sync {
            return;
        }
        if zero.shards_weights() {
            // ZeRO-3: DP is FSDP; nothing left to synchronise over it.
            self.dp = [CostModel::NONE; 2];
            return;
        }
        let form = usize::from(zero.shards_optimizer());
        if let Some(models) = self.dp_forms[form] {
            self.dp = models;
            return;
        }
        let dp_group = &[Parallelism::Dp];
        let placement = &self.placement;
        self.dp = if zero.shards_optimizer() {
            [
                cache.model(CollectiveKind::ReduceScatter, placement, dp_group),
                cache.model(CollectiveKind::AllGather, placement, dp_group),
            ]
        } else {
            [cache.model(CollectiveKind::AllReduce, placement, dp_group), CostModel::NONE]
        };
        self.dp_forms[form] = Some(self.dp);
    }

    /// What depends on the pipeline schedule (the largest stage) and the ZeRO stage's
    /// sharding: the parameters one device stores and gathers, and the weight traffic.
    fn stages(&mut self, setup: &Setup, cache: &CostCache) {
        let p = &setup.profile;
        let mesh = self.mesh;
        let d = |x: u64| x.max(1) as f64;
        let (tp, ep) = (d(mesh.tp), d(mesh.ep));
        let z_dense: f64 = zero3_axes(self.zero, false).iter().map(|a| d(mesh.degree(*a))).product();
        let z_expert: f64 = zero3_axes(self.zero, true).iter().map(|a| d(mesh.degree(*a))).product();
        // Embeddings live on the first and last stages; the worst stage holds the
        // larger table (both without pipelining).
        let embeddings = if mesh.pp <= 1 {
            p.embedding_params + p.unembedding_params
        } else {
            p.embedding_params.max(p.unembedding_params)
        };
        let kv_split = p.kv_split(mesh.tp);
        // The device with the most layers: its share of the layers' parameters.
        self.stage_layers = setup.options.pipeline.stage_layers(p.layers, mesh.pp) as f64;
        let share = if mesh.pp <= 1 { 1.0 } else { self.stage_layers / p.layers.max(1) as f64 };
        self.gathered_dense =
            (p.layer_params - p.kv_params) * share / tp + p.kv_params * share / kv_split + embeddings / tp;
        self.gathered_expert = p.expert_params * share / (ep * tp);
        self.params = self.gathered_dense / z_dense + self.gathered_expert / z_expert;
        (self.fsdp_traffic, self.dp_traffic) = weight_traffic(setup, cache, self);
    }
}
