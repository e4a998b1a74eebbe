//! The `training` section of the report (docs/report.md, "Training keys").

use super::memory::Transient;
use super::mesh::{Mesh, Parallelism};
use super::optimizer::ZeroStage;
use super::pipeline::Pipeline;
use super::step::Bottleneck;
use crate::collectives::{AxisShape, Network};
use crate::dtype::DType;
use crate::efficiency::PredictionMode;
use crate::flops::FlopConvention;
use crate::units::{Bytes, BytesPerSec, Flops, Seconds};
use serde::{Deserialize, Serialize};

/// Everything the planner says about a training run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrainingReport {
    /// Chips in the topology.
    pub chips: f64,
    /// Devices (chiplets when the topology has a die-to-die axis).
    pub devices: u64,
    /// Sequences per step.
    pub global_batch_sequences: u64,
    /// Tokens per step.
    pub global_batch_tokens: f64,
    /// Tokens per sequence.
    pub seq_len: u64,
    /// FLOP convention of model FLOPs and MFU.
    pub flops_convention: FlopConvention,
    /// Where the plan comes from: the explicit mesh or the search's best.
    pub source: PlanSource,
    /// The chosen mesh and where each axis sits.
    pub mesh: MeshReport,
    /// Microbatches per step (gradient accumulation / pipeline microbatches).
    pub microbatches: u64,
    /// Remat policy.
    pub remat: String,
    /// Pipeline schedule.
    pub pipeline: Pipeline,
    /// ZeRO stage of the `dp` axis.
    pub zero_stage: ZeroStage,
    /// Whether the chip's SparseCores drive the overlapped AllGathers, ReduceScatters and
    /// AllReduces (`training.overlap.sparse_core`, or the chip's default when unset).
    #[serde(default)]
    pub sparse_core: bool,
    /// HBM per device.
    pub memory: MemoryReport,
    /// Which prediction the headline numbers (`step_time_s`, `mfu`, `hfu`,
    /// `tokens_per_s`, days and cost) are: the calibrated physical model (default) or the
    /// ideal roofline (`conventions.prediction`).
    pub prediction: PredictionMode,
    /// The ideal roofline of the same configuration: the bound no run beats.
    pub roofline: RooflineReport,
    /// Seconds per step.
    pub step_time_s: Seconds,
    /// Where the step's time goes.
    pub breakdown: StepBreakdown,
    /// Communication per kind of parallelism.
    pub communication: Vec<CommunicationReport>,
    /// Tokens per second.
    pub tokens_per_s: f64,
    /// Model FLOPs utilisation.
    pub mfu: f64,
    /// Hardware FLOPs utilisation (recompute, padding, replicated K/V heads included).
    pub hfu: f64,
    /// Model FLOPs of one step.
    pub model_flops_per_step: Flops,
    /// Hardware FLOPs of one step.
    pub hardware_flops_per_step: Flops,
    /// Useful sequences over computed ones (< 1 when the batch is padded).
    pub batch_utilization: f64,
    /// What limits the step.
    pub bound: BoundReport,
    /// Tokens to train on.
    pub token_budget: Option<f64>,
    /// Optimizer steps for the budget.
    pub steps: Option<f64>,
    /// Days for the budget.
    pub days: Option<f64>,
    /// Chip-hours for the budget.
    pub chip_hours: Option<f64>,
    /// Price per chip-hour used.
    pub price_per_chip_hour_usd: Option<f64>,
    /// Cost of the budget.
    pub cost_usd: Option<f64>,
    /// The book's thresholds for this setup.
    pub thresholds: ThresholdsReport,
    /// The search, when run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchReport>,
}

/// Where the plan comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PlanSource {
    /// `training.mesh`.
    Explicit,
    /// The search's fastest configuration.
    Search,
}

/// A mesh and its placement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MeshReport {
    /// Degrees.
    #[serde(flatten)]
    pub degrees: Mesh,
    /// Each axis of degree > 1 and the physical pieces it spans.
    pub placement: Vec<AxisPlacement>,
}

/// One logical axis on the physical topology.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AxisPlacement {
    /// The logical axis.
    pub axis: Parallelism,
    /// Its degree.
    pub degree: u64,
    /// The physical pieces.
    pub pieces: Vec<PieceReport>,
}

/// A factor of a physical axis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PieceReport {
    /// Physical axis name.
    pub physical: String,
    /// Network.
    pub network: Network,
    /// Chips along the piece.
    pub size: u64,
    /// Chips between neighbours of the piece.
    pub stride: u64,
    /// Ring, line, switch or full mesh.
    pub shape: AxisShape,
    /// One-way bandwidth per link the piece sees (shared links divided).
    pub link: BytesPerSec,
}

/// A component of per-device memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MemoryComponent {
    /// Weights.
    Weights,
    /// Gradients.
    Gradients,
    /// Optimizer state.
    Optimizer,
    /// fp32 master weights.
    MasterWeights,
    /// Saved activations.
    Activations,
    /// The largest transient buffer.
    Transient,
}

/// One row of the memory breakdown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MemoryItem {
    /// Which component.
    pub component: MemoryComponent,
    /// Bytes per device.
    pub bytes: Bytes,
    /// Number format.
    pub dtype: Option<DType>,
    /// Logical axes it is sharded over (TP/PP/EP and ZeRO).
    pub sharded_over: Vec<Parallelism>,
}

/// HBM per device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MemoryReport {
    /// Peak HBM in use per device.
    pub per_device_bytes: Bytes,
    /// HBM per device.
    pub capacity_bytes: Bytes,
    /// Of it, kept free of the planned buffers (`training.reserved_hbm_fraction`).
    pub reserved_bytes: Bytes,
    /// Whether it fits in the capacity less the reserve.
    pub fits: bool,
    /// Capacity less the reserve less use (negative when it does not fit).
    pub headroom_bytes: Bytes,
    /// The components.
    pub breakdown: Vec<MemoryItem>,
    /// Which moment sets the transient peak: one layer at work or the loss.
    pub transient: Transient,
    /// One layer at work (the transient when `transient` is `layer`).
    pub layer: LayerWorkReport,
    /// The fp32 logits of a microbatch (the transient when `transient` is `logits`).
    pub logits_bytes: Bytes,
    /// Microbatches' activations held at once.
    pub in_flight_microbatches: f64,
    /// Offloaded activations in host memory per device.
    pub offloaded_host_bytes: Bytes,
}

/// The ideal roofline of a configuration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RooflineReport {
    /// Seconds per step: the hardware FLOPs at the peak, ideal overlap.
    pub step_time_s: Seconds,
    /// MFU at that step time.
    pub mfu: f64,
    /// HFU at that step time.
    pub hfu: f64,
    /// Tokens per second.
    pub tokens_per_s: f64,
}

/// One layer's working set per device (see `training::memory`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LayerWorkReport {
    /// Its FSDP-gathered weights, in the format the matmuls read.
    pub weights_bytes: Bytes,
    /// The next layer's, prefetched when the gather crosses the scale-out network.
    pub prefetch_bytes: Bytes,
    /// Its unreduced weight gradients.
    pub gradients_bytes: Bytes,
    /// What its backward recomputes or reads back from the host.
    pub rematerialised_bytes: Bytes,
    /// A materialised score matrix and CP's gathered K/V.
    pub attention_bytes: Bytes,
}

/// Where the step's time goes: compute, exposed communication, bubble, slice sync, exposed
/// offload and the optimizer update add up to the step time; compute is the sum of its
/// kernel terms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepBreakdown {
    /// Seconds the device computes (every kernel but the optimizer update): the sum of
    /// `matmul_s`, `attention_s`, `elementwise_s`, `loss_s` and `moe_s`.
    pub compute_s: Seconds,
    /// Weight matmuls forward, backward and recomputed (the roofline: every hardware
    /// FLOP but attention's, at the peak).
    pub matmul_s: Seconds,
    /// Dot-product attention kernels, recompute included.
    pub attention_s: Seconds,
    /// HBM-bound elementwise work: norms, rotary, residual adds, activations, the
    /// embedding, and their re-run under remat (0 on the roofline).
    pub elementwise_s: Seconds,
    /// The log-softmax over the vocabulary and its gradient (0 on the roofline).
    pub loss_s: Seconds,
    /// MoE router, token permutes, padded experts' dispatch (0 on the roofline).
    pub moe_s: Seconds,
    /// The optimizer update and gradient accumulation, after the gradients (0 on the
    /// roofline).
    pub optimizer_s: Seconds,
    /// Waiting for the slowest of the slices in lockstep: DCN per-slice synchronisation
    /// (0 on one slice and on the roofline).
    pub sync_s: Seconds,
    /// Communication not hidden behind compute.
    pub exposed_communication_s: Seconds,
    /// Pipeline bubble.
    pub bubble_s: Seconds,
    /// Host offload not hidden.
    pub offload_exposed_s: Seconds,
    /// Compute time at the model's FLOPs only (the roofline floor of MFU).
    pub model_compute_s: Seconds,
    /// PCIe time of offloaded activations, both ways, hidden or not (not a part of
    /// the sum: only `offload_exposed_s` is).
    pub offload_s: Seconds,
}

/// One kind of parallelism's communication over a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CommunicationReport {
    /// The kind.
    pub parallelism: Parallelism,
    /// The physical pieces its collectives run over.
    pub axes: Vec<String>,
    /// Σ V (full arrays) over its collectives per step.
    pub bytes_per_step: Bytes,
    /// Seconds its collectives take per step.
    pub time_s: Seconds,
    /// Seconds not hidden behind compute.
    pub exposed_s: Seconds,
    /// Whether it is on the critical path.
    pub critical_path: bool,
    /// Whether the chip's SparseCores drive it (overlapped with compute at the user's
    /// `efficiency.overlap` instead of the calibrated TensorCore fraction).
    #[serde(default)]
    pub sparse_core: bool,
}

/// What limits the step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BoundReport {
    /// The resource whose time is the largest (book 1.1, 5.1): `compute` unless a kind of
    /// parallelism's collectives, the bubble or host offload take longer than the compute.
    pub resource: Bottleneck,
    /// The kind of parallelism whose communication binds, when communication binds.
    pub axis: Option<Parallelism>,
    /// The largest time the step spends not computing; absent when nothing is lost.
    pub largest_loss: Option<LossReport>,
    /// One or two sentences.
    pub explanation: String,
}

/// The largest loss of a step: exposed collectives of one kind (with the wait for the
/// slowest slice for DP), the pipeline bubble, or exposed host offload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LossReport {
    /// `communication`, `pipeline_bubble` or `host_offload`.
    pub resource: Bottleneck,
    /// The kind of parallelism, for communication.
    pub axis: Option<Parallelism>,
    /// Seconds per step.
    pub seconds: Seconds,
}

/// Which of the book's limits binds for the setup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Binding {
    /// The batch per device is large enough for FSDP alone.
    FsdpComputeBound,
    /// FSDP alone is comms-bound; mixed FSDP + TP is not.
    MixedFsdpTp,
    /// Even mixed FSDP + TP is comms-bound.
    CommsBound,
    /// Data parallelism over DCN is comms-bound.
    Dcn,
}

/// The mixed FSDP + TP analysis (book 5.1.4, Appendix C).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MixedReport {
    /// Axes given to FSDP.
    pub m_x: f64,
    /// Axes given to TP.
    pub m_y: f64,
    /// Per-device batch below which no FSDP × TP split is compute-bound.
    pub critical_batch_per_device: f64,
    /// X minimising communication.
    pub optimal_fsdp: f64,
    /// N / X_opt.
    pub optimal_tp: f64,
    /// FSDP degrees (within a slice) between which the step is compute-bound
    /// (Appendix C's roots).
    pub compute_bound_fsdp: Option<[f64; 2]>,
}

/// DP over DCN (book 5.1.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DcnReport {
    /// Slices (devices per scale-out position).
    pub slices: u64,
    /// Tokens per slice per step.
    pub batch_per_slice: f64,
    /// Tokens per slice above which DCN data parallelism is compute-bound.
    pub critical_batch_per_slice: f64,
}

/// The book's thresholds for this model, chip, topology and batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThresholdsReport {
    /// α = C / W_ici (one axis, bidirectional).
    pub alpha: f64,
    /// Stored over active parameters (1 dense; ≈ E/k MoE): FSDP's bytes per FLOP
    /// grow by it, and so do its thresholds (MaxText's "global batch / sparsity").
    pub sparsity: f64,
    /// Scale-up axes of the topology.
    pub ici_axes: u64,
    /// F used (dense MLP, or one expert).
    pub d_ff: f64,
    /// Tokens per device per step, B / N.
    pub batch_per_device: f64,
    /// Devices of one slice (the ICI domain the FSDP/TP analysis is about).
    pub devices_per_slice: u64,
    /// DP/FSDP compute-bound above this per-device batch on one axis (α).
    pub fsdp_critical_batch_one_axis: f64,
    /// ... on every ICI axis (α / n_axes).
    pub fsdp_critical_batch_all_axes: f64,
    /// TP compute-bound below this degree on one axis (F / α).
    pub tp_max_one_axis: f64,
    /// ... on every ICI axis.
    pub tp_max_all_axes: f64,
    /// Mixed FSDP + TP.
    pub mixed: MixedReport,
    /// DP over DCN, when the topology has a scale-out axis.
    pub dcn: Option<DcnReport>,
    /// Largest model pure DP can train (HBM / bytes of state per parameter).
    pub max_params_pure_dp: f64,
    /// Which limit binds.
    pub binding: Binding,
    /// One sentence saying which limit binds and why.
    pub explanation: String,
}

/// The part of a mesh one network carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NetworkDegrees {
    /// The network.
    pub network: Network,
    /// Degrees on it.
    pub degrees: Mesh,
}

/// One configuration in the search's tables.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SearchRow {
    /// The mesh.
    pub mesh: Mesh,
    /// How its degrees are split over the networks (those with more than one device).
    pub networks: Vec<NetworkDegrees>,
    /// Microbatches per step.
    pub microbatches: u64,
    /// Remat policy.
    pub remat: String,
    /// ZeRO stage of the `dp` axis.
    pub zero_stage: ZeroStage,
    /// Pipeline schedule.
    pub pipeline: Pipeline,
    /// Seconds per step.
    pub step_time_s: Seconds,
    /// HBM per device.
    pub memory_bytes: Bytes,
    /// MFU.
    pub mfu: f64,
    /// HFU.
    pub hfu: f64,
    /// What limits it.
    pub bound: Bottleneck,
}

/// Configurations (a mesh, ZeRO stage, schedule, microbatch count and policy each) the
/// search did not evaluate, by reason (`training::search` counts them; the report shows them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SkippedReport {
    /// A ZeRO stage with DP = 1, a schedule with PP = 1, ZeRO-2 with several
    /// microbatches, ZeRO-3 with DP > 1: the same as a configuration evaluated.
    pub identical: u64,
    /// ZeRO-1 with one microbatch (ZeRO-2 is as fast and smaller); ZeRO-0 where ZeRO-1
    /// and 2 synchronise DP at least as fast (they are then no slower and smaller).
    pub dominated: u64,
    /// Interleaved microbatch counts that are not multiples of PP.
    pub microbatches: u64,
    /// Those whose training state alone exceeds the usable HBM.
    pub state_exceeds_hbm: u64,
    /// Configurations whose step-time lower bound (compute and bubble) and exact memory
    /// are already matched by a configuration found, which keep them out of the fastest
    /// and the Pareto front.
    pub bound: u64,
    /// Configurations that do not fit, once one that fits is known (the least-memory
    /// configuration is only wanted when nothing fits).
    pub too_large: u64,
}

/// The search summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SearchReport {
    /// Meshes that divide the model and fit the topology.
    pub meshes: u64,
    /// Configurations timed.
    pub evaluated: u64,
    /// Configurations that fit in HBM (timed, or only bounded: `skipped.bound`).
    pub feasible: u64,
    /// Configurations not evaluated, by reason.
    pub skipped: SkippedReport,
    /// Every rule the search applied, with this model's numbers.
    pub constraints: Vec<String>,
    /// The fastest, best first.
    pub best: Vec<SearchRow>,
    /// Memory against step time, by memory.
    pub pareto: Vec<SearchRow>,
}
