//! What the training planner needs to know about a model, computed once per plan
//! (book 4.2–4.3): parameters grouped by how they shard, and the named activation
//! tensors of a decoder layer with their size and the forward FLOPs that produce them.

use super::shapes::KernelShapes;
use super::tensors::{LayerTensor, TENSOR_COUNT};
use crate::model::{Attention, BlockLayout, MlpKind, ModelConfig};
use crate::params::{attention_layer_params, count_params, mlp_weights, ParamComponent};

/// Shape of the routed experts of an MoE model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExpertShape {
    /// E, routed experts per MoE layer.
    pub experts: u64,
    /// k, experts each token visits.
    pub per_token: u64,
    /// Hidden width of one routed expert.
    pub d_ff: u64,
    /// Hidden width of one shared expert (0 without shared experts).
    pub shared_d_ff: u64,
    /// Shared experts per MoE layer.
    pub shared: u64,
}

/// Per-model constants of the training planner.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelProfile {
    /// D.
    pub d_model: f64,
    /// L (decoder layers, MTP modules not included).
    pub layers: u64,
    /// V.
    pub vocab: f64,
    /// N, query heads: tensor parallelism must divide it.
    pub heads: u64,
    /// Heads of the K and V tensors: K for GQA, N for MLA. When K < TP degree the
    /// K/V heads are replicated (TP must then be a multiple of K).
    pub kv_heads: u64,
    /// Whether the attention is MLA (its cached latent is not split by TP).
    pub latent_kv: bool,
    /// F of the dense MLP (0 when every layer is MoE).
    pub d_ff: u64,
    /// Routed experts, if any.
    pub expert: Option<ExpertShape>,
    /// MoE layers.
    pub moe_layers: u64,
    /// Every stored parameter.
    pub total_params: f64,
    /// Parameters one token touches (k routed experts of each MoE layer).
    pub active_params: f64,
    /// Decoder-layer parameters that are not routed experts (attention, dense MLP,
    /// shared experts, router, norms, biases) plus MTP modules.
    pub layer_params: f64,
    /// The K and V projections inside `layer_params` (replicated when K < TP).
    pub kv_params: f64,
    /// Routed-expert parameters, all layers.
    pub expert_params: f64,
    /// Input (and learned position) embedding.
    pub embedding_params: f64,
    /// Output head; 0 when tied to the input embedding.
    pub unembedding_params: f64,
    /// Non-expert parameters of the largest decoder layer.
    pub largest_layer_dense: f64,
    /// Routed-expert parameters of one MoE layer.
    pub largest_layer_expert: f64,
    /// Adafactor's factored second moment: Σ (rows + cols) over weight matrices plus
    /// every vector, as a fraction of all parameters.
    pub factored_fraction: f64,
    /// Activation elements per token, summed over layers, per named tensor: what a saved
    /// copy occupies, 0 for a tensor the backward pass never reads (see
    /// [`super::tensors`]).
    pub tensor_elements: [f64; TENSOR_COUNT],
    /// Forward matmul FLOPs per token, summed over layers, that recompute each tensor
    /// when it is not kept (0 for `context`, whose FLOPs depend on the sequence length,
    /// see [`super::setup::Setup`], and for tensors the backward pass never reads).
    pub tensor_flops: [f64; TENSOR_COUNT],
    /// Of `tensor_elements[Other]`, the activation function's outputs: elementwise on
    /// the MLP input projections, fused by XLA into the matmuls that read them when a
    /// layer is recomputed (so never materialised then), saved as residuals only when
    /// nothing is rematerialised (`none`).
    pub fused_elements: f64,
    /// K/V elements per token and layer that context parallelism moves (2·K·H, or
    /// the MLA latent).
    pub kv_elements_per_token_layer: f64,
    /// The kernels' shapes, for the physical step model.
    pub shapes: KernelShapes,
}

/// Weights of the q, k, v and o projections of one layer.
fn qkvo(m: &ModelConfig) -> [f64; 4] {
    let d = m.d_model as f64;
    match &m.attention {
        Attention::Gqa(a) => {
            let (n, k, h) = (a.num_heads as f64, a.num_kv_heads as f64, a.head_dim as f64);
            [d * n * h, d * k * h, d * k * h, n * h * d]
        }
        Attention::Mla(a) => {
            let n = a.num_heads as f64;
            let qk = (a.qk_nope_head_dim + a.qk_rope_head_dim) as f64;
            let r = a.kv_lora_rank as f64;
            let q = match a.q_lora_rank {
                Some(rq) => d * rq as f64 + rq as f64 * n * qk,
                None => d * n * qk,
            };
            let k = d * (r + a.qk_rope_head_dim as f64) + r * n * a.qk_nope_head_dim as f64;
            let v = r * n * a.v_head_dim as f64;
            [q, k, v, n * a.v_head_dim as f64 * d]
        }
    }
}

/// Activation widths (elements per token) of q, k, v and the attention output.
fn attention_widths(m: &ModelConfig) -> [f64; 4] {
    match &m.attention {
        Attention::Gqa(a) => {
            let (n, k, h) = (a.num_heads as f64, a.num_kv_heads as f64, a.head_dim as f64);
            [n * h, k * h, k * h, n * h]
        }
        Attention::Mla(a) => {
            let n = a.num_heads as f64;
            let qk = n * (a.qk_nope_head_dim + a.qk_rope_head_dim) as f64;
            let v = n * a.v_head_dim as f64;
            [qk, qk, v, v]
        }
    }
}

/// Σ (rows + cols) of the weight matrices of one layer's attention.
fn attention_factored(m: &ModelConfig) -> f64 {
    let d = m.d_model as f64;
    match &m.attention {
        Attention::Gqa(a) => {
            let (nh, kh) = ((a.num_heads * a.head_dim) as f64, (a.num_kv_heads * a.head_dim) as f64);
            2.0 * (d + nh) + 2.0 * (d + kh)
        }
        Attention::Mla(a) => {
            let n = a.num_heads as f64;
            let qk = n * (a.qk_nope_head_dim + a.qk_rope_head_dim) as f64;
            let r = a.kv_lora_rank as f64;
            let q = match a.q_lora_rank {
                Some(rq) => (d + rq as f64) + (rq as f64 + qk),
                None => d + qk,
            };
            let kv = (d + r + a.qk_rope_head_dim as f64) + (r + n * (a.qk_nope_head_dim + a.v_head_dim) as f64);
            q + kv + (n * a.v_head_dim as f64 + d)
        }
    }
}

impl ModelProfile {
    /// Profile a model. Assumes it is valid ([`ModelConfig::validate`]).
    #[must_use]
    pub fn of(m: &ModelConfig) -> Self {
        let p = count_params(m);
        let get = |c: ParamComponent| p.get(c).total.get();
        let d = m.d_model as f64;
        let l = m.num_layers as f64;
        let (moe_layers, dense_layers) = m.moe_and_dense_layers();
        let (moe_l, dense_l) = (moe_layers as f64, dense_layers as f64);
        let gated = m.mlp.kind == MlpKind::Gated;
        let matrices = m.mlp.kind.matrices() as f64;
        let f = m.mlp.d_ff as f64;
        let expert = m.moe.as_ref().map(|e| ExpertShape {
            experts: e.num_experts,
            per_token: e.experts_per_token,
            d_ff: e.expert_d_ff,
            shared_d_ff: if e.shared_experts > 0 { e.shared_width() } else { 0 },
            shared: e.shared_experts,
        });
        // Hidden width a token occupies in one MoE layer: k routed experts + shared ones.
        let (moe_width, router) = expert.map_or((0.0, 0.0), |e| {
            (e.per_token as f64 * e.d_ff as f64 + e.shared as f64 * e.shared_d_ff as f64, d * e.experts as f64)
        });
        let wi_elements = f * dense_l + moe_width * moe_l;
        let [wq, wk, wv, wo] = qkvo(m);
        let [q, k, v, ctx] = attention_widths(m);

        let mut tensor_elements = [0.0; TENSOR_COUNT];
        let mut tensor_flops = [0.0; TENSOR_COUNT];
        let mut set = |t: LayerTensor, elements: f64, flops: f64| {
            tensor_elements[t as usize] = elements;
            tensor_flops[t as usize] = flops;
        };
        // Each tensor's size where the backward pass reads it, 0 where it never does: jax
        // keeps only the residuals the backward reads, so a policy naming an unread tensor
        // saves nothing (`remat_partial_eval`, jax/_src/ad_checkpoint.py at cec06d1: the
        // staged jaxpr is DCE'd and unused residuals dropped). See `super::tensors`.
        let parallel = m.block == BlockLayout::Parallel;
        let post_norms = m.norm.per_layer >= 4;
        set(LayerTensor::DecoderLayerInput, d * l, 0.0);
        set(LayerTensor::QueryProj, q * l, 2.0 * wq * l);
        set(LayerTensor::KeyProj, k * l, 2.0 * wk * l);
        set(LayerTensor::ValueProj, v * l, 2.0 * wv * l);
        set(LayerTensor::Context, ctx * l, 0.0);
        // The out projection is read where the MLP's input is recomputed from it (the
        // post-attention residual of a sequential block) or a post-attention norm reads
        // it (Gemma 2/3); a parallel block only adds it to the residual stream.
        if !parallel || post_norms {
            set(LayerTensor::OutProj, d * l, 2.0 * wo * l);
        }
        // The first input projection carries the router's FLOPs in MoE layers.
        set(LayerTensor::MlpWi0, wi_elements, 2.0 * d * wi_elements + 2.0 * router * moe_l);
        if gated {
            set(LayerTensor::MlpWi1, wi_elements, 2.0 * d * wi_elements);
        }
        // The down projection's output is read by the router's gradient (each routed
        // expert's output weighs into its gate: MaxText's `moe_mlpwo`) and by a post-FFW
        // norm; otherwise it only feeds the residual sum.
        let routed = expert.map_or(0.0, |e| e.per_token as f64 * moe_l);
        let routed_wo = expert.map_or(0.0, |e| 2.0 * d * (e.per_token * e.d_ff) as f64 * moe_l);
        if post_norms {
            let outputs = expert.map_or(0.0, |e| (e.per_token + e.shared) as f64);
            let shared_wo = expert.map_or(0.0, |e| 2.0 * d * (e.shared * e.shared_d_ff) as f64 * moe_l);
            set(LayerTensor::MlpWo, d * (dense_l + outputs * moe_l), 2.0 * d * f * dense_l + routed_wo + shared_wo);
        } else if routed > 0.0 {
            set(LayerTensor::MlpWo, d * routed, routed_wo);
        }
        // The pre-norm outputs (two in a sequential block, one shared in a parallel one)
        // and the activation function's output(s): what only `none` keeps (the
        // post-attention residual is the out projection's entry).
        let act = if gated { 2.0 } else { 1.0 };
        let pre_norms = if parallel { 1.0 } else { 2.0 };
        let activation_outputs = act * wi_elements;
        set(LayerTensor::Other, pre_norms * d * l + activation_outputs, 0.0);

        let attn = attention_layer_params(m);
        let dense_mlp = mlp_weights(m.mlp.kind, m.d_model, m.mlp.d_ff);
        let moe_dense =
            expert.map_or(0.0, |e| e.shared as f64 * mlp_weights(m.mlp.kind, m.d_model, e.shared_d_ff) + router);
        let layer_norms = m.norm.per_layer as f64 * d;
        let base_layer = attn.attention + attn.attention_norms + attn.attention_biases + layer_norms;
        let dense_ffn = if dense_layers > 0 { dense_mlp } else { 0.0 };
        let moe_ffn = if moe_layers > 0 { moe_dense } else { 0.0 };
        let largest_layer_dense = base_layer + dense_ffn.max(moe_ffn);
        let expert_params = get(ParamComponent::RoutedExperts);
        let largest_layer_expert = if moe_layers > 0 { expert_params / moe_l } else { 0.0 };

        let embedding_params = get(ParamComponent::Embedding) + get(ParamComponent::PositionEmbedding);
        let unembedding_params = get(ParamComponent::Unembedding);
        let total_params = p.total.get();
        let layer_params = total_params - expert_params - embedding_params - unembedding_params;

        let factored_layers = l * attention_factored(m)
            + dense_l * matrices * (d + f)
            + expert.map_or(0.0, |e| {
                moe_l
                    * (e.experts as f64 * matrices * (d + e.d_ff as f64)
                        + e.shared as f64 * matrices * (d + e.shared_d_ff as f64)
                        + (d + e.experts as f64))
            });
        let vectors = get(ParamComponent::Norms) + get(ParamComponent::Biases);
        let embeddings = (m.vocab_size as f64 + d) * if m.embeddings.tied { 1.0 } else { 2.0 };
        let main = total_params - get(ParamComponent::Mtp);
        // MTP modules are counted at the main layers' factored ratio.
        let ratio = if main > 0.0 { (factored_layers + vectors + embeddings) / main } else { 1.0 };
        let (heads, kv_heads, latent_kv) = match &m.attention {
            Attention::Gqa(a) => (a.num_heads, a.num_kv_heads, false),
            Attention::Mla(a) => (a.num_heads, a.num_heads, true),
        };
        Self {
            d_model: d,
            layers: m.num_layers,
            vocab: m.vocab_size as f64,
            heads,
            kv_heads,
            latent_kv,
            d_ff: if dense_layers > 0 { m.mlp.d_ff } else { 0 },
            expert,
            moe_layers,
            total_params,
            active_params: p.active.get(),
            layer_params,
            kv_params: if latent_kv { 0.0 } else { (wk + wv) * l },
            expert_params,
            embedding_params,
            unembedding_params,
            largest_layer_dense,
            largest_layer_expert,
            factored_fraction: ratio.min(1.0),
            tensor_elements,
            tensor_flops,
            fused_elements: activation_outputs,
            kv_elements_per_token_layer: crate::kv_cache::kv_elements_per_token_per_layer(m),
            shapes: KernelShapes::of(m),
        }
    }

    /// The F the book's thresholds use: that of most layers — the dense MLP's, or one
    /// expert's when most layers are MoE.
    #[must_use]
    pub fn threshold_d_ff(&self) -> f64 {
        match self.expert {
            Some(e) if 2 * self.moe_layers > self.layers || self.d_ff == 0 => e.d_ff as f64,
            _ => self.d_ff as f64,
        }
    }

    /// Stored over active parameters: how many more weight bytes FSDP gathers than the
    /// FLOPs use (1 for a dense model; about E/k for an MoE, MaxText's "sparsity").
    #[must_use]
    pub fn sparsity(&self) -> f64 {
        if self.active_params > 0.0 {
            self.total_params / self.active_params
        } else {
            1.0
        }
    }

    /// Largest tensor-parallel degree the heads and hidden widths allow to divide
    /// evenly: TP must divide N, F, every expert width, and either divide K or be a
    /// multiple of it (K/V heads are then replicated, Megatron-style).
    #[must_use]
    pub fn tp_divides(&self, tp: u64) -> bool {
        let divides = |n: u64| n == 0 || n.is_multiple_of(tp);
        tp >= 1
            && divides(self.heads)
            && divides(self.d_ff)
            && self.expert.is_none_or(|e| divides(e.d_ff) && divides(e.shared_d_ff))
            && (self.kv_heads.is_multiple_of(tp) || tp.is_multiple_of(self.kv_heads))
    }

    /// The TP degree the K/V projections are split over: min(TP, K).
    #[must_use]
    pub fn kv_split(&self, tp: u64) -> f64 {
        tp.min(self.kv_heads.max(1)) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn llama3_70b_groups_add_up() {
        let p = ModelProfile::of(&presets::get("llama-3-70b").unwrap().config);
        let sum = p.layer_params + p.expert_params + p.embedding_params + p.unembedding_params;
        assert!((sum - p.total_params).abs() < 1.0);
        // 64 query heads of 128 = D, so q and the context are D wide; k and v D/8.
        let e = |t: LayerTensor| p.tensor_elements[t as usize] / 80.0;
        assert_eq!(e(LayerTensor::QueryProj), 8192.0);
        assert_eq!(e(LayerTensor::KeyProj), 1024.0);
        assert_eq!(e(LayerTensor::MlpWi0), 28_672.0);
        assert!(p.tp_divides(8) && p.tp_divides(16) && !p.tp_divides(3));
        assert_eq!(p.kv_split(16), 8.0);
        assert!(p.factored_fraction < 1e-3);
    }

    #[test]
    fn projection_split_matches_the_flop_count() {
        // qkvo() splits per matrix what flops::attention_projection_weights sums.
        for p in presets::all() {
            let sum: f64 = qkvo(&p.config).iter().sum();
            assert!((sum - crate::flops::attention_projection_weights(&p.config)).abs() < 1e-6 * sum, "{}", p.id);
        }
    }

    #[test]
    fn mixtral_profile_has_experts() {
        let p = ModelProfile::of(&presets::get("mixtral-8x7b").unwrap().config);
        let e = p.expert.unwrap();
        assert_eq!((e.experts, e.per_token), (8, 2));
        assert!(p.expert_params > 0.9 * 45e9 && p.largest_layer_expert > 1e9);
    }
}
