//! Model architectures for the generator: a preset's architecture with whole components
//! regenerated, or a model from scratch, each field in bounds or (when the case is
//! hostile) broken.

use super::scenarios::Gen;
use shardcalc_core::model::{
    largest_divisor_at_most, Attention, AttentionBias, AttentionLayout, BlockLayout, Embeddings, GqaAttention,
    LayerKind, LocalAttention, MlaAttention, Mlp, MlpKind, ModelConfig, Moe, Mtp, Norm, NormKind, MAX_EXPERTS,
    MAX_HEADS, MAX_HEAD_DIM, MAX_LAYERS, MAX_PATTERN, MAX_TOKENS, MAX_VOCAB, MAX_WIDTH,
};
use shardcalc_core::presets;

impl Gen<'_> {
    /// A preset's architecture with one to three components regenerated.
    pub fn mutated_preset(&mut self) -> ModelConfig {
        let all = presets::all();
        let mut m = all[self.r.below(all.len() as u64) as usize].config.clone();
        for _ in 0..self.r.in_range(0, 3) {
            match self.r.below(10) {
                0 => m.d_model = self.num(1, MAX_WIDTH),
                1 => m.vocab_size = self.num(1, MAX_VOCAB),
                2 => {
                    m.num_layers = self.num(1, MAX_LAYERS);
                    if m.moe.is_some() {
                        m.moe = Some(self.moe(m.num_layers));
                    }
                }
                3 => m.attention = self.attention(),
                4 => m.layout = self.layout(),
                5 => m.moe = self.r.chance(0.8).then(|| self.moe(m.num_layers)),
                6 => m.mtp = self.mtp(),
                7 => m.norm = self.norm(),
                8 => m.embeddings = self.embeddings(),
                _ => m.name = self.name(),
            }
        }
        self.fix_dense_width(&mut m);
        m
    }

    /// A model from scratch.
    pub fn model(&mut self) -> ModelConfig {
        let num_layers = self.num(1, MAX_LAYERS);
        let mut m = ModelConfig {
            name: self.name(),
            d_model: self.num(1, MAX_WIDTH),
            num_layers,
            vocab_size: self.num(1, MAX_VOCAB),
            attention: self.attention(),
            layout: self.layout(),
            mlp: Mlp { kind: self.r.pick(&[MlpKind::Gated, MlpKind::Plain]), d_ff: 1, bias: self.r.chance(0.2) },
            moe: self.r.chance(0.4).then(|| self.moe(num_layers)),
            norm: self.norm(),
            block: self.r.pick(&[BlockLayout::Sequential, BlockLayout::Parallel]),
            embeddings: self.embeddings(),
            mtp: self.mtp(),
        };
        m.mlp.d_ff = self.num(1, MAX_WIDTH);
        self.fix_dense_width(&mut m);
        m
    }

    /// `mlp.d_ff` may be 0 only when no layer is dense; make it so half of the time.
    fn fix_dense_width(&mut self, m: &mut ModelConfig) {
        if m.num_layers <= MAX_LAYERS && m.moe_and_dense_layers().1 == 0 && self.r.chance(0.5) {
            m.mlp.d_ff = 0;
        }
        if self.bad() {
            m.mlp.d_ff = self.hostile_u64();
        }
    }

    fn name(&mut self) -> String {
        match self.r.below(8) {
            0 => String::new(),
            1 => "x".repeat(200),
            2 => "é".repeat(200), // 200 characters, 400 bytes
            3 if self.bad() => "x".repeat(201),
            4 => "\u{202e}model\u{0}\"'<script>".into(),
            _ => format!("model {}", self.r.below(1000)),
        }
    }

    fn attention(&mut self) -> Attention {
        if self.r.chance(0.3) {
            let mut a = MlaAttention {
                num_heads: self.num(1, MAX_HEADS),
                q_lora_rank: self.r.chance(0.7).then(|| self.num(1, MAX_WIDTH)),
                kv_lora_rank: self.num(1, MAX_WIDTH),
                qk_nope_head_dim: self.num(0, MAX_HEAD_DIM),
                qk_rope_head_dim: self.num(0, MAX_HEAD_DIM),
                v_head_dim: self.num(1, MAX_HEAD_DIM),
            };
            if a.qk_nope_head_dim == 0 && a.qk_rope_head_dim == 0 && !self.bad() {
                a.qk_rope_head_dim = 1;
            }
            return Attention::Mla(a);
        }
        let num_heads = self.num(1, MAX_HEADS);
        let mut num_kv_heads = match self.r.below(4) {
            0 => num_heads,
            1 => 1,
            // Keep the helper's loop short: it is only meant for heads within bounds.
            _ if (1..=MAX_HEADS).contains(&num_heads) => {
                let limit = self.r.in_range(1, num_heads);
                largest_divisor_at_most(num_heads, limit)
            }
            _ => num_heads,
        };
        if self.bad() {
            num_kv_heads = match self.r.below(4) {
                0 => num_heads.wrapping_add(1),
                1 => num_heads.saturating_sub(1),
                2 => self.r.pick(&[3, 5, 7, 0]),
                _ => self.hostile_u64(),
            };
        }
        Attention::Gqa(GqaAttention {
            num_heads,
            num_kv_heads,
            head_dim: self.num(1, MAX_HEAD_DIM),
            qk_norm: self.flag(),
            bias: self.r.pick(&[AttentionBias::None, AttentionBias::Qkv, AttentionBias::QkvO]),
            sinks: self.flag(),
        })
    }

    fn local(&mut self) -> LocalAttention {
        if self.flag() {
            LocalAttention::SlidingWindow { window: self.num(1, MAX_TOKENS) }
        } else {
            LocalAttention::Chunked { chunk: self.num(1, MAX_TOKENS) }
        }
    }

    fn layout(&mut self) -> AttentionLayout {
        let mut layout = match self.r.below(10) {
            0..=3 => AttentionLayout::default(),
            4 => AttentionLayout {
                local: Some(self.local()), // a window that no layer uses is allowed
                pattern: vec![LayerKind::Global],
            },
            5..=6 => AttentionLayout::all_local(self.local()),
            7 => {
                let locals = self.r.in_range(1, 7) as usize;
                AttentionLayout::locals_then_global(self.local(), locals)
            }
            _ => {
                let len = self.r.in_range(1, MAX_PATTERN as u64) as usize;
                let pattern =
                    (0..len).map(|_| if self.flag() { LayerKind::Local } else { LayerKind::Global }).collect();
                AttentionLayout { local: Some(self.local()), pattern }
            }
        };
        if self.bad() {
            match self.r.below(4) {
                0 => layout.pattern.clear(),
                1 => layout.pattern = vec![LayerKind::Local; MAX_PATTERN + 1],
                2 => layout.pattern = vec![LayerKind::Global; 10_000],
                _ => layout.local = None,
            }
        }
        layout
    }

    fn moe(&mut self, num_layers: u64) -> Moe {
        let num_experts = self.num(1, MAX_EXPERTS);
        let mut experts_per_token = self.num(1, num_experts.clamp(1, MAX_EXPERTS));
        if self.bad() {
            experts_per_token = num_experts.wrapping_add(1);
        }
        let layers = num_layers.clamp(1, MAX_LAYERS);
        let every = if self.r.chance(0.6) { 1 } else { self.num(1, layers) };
        // At least one MoE layer: the first `first` layers may be dense only while
        // `first / every < layers / every`.
        let max_first = (layers / every.max(1)).saturating_mul(every.max(1)).saturating_sub(1);
        let first_dense_layers = if self.r.chance(0.5) { 0 } else { self.num(0, max_first) };
        let first_dense_layers = if self.bad() {
            self.r.pick(&[num_layers, num_layers.wrapping_add(1), u64::MAX, max_first + 1])
        } else {
            first_dense_layers
        };
        Moe {
            num_experts,
            experts_per_token,
            expert_d_ff: self.num(1, MAX_WIDTH),
            shared_experts: if self.r.chance(0.6) { 0 } else { self.num(0, MAX_EXPERTS) },
            shared_d_ff: self.r.chance(0.3).then(|| self.num(1, MAX_WIDTH)),
            first_dense_layers,
            every,
            router_bias: self.flag(),
        }
    }

    fn norm(&mut self) -> Norm {
        Norm { kind: self.r.pick(&[NormKind::Rms, NormKind::Layer]), per_layer: self.num(0, 16) }
    }

    fn embeddings(&mut self) -> Embeddings {
        Embeddings {
            tied: self.flag(),
            learned_positions: if self.r.chance(0.7) { 0 } else { self.num(0, MAX_TOKENS) },
        }
    }

    fn mtp(&mut self) -> Option<Mtp> {
        self.r.chance(0.3).then(|| Mtp { depth: self.num(0, 16), stores_embedding_copies: self.flag() })
    }
}
