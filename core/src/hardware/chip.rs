//! One accelerator as plain data (book 2.3 "Here are some specific numbers for our
//! chips"): compute, memory, links and where every number comes from.
//!
//! The bundled chips live in `core/data/chips.json`; users define their own chips with
//! the same type. Every bandwidth is per chip unless its name says otherwise, and every
//! link carries its one-way and bidirectional rate as different types
//! ([`BytesPerSec`] vs [`BidiBytesPerSec`]), so the two cannot be swapped silently.

use crate::dtype::DType;
use crate::units::{BidiBytesPerSec, Bytes, BytesPerSec, FlopsPerSec, Seconds};
use serde::{Deserialize, Serialize};

/// TPU or GPU: decides the default topology words (slice vs node) and nothing else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ChipFamily {
    /// Google TPU: ICI torus slices, DCN between slices.
    Tpu,
    /// GPU: a switched (or fully connected) scale-up domain, a scale-out network.
    Gpu,
}
crate::serde_names::deserialize_by_name!(ChipFamily { Tpu => "tpu", Gpu => "gpu" });

/// One link's rate in both conventions; validation checks `bidirectional = 2 × one_way`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LinkBandwidth {
    /// Bytes per second in one direction (the book's "one-way" column).
    pub one_way: BytesPerSec,
    /// Bytes per second summed over both directions (the book's "bidi" column).
    pub bidirectional: BidiBytesPerSec,
}

impl LinkBandwidth {
    /// A link from its one-way rate.
    #[must_use]
    pub fn from_one_way(one_way: BytesPerSec) -> Self {
        Self { one_way, bidirectional: one_way.bidirectional() }
    }
}

/// Dense peak throughput by number format (never the structured-sparsity figure).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PeakFlops {
    /// bfloat16 (also used for fp16) matrix FLOP/s.
    pub bf16: FlopsPerSec,
    /// 8-bit float matrix FLOP/s, when the chip has a native fp8 path.
    #[serde(default)]
    pub fp8: Option<FlopsPerSec>,
    /// int8 matrix OP/s.
    #[serde(default)]
    pub int8: Option<FlopsPerSec>,
    /// int4 matrix OP/s.
    #[serde(default)]
    pub int4: Option<FlopsPerSec>,
    /// 4-bit float (NVFP4 / MXFP4 block-scaled) matrix FLOP/s, when the chip has a native
    /// fp4 path (NVIDIA Blackwell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp4: Option<FlopsPerSec>,
}

impl PeakFlops {
    /// Peak matrix throughput when computing in `dtype`; `None` when the chip has no
    /// such path (fp32 matmuls are not modelled).
    #[must_use]
    pub fn for_dtype(&self, dtype: DType) -> Option<FlopsPerSec> {
        match dtype {
            DType::Bf16 | DType::Fp16 => Some(self.bf16),
            DType::Fp8 => self.fp8,
            DType::Int8 => self.int8,
            DType::Int4 => self.int4,
            DType::Nvfp4 | DType::Mxfp4 => self.fp4,
            DType::Fp32 => None,
        }
    }
}

/// Off-chip memory (HBM).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// Capacity per chip.
    pub capacity: Bytes,
    /// Bandwidth per chip, to the compute units.
    pub bandwidth: BytesPerSec,
}

/// Programmer-managed on-chip memory: VMEM on a TPU, shared memory (SMEM) on a GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OnChipMemory {
    /// `VMEM`, `SMEM`, ...
    pub name: String,
    /// Capacity per chip (all cores together).
    pub capacity: Bytes,
    /// Bandwidth to the matrix units, where published.
    #[serde(default)]
    pub bandwidth: Option<BytesPerSec>,
}

/// The systolic array (book 2.5.2): `size × size`, `count` per chip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Mxu {
    /// Side of the array: 128, or 256 from TPU v6e on.
    pub size: u64,
    /// Arrays per chip (all TensorCores), where published.
    #[serde(default)]
    pub count: Option<u64>,
}

/// Peak of one systolic array (book 2.1): a `[rows, k] @ [k, n]` matmul every `cycles`
/// clock cycles at `clock_hz` — `bf16[8,128] @ bf16[128,128]` per 8 cycles at 1.5 GHz
/// is about 5e13 FLOP/s on a v5e MXU.
#[must_use]
pub fn mxu_peak(rows: f64, k: f64, n: f64, cycles: f64, clock_hz: f64) -> FlopsPerSec {
    FlopsPerSec(2.0 * rows * k * n / cycles * clock_hz)
}

/// When a TPU slice axis has a wraparound link (book 2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum WrapRule {
    /// Only an axis of exactly this size wraps (v5e, v6e: 16).
    FullAxis(u64),
    /// Every axis wraps when every scale-up axis is a multiple of this cube side, none
    /// otherwise (v4, v5p, 7x: optical switches on full 4×4×4 cubes).
    FullCubes(u64),
}

/// How the scale-up network connects chips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Fabric {
    /// Nearest-neighbour torus (TPU ICI) with `dims` axes.
    Torus {
        /// 2 or 3.
        dims: u64,
        /// Which slice axes wrap around.
        wraparound: WrapRule,
    },
    /// Every chip reaches every other through switches (NVLink + NVSwitch): one hop.
    Switch,
    /// Every chip has a direct link to every other (AMD Infinity Fabric, 8 GPUs).
    FullMesh,
}

/// The scale-up network: ICI, NVLink, Infinity Fabric.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ScaleUp {
    /// `ICI`, `NVLink`, ...
    pub name: String,
    /// Torus, switch or full mesh.
    pub fabric: Fabric,
    /// Link ports per chip (a 2D torus has 4, a 3D torus 6; an H100 has 18 NVLinks).
    pub links_per_chip: u64,
    /// The rate of one link.
    pub link: LinkBandwidth,
    /// Fixed cost of one hop, where published (book 3.2: about 1 µs on ICI).
    #[serde(default)]
    pub hop_latency: Option<Seconds>,
    /// Largest group of chips on this network: TPU pod, NVLink domain.
    pub max_chips: u64,
}

impl ScaleUp {
    /// One-way bytes per second a chip can push into the network over every port.
    #[must_use]
    pub fn egress_per_chip(&self) -> BytesPerSec {
        self.link.one_way * self.links_per_chip as f64
    }
}

/// The CPU host a chip hangs off.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Host {
    /// Chips per host (book table "host size").
    pub chips_per_host: u64,
    /// PCIe link of one chip, where published.
    #[serde(default)]
    pub pcie: Option<LinkBandwidth>,
}

/// The network between scale-up domains: DCN, InfiniBand, Ethernet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ScaleOut {
    /// `DCN`, `InfiniBand`, ...
    pub name: String,
    /// One-way egress per chip (a host's NICs divided by its chips).
    pub bandwidth_per_chip: BytesPerSec,
    /// Fixed cost of one transfer, where published.
    #[serde(default)]
    pub hop_latency: Option<Seconds>,
}

/// Dies inside one chip package (Ironwood: two TensorCore chiplets).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Chiplets {
    /// Dies per chip.
    pub count: u64,
    /// The die-to-die link.
    pub die_to_die: LinkBandwidth,
}

/// The SparseCores of a TPU chip: small cores beside the TensorCores (built for embedding
/// lookups) that can also drive the chip's collectives, so that an AllGather, ReduceScatter
/// or AllReduce runs beside the TensorCores' matmuls instead of interrupting them (the
/// Ironwood guide, "Utilizing SparseCore"; XLA's
/// `xla_tpu_enable_sparse_core_collective_offload_*` flags).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SparseCores {
    /// SparseCores per chip.
    pub count: u64,
    /// Whether the TPU runtime offloads AllGather, ReduceScatter and AllReduce to them by
    /// default (`training.overlap.sparse_core` when the scenario leaves it unset).
    #[serde(default)]
    pub offload_by_default: bool,
}

/// Where one field's number comes from, when it is not the chip's main source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FieldSource {
    /// Field path, e.g. `peak_flops.int4`.
    pub field: String,
    /// Citation.
    pub source: String,
    /// Date of the source (YYYY-MM-DD).
    pub as_of: String,
}

/// A value another source gives for a field; the UI shows it beside the chosen one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Alternative {
    /// Field path, e.g. `hbm.bandwidth`.
    pub field: String,
    /// The other value, in the field's base unit.
    pub value: f64,
    /// Citation.
    pub source: String,
    /// Why the catalog uses the other value.
    #[serde(default)]
    pub note: String,
}

/// An accelerator chip.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Chip {
    /// Stable identifier, e.g. `tpu-v5e`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// TPU or GPU.
    pub family: ChipFamily,
    /// Main source of the numbers (overridden per field by `field_sources`). A custom chip
    /// must name one (validation refuses an empty source); the bundled chips' sources are
    /// kept apart from their numbers (`catalog::with_provenance`).
    #[serde(default)]
    pub source: String,
    /// Date of the main source (YYYY-MM-DD); as `source`.
    #[serde(default)]
    pub as_of: String,
    /// TensorCores (TPU) per chip; 1 for GPUs.
    pub cores_per_chip: u64,
    /// Dense matrix throughput by format.
    pub peak_flops: PeakFlops,
    /// Vector-unit throughput (book 1.1 footnote 8), where published.
    #[serde(default)]
    pub vector_flops: Option<FlopsPerSec>,
    /// HBM.
    pub hbm: Memory,
    /// VMEM / SMEM, where published.
    #[serde(default)]
    pub on_chip: Option<OnChipMemory>,
    /// Systolic array, for padding waste (TPUs).
    #[serde(default)]
    pub mxu: Option<Mxu>,
    /// ICI / NVLink.
    pub scale_up: ScaleUp,
    /// Host and PCIe.
    pub host: Host,
    /// DCN / scale-out network.
    pub scale_out: ScaleOut,
    /// Dies in the package, when more than one.
    #[serde(default)]
    pub chiplets: Option<Chiplets>,
    /// SparseCores, on the TPUs that have them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sparse_cores: Option<SparseCores>,
    /// On-demand price per chip-hour in US dollars, where a stable public figure exists.
    #[serde(default)]
    pub price_per_chip_hour_usd: Option<f64>,
    /// Per-field sources that differ from `source`.
    #[serde(default)]
    pub field_sources: Vec<FieldSource>,
    /// Values other sources give, for the UI to show.
    #[serde(default)]
    pub alternatives: Vec<Alternative>,
    /// Caveats.
    #[serde(default)]
    pub notes: Vec<String>,
}

impl Chip {
    /// Every numeric field with its path: the one list that validation, provenance and
    /// the UI's spec table walk. `None` marks an optional number that is absent.
    #[must_use]
    pub fn numeric_fields(&self) -> Vec<(&'static str, Option<f64>)> {
        let opt = |q: Option<f64>| q;
        vec![
            ("cores_per_chip", Some(self.cores_per_chip as f64)),
            ("peak_flops.bf16", Some(self.peak_flops.bf16.get())),
            ("peak_flops.fp8", opt(self.peak_flops.fp8.map(FlopsPerSec::get))),
            ("peak_flops.int8", opt(self.peak_flops.int8.map(FlopsPerSec::get))),
            ("peak_flops.int4", opt(self.peak_flops.int4.map(FlopsPerSec::get))),
            ("peak_flops.fp4", opt(self.peak_flops.fp4.map(FlopsPerSec::get))),
            ("vector_flops", opt(self.vector_flops.map(FlopsPerSec::get))),
            ("hbm.capacity", Some(self.hbm.capacity.get())),
            ("hbm.bandwidth", Some(self.hbm.bandwidth.get())),
            ("on_chip.capacity", self.on_chip.as_ref().map(|m| m.capacity.get())),
            ("on_chip.bandwidth", self.on_chip.as_ref().and_then(|m| m.bandwidth).map(BytesPerSec::get)),
            ("mxu.size", self.mxu.map(|m| m.size as f64)),
            ("mxu.count", self.mxu.and_then(|m| m.count).map(|n| n as f64)),
            ("scale_up.links_per_chip", Some(self.scale_up.links_per_chip as f64)),
            ("scale_up.link.one_way", Some(self.scale_up.link.one_way.get())),
            ("scale_up.link.bidirectional", Some(self.scale_up.link.bidirectional.get())),
            ("scale_up.hop_latency", self.scale_up.hop_latency.map(Seconds::get)),
            ("scale_up.max_chips", Some(self.scale_up.max_chips as f64)),
            ("host.chips_per_host", Some(self.host.chips_per_host as f64)),
            ("host.pcie.one_way", self.host.pcie.map(|l| l.one_way.get())),
            ("host.pcie.bidirectional", self.host.pcie.map(|l| l.bidirectional.get())),
            ("scale_out.bandwidth_per_chip", Some(self.scale_out.bandwidth_per_chip.get())),
            ("scale_out.hop_latency", self.scale_out.hop_latency.map(Seconds::get)),
            ("chiplets.count", self.chiplets.map(|c| c.count as f64)),
            ("chiplets.die_to_die.one_way", self.chiplets.map(|c| c.die_to_die.one_way.get())),
            ("chiplets.die_to_die.bidirectional", self.chiplets.map(|c| c.die_to_die.bidirectional.get())),
            ("sparse_cores.count", self.sparse_cores.map(|s| s.count as f64)),
            ("price_per_chip_hour_usd", self.price_per_chip_hour_usd),
        ]
    }

    /// The citation and date behind `field` (its override, or the chip's source).
    #[must_use]
    pub fn source_of(&self, field: &str) -> (&str, &str) {
        self.field_sources
            .iter()
            .find(|s| s.field == field)
            .map_or((self.source.as_str(), self.as_of.as_str()), |s| (s.source.as_str(), s.as_of.as_str()))
    }
}
