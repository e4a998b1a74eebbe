//! The collectives a sharded forward pass runs per step (book 7.3.2, 7.3.3, Exercise
//! 7.7), costed on the real mesh axes with `collectives::collective_cost` — wraparound
//! or not, per-hop latency floor included (book 7.6.3: small decode batches are
//! latency-bound).
//!
//! Per layer, for `T` tokens in the step and activations of `|X|` bytes:
//! - attention and MLP blocks, 1D weight-stationary: one AllReduce of `[T, D]` over the
//!   model axes after each block (Megatron: gather in, reduce-scatter out);
//! - 2D weight-stationary: AllGather over the F axes of `[T, D/X]`, AllReduce over the D
//!   axes of the block's hidden activations `[T, hidden/YZ]`, ReduceScatter over the F
//!   axes;
//! - KV cache sharded beyond its heads (7.3.3): by batch, two AllToAlls of the attention
//!   activations `[T, N·H]` (Q in, O out); by sequence, an AllGather of Q and an
//!   AllReduce of the partial outputs. Both are costed over every model axis, an upper
//!   bound on the sub-mesh that really carries them;
//! - MoE layers with expert parallelism: dispatch and combine AllToAlls of the `T·k`
//!   routed token copies `[T·k, D]` over the expert axes, and the AllReduce over the
//!   other model axes;
//! - with data-parallel attention (`sharding.dense: data`), every block outside the
//!   experts runs on the `T / E_p` tokens of its expert-axis shard, so its AllReduces (and
//!   the KV cache's collectives) cover only the other model axes; the dispatch and
//!   combine AllToAlls are the same `[T·k, D]` arrays (each chip sends its `T·k/E_p`
//!   copies), and each expert's output rows (`T·k/E_p`) are all-reduced over the other
//!   model axes when the experts are also tensor-parallel.

use super::kv_sharding::KvLayout;
use super::options::{DenseSharding, WeightSharding};
use crate::collectives::{collective_cost, AxisLink, CollectiveKind};
use crate::error::Invalid;
use crate::model::{Attention, ModelConfig};
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};

/// The mesh of one serving replica, split the way the sharding uses it.
#[derive(Clone, Debug, PartialEq)]
pub struct ServingMesh {
    /// Axes the model is split over.
    pub model: Vec<AxisLink>,
    /// 2D weight-stationary: the model axes sharding D (the book's X).
    pub d_axes: Vec<AxisLink>,
    /// 2D weight-stationary: the other model axes, sharding F and the heads (YZ).
    pub f_axes: Vec<AxisLink>,
    /// MoE: the model axes the experts are split over.
    pub expert: Vec<AxisLink>,
    /// MoE: the model axes that are not expert axes.
    pub non_expert: Vec<AxisLink>,
    /// 1D or 2D.
    pub weights: WeightSharding,
    /// The weights outside the experts: tensor- or data-parallel over the expert axes.
    pub dense: DenseSharding,
    /// The KV cache's layout (over the axes that shard the attention: every model axis,
    /// or with data-parallel attention the non-expert ones).
    pub kv: KvLayout,
}

fn product(axes: &[AxisLink]) -> f64 {
    axes.iter().map(|a| a.size as f64).product()
}

impl ServingMesh {
    /// Y: chips one replica splits the model over.
    #[must_use]
    pub fn model_parallel(&self) -> f64 {
        product(&self.model)
    }

    /// E_p: chips the experts are split over (1 without expert parallelism).
    #[must_use]
    pub fn expert_parallel(&self) -> f64 {
        product(&self.expert)
    }

    /// True when the weights outside the experts are data-parallel over the expert axes.
    #[must_use]
    pub fn data_parallel_attention(&self) -> bool {
        self.dense == DenseSharding::Data && !self.expert.is_empty()
    }

    /// The axes that shard attention and the dense weights: every model axis, or with
    /// data-parallel attention the non-expert ones.
    #[must_use]
    pub fn dense_axes(&self) -> &[AxisLink] {
        if self.data_parallel_attention() {
            &self.non_expert
        } else {
            &self.model
        }
    }

    /// Chips sharing one copy of the dense weights: Y, or Y / E_p with data-parallel
    /// attention.
    #[must_use]
    pub fn dense_parallel(&self) -> f64 {
        product(self.dense_axes())
    }

    /// The share of a step's tokens one dense shard processes: 1, or 1 / E_p with
    /// data-parallel attention.
    #[must_use]
    pub fn dense_token_share(&self) -> f64 {
        if self.data_parallel_attention() {
            1.0 / self.expert_parallel()
        } else {
            1.0
        }
    }
}

/// Time of a step's collectives, summed over layers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CommsTime {
    /// Per collective `max(latency floor, bandwidth time)`, summed.
    pub time_s: Seconds,
    /// Hops × per-hop latency, summed.
    pub latency_floor_s: Seconds,
    /// Bytes over bandwidth, summed.
    pub bandwidth_time_s: Seconds,
    /// Of `time_s`, the MoE dispatch and combine AllToAlls over the expert axes.
    pub expert_all_to_all_s: Seconds,
}

impl CommsTime {
    /// True when the latency floor exceeds the bandwidth time (book 7.6.3).
    #[must_use]
    pub fn latency_bound(&self) -> bool {
        self.latency_floor_s > self.bandwidth_time_s
    }

    /// Add `times` runs of `kind` over `axes` for the array `v`; returns their time.
    fn add(&mut self, kind: CollectiveKind, v: f64, axes: &[AxisLink], times: f64) -> Result<Seconds, Invalid> {
        if times <= 0.0 || axes.is_empty() || product(axes) <= 1.0 {
            return Ok(Seconds::ZERO);
        }
        let c = collective_cost(kind, Bytes(v), axes)?;
        self.time_s += c.time * times;
        self.latency_floor_s += c.latency_floor * times;
        self.bandwidth_time_s += c.bandwidth_time * times;
        Ok(c.time * times)
    }
}

/// Width of the attention block's projected activations: `(N + 2K)·H` for MHA/GQA/MQA,
/// `N·(qk_nope + qk_rope) + kv_lora_rank + qk_rope` for MLA.
#[must_use]
pub fn attention_hidden(m: &ModelConfig) -> f64 {
    match &m.attention {
        Attention::Gqa(a) => (a.num_heads as f64 + 2.0 * a.num_kv_heads as f64) * a.head_dim as f64,
        Attention::Mla(a) => {
            let (n, rope) = (a.num_heads as f64, a.qk_rope_head_dim as f64);
            n * (a.qk_nope_head_dim as f64 + rope) + a.kv_lora_rank as f64 + rope
        }
    }
}

/// Width of the attention output before `W_O`: `N·H` (`N·v_head_dim` for MLA).
#[must_use]
pub fn attention_output_width(m: &ModelConfig) -> f64 {
    match &m.attention {
        Attention::Gqa(a) => a.num_heads as f64 * a.head_dim as f64,
        Attention::Mla(a) => a.num_heads as f64 * a.v_head_dim as f64,
    }
}

/// One collective of a step: `times` runs of `kind` over `axes` on an array of
/// `bytes_per_token × tokens` bytes (every array of the serving step is linear in its
/// tokens).
#[derive(Clone, Debug, PartialEq)]
pub struct StepCollective<'m> {
    /// Which collective.
    pub kind: CollectiveKind,
    /// Over which axes.
    pub axes: &'m [AxisLink],
    /// Array bytes per token of the step.
    pub bytes_per_token: f64,
    /// Runs per step (layers, twice for dispatch and combine).
    pub times: f64,
    /// A MoE dispatch or combine AllToAll.
    pub expert: bool,
}

/// One block (attention or MLP) under the weight sharding: `hidden` is the width of
/// the activations between its two matmuls; 1D blocks reduce over `axes`. Sizes per
/// token: `rows` is the share of the step's tokens a shard runs.
#[allow(clippy::too_many_arguments)]
fn block<'m>(
    out: &mut Vec<StepCollective<'m>>,
    mesh: &'m ServingMesh,
    axes: &'m [AxisLink],
    rows: f64,
    d: f64,
    hidden: f64,
    a: f64,
    times: f64,
) {
    let mut push = |kind, axes, bytes_per_token| {
        out.push(StepCollective { kind, axes, bytes_per_token, times, expert: false });
    };
    match mesh.weights {
        WeightSharding::WeightStationary1d => push(CollectiveKind::AllReduce, axes, rows * d * a),
        WeightSharding::WeightStationary2d => {
            let x = product(&mesh.d_axes);
            let yz = product(&mesh.f_axes);
            push(CollectiveKind::AllGather, &mesh.f_axes, rows * d * a / x);
            push(CollectiveKind::AllReduce, &mesh.d_axes, rows * hidden * a / yz);
            push(CollectiveKind::ReduceScatter, &mesh.f_axes, rows * d * a / x);
        }
    }
}

/// The collectives of one forward step (see the module docs), per token, with
/// activations of `activation_bytes`; `kv_resharding` adds the attention AllToAlls (or
/// gathers) of a KV cache sharded beyond its heads. Collectives over one chip are left out.
#[must_use]
pub fn step_collectives<'m>(
    m: &ModelConfig,
    mesh: &'m ServingMesh,
    activation_bytes: f64,
    kv_resharding: bool,
) -> Vec<StepCollective<'m>> {
    let mut out = Vec::new();
    let (a, d) = (activation_bytes, m.d_model as f64);
    let layers = m.num_layers as f64;
    let (moe_layers, dense_layers) = m.moe_and_dense_layers();
    // Rows each dense shard runs, per token of the step, and the axes its collectives span.
    let rows = mesh.dense_token_share();
    let axes = mesh.dense_axes();
    block(&mut out, mesh, axes, rows, d, attention_hidden(m), a, layers);
    if kv_resharding && mesh.kv.other_shards > 1 {
        let o = rows * attention_output_width(m) * a;
        let mut push = |kind, times| out.push(StepCollective { kind, axes, bytes_per_token: o, times, expert: false });
        match mesh.kv.mode {
            super::options::KvSharding::Batch => push(CollectiveKind::AllToAll, 2.0 * layers),
            super::options::KvSharding::Sequence => {
                push(CollectiveKind::AllGather, layers);
                push(CollectiveKind::AllReduce, layers);
            }
            super::options::KvSharding::Replicate => {}
        }
    }
    let gated = m.mlp.kind.matrices().saturating_sub(1) as f64;
    block(&mut out, mesh, axes, rows, d, gated * m.mlp.d_ff as f64, a, dense_layers as f64);
    if let Some(moe) = &m.moe {
        let k = moe.experts_per_token as f64;
        let n = moe_layers as f64;
        if mesh.expert.is_empty() {
            block(&mut out, mesh, axes, rows, d, gated * k * moe.expert_d_ff as f64, a, n);
        } else {
            out.push(StepCollective {
                kind: CollectiveKind::AllToAll,
                axes: &mesh.expert,
                bytes_per_token: k * d * a,
                times: 2.0 * n,
                expert: true,
            });
            let reduced = if mesh.data_parallel_attention() { k / mesh.expert_parallel() } else { 1.0 };
            out.push(StepCollective {
                kind: CollectiveKind::AllReduce,
                axes: &mesh.non_expert,
                bytes_per_token: reduced * d * a,
                times: n,
                expert: false,
            });
        }
    }
    out.retain(|c| c.times > 0.0 && !c.axes.is_empty() && product(c.axes) > 1.0);
    out
}

impl CommsTime {
    fn add_collective(&mut self, c: &StepCollective, tokens: f64) -> Result<(), Invalid> {
        let t = self.add(c.kind, c.bytes_per_token * tokens, c.axes, c.times)?;
        if c.expert {
            self.expert_all_to_all_s += t;
        }
        Ok(())
    }
}

/// The collectives of one forward step over `tokens` tokens (the whole batch, or a
/// prefill chunk) with activations of `activation_bytes`; `kv_resharding` adds the
/// attention AllToAlls (or gathers) of a KV cache sharded beyond its heads.
///
/// # Errors
/// Non-finite sizes (never from a validated scenario), named by the collective's field.
pub fn step_comms(
    m: &ModelConfig,
    mesh: &ServingMesh,
    tokens: f64,
    activation_bytes: f64,
    kv_resharding: bool,
) -> Result<CommsTime, Invalid> {
    let mut c = CommsTime::default();
    for term in step_collectives(m, mesh, activation_bytes, kv_resharding) {
        c.add_collective(&term, tokens)?;
    }
    Ok(c)
}

/// One network's share of a collective: `max(hops × latency, V × seconds_per_byte)` for
/// the full array V.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Leg {
    latency: Seconds,
    seconds_per_byte: f64,
}

#[derive(Clone, Debug, PartialEq)]
struct CurveTerm {
    bytes_per_token: f64,
    times: f64,
    expert: bool,
    /// One leg per network the collective crosses.
    legs: Vec<Leg>,
}

/// The legs of `kind` over `axes`, as `collective_cost` adds them up (`collectives` module
/// docs): within one network `max(latency floor, V_g / rate)`; networks nest inner first,
/// so a gather's network sees the array divided by the sizes of the networks inside it,
/// and an AllToAll's by every other network's size. Each leg is `collective_cost` on that
/// network's axes alone at a one-byte array (its latency does not depend on the array).
fn legs(kind: CollectiveKind, axes: &[AxisLink]) -> Result<Vec<Leg>, Invalid> {
    let networks = crate::collectives::networks_of(axes);
    let groups: Vec<Vec<AxisLink>> =
        networks.iter().map(|n| axes.iter().filter(|a| a.network == *n).cloned().collect()).collect();
    let sizes: Vec<f64> = groups.iter().map(|g| product(g)).collect();
    let (pattern, _) = kind.pattern_and_passes();
    groups
        .iter()
        .enumerate()
        .map(|(g, group)| {
            let others: f64 = match pattern {
                crate::collectives::Pattern::Gather => sizes.iter().take(g).product(),
                crate::collectives::Pattern::AllToAll => {
                    sizes.iter().enumerate().filter(|(h, _)| *h != g).map(|(_, s)| s).product()
                }
            };
            let one = collective_cost(kind, Bytes(1.0), group)?;
            Ok(Leg { latency: one.latency_floor, seconds_per_byte: one.bandwidth_time.get() / others })
        })
        .collect()
}

/// [`step_comms`] as a function of the step's tokens, precomputed once per mesh: the
/// serving search and the continuous-batching model ask for thousands of steps.
#[derive(Clone, Debug, PartialEq)]
pub struct CommsCurve {
    terms: Vec<CurveTerm>,
}

impl CommsCurve {
    /// The curve of [`step_collectives`].
    ///
    /// # Errors
    /// From `collective_cost` (non-finite link rates or latencies).
    pub fn new(
        m: &ModelConfig,
        mesh: &ServingMesh,
        activation_bytes: f64,
        kv_resharding: bool,
    ) -> Result<Self, Invalid> {
        let terms = step_collectives(m, mesh, activation_bytes, kv_resharding)
            .into_iter()
            .map(|c| {
                Ok(CurveTerm {
                    bytes_per_token: c.bytes_per_token,
                    times: c.times,
                    expert: c.expert,
                    legs: legs(c.kind, c.axes)?,
                })
            })
            .collect::<Result<Vec<_>, Invalid>>()?;
        Ok(Self { terms })
    }

    /// The step's collectives over `tokens` tokens; the same numbers as [`step_comms`].
    ///
    /// # Errors
    /// Non-finite or out-of-range array sizes, as `collective_cost`.
    pub fn at(&self, tokens: f64) -> Result<CommsTime, Invalid> {
        let mut c = CommsTime::default();
        for t in &self.terms {
            let v = t.bytes_per_token * tokens;
            if !(v.is_finite() && (0.0..=crate::hardware::MAX_QUANTITY).contains(&v)) {
                return Err(Invalid::one("array_bytes", "is not a finite number of bytes up to 1e30"));
            }
            let mut time = Seconds::ZERO;
            for leg in &t.legs {
                let bandwidth = Seconds(v * leg.seconds_per_byte);
                c.latency_floor_s += leg.latency * t.times;
                c.bandwidth_time_s += bandwidth * t.times;
                time += leg.latency.max(bandwidth) * t.times;
            }
            c.time_s += time;
            if t.expert {
                c.expert_all_to_all_s += time;
            }
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collectives::{AxisShape, Network};
    use crate::inference::kv_sharding::kv_layout;
    use crate::inference::options::KvSharding;
    use crate::presets;
    use crate::units::BytesPerSec;

    fn line(name: &str, size: u64) -> AxisLink {
        AxisLink {
            name: name.into(),
            size,
            network: Network::ScaleUp,
            shape: AxisShape::Line,
            link: BytesPerSec(4.5e10),
            hop_latency: Seconds(1e-6),
        }
    }

    fn mesh(axes: Vec<AxisLink>, kv: KvLayout) -> ServingMesh {
        ServingMesh {
            model: axes.clone(),
            d_axes: Vec::new(),
            f_axes: Vec::new(),
            expert: Vec::new(),
            non_expert: axes,
            weights: WeightSharding::WeightStationary1d,
            dense: DenseSharding::Tensor,
            kv,
        }
    }

    #[test]
    fn small_decode_batches_are_latency_bound() {
        // LLaMA 3-70B on a v5e 4x2 (no wraparound) at batch 32 in bf16: 160 AllReduces
        // of 512 KiB, each 2 × (3 + 1) hops of 1 µs against about 7 µs of transfer.
        let m = presets::get("llama-3-70b").unwrap().config;
        let mesh = mesh(vec![line("x", 4), line("y", 2)], kv_layout(8, 8, KvSharding::Batch));
        let c = step_comms(&m, &mesh, 32.0, 2.0, true).unwrap();
        assert!(c.latency_bound());
        assert!((c.latency_floor_s.get() - 160.0 * 8e-6).abs() < 1e-9, "{c:?}");
        let single = mesh_single();
        assert_eq!(step_comms(&m, &single, 32.0, 2.0, true).unwrap().time_s, Seconds::ZERO);
    }

    fn mesh_single() -> ServingMesh {
        mesh(Vec::new(), kv_layout(8, 1, KvSharding::Batch))
    }

    /// The precomputed curve gives `step_comms`'s numbers on tori, switches and a mesh over
    /// two networks, with and without the KV cache's collectives.
    #[test]
    fn curve_equals_step_comms() {
        use crate::hardware::catalog;
        use crate::hardware::topology::Topology;
        let m = presets::get("llama-3-70b").unwrap().config;
        let moe = presets::get("deepseek-v3").unwrap().config;
        for (chip, topo) in [
            ("tpu-v5e", Topology::tpu_slice(&[4, 4], 1)),
            ("tpu-v5p", Topology::tpu_slice(&[4, 4, 4], 1)),
            ("h100-sxm", Topology::gpu_cluster(8, 1)),
            ("h100-sxm", Topology::gpu_cluster(8, 2)),
        ] {
            let c = catalog::get(chip).unwrap();
            let axes = topo.resolve(&c).unwrap();
            for model in [&m, &moe] {
                let kv = kv_layout(crate::kv_cache::kv_heads(model), product(&axes) as u64, KvSharding::Batch);
                let mut mesh = mesh(axes.clone(), kv);
                if model.moe.is_some() {
                    mesh.expert = axes.clone();
                    mesh.non_expert = Vec::new();
                }
                for resharding in [true, false] {
                    let curve = CommsCurve::new(model, &mesh, 2.0, resharding).unwrap();
                    for tokens in [1.0, 7.0, 100.0, 4096.0, 1e6] {
                        let want = step_comms(model, &mesh, tokens, 2.0, resharding).unwrap();
                        let got = curve.at(tokens).unwrap();
                        let close =
                            |a: Seconds, b: Seconds| (a.get() - b.get()).abs() <= 1e-12 * a.get().abs().max(1e-30);
                        assert!(close(got.time_s, want.time_s), "{chip} {tokens}: {got:?} vs {want:?}");
                        assert!(close(got.latency_floor_s, want.latency_floor_s));
                        assert!(close(got.bandwidth_time_s, want.bandwidth_time_s));
                        assert!(close(got.expert_all_to_all_s, want.expert_all_to_all_s));
                    }
                }
            }
        }
    }

    #[test]
    fn batch_sharded_kv_adds_alltoalls() {
        let m = presets::get("llama-3-70b").unwrap().config;
        let wide = mesh(vec![line("x", 4), line("y", 4)], kv_layout(8, 16, KvSharding::Batch));
        let with = step_comms(&m, &wide, 64.0, 2.0, true).unwrap();
        let without = step_comms(&m, &wide, 64.0, 2.0, false).unwrap();
        assert!(with.time_s > without.time_s);
    }

    /// Expert parallelism over two torus axes: the dispatch and combine AllToAlls of a
    /// MoE layer cost the bisection bound, the slower axis's `n·B/(4W)` on lines (B = the
    /// shard on one chip), not a gather-like sum over the axes. Making the 8-chip axis's
    /// links (nearly) free leaves the 4-chip axis binding: each AllToAll drops from
    /// `8·B/(4W)` to `4·B/(4W)`, and nothing else in the step changes.
    #[test]
    fn expert_alltoalls_over_two_axes_are_bisection_bound() {
        let m = presets::get("qwen3-30b-a3b").unwrap().config;
        let k = m.moe.as_ref().unwrap().experts_per_token as f64;
        let (x, y) = (line("x", 4), line("y", 8));
        let base = mesh(vec![x.clone(), y.clone()], kv_layout(4, 1, KvSharding::Batch));
        let ep = |fast_y: bool| {
            let y = AxisLink { link: if fast_y { BytesPerSec(4.5e16) } else { y.link }, ..y.clone() };
            ServingMesh { expert: vec![x.clone(), y], non_expert: Vec::new(), ..base.clone() }
        };
        let (t, a) = (4096.0, 2.0);
        let shard = t * k * m.d_model as f64 * a / 32.0;
        let alltoalls = 2.0 * m.moe_and_dense_layers().0 as f64;
        let slow = step_comms(&m, &ep(false), t, a, false).unwrap().bandwidth_time_s.get();
        let fast = step_comms(&m, &ep(true), t, a, false).unwrap().bandwidth_time_s.get();
        let hand = alltoalls * (8.0 - 4.0) * shard / (4.0 * 4.5e10);
        assert!(((slow - fast) - hand).abs() < 1e-9 * hand, "{} vs {hand}", slow - fast);
    }
}
