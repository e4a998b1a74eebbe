//! The kernels of one microbatch on one device, timed (issue 16): the physical step model
//! the calibrated prediction runs, and the roofline it is bounded by.
//!
//! **Roofline** (`conventions.prediction: ideal`): the hardware FLOPs of the convention at
//! the peak (× `efficiency.flops`); nothing else costs time on the device (book 5.1).
//!
//! **Physical model** (`calibrated`): every kernel the step runs, each at the rate its
//! shape allows on the chip ([`crate::efficiency`]), with the five calibrated physical
//! parameters ([`crate::efficiency::calibration`]):
//!
//! | term | what it counts | source |
//! |---|---|---|
//! | `matmul` | every weight matmul forward and its two backward matmuls, per-device shapes after TP/EP sharding, padded to the MXU tile, at the tiled kernel's roofline; recomputed ones again | [`crate::efficiency::matmul`]; MaxText custom-model guide (MXU 128/256) |
//! | `attention` | flash/splash: the pairs its blocks compute (causal: diagonal blocks whole), at the head dimension's MXU utilisation, backward 3.5× (TPU splash, separate dQ/dKV kernels) or 2.5× (GPU FlashAttention-2) the forward; on GPUs at cuDNN's measured flash-attention rate for the sequence length rather than the matmul's; materialised: the full square plus 30 bytes of score traffic per pair and head | [`crate::efficiency::attention`], [`crate::efficiency::rates::MeasuredAttention`]; MaxText `sa_*` settings; the Ironwood guide |
//! | `elementwise` | norms, rotary, residual adds, activations (and their re-run under every remat policy but `none`), the embedding | [`super::shapes`]' table, bytes ÷ achieved HBM bandwidth |
//! | `loss` | the logits' log-softmax and its gradient over the vocabulary | the same |
//! | `moe` | router, token permute and unpermute; for padded experts the dispatch and combine einsums (`BSM,BSEC→EBCM`: 2·S·k·cf·d FLOPs per token each) | MaxText `layers/moe.py` |
//! | `optimizer` | the update reads weights, gradients, moments (and master weights) and writes weights and moments, per device shard, once a step; gradient accumulation reads and writes the accumulator every further microbatch | [`optimizer_bytes_per_param`] |
//!
//! **MoE matmuls.** Grouped (Megablox, MaxText's default `sparse_matmul`): each device's
//! rows (`tokens × k`, all its local experts) in one ragged matmul whose row tiles
//! (`wi_tile_fwd_batch_seq = 512`, MaxText base.yml) are computed once for every expert
//! group they overlap: one extra tile per group boundary; with EP the busiest device sets
//! the pace, `1 + √(2·ln EP·(1 − 1/EP)/μ)` times the mean load μ for uniform routing (the
//! expected maximum of EP binomial loads). Padded (`sparse_matmul: false`): every expert
//! computes its capacity, `capacity_factor` × its balanced share (tokens beyond it are
//! dropped, never waited for).
//!
//! **Ironwood's features** (issue 16, item 7). *Quantized matmuls*: `dtypes.compute = fp8`
//! (or `int8`) is MaxText's `quantization` through Qwix (`layers/quantizations.py`): its
//! rule matches `decoder/.*layers.*` and, for the Ironwood recipes' `fp8_full`, the ops
//! `dot_general`, `gmm` and `ragged_dot` — every weight matmul of the decoder layers
//! (experts included) forward and both backward (`bwd_qtype` fp8 e5m2), at the format's
//! peak and 1-byte operands ([`KernelRates::quantized`]); splash attention's QKᵀ and PV are
//! Pallas kernels outside the rule and the logits (`decoder/logits_dense`, the shared
//! embedding) are outside `layers`: both stay bf16. Quantize and dequantize are not counted
//! (the recipes use static scales). *SparseCore offload*: `step.rs`'s overlap of the
//! offloaded kinds. *The die-to-die axis*: a chiplet is a device (`Setup::devices_per_chip`);
//! its peak, HBM bandwidth and on-chip memory are the chip's divided by the chiplets
//! ([`KernelRates::new`]), and so are its ICI and DCN links (`hardware::topology`).

use super::memory::microbatch_tokens;
use super::setup::{AttentionKernel, MeshContext, MoeKernel, Setup};
use super::shapes::{KernelShapes, MatmulKind, Split3, TpSplit};
use crate::efficiency::attention::{
    executed_pairs, head_dim_utilization, materialized_pairs, MATERIALIZED_BACKWARD_BYTES, MATERIALIZED_FORWARD_BYTES,
};
use crate::efficiency::matmul::matmul_seconds_fwd_bwd;
use crate::efficiency::KernelRates;
use crate::model::LocalAttention;

/// Row tile of the grouped (Megablox) matmul: MaxText's `wi_tile_fwd_batch_seq` (base.yml).
pub const GROUPED_ROW_TILE: f64 = 512.0;

/// Seconds of one microbatch's kernels on one device, per pass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KernelTimes {
    /// Weight matmuls, forward.
    pub matmul_forward: f64,
    /// Weight matmuls, backward (without recompute).
    pub matmul_backward: f64,
    /// Seconds per recomputed forward FLOP, the FLOPs counted over the whole step and all
    /// devices (as [`super::tensors::RematCost::recompute_flops_per_token`] × tokens).
    pub seconds_per_recomputed_flop: f64,
    /// Attention, forward (what a recompute of the context costs again).
    pub attention_forward: f64,
    /// Attention, backward (without recompute).
    pub attention_backward: f64,
    /// Norms, rotary, residuals, activations, embedding: forward.
    pub elementwise_forward: f64,
    /// Their backward.
    pub elementwise_backward: f64,
    /// The layers' forward elementwise work again, when a policy recomputes it.
    pub elementwise_recompute: f64,
    /// Log-softmax over the vocabulary, forward.
    pub loss_forward: f64,
    /// Its gradient.
    pub loss_backward: f64,
    /// MoE router, permutes, padded dispatch: forward (again when the MLP is recomputed).
    pub moe_forward: f64,
    /// Their backward.
    pub moe_backward: f64,
}

impl KernelTimes {
    /// Forward seconds.
    #[must_use]
    pub fn forward(&self) -> f64 {
        self.matmul_forward + self.attention_forward + self.elementwise_forward + self.loss_forward + self.moe_forward
    }

    /// Backward seconds without recompute.
    #[must_use]
    pub fn backward(&self) -> f64 {
        self.matmul_backward
            + self.attention_backward
            + self.elementwise_backward
            + self.loss_backward
            + self.moe_backward
    }

    /// Every term times `factor`: the slowest pipeline stage's share when stages are
    /// uneven ([`super::setup::MeshContext::stage_imbalance`]).
    #[must_use]
    pub fn scaled(&self, factor: f64) -> Self {
        Self {
            matmul_forward: self.matmul_forward * factor,
            matmul_backward: self.matmul_backward * factor,
            seconds_per_recomputed_flop: self.seconds_per_recomputed_flop * factor,
            attention_forward: self.attention_forward * factor,
            attention_backward: self.attention_backward * factor,
            elementwise_forward: self.elementwise_forward * factor,
            elementwise_backward: self.elementwise_backward * factor,
            elementwise_recompute: self.elementwise_recompute * factor,
            loss_forward: self.loss_forward * factor,
            loss_backward: self.loss_backward * factor,
            moe_forward: self.moe_forward * factor,
            moe_backward: self.moe_backward * factor,
        }
    }
}

/// Optimizer-update HBM bytes per parameter of the device's shard: read and write the
/// weights (`w` bytes each way), read the gradient twice (the global-norm clip, then the
/// update: `2g`), read and write every optimizer-state element (`s` of them, `o` bytes),
/// read and write the fp32 master copy when kept (8).
#[must_use]
pub fn optimizer_bytes_per_param(w: f64, g: f64, state_elements: f64, o: f64, master: bool) -> f64 {
    2.0 * w + 2.0 * g + 2.0 * state_elements * o + if master { 8.0 } else { 0.0 }
}

/// Gradient-accumulation HBM bytes per parameter and further microbatch: read the
/// accumulator and the new gradient, write the sum.
#[must_use]
pub fn accumulation_bytes_per_param(g: f64) -> f64 {
    3.0 * g
}

/// Expected busiest-device load over the mean when `mean` routed rows spread uniformly
/// over `groups` devices (binomial, normal approximation of the expected maximum).
#[must_use]
pub fn routing_imbalance(groups: f64, mean: f64) -> f64 {
    if groups <= 1.0 || mean <= 0.0 {
        return 1.0;
    }
    1.0 + (2.0 * groups.ln() * (1.0 - 1.0 / groups) / mean).sqrt()
}

fn split3(x: &Split3, tp: f64, kv: f64) -> f64 {
    x[0] / tp + x[1] / kv + x[2]
}

/// The per-device kernel times of one microbatch under the physical model.
#[must_use]
pub fn physical_times(setup: &Setup, mc: &MeshContext, microbatches: u64, r: &KernelRates) -> KernelTimes {
    let p = &setup.profile;
    let s: &KernelShapes = &p.shapes;
    let o = &setup.options;
    let mesh = &mc.mesh;
    let d = |x: u64| x.max(1) as f64;
    let (tp, ep, pp, cp) = (d(mesh.tp), d(mesh.ep), d(mesh.pp), d(mesh.cp));
    let kv = p.kv_split(mesh.tp);
    let m = microbatches.max(1) as f64;
    let tok = microbatch_tokens(setup, mc, microbatches);
    let e = r.element_bytes;

    // Weight matmuls: the decoder layers' in the quantized format when there is one, the
    // logits in bf16.
    let quantized = r.quantized();
    let mut t = KernelTimes::default();
    let (mut layer_seconds, mut layer_flops) = (0.0, 0.0);
    for w in &s.matmuls {
        let r = if w.kind == MatmulKind::Logits { r } else { &quantized };
        let (k, n) = match w.split {
            TpSplit::Output => (w.k, w.n / tp),
            TpSplit::Contracting => (w.k / tp, w.n),
            TpSplit::KvHeads => (w.k, w.n / kv),
            TpSplit::Replicated => (w.k, w.n),
        };
        let layers = w.layers / pp;
        let (fwd, bwd, flops) = match w.kind {
            MatmulKind::Dense | MatmulKind::Logits => {
                let (f, b) = matmul_seconds_fwd_bwd(tok, k, n, layers, r);
                (f, b, 2.0 * tok * k * n * layers)
            }
            MatmulKind::Expert => {
                let rows = tok * s.experts_per_token;
                let local = (s.experts / ep).max(1.0);
                let per_expert = match o.moe_kernel {
                    MoeKernel::Grouped => {
                        rows * routing_imbalance(ep, rows) / local + (local - 1.0) * GROUPED_ROW_TILE / local
                    }
                    MoeKernel::Padded => o.capacity_factor * rows / local,
                };
                let (f, b) = matmul_seconds_fwd_bwd(per_expert.max(1.0), k, n, layers * local, r);
                (f, b, 2.0 * rows * k * n * layers)
            }
        };
        t.matmul_forward += fwd;
        t.matmul_backward += bwd;
        if w.kind != MatmulKind::Logits {
            layer_seconds += fwd;
            layer_flops += flops;
        }
    }
    // Recomputed matmuls run at the layers' average forward rate; the FLOPs arrive as the
    // step's total over all devices.
    let per_flop = if layer_flops > 0.0 { layer_seconds / layer_flops } else { 1.0 / r.matmul };
    t.seconds_per_recomputed_flop = per_flop / (m * setup.devices.max(1) as f64);

    // Padded experts' dispatch and combine einsums (MaxText dense_matmul): 2·S·k·cf·d/TP
    // FLOPs per token each forward, twice that backward, at the sustained rate.
    let hbm = |elements: f64| elements * e / r.hbm;
    let moe_layers = p.moe_layers as f64 / pp;
    if s.experts > 0.0 && o.moe_kernel == MoeKernel::Padded {
        let einsums = 2.0 * 2.0 * setup.seq_len as f64 * s.experts_per_token * o.capacity_factor * p.d_model / tp;
        let f = tok * einsums * moe_layers / quantized.matmul;
        t.moe_forward += f;
        t.moe_backward += 2.0 * f;
    }
    let moe = hbm(tok * split3(&s.elementwise.moe, tp, kv) / pp);
    t.moe_forward += moe;
    t.moe_backward += moe;

    // Attention: the device's sequences of the microbatch (queries over CP), its heads.
    let a = &s.attention;
    let seq = setup.seq_len as f64;
    let sequences = tok * cp / seq.max(1.0);
    let heads = a.heads / tp;
    let flops_per_pair = 2.0 * (a.qk + a.v) * heads / head_dim_utilization(a.qk, a.v, r.tile);
    let sequences_here = sequences / (cp * pp);
    let backward_matmuls = r.attention.backward_matmuls;
    // Forward and backward seconds of `pairs` pairs per sequence at (forward, backward) FLOP/s.
    let time = |pairs: f64, (f, b): (f64, f64)| {
        let flops = sequences_here * pairs * flops_per_pair;
        (flops / f, backward_matmuls * flops / b)
    };
    let ((forward, backward), traffic) = match o.attention {
        AttentionKernel::Flash => {
            let b = r.attention.block;
            // A local layer's queries see at most its window (chunk) of keys: the kernel's
            // rate is that length's.
            let span = match a.local {
                Some(LocalAttention::SlidingWindow { window }) => seq.min(window as f64),
                Some(LocalAttention::Chunked { chunk }) => seq.min(chunk as f64),
                None => seq,
            };
            let global = time(a.global_layers * executed_pairs(seq, None, b), r.flash_attention(seq));
            let local = time(a.local_layers * executed_pairs(seq, a.local, b), r.flash_attention(span));
            ((global.0 + local.0, global.1 + local.1), 0.0)
        }
        AttentionKernel::Materialized => {
            let all = (a.global_layers + a.local_layers) * materialized_pairs(seq);
            (time(all, (r.matmul, r.matmul)), all)
        }
    };
    t.attention_forward = forward;
    t.attention_backward = backward;
    if traffic > 0.0 {
        let scores = sequences * traffic / (cp * pp) * heads;
        t.attention_forward += scores * MATERIALIZED_FORWARD_BYTES / r.hbm;
        t.attention_backward += scores * MATERIALIZED_BACKWARD_BYTES / r.hbm;
    }

    // Elementwise: the layers on this stage; the embedding and loss once a step (spread
    // over the stages as the planner spreads every FLOP).
    let el = &s.elementwise;
    t.elementwise_recompute = hbm(tok * split3(&el.layers_forward, tp, kv) / pp);
    t.elementwise_forward = t.elementwise_recompute + hbm(tok * split3(&el.step_forward, tp, kv) / pp);
    t.elementwise_backward = hbm(tok * (split3(&el.layers_backward, tp, kv) + split3(&el.step_backward, tp, kv)) / pp);
    t.loss_forward = hbm(tok * split3(&el.loss_forward, tp, kv) / pp);
    t.loss_backward = hbm(tok * split3(&el.loss_backward, tp, kv) / pp);
    t
}

/// The per-device kernel times of one microbatch under the roofline: the convention's
/// hardware FLOPs at `seconds_per_flop` (one microbatch on one device).
#[must_use]
pub fn roofline_times(
    forward_flops: f64,
    backward_flops: f64,
    attention_flops: f64,
    seconds_per_flop: f64,
) -> KernelTimes {
    KernelTimes {
        matmul_forward: (forward_flops - attention_flops) * seconds_per_flop,
        matmul_backward: (backward_flops - 2.0 * attention_flops) * seconds_per_flop,
        seconds_per_recomputed_flop: seconds_per_flop,
        attention_forward: attention_flops * seconds_per_flop,
        attention_backward: 2.0 * attention_flops * seconds_per_flop,
        ..KernelTimes::default()
    }
}

/// Seconds of the once-a-step HBM work on one device: the optimizer update over its
/// shard, and gradient accumulation for every microbatch after the first.
#[must_use]
pub fn step_update_seconds(setup: &Setup, mc: &MeshContext, microbatches: u64, r: &KernelRates) -> (f64, f64) {
    let o = &setup.options;
    let dt = &o.dtypes;
    let state = o.optimizer.state_per_param(setup.profile.factored_fraction);
    let per_param = optimizer_bytes_per_param(
        dt.weights.bytes(),
        dt.gradients.bytes(),
        state,
        dt.optimizer.bytes(),
        o.optimizer.master_weights(),
    );
    let update = mc.params / mc.dp_optimizer_shards * per_param / r.hbm;
    let further = microbatches.max(1) as f64 - 1.0;
    let accumulate =
        further * mc.params / mc.dp_gradient_shards * accumulation_bytes_per_param(dt.gradients.bytes()) / r.hbm;
    (update, accumulate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optimizer_bytes_by_hand() {
        // MaxText's AdamW: fp32 weights, gradients and both moments: 8 + 8 + 16 = 32 B.
        assert_eq!(optimizer_bytes_per_param(4.0, 4.0, 2.0, 4.0, false), 32.0);
        // bf16 weights and gradients, fp32 moments, fp32 master copy: 4 + 4 + 16 + 8 = 32.
        assert_eq!(optimizer_bytes_per_param(2.0, 2.0, 2.0, 4.0, true), 32.0);
        // SGD without momentum: weights and gradients only.
        assert_eq!(optimizer_bytes_per_param(2.0, 2.0, 0.0, 4.0, false), 8.0);
        assert_eq!(accumulation_bytes_per_param(4.0), 12.0);
    }

    #[test]
    fn imbalance_of_uniform_routing() {
        assert_eq!(routing_imbalance(1.0, 1000.0), 1.0);
        // 16 devices, 16,384 rows each on average: σ = √(μ·15/16) = 124, and the expected
        // maximum of 16 is about √(2 ln 16) = 2.35 σ above the mean: 1.8%.
        let i = routing_imbalance(16.0, 16384.0);
        assert!((i - 1.0178).abs() < 5e-4, "{i}");
        assert!(routing_imbalance(16.0, 100.0) > routing_imbalance(16.0, 10000.0));
    }
}
