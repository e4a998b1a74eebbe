//! The shapes of a decoder's kernels, per token and before sharding, for the physical step
//! model ([`super::kernels`]): every weight matmul as `[tokens, k] × [k, n]` with the way
//! tensor parallelism splits it, dot-product attention's heads and span, and the
//! elements the HBM-bound (elementwise) kernels read and write, counted from first
//! principles.
//!
//! **Elementwise traffic per token and layer** (elements of the activation format; `d`
//! the model width, `q`/`k` the query/key widths rotary touches, `w` the MLP hidden width
//! a token occupies — `F`, or `k·F_e` + shared experts in an MoE layer). Each op reads its
//! inputs from HBM and writes its output once (one XLA fusion per op; a norm's statistics
//! and scale are one fusion):
//!
//! | op | forward | backward |
//! |---|--:|--:|
//! | each norm (`norm.per_layer` of them) | read x, write y: 2d | read x and dy, write dx: 3d |
//! | rotary on q and k | read, write: 2(q + k) | 2(q + k) |
//! | two residual adds | read 2, write 1: 2·3d | the gradient sums: 2·3d |
//! | activation, gated (silu(a)·b) | read a, b, write h: 3w | read dh, a, b, write da, db: 5w |
//! | activation, plain (relu(a)) | read a, write h: 2w | read dh, a, write da: 3w |
//! | MoE router (fp32 logits over E experts, top-k) | read and write the logits and probabilities: 4E | 6E |
//! | MoE permute (copy each token to its k experts) and unpermute (weighted sum back) | read d, write k·d; read k·d, write d: (2k + 2)d | the same: (2k + 2)d |
//!
//! Per token and step: the embedding gather (read and write d; backward a scatter-add:
//! read the row and the gradient, write the row: 3d), the final norm, and the loss over a
//! vocabulary of V: the logits written by their matmul and read by the fused log-softmax
//! (2V), the logits read and their gradient written backward (2V). Every remat policy but
//! `none` drops the unnamed intermediates (norm outputs, activations, rotated q/k), so
//! the backward pass re-runs the layers' forward elementwise work once more.

use crate::model::{Attention, LocalAttention, MlpKind, ModelConfig};

/// How tensor parallelism splits a weight matmul on each device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TpSplit {
    /// The output dimension over TP (q, the MLP's input projections, the logits).
    Output,
    /// The contracting dimension over TP (the out and down projections).
    Contracting,
    /// The output over min(TP, K) (k and v: heads replicated when K < TP).
    KvHeads,
    /// Not split (the router, MLA's low-rank down-projections).
    Replicated,
}

/// What a weight matmul is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatmulKind {
    /// A dense layer matmul: every token through it once.
    Dense,
    /// A routed expert's: each token through `experts_per_token` of the experts.
    Expert,
    /// The output head (once per token, not per layer).
    Logits,
}

/// One weight matmul `[tokens, k] × [k, n]`, in `layers` layers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightMatmul {
    /// Contracting dimension.
    pub k: f64,
    /// Output dimension.
    pub n: f64,
    /// Layers it appears in (1 for the logits).
    pub layers: f64,
    /// How TP splits it.
    pub split: TpSplit,
    /// Dense, expert or logits.
    pub kind: MatmulKind,
}

/// Dot-product attention's shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttentionShape {
    /// Query heads (TP splits them).
    pub heads: f64,
    /// Head dimension of Q and K (QKᵀ contracts over it).
    pub qk: f64,
    /// Head dimension of V (P·V produces it).
    pub v: f64,
    /// Global layers.
    pub global_layers: f64,
    /// Local (sliding-window or chunked) layers.
    pub local_layers: f64,
    /// What local layers do.
    pub local: Option<LocalAttention>,
}

/// Elements per token, summed over layers, in three groups by how TP splits them:
/// `[TP ways, min(TP, K) ways, not split]`.
pub type Split3 = [f64; 3];

/// The HBM-bound elementwise work of one token (see the module's table).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Elementwise {
    /// Decoder layers' forward ops (norms, rotary, residuals, activations).
    pub layers_forward: Split3,
    /// Their backward.
    pub layers_backward: Split3,
    /// MoE router and permutes, forward (the same backward); re-run with the MLP block.
    pub moe: Split3,
    /// Embedding gather and final norm, forward (never recomputed).
    pub step_forward: Split3,
    /// Their backward.
    pub step_backward: Split3,
    /// The loss over the vocabulary, forward.
    pub loss_forward: Split3,
    /// Its backward.
    pub loss_backward: Split3,
}

/// The kernel shapes of a model.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelShapes {
    /// Every weight matmul of one token's forward pass.
    pub matmuls: Vec<WeightMatmul>,
    /// Dot-product attention.
    pub attention: AttentionShape,
    /// Elementwise traffic.
    pub elementwise: Elementwise,
    /// Routed experts per MoE layer and per token (0 for a dense model).
    pub experts: f64,
    /// Experts each token visits.
    pub experts_per_token: f64,
}

impl KernelShapes {
    /// The shapes of `m` (assumed valid). MTP modules are left out (one extra layer at most).
    #[must_use]
    pub fn of(m: &ModelConfig) -> Self {
        let d = m.d_model as f64;
        let l = m.num_layers as f64;
        let (moe_l, dense_l) = m.moe_and_dense_layers();
        let (moe_l, dense_l) = (moe_l as f64, dense_l as f64);
        let f = m.mlp.d_ff as f64;
        let gated = m.mlp.kind == MlpKind::Gated;
        let mut mm = Vec::new();
        let mut push = |k: f64, n: f64, layers: f64, split: TpSplit, kind: MatmulKind| {
            if k > 0.0 && n > 0.0 && layers > 0.0 {
                mm.push(WeightMatmul { k, n, layers, split, kind });
            }
        };
        // Attention projections.
        let (q_width, k_width, attention) = match &m.attention {
            Attention::Gqa(a) => {
                let (n, kv, h) = (a.num_heads as f64, a.num_kv_heads as f64, a.head_dim as f64);
                push(d, n * h, l, TpSplit::Output, MatmulKind::Dense);
                push(d, kv * h, 2.0 * l, TpSplit::KvHeads, MatmulKind::Dense);
                push(n * h, d, l, TpSplit::Contracting, MatmulKind::Dense);
                (n * h, kv * h, AttentionShape { heads: n, qk: h, v: h, ..AttentionShape::none() })
            }
            Attention::Mla(a) => {
                let n = a.num_heads as f64;
                let (nope, rope, v) = (a.qk_nope_head_dim as f64, a.qk_rope_head_dim as f64, a.v_head_dim as f64);
                let r = a.kv_lora_rank as f64;
                match a.q_lora_rank {
                    Some(rq) => {
                        push(d, rq as f64, l, TpSplit::Replicated, MatmulKind::Dense);
                        push(rq as f64, n * (nope + rope), l, TpSplit::Output, MatmulKind::Dense);
                    }
                    None => push(d, n * (nope + rope), l, TpSplit::Output, MatmulKind::Dense),
                }
                push(d, r + rope, l, TpSplit::Replicated, MatmulKind::Dense);
                push(r, n * (nope + v), l, TpSplit::Output, MatmulKind::Dense);
                push(n * v, d, l, TpSplit::Contracting, MatmulKind::Dense);
                // Rotary touches the rope part of q (every head) and the shared rope key.
                (n * rope, rope, AttentionShape { heads: n, qk: nope + rope, v, ..AttentionShape::none() })
            }
        };
        let (global, local) = m.layout.counts(m.num_layers);
        let attention = AttentionShape {
            global_layers: global as f64,
            local_layers: local as f64,
            local: m.layout.local,
            ..attention
        };
        // MLPs: dense layers, then routed and shared experts and the router.
        let inputs = if gated { 2.0 } else { 1.0 };
        push(d, f, inputs * dense_l, TpSplit::Output, MatmulKind::Dense);
        push(f, d, dense_l, TpSplit::Contracting, MatmulKind::Dense);
        let (mut experts, mut per_token, mut moe_width) = (0.0, 0.0, 0.0);
        if let Some(e) = &m.moe {
            let fe = e.expert_d_ff as f64;
            let shared = e.shared_experts as f64 * e.shared_width() as f64;
            experts = e.num_experts as f64;
            per_token = e.experts_per_token as f64;
            moe_width = per_token * fe + shared;
            push(d, experts, moe_l, TpSplit::Replicated, MatmulKind::Dense);
            push(d, fe, inputs * moe_l, TpSplit::Output, MatmulKind::Expert);
            push(fe, d, moe_l, TpSplit::Contracting, MatmulKind::Expert);
            push(d, shared, inputs * moe_l, TpSplit::Output, MatmulKind::Dense);
            push(shared, d, moe_l, TpSplit::Contracting, MatmulKind::Dense);
        }
        let v = m.vocab_size as f64;
        push(d, v, 1.0, TpSplit::Output, MatmulKind::Logits);

        // Elementwise (the module's table). Hidden width summed over layers.
        let w = f * dense_l + moe_width * moe_l;
        let norms = m.norm.per_layer as f64 * l;
        let (act_f, act_b) = if gated { (3.0, 5.0) } else { (2.0, 3.0) };
        let layers_forward = [2.0 * d * norms + 2.0 * q_width * l + 6.0 * d * l + act_f * w, 2.0 * k_width * l, 0.0];
        let layers_backward = [3.0 * d * norms + 2.0 * q_width * l + 6.0 * d * l + act_b * w, 2.0 * k_width * l, 0.0];
        let moe =
            if moe_l > 0.0 { [(2.0 * per_token + 2.0) * d * moe_l, 0.0, 4.0 * experts * moe_l] } else { [0.0; 3] };
        // Embedding and final norm: 2d + 2d forward, 3d + 3d backward; the loss: logits
        // written and read, 2V, forward; read and their gradient written, 2V, backward.
        let (step_forward, step_backward) = ([4.0 * d, 0.0, 0.0], [6.0 * d, 0.0, 0.0]);
        let (loss_forward, loss_backward) = ([2.0 * v, 0.0, 0.0], [2.0 * v, 0.0, 0.0]);
        Self {
            matmuls: mm,
            attention,
            elementwise: Elementwise {
                layers_forward,
                layers_backward,
                moe,
                step_forward,
                step_backward,
                loss_forward,
                loss_backward,
            },
            experts,
            experts_per_token: per_token,
        }
    }

    /// Forward weight-matmul FLOPs of one token (routed experts: `experts_per_token` of
    /// them): what [`crate::flops::forward_per_token`] counts for the weights.
    #[must_use]
    pub fn forward_flops_per_token(&self) -> f64 {
        self.matmuls
            .iter()
            .map(|w| {
                let visits = if w.kind == MatmulKind::Expert { self.experts_per_token } else { 1.0 };
                2.0 * w.k * w.n * w.layers * visits
            })
            .sum()
    }
}

impl AttentionShape {
    /// No attention.
    #[must_use]
    pub fn none() -> Self {
        Self { heads: 0.0, qk: 0.0, v: 0.0, global_layers: 0.0, local_layers: 0.0, local: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    /// The matmul shapes account for exactly the weight FLOPs `flops::forward_per_token`
    /// counts (MTP modules aside), for every preset.
    #[test]
    fn shapes_add_up_to_the_weight_flops() {
        for p in presets::all() {
            if p.config.mtp.is_some() {
                continue;
            }
            let s = KernelShapes::of(&p.config);
            let f = crate::flops::forward_per_token(&p.config);
            let expected = f.attention_projections + f.mlp + f.routed + f.shared + f.router + f.unembedding;
            let got = s.forward_flops_per_token();
            assert!((got - expected).abs() <= 1e-9 * expected, "{}: {got} vs {expected}", p.id);
        }
    }

    /// Llama 2 7B by hand: d = 4096, 32 layers of MHA (q = k = 4096), SwiGLU F = 11008,
    /// two RMSNorms: forward 2·2d + 2·(q + k) + 6d + 3F = 90,368 elements per layer.
    #[test]
    fn llama2_elementwise_by_hand() {
        let s = KernelShapes::of(&presets::get("llama-2-7b").unwrap().config);
        let e = s.elementwise;
        let (d, f) = (4096.0, 11008.0);
        assert_eq!(e.layers_forward[0] + e.layers_forward[1], 32.0 * (4.0 * d + 2.0 * 2.0 * d + 6.0 * d + 3.0 * f));
        assert_eq!(e.layers_backward[0] + e.layers_backward[1], 32.0 * (6.0 * d + 4.0 * d + 6.0 * d + 5.0 * f));
        assert_eq!(e.step_forward[0], 4.0 * d);
        assert_eq!(e.loss_forward[0] + e.loss_backward[0], 4.0 * 32000.0);
        assert_eq!(s.attention.heads, 32.0);
        assert_eq!((s.attention.qk, s.attention.global_layers), (128.0, 32.0));
        assert_eq!(e.moe, [0.0; 3]);
    }

    #[test]
    fn moe_shapes() {
        let s = KernelShapes::of(&presets::get("mixtral-8x7b").unwrap().config);
        assert_eq!((s.experts, s.experts_per_token), (8.0, 2.0));
        assert!(s.matmuls.iter().any(|w| w.kind == MatmulKind::Expert && w.n == 14336.0));
        // Permutes: (2k + 2)·d per MoE layer.
        assert_eq!(s.elementwise.moe[0], 6.0 * 4096.0 * 32.0);
    }
}
