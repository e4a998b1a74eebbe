//! The generator's `hardware`, `training` and `inference` sections: chips from the
//! catalog on small topologies, training runs (an explicit mesh, often one whose degrees
//! do not multiply to the chip count or do not divide the heads, or a bounded search)
//! and serving plans. `Typical` and `Extreme` cases keep every field inside its
//! validation bounds (the plan may still be impossible: a mesh that does not fit the
//! topology, memory that does not fit); `Hostile` cases break fields (zero, negative,
//! NaN, infinite, huge, unknown axes) with the case's probability.
//!
//! Bounded for time: valid topologies have at most 4 axes of at most 16 chips and 512
//! chips in all, and every search is bounded (`search.max_microbatches` ≤ 8, at most
//! three remat policies) except one search in eight, which runs with the defaults (every
//! preset, 64 microbatches) on at most 64 chips. A million cases with unbounded searches
//! on thousands of chips would take hours in a debug build; the planner's own property
//! tests cover larger meshes.

use super::scenarios::{Gen, Mode};
use shardcalc_core::collectives::Network;
use shardcalc_core::dtype::DType;
use shardcalc_core::flops::MAX_SEQ_LEN;
use shardcalc_core::hardware::catalog;
use shardcalc_core::hardware::chip::Chip;
use shardcalc_core::hardware::query::{ChipSource, HardwareSection};
use shardcalc_core::hardware::topology::{AxisSpec, Topology};
use shardcalc_core::inference::options::{
    CommsOverlap, DenseSharding, InferenceSection, KvContext, KvNetwork, KvOverlap, KvSharding, KvTransfer,
    WeightSharding, WorkingMemory,
};
use shardcalc_core::inference::search::options::{ChipPrice, DeploymentMode, SearchOptions as ServingSearch};
use shardcalc_core::inference::speculative::{DraftCost, Speculative};
use shardcalc_core::inference::targets::ServingTargets;
use shardcalc_core::inference::traffic::{LengthShare, TrafficMix};
use shardcalc_core::training::mesh::Mesh;
use shardcalc_core::training::optimizer::{Optimizer, ZeroStage};
use shardcalc_core::training::pipeline::{Pipeline, Schedule};
use shardcalc_core::training::section::{GlobalBatch, SearchOptions, TrainingSection};
use shardcalc_core::training::setup::{AttentionKernel, MoeKernel};
use shardcalc_core::training::tensors::Remat;
use shardcalc_core::units::{BytesPerSec, Seconds};

/// Reals that break arithmetic.
const BAD_REALS: [f64; 12] =
    [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::MAX, 1e300, 5e-324, 1e-300, 2.0, 1e30];

const NETWORKS: [Network; 3] = [Network::ScaleUp, Network::ScaleOut, Network::DieToDie];

impl Gen<'_> {
    /// A real log-uniform in `[lo, hi]` (`lo > 0`), or (when hostile) a bad one.
    fn real(&mut self, lo: f64, hi: f64) -> f64 {
        if self.bad() {
            return self.r.pick(&BAD_REALS);
        }
        if self.mode == Mode::Extreme && self.r.chance(0.5) {
            return if self.r.chance(0.5) { hi } else { lo };
        }
        (lo.ln() + self.r.unit() * (hi.ln() - lo.ln())).exp().clamp(lo, hi)
    }

    /// A fraction in `(0, 1]`, or a bad one.
    fn fraction(&mut self) -> f64 {
        if self.r.chance(0.6) && !self.bad() {
            1.0
        } else {
            self.real(0.05, 1.0)
        }
    }

    /// `hardware`: a catalog chip (or a junk id, or a catalog chip edited as a custom
    /// chip with other per-hop latencies) and, most of the time, a topology.
    pub fn hardware(&mut self) -> HardwareSection {
        let chips = catalog::all();
        let chip = if self.bad() && self.r.chance(0.3) {
            ChipSource::Preset(self.r.pick(&["", "tpu-v9", "TPU-V5E", "h100 "]).into())
        } else {
            let c = &chips[self.r.below(chips.len() as u64) as usize];
            if self.r.chance(0.05) {
                ChipSource::Custom(Box::new(self.custom_latencies(c)))
            } else {
                ChipSource::Preset(c.id.clone())
            }
        };
        let topology = (!self.r.chance(0.1)).then(|| self.topology());
        HardwareSection { chip, topology }
    }

    /// A catalog chip as a custom chip whose scale-up and scale-out latencies are absent,
    /// from 10 ns to 1 ms, or (when hostile) bad.
    fn custom_latencies(&mut self, c: &Chip) -> Chip {
        let mut chip = catalog::with_provenance(c.clone());
        chip.scale_up.hop_latency = self.r.chance(0.8).then(|| Seconds(self.real(1e-8, 1e-3)));
        chip.scale_out.hop_latency = self.r.chance(0.8).then(|| Seconds(self.real(1e-8, 1e-3)));
        // A latency the catalog did not source needs no citation: drop the stale ones.
        chip.field_sources.retain(|f| !f.field.ends_with("hop_latency"));
        chip
    }

    /// A small topology: a TPU slice, a GPU cluster or free axes; now and then a
    /// unidirectional axis (refused unless it is a torus axis that wraps) or a per-hop
    /// latency override; when hostile, an axis of any size, a duplicate name, bad link or
    /// latency overrides or no axes at all.
    fn topology(&mut self) -> Topology {
        let small = |g: &mut Self| g.r.pick(&[1, 2, 2, 4, 4, 8, 16]);
        let mut t = match self.r.below(3) {
            0 => {
                let dims = self.r.in_range(1, 3) as usize;
                let shape: Vec<u64> = (0..dims).map(|_| small(self).min(8)).collect();
                let slices = self.r.pick(&[1, 1, 2, 4]);
                Topology::tpu_slice(&shape, slices)
            }
            1 => Topology::gpu_cluster(self.r.pick(&[1, 2, 4, 8]), self.r.pick(&[1, 1, 2, 4])),
            _ => {
                let n = self.r.in_range(1, 4);
                let axes =
                    (0..n).map(|i| AxisSpec::new(&format!("a{i}"), small(self), self.r.pick(&NETWORKS))).collect();
                Topology { axes }
            }
        };
        if self.r.chance(0.05) {
            let i = self.r.below(t.axes.len().max(1) as u64) as usize;
            if let Some(a) = t.axes.get_mut(i) {
                a.unidirectional = true;
            }
        }
        if self.r.chance(0.05) {
            let latency = Seconds(self.real(1e-8, 1e-3));
            if let Some(a) = t.axes.last_mut() {
                a.hop_latency = Some(latency);
            }
        }
        // Keep valid topologies small (the search's time grows with the chip count).
        while t.axes.iter().map(|a| a.size).product::<u64>() > 512 {
            if let Some(a) = t.axes.iter_mut().max_by_key(|a| a.size) {
                a.size /= 2;
            }
        }
        if self.bad() {
            match self.r.below(5) {
                0 => t.axes.clear(),
                1 => {
                    if let Some(a) = t.axes.first_mut() {
                        a.size = self.hostile_u64();
                    }
                }
                2 => {
                    if let Some(a) = t.axes.first().cloned() {
                        t.axes.push(a);
                    }
                }
                3 => {
                    if let Some(a) = t.axes.last_mut() {
                        a.link_one_way = Some(BytesPerSec(self.r.pick(&BAD_REALS)));
                    }
                }
                _ => {
                    if let Some(a) = t.axes.last_mut() {
                        a.wraparound = Some(true);
                        a.size = self.r.pick(&[3, 5, 7]);
                    }
                }
            }
        }
        t
    }

    /// Degrees multiplying to `chips` (`chips` split into random factors), or (one time
    /// in three, or when hostile) any small degrees: a mesh that does not match the chip
    /// count, or that does not divide the heads.
    fn mesh(&mut self, chips: u64) -> Mesh {
        let mut d = [1u64; 6];
        if self.r.chance(0.67) && chips > 0 {
            let mut left = chips;
            for p in 2..=left.min(1 << 12) {
                while left.is_multiple_of(p) && left > 1 {
                    let axis = self.r.below(6) as usize;
                    d[axis] = d[axis].saturating_mul(p);
                    left /= p;
                }
            }
            d[0] = d[0].saturating_mul(left);
        } else {
            d = d.map(|_| self.r.pick(&[1, 1, 1, 2, 3, 4, 8]));
        }
        if self.bad() {
            let axis = self.r.below(6) as usize;
            d[axis] = self.hostile_u64();
        }
        Mesh::from_degrees(d)
    }

    /// One of the remat presets.
    fn remat(&mut self) -> Remat {
        let i = self.r.below(Remat::PRESETS.len() as u64) as usize;
        Remat::PRESETS.get(i).cloned().unwrap_or_default()
    }

    /// `training`, for a topology of `chips` chips.
    pub fn training(&mut self, chips: u64) -> TrainingSection {
        let seq_len = self.num(1, MAX_SEQ_LEN.min(1 << 17));
        let global_batch = if self.r.chance(0.5) {
            GlobalBatch::Tokens(self.real(1.0, 1e8))
        } else {
            GlobalBatch::Sequences(self.num(1, 1 << 14))
        };
        let mut s = TrainingSection::new(global_batch, seq_len);
        s.token_budget = self.r.chance(0.7).then(|| self.real(1e6, 1e15));
        s.optimizer = self.r.pick(&[
            Optimizer::default(),
            Optimizer::Adam { master_weights: true },
            Optimizer::Adafactor { momentum: false },
            Optimizer::Sgd { momentum: true },
        ]);
        s.zero_stage = ZeroStage(if self.bad() { self.r.pick(&[4, 9, 255]) } else { self.r.below(4) as u8 });
        s.store_gradients = self.flag();
        s.remat = self.remat();
        s.dtypes.compute =
            if self.bad() { DType::Fp32 } else { self.r.pick(&[DType::Bf16, DType::Bf16, DType::Fp8, DType::Int8]) };
        let schedule = self.r.pick(&[Schedule::Gpipe, Schedule::OneFOneB, Schedule::Interleaved]);
        let virtual_stages = if schedule == Schedule::Interleaved || self.bad() { self.num(1, 4) } else { 1 };
        s.pipeline = Pipeline { schedule, virtual_stages };
        s.microbatches = self.r.chance(0.5).then(|| self.num(1, 16));
        s.efficiency.flops = self.fraction();
        s.efficiency.ici = self.fraction();
        s.efficiency.dcn = self.fraction();
        s.efficiency.pcie = self.fraction();
        s.efficiency.overlap = if self.bad() { self.r.pick(&BAD_REALS) } else { self.r.unit() };
        s.overlap.tensor = self.flag();
        s.overlap.context = self.flag();
        s.overlap.expert = self.flag();
        // Absent (the chip's default), on (refused on a chip without SparseCores) or off.
        s.overlap.sparse_core = self.r.pick(&[None, None, Some(true), Some(false)]);
        s.attention = self.r.pick(&[AttentionKernel::Flash, AttentionKernel::Materialized]);
        s.capacity_factor = if self.r.chance(0.7) { 1.0 } else { self.real(0.5, 64.0) };
        s.moe_kernel = self.r.pick(&[MoeKernel::Grouped, MoeKernel::Padded]);
        s.reserved_hbm_fraction =
            if self.bad() { self.r.pick(&BAD_REALS) } else { self.r.pick(&[0.0, 0.05, 0.05, 0.3, 0.99]) };
        s.price_per_chip_hour_usd = self.r.chance(0.5).then(|| self.real(0.01, 1e3));
        let explicit = self.r.chance(0.6);
        s.mesh = explicit.then(|| self.mesh(chips));
        // Searches are bounded unless the topology is small (see the module comment).
        s.search = if !explicit && chips <= 64 && self.r.chance(0.125) {
            None
        } else if !explicit || self.r.chance(0.2) {
            let remat = self.r.chance(0.7).then(|| {
                let n = self.r.in_range(1, 3);
                (0..n).map(|_| self.remat()).collect()
            });
            let zero_stages = self.r.chance(0.5).then(|| {
                let n = self.r.in_range(1, 3);
                (0..n).map(|_| ZeroStage(if self.bad() { 7 } else { self.r.below(4) as u8 })).collect()
            });
            let schedules = self.r.chance(0.5).then(|| {
                let lo = if self.bad() { 0 } else { 1 };
                let n = self.r.in_range(lo, 3);
                (0..n).map(|_| self.r.pick(&[Schedule::Gpipe, Schedule::OneFOneB, Schedule::Interleaved])).collect()
            });
            let max_virtual_stages = self.r.chance(0.5).then(|| if self.bad() { 0 } else { self.num(1, 8) });
            Some(SearchOptions {
                top: self.num(1, 5),
                remat,
                max_microbatches: self.num(1, 8),
                zero_stages,
                schedules,
                max_virtual_stages,
            })
        } else {
            None
        };
        s
    }

    /// `inference`, on a topology with axes `axes`.
    pub fn inference(&mut self, axes: &[String]) -> InferenceSection {
        let mut s = InferenceSection::new(self.num(1, 1 << 17), self.num(1, 1 << 14));
        let dtypes = [DType::Bf16, DType::Int8, DType::Int4, DType::Fp8, DType::Fp32, DType::Nvfp4, DType::Mxfp4];
        s.dtypes.weights = self.r.pick(&dtypes);
        s.dtypes.kv = self.r.pick(&dtypes);
        s.dtypes.compute = self.r.pick(&[DType::Bf16, DType::Int8, DType::Fp8, DType::Nvfp4]);
        s.batch = self.r.chance(0.7).then(|| self.num(1, 4096));
        s.request_rate = self.r.chance(0.2).then(|| self.real(1e-3, 1e6));
        s.reserved_hbm_fraction =
            if self.bad() { self.r.pick(&BAD_REALS) } else { self.r.pick(&[0.0, 0.0, 0.1, 0.5, 0.99]) };
        s.price_per_chip_hour_usd = self.r.chance(0.4).then(|| self.real(0.01, 1e3));
        s.kv_context = self.r.pick(&[KvContext::Full, KvContext::Mean]);
        s.comms_overlap = self.r.pick(&[CommsOverlap::Full, CommsOverlap::None]);
        s.working_memory = self.r.pick(&[WorkingMemory::Activations, WorkingMemory::Ignored]);
        s.prefill.mfu = self.r.chance(0.3).then(|| self.real(0.01, 1.0));
        s.prefill.chunk = self.r.chance(0.2).then(|| self.num(1, 1 << 14));
        let sh = &mut s.sharding;
        sh.weights = self.r.pick(&[WeightSharding::WeightStationary1d, WeightSharding::WeightStationary2d]);
        sh.kv = self.r.pick(&[KvSharding::Batch, KvSharding::Sequence, KvSharding::Replicate]);
        sh.dense = self.r.pick(&[DenseSharding::Tensor, DenseSharding::Tensor, DenseSharding::Data]);
        // Axes by name: the topology's own (split among the roles), or (hostile) unknown ones.
        let mut names: Vec<String> = axes.to_vec();
        if self.bad() {
            names.push(self.r.pick(&["q", "", "x"]).into());
        }
        for name in names {
            match self.r.below(5) {
                0 => sh.model_axes.get_or_insert_with(Vec::new).push(name),
                1 => sh.d_axes.push(name),
                2 => sh.expert_axes.push(name),
                _ => {}
            }
        }
        if self.r.chance(0.25) {
            let chips = catalog::all();
            s.prefill.chip = Some(if self.bad() && self.r.chance(0.3) {
                ChipSource::Preset(self.r.pick(&["", "tpu-v9"]).into())
            } else {
                ChipSource::Preset(chips[self.r.below(chips.len() as u64) as usize].id.clone())
            });
        }
        s.prefill.batch = self.r.chance(0.2).then(|| if self.bad() { self.hostile_u64() } else { self.num(1, 64) });
        s.prefill.price_per_chip_hour_usd = self.r.chance(0.1).then(|| self.real(0.01, 100.0));
        if self.r.chance(0.3) {
            s.kv_transfer = KvTransfer {
                network: self.r.pick(&[KvNetwork::ScaleOut, KvNetwork::ScaleUp]),
                bandwidth_per_chip: self.r.chance(0.3).then(|| BytesPerSec(self.real(1.0, 1e13))),
                latency: self.r.chance(0.3).then(|| shardcalc_core::units::Seconds(self.real(1e-9, 10.0))),
                overlap: self.r.pick(&[KvOverlap::None, KvOverlap::Layerwise]),
            };
        }
        // The search, bounded for time: one or two chips, small servers.
        if self.r.chance(0.06) {
            let chips = catalog::all();
            let n = self.r.in_range(1, 2);
            let mut ids: Vec<String> =
                (0..n).map(|_| chips[self.r.below(chips.len() as u64) as usize].id.clone()).collect();
            if self.bad() {
                ids.push(self.r.pick(&["", "tpu-v9"]).into());
            }
            let formats = [DType::Bf16, DType::Fp8, DType::Int8, DType::Int4, DType::Nvfp4];
            s.search = Some(ServingSearch {
                chips: ids,
                prices: if self.r.chance(0.3) {
                    vec![ChipPrice { chip: "tpu-v4".into(), usd_per_chip_hour: self.real(0.01, 100.0) }]
                } else {
                    Vec::new()
                },
                weights: if self.r.chance(0.3) {
                    vec![self.r.pick(&formats), self.r.pick(&formats)]
                } else {
                    Vec::new()
                },
                kv: if self.r.chance(0.3) { vec![self.r.pick(&formats)] } else { Vec::new() },
                modes: if self.r.chance(0.3) {
                    vec![self.r.pick(&[DeploymentMode::Colocated, DeploymentMode::Disaggregated])]
                } else {
                    Vec::new()
                },
                top: self.num(1, 5),
                max_chips_per_server: self.r.pick(&[1, 4, 8, 16]),
            });
            if self.r.chance(0.9) {
                s.request_rate = Some(self.real(1e-3, 30.0));
            }
        }
        s.token_budget = self.r.chance(0.3).then(|| if self.bad() { self.hostile_u64() } else { self.num(2, 1 << 15) });
        if self.r.chance(0.2) {
            let lengths = |g: &mut Self| {
                let n = if g.bad() { g.r.pick(&[0, 17, 40]) } else { g.r.in_range(0, 4) };
                (0..n)
                    .map(|_| LengthShare {
                        tokens: if g.bad() { g.hostile_u64() } else { g.num(1, 1 << 16) },
                        weight: if g.bad() { g.r.pick(&BAD_REALS) } else { g.real(1e-3, 1e3) },
                    })
                    .collect::<Vec<_>>()
            };
            let prompt = lengths(self);
            let output = lengths(self);
            s.traffic = Some(TrafficMix { prompt, output });
        }
        if self.r.chance(0.3) {
            let target = |g: &mut Self, lo: f64, hi: f64| g.r.chance(0.6).then(|| g.real(lo, hi));
            s.targets = ServingTargets {
                ttft_p50_s: target(self, 1e-3, 100.0),
                ttft_p99_s: target(self, 1e-3, 1000.0),
                tpot_s: target(self, 1e-4, 1.0),
            };
        }
        if self.r.chance(0.2) {
            let draft = if self.r.chance(0.8) {
                DraftCost::CostRatio(if self.bad() { self.r.pick(&BAD_REALS) } else { self.r.unit() * 0.5 })
            } else {
                DraftCost::Model(shardcalc_core::scenario::ModelSource::Preset("llama-3-8b".into()))
            };
            let acceptance = if self.bad() { self.r.pick(&BAD_REALS) } else { self.r.unit() };
            s.speculative = Some(Speculative { draft_len: self.num(1, 64), acceptance, draft });
        }
        s
    }
}
