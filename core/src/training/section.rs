//! The `training` section of a scenario: what the user sets, its validation (every
//! error names its field under `training.`), and the [`Setup`] it resolves to.

use super::mesh::{network_index, Mesh};
use super::optimizer::{Optimizer, TrainingDtypes, ZeroStage};
use super::pipeline::{Pipeline, Schedule};
use super::placement::MAX_PHYSICAL_AXES;
use super::profile::ModelProfile;
use super::setup::{AttentionKernel, Efficiency, MoeKernel, Options, Overlap, Setup};
use super::tensors::Remat;
use crate::collectives::Network;
use crate::dtype::DType;
use crate::efficiency::{Calibration, KernelRates, PredictionMode};
use crate::error::{Checker, Invalid};
use crate::flops::{training_flops, FlopComponent, FlopConvention, RematPolicy, Workload, MAX_SEQ_LEN};
use crate::hardware::query::ResolvedHardware;
use crate::model::ModelConfig;
use serde::{Deserialize, Serialize};

/// Most devices the training planner accepts (2^24).
pub const MAX_DEVICES: u64 = 1 << 24;

/// The global batch of one optimizer step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum GlobalBatch {
    /// Tokens (rounded to whole sequences of `seq_len`).
    Tokens(f64),
    /// Sequences.
    Sequences(u64),
}

/// Search options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SearchOptions {
    /// How many of the fastest configurations to report (default 10).
    #[serde(default = "ten")]
    pub top: u64,
    /// Remat policies to try (default: every preset; offloading ones only when the
    /// chip's PCIe bandwidth is known; plus `training.remat` when it is custom).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remat: Option<Vec<Remat>>,
    /// Largest microbatch count tried (default 64).
    #[serde(default = "sixty_four")]
    pub max_microbatches: u64,
    /// ZeRO stages to try where dp > 1 (default every stage, 0 to 3; the first listed
    /// is used where dp = 1, where they are all the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero_stages: Option<Vec<ZeroStage>>,
    /// Pipeline schedules to try where pp > 1 (default `one_f_one_b` and `interleaved`;
    /// `gpipe`, which has 1F1B's bubble and holds more microbatches, only when listed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedules: Option<Vec<Schedule>>,
    /// Most virtual stages per device an interleaved schedule is tried with (default:
    /// as many as the layers allow, one layer per chunk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_virtual_stages: Option<u64>,
}

/// The default `reserved_hbm_fraction`, 5%. XLA plans a TPU program's buffers ahead of
/// time over the whole HBM, so the reserve stands for what the memory model leaves out
/// (cotangents, fusion temporaries); the published runs bound it from above: the
/// tightest, v4 22B (FSDP 64, 16 sequences of 2048, `full`), uses 94.5% of the catalog's
/// 32 GB in this model and ran (docs/validation.md, "Memory against HBM"), so a reserve
/// above 5.5% would refuse a configuration that ran.
pub const DEFAULT_RESERVED_HBM_FRACTION: f64 = 0.05;

fn default_reserved() -> f64 {
    DEFAULT_RESERVED_HBM_FRACTION
}

fn ten() -> u64 {
    10
}
fn sixty_four() -> u64 {
    64
}
fn yes() -> bool {
    true
}
fn unit() -> f64 {
    1.0
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            top: 10,
            remat: None,
            max_microbatches: 64,
            zero_stages: None,
            schedules: None,
            max_virtual_stages: None,
        }
    }
}

/// `training`: plan a training run on `hardware.topology`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TrainingSection {
    /// Batch per optimizer step: `{"tokens": 4194304}` or `{"sequences": 1024}`.
    pub global_batch: GlobalBatch,
    /// Tokens per sequence.
    pub seq_len: u64,
    /// Tokens to train on, for days and cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<f64>,
    /// Optimizer (default Adam without master weights).
    #[serde(default)]
    pub optimizer: Optimizer,
    /// Number formats.
    #[serde(default)]
    pub dtypes: TrainingDtypes,
    /// Whether gradients occupy HBM (default true; false is the book's 10 bytes/param).
    #[serde(default = "yes")]
    pub store_gradients: bool,
    /// ZeRO stage of the `dp` axis (0–3, default 0).
    #[serde(default)]
    pub zero_stage: ZeroStage,
    /// Remat policy of the explicit mesh (default `full`).
    #[serde(default)]
    pub remat: Remat,
    /// An explicit mesh to evaluate; absent = search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<Mesh>,
    /// Pipeline schedule.
    #[serde(default)]
    pub pipeline: Pipeline,
    /// Microbatches per step for the explicit mesh (default 1), or the only count
    /// the search tries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microbatches: Option<u64>,
    /// Search options; present = search even with an explicit mesh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchOptions>,
    /// Achievable fractions of peak (default 1.0: the roofline).
    #[serde(default)]
    pub efficiency: Efficiency,
    /// What overlaps with compute.
    #[serde(default)]
    pub overlap: Overlap,
    /// Attention kernel (default flash).
    #[serde(default)]
    pub attention: AttentionKernel,
    /// MoE capacity factor (default 1.0): dispatched tokens per expert over the balanced
    /// share (the AllToAll's volume; the padded kernel's rows).
    #[serde(default = "unit")]
    pub capacity_factor: f64,
    /// How routed experts' matmuls run: `grouped` (default; Megablox) or `padded`.
    #[serde(default, skip_serializing_if = "is_grouped")]
    pub moe_kernel: MoeKernel,
    /// Fraction of each device's HBM kept free of the planned buffers, in [0, 0.99]:
    /// for what the memory model does not count (cotangents inside a layer's backward,
    /// XLA's fusion temporaries, fragmentation, the runtime's own) and for a JAX GPU
    /// process's preallocation limit (`XLA_PYTHON_CLIENT_MEM_FRACTION`: 0.75 by default,
    /// so 0.25 here; MaxText's A3 scripts set 0.85). Default
    /// [`DEFAULT_RESERVED_HBM_FRACTION`].
    #[serde(default = "default_reserved")]
    pub reserved_hbm_fraction: f64,
    /// Price per chip-hour; default the chip catalog's, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_chip_hour_usd: Option<f64>,
    /// The calibrated parameters of the physical step model, when the plan is the
    /// calibrated prediction; `None` plans the roofline. Not part of the document: set
    /// from `conventions.prediction` by [`section_for`].
    #[serde(skip)]
    pub calibration: Option<Calibration>,
}

fn is_grouped(k: &MoeKernel) -> bool {
    *k == MoeKernel::Grouped
}

/// The training section the planner runs in `mode`: as written for the roofline, with the
/// bundled calibration of the physical model for the calibrated prediction. (`chip` is not
/// read: the calibration picks its kind's parameters itself; kept for callers.)
#[must_use]
pub fn section_for<'a>(
    section: &'a TrainingSection,
    _chip: &crate::hardware::Chip,
    mode: PredictionMode,
) -> std::borrow::Cow<'a, TrainingSection> {
    let wanted = match mode {
        PredictionMode::Ideal => None,
        PredictionMode::Calibrated => Some(crate::efficiency::calibration::bundled()),
    };
    if section.calibration == wanted {
        std::borrow::Cow::Borrowed(section)
    } else {
        let mut s = section.clone();
        s.calibration = wanted;
        std::borrow::Cow::Owned(s)
    }
}

/// The training page's starting point, and the charts' for a scenario without a
/// `training` section: 2^20 tokens (256 sequences of 4096) per step, LLaMA 3's
/// 15T-token budget, everything else at its default.
impl Default for TrainingSection {
    fn default() -> Self {
        let mut s = Self::new(GlobalBatch::Tokens(1_048_576.0), 4096);
        s.token_budget = Some(15e12);
        s
    }
}

/// The hardware the training page starts from, and the charts' for a scenario without
/// `hardware`: one TPU v5p 4×4×4 slice (64 chips).
#[must_use]
pub fn default_hardware() -> crate::hardware::query::HardwareSection {
    crate::hardware::query::HardwareSection {
        chip: crate::hardware::query::ChipSource::Preset(DEFAULT_CHIP.into()),
        topology: Some(crate::hardware::topology::Topology::tpu_slice(&DEFAULT_SLICE, 1)),
    }
}

/// Chip id of [`default_hardware`].
pub const DEFAULT_CHIP: &str = "tpu-v5p";
/// Slice shape of [`default_hardware`].
pub const DEFAULT_SLICE: [u64; 3] = [4, 4, 4];

impl TrainingSection {
    /// A section with defaults for `tokens` per step of `seq_len`.
    #[must_use]
    pub fn new(global_batch: GlobalBatch, seq_len: u64) -> Self {
        Self {
            global_batch,
            seq_len,
            token_budget: None,
            optimizer: Optimizer::default(),
            dtypes: TrainingDtypes::default(),
            store_gradients: true,
            zero_stage: ZeroStage::default(),
            remat: Remat::default(),
            mesh: None,
            pipeline: Pipeline::default(),
            microbatches: None,
            search: None,
            efficiency: Efficiency::default(),
            overlap: Overlap::default(),
            attention: AttentionKernel::default(),
            capacity_factor: 1.0,
            moe_kernel: MoeKernel::default(),
            reserved_hbm_fraction: DEFAULT_RESERVED_HBM_FRACTION,
            price_per_chip_hour_usd: None,
            calibration: None,
        }
    }

    /// Sequences per step.
    #[must_use]
    pub fn sequences(&self) -> u64 {
        match self.global_batch {
            GlobalBatch::Sequences(n) => n,
            GlobalBatch::Tokens(t) => (t / self.seq_len.max(1) as f64).round().max(1.0) as u64,
        }
    }

    /// Peak FLOP/s of one chip in the compute format (what days and MFU are measured
    /// against); 0 when the chip publishes none.
    #[must_use]
    pub fn chip_peak(&self, chip: &crate::hardware::Chip) -> f64 {
        chip.peak_flops.for_dtype(self.dtypes.compute).map_or(0.0, |p| p.get())
    }

    /// Whether the chip's SparseCores drive the overlapped collectives: `overlap.sparse_core`,
    /// else the chip's default (`sparse_cores.offload_by_default`).
    #[must_use]
    pub fn sparse_core(&self, chip: &crate::hardware::Chip) -> bool {
        self.overlap.sparse_core.unwrap_or_else(|| chip.sparse_cores.is_some_and(|s| s.offload_by_default))
    }

    /// Price per chip-hour: the section's, else the chip catalog's.
    #[must_use]
    pub fn price(&self, chip: &crate::hardware::Chip) -> Option<f64> {
        self.price_per_chip_hour_usd.or(chip.price_per_chip_hour_usd)
    }

    /// Check the fields that need neither the model nor the hardware. Paths are
    /// relative to the section (`seq_len`, `efficiency.ici`, ...).
    ///
    /// # Errors
    /// Every problem found.
    pub fn validate(&self) -> Result<(), Invalid> {
        let mut c = Checker::new();
        c.range("seq_len", self.seq_len, 1, MAX_SEQ_LEN);
        match self.global_batch {
            GlobalBatch::Tokens(t) => positive(&mut c, "global_batch.tokens", t, 1e15),
            GlobalBatch::Sequences(n) => c.range("global_batch.sequences", n, 1, 1 << 30),
        }
        if let Some(b) = self.token_budget {
            c.range_f64("token_budget", b, 0.0, 1e18);
        }
        // At least one in a million: a subnormal fraction of a rate overflows a time to
        // infinity (as `prefill.mfu` did; found by the no-panic test).
        for (field, v) in [
            ("efficiency.flops", self.efficiency.flops),
            ("efficiency.ici", self.efficiency.ici),
            ("efficiency.dcn", self.efficiency.dcn),
            ("efficiency.pcie", self.efficiency.pcie),
        ] {
            c.range_f64(field, v, crate::inference::options::MIN_FRACTION, 1.0);
        }
        c.range_f64("efficiency.overlap", self.efficiency.overlap, 0.0, 1.0);
        positive(&mut c, "capacity_factor", self.capacity_factor, 64.0);
        c.range_f64("reserved_hbm_fraction", self.reserved_hbm_fraction, 0.0, 0.99);
        if let Some(p) = self.price_per_chip_hour_usd {
            c.range_f64("price_per_chip_hour_usd", p, 0.0, 1e6);
        }
        self.zero_stage.check(&mut c, "zero_stage");
        c.range("pipeline.virtual_stages", self.pipeline.virtual_stages, 1, 1024);
        c.ensure(
            self.pipeline.schedule == Schedule::Interleaved || self.pipeline.virtual_stages == 1,
            "pipeline.virtual_stages",
            || "is only used by the `interleaved` schedule; leave it at 1".into(),
        );
        if let Some(m) = self.microbatches {
            c.range("microbatches", m, 1, 1 << 20);
        }
        if let Some(s) = &self.search {
            c.range("search.top", s.top, 1, 1000);
            c.range("search.max_microbatches", s.max_microbatches, 1, 4096);
            if let Some(r) = &s.remat {
                c.ensure(!r.is_empty() && r.len() <= 64, "search.remat", || "must list 1 to 64 policies".into());
            }
            if let Some(z) = &s.zero_stages {
                c.ensure(!z.is_empty() && z.len() <= 4, "search.zero_stages", || "must list 1 to 4 stages".into());
                for (i, stage) in z.iter().enumerate() {
                    stage.check(&mut c, &format!("search.zero_stages[{i}]"));
                }
            }
            if let Some(sch) = &s.schedules {
                c.ensure(!sch.is_empty() && sch.len() <= 3, "search.schedules", || {
                    "must list 1 to 3 schedules (gpipe, one_f_one_b, interleaved)".into()
                });
            }
            if let Some(v) = s.max_virtual_stages {
                c.range("search.max_virtual_stages", v, 1, 1024);
            }
        }
        c.ensure(self.dtypes.compute != crate::dtype::DType::Fp32, "dtypes.compute", || {
            "fp32 matmuls are not modelled; use bf16, fp8 or int8".into()
        });
        c.finish()
    }

    /// Resolve the section against a model and hardware. Paths are relative to the
    /// scenario (`training.seq_len`, `hardware.topology`).
    ///
    /// # Errors
    /// Every problem found.
    pub fn setup(&self, m: &ModelConfig, hw: &ResolvedHardware, convention: FlopConvention) -> Result<Setup, Invalid> {
        let mut c = Checker::new();
        c.merge("training", self.validate());
        c.ensure(!hw.axes.is_empty(), "hardware.topology", || "is required by `training`".into());
        c.ensure(hw.axes.len() <= MAX_PHYSICAL_AXES, "hardware.topology.axes", || {
            format!("the training planner handles at most {MAX_PHYSICAL_AXES} axes")
        });
        let peak = hw.chip.peak_flops.for_dtype(self.dtypes.compute);
        c.ensure(peak.is_some(), "training.dtypes.compute", || {
            format!("{} has no published {} peak", hw.chip.name, self.dtypes.compute.name())
        });
        c.ensure(!self.remat.offloads() || hw.chip.host.pcie.is_some(), "training.remat", || {
            format!(
                "{} offloads to the host, but {} has no published PCIe bandwidth (host.pcie); choose a policy without offload, or a custom copy of the chip with host.pcie set",
                self.remat.id(),
                hw.chip.name
            )
        });
        c.ensure(
            self.overlap.sparse_core != Some(true) || hw.chip.sparse_cores.is_some(),
            "training.overlap.sparse_core",
            || {
                format!(
                    "{} has no SparseCores (the chip's sparse_cores) to offload collectives to; turn it off",
                    hw.chip.name
                )
            },
        );
        let mut capacity = [1u64; 3];
        for a in &hw.axes {
            let n = network_index(a.network);
            capacity[n] = capacity[n].saturating_mul(a.size);
        }
        let devices: u64 = capacity.iter().fold(1u64, |a, &b| a.saturating_mul(b));
        c.ensure(devices <= MAX_DEVICES, "hardware.topology", || {
            let product: f64 = hw.axes.iter().map(|a| a.size as f64).product();
            format!(
                "spans {} devices; the training planner handles at most {MAX_DEVICES}",
                crate::decimal::shortest(product)
            )
        });
        c.finish()?;
        let devices_per_chip = capacity[network_index(Network::DieToDie)].max(1);
        let sequences = self.sequences();
        let w = Workload {
            per_device_batch: sequences as f64,
            seq_len: self.seq_len,
            grad_accum: 1,
            remat: RematPolicy::None,
        };
        let flops = training_flops(m, &w, convention);
        let profile = ModelProfile::of(m);
        let per_device = |x: f64| x / devices_per_chip as f64;
        let peak_per_device = per_device(peak.map_or(0.0, |p| p.get()));
        // The calibrated prediction: the physical model's kernel rates, and the calibrated
        // DCN and overlap fractions on top of the user's own.
        let mut efficiency = self.efficiency;
        let sparse_core = self.sparse_core(&hw.chip);
        let rates = self.calibration.map(|c| {
            efficiency.dcn *= c.dcn;
            efficiency.overlap *= c.overlap;
            // Attention and the logits run in bf16; a narrower compute format is the
            // quantized recipe's, for the decoder layers' weight matmuls only (`kernels.rs`).
            let bf16 = per_device(hw.chip.peak_flops.bf16.get());
            let base = KernelRates::new(
                &hw.chip,
                devices_per_chip,
                bf16,
                self.efficiency.flops,
                (DType::Bf16.bytes(), self.dtypes.activations.bytes()),
                &c,
            );
            match self.dtypes.compute {
                DType::Bf16 | DType::Fp16 => base,
                format => base.with_quantized(
                    peak_per_device,
                    bf16,
                    format.bytes(),
                    KernelRates::on_chip_per_device(&hw.chip, devices_per_chip),
                ),
            }
        });
        Ok(Setup {
            options: Options {
                optimizer: self.optimizer,
                dtypes: self.dtypes,
                store_gradients: self.store_gradients,
                zero: self.zero_stage,
                pipeline: self.pipeline,
                capacity_factor: self.capacity_factor,
                attention: self.attention,
                moe_kernel: self.moe_kernel,
                overlap: self.overlap,
                sparse_core,
                offload_overlap: if sparse_core { self.efficiency.overlap } else { efficiency.overlap },
                efficiency,
                convention,
                reserved_hbm_fraction: self.reserved_hbm_fraction,
            },
            sequences,
            seq_len: self.seq_len,
            devices,
            devices_per_chip,
            capacity,
            peak: peak_per_device,
            hbm: per_device(hw.chip.hbm.capacity.get()),
            pcie: hw.chip.host.pcie.map(|p| per_device(p.one_way.get()) * self.efficiency.pcie),
            model_flops: flops.total.get(),
            model_flops_forward: flops.rows.iter().map(|r| r.forward.get()).sum(),
            attention_forward: flops.get(FlopComponent::AttentionDot).forward.get(),
            kv_forward: 2.0 * profile.kv_params * w.tokens_per_device(),
            profile,
            rates,
            calibration: self.calibration,
        })
    }
}

fn positive(c: &mut Checker, field: &str, v: f64, hi: f64) {
    if v.is_finite() && v <= 0.0 {
        c.push(field, format!("must be greater than 0 (got {})", crate::decimal::shortest(v)));
    } else {
        c.range_f64(field, v, 0.0, hi);
    }
}
