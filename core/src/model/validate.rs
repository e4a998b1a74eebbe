//! Validation of a [`ModelConfig`]: every problem names its field.
//!
//! The bounds are generous (ten times anything published) but finite, so every count
//! derived from a valid model is a finite `f64` and exact below 2^53.

use super::{Attention, LayerKind, LocalAttention, ModelConfig};
use crate::error::{Checker, Invalid};

/// Largest accepted D, F, expert width or LoRA rank.
pub const MAX_WIDTH: u64 = 1 << 20;
/// Largest accepted number of layers.
pub const MAX_LAYERS: u64 = 1 << 14;
/// Largest accepted vocabulary.
pub const MAX_VOCAB: u64 = 1 << 24;
/// Largest accepted head count (query or KV).
pub const MAX_HEADS: u64 = 1 << 14;
/// Largest accepted head dimension.
pub const MAX_HEAD_DIM: u64 = 1 << 14;
/// Largest accepted number of experts.
pub const MAX_EXPERTS: u64 = 1 << 16;
/// Largest accepted window, chunk or position-table length, in tokens.
pub const MAX_TOKENS: u64 = 1 << 40;
/// Longest accepted layer pattern.
pub const MAX_PATTERN: usize = 256;

impl ModelConfig {
    /// Check every field and every cross-field constraint.
    ///
    /// # Errors
    /// Returns all problems found, each naming its field path.
    pub fn validate(&self) -> Result<(), Invalid> {
        let mut c = Checker::new();
        c.ensure(self.name.chars().count() <= 200, "name", || "must be at most 200 characters".into());
        c.range("d_model", self.d_model, 1, MAX_WIDTH);
        c.range("num_layers", self.num_layers, 1, MAX_LAYERS);
        c.range("vocab_size", self.vocab_size, 1, MAX_VOCAB);

        match &self.attention {
            Attention::Gqa(a) => {
                c.range("attention.num_heads", a.num_heads, 1, MAX_HEADS);
                c.range("attention.num_kv_heads", a.num_kv_heads, 1, MAX_HEADS);
                c.range("attention.head_dim", a.head_dim, 1, MAX_HEAD_DIM);
                if a.num_kv_heads > a.num_heads {
                    c.push_related(
                        "attention.num_kv_heads",
                        &["attention.num_heads"],
                        format!(
                            "must not exceed attention.num_heads ({} > {}); lower it or raise attention.num_heads",
                            a.num_kv_heads, a.num_heads
                        ),
                    );
                } else if a.num_kv_heads >= 1 && a.num_heads % a.num_kv_heads != 0 {
                    // The hint's search takes up to num_heads steps: suggest a divisor only
                    // for a head count within bounds (a larger one has its own error above).
                    let hint = if a.num_heads <= MAX_HEADS {
                        format!("; use a divisor such as {}", largest_divisor_at_most(a.num_heads, a.num_kv_heads))
                    } else {
                        String::new()
                    };
                    c.push_related(
                        "attention.num_kv_heads",
                        &["attention.num_heads"],
                        format!(
                            "must divide attention.num_heads ({} is not a multiple of {}){hint}",
                            a.num_heads, a.num_kv_heads
                        ),
                    );
                }
            }
            Attention::Mla(a) => {
                c.range("attention.num_heads", a.num_heads, 1, MAX_HEADS);
                if let Some(r) = a.q_lora_rank {
                    c.range("attention.q_lora_rank", r, 1, MAX_WIDTH);
                }
                c.range("attention.kv_lora_rank", a.kv_lora_rank, 1, MAX_WIDTH);
                c.range("attention.qk_nope_head_dim", a.qk_nope_head_dim, 0, MAX_HEAD_DIM);
                c.range("attention.qk_rope_head_dim", a.qk_rope_head_dim, 0, MAX_HEAD_DIM);
                c.range("attention.v_head_dim", a.v_head_dim, 1, MAX_HEAD_DIM);
                c.ensure(a.qk_nope_head_dim > 0 || a.qk_rope_head_dim > 0, "attention.qk_nope_head_dim", || {
                    "qk_nope_head_dim + qk_rope_head_dim must be at least 1".into()
                });
            }
        }

        let l = &self.layout;
        if l.pattern.is_empty() {
            c.push("layout.pattern", "must list at least one layer kind, e.g. [\"global\"]");
        } else if l.pattern.len() > MAX_PATTERN {
            c.push("layout.pattern", format!("must have at most {MAX_PATTERN} entries (got {})", l.pattern.len()));
        }
        let has_local = l.pattern.contains(&LayerKind::Local);
        match l.local {
            None if has_local => c.push_related(
                "layout.local",
                &["layout.pattern"],
                "the pattern has local layers, so set a sliding window or chunk size",
            ),
            Some(LocalAttention::SlidingWindow { window }) => {
                c.range("layout.local.window", window, 1, MAX_TOKENS);
            }
            Some(LocalAttention::Chunked { chunk }) => {
                c.range("layout.local.chunk", chunk, 1, MAX_TOKENS);
            }
            None => {}
        }

        let (moe_layers, dense_layers) = self.moe_and_dense_layers();
        c.range("mlp.d_ff", self.mlp.d_ff, u64::from(dense_layers > 0), MAX_WIDTH);
        if let Some(m) = &self.moe {
            c.range("moe.num_experts", m.num_experts, 1, MAX_EXPERTS);
            c.range("moe.experts_per_token", m.experts_per_token, 1, MAX_EXPERTS);
            if m.experts_per_token > m.num_experts {
                c.push_related(
                    "moe.experts_per_token",
                    &["moe.num_experts"],
                    format!(
                        "must not exceed moe.num_experts ({} > {}); lower it or raise moe.num_experts",
                        m.experts_per_token, m.num_experts
                    ),
                );
            }
            c.range("moe.expert_d_ff", m.expert_d_ff, 1, MAX_WIDTH);
            c.range("moe.shared_experts", m.shared_experts, 0, MAX_EXPERTS);
            if let Some(w) = m.shared_d_ff {
                c.range("moe.shared_d_ff", w, 1, MAX_WIDTH);
            }
            c.range("moe.every", m.every, 1, MAX_LAYERS);
            if m.first_dense_layers > self.num_layers {
                c.push_related(
                    "moe.first_dense_layers",
                    &["num_layers"],
                    format!(
                        "must not exceed num_layers ({} > {}); lower it or raise num_layers",
                        m.first_dense_layers, self.num_layers
                    ),
                );
            } else if moe_layers == 0 && self.num_layers >= 1 && m.every >= 1 {
                c.push_related(
                    "moe.first_dense_layers",
                    &["moe.every"],
                    "leaves no MoE layer; lower first_dense_layers or moe.every, or remove MoE",
                );
            }
        }

        c.range("norm.per_layer", self.norm.per_layer, 0, 16);
        c.range("embeddings.learned_positions", self.embeddings.learned_positions, 0, MAX_TOKENS);
        if let Some(mtp) = &self.mtp {
            c.range("mtp.depth", mtp.depth, 0, 16);
        }
        c.finish()
    }
}

/// The largest divisor of `n` that is at most `limit` (at least 1).
///
/// Walks the divisor pairs (d, n/d) with d ≤ √n, so it takes at most √n steps
/// (2^16 for the largest head count validation accepts, 2^32 for any u64 — callers
/// pass values already checked against [`MAX_HEADS`]).
#[must_use]
pub fn largest_divisor_at_most(n: u64, limit: u64) -> u64 {
    let mut best = 1;
    let mut d = 1u64;
    while d.saturating_mul(d) <= n {
        if n.is_multiple_of(d) {
            let pair = n / d;
            if d <= limit {
                best = best.max(d);
            }
            if pair <= limit {
                best = best.max(pair);
            }
        }
        d += 1;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn every_preset_is_valid() {
        for p in presets::all() {
            assert_eq!(p.config.validate(), Ok(()), "{}", p.id);
        }
    }

    #[test]
    fn kv_heads_must_divide_heads() {
        let mut m = presets::get("llama-3-8b").unwrap().config;
        if let Attention::Gqa(a) = &mut m.attention {
            a.num_kv_heads = 5;
        }
        let e = m.validate().unwrap_err();
        assert_eq!(e.0.len(), 1);
        assert_eq!(e.0[0].field, "attention.num_kv_heads");
        assert!(e.0[0].message.contains("must divide"), "{}", e.0[0].message);
        assert!(e.0[0].message.contains("such as 4"), "{}", e.0[0].message);
    }

    #[test]
    fn zeros_are_reported_per_field() {
        let mut m = presets::get("llama-3-8b").unwrap().config;
        m.d_model = 0;
        m.num_layers = 0;
        m.vocab_size = 0;
        let e = m.validate().unwrap_err();
        let fields: Vec<_> = e.0.iter().map(|e| e.field.as_str()).collect();
        assert!(fields.contains(&"d_model"));
        assert!(fields.contains(&"num_layers"));
        assert!(fields.contains(&"vocab_size"));
    }

    #[test]
    fn local_pattern_needs_a_window() {
        let mut m = presets::get("llama-3-8b").unwrap().config;
        m.layout.pattern = vec![LayerKind::Local];
        let e = m.validate().unwrap_err();
        assert_eq!(e.0[0].field, "layout.local");
    }

    #[test]
    fn moe_top_k_above_experts_is_rejected() {
        let mut m = presets::get("mixtral-8x7b").unwrap().config;
        if let Some(moe) = &mut m.moe {
            moe.experts_per_token = 9;
        }
        let e = m.validate().unwrap_err();
        assert_eq!(e.0[0].field, "moe.experts_per_token");
    }

    /// Issue 7 (no-panic property test): 273,990,592,909 heads with one KV head fewer
    /// hung validation, which searched every number below for the divisor hint.
    #[test]
    fn huge_head_counts_do_not_hang_the_hint() {
        let mut m = presets::get("llama-3-8b").unwrap().config;
        if let Attention::Gqa(a) = &mut m.attention {
            a.num_heads = 273_990_592_909;
            a.num_kv_heads = 273_990_592_908;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(m.validate()));
        let e =
            rx.recv_timeout(std::time::Duration::from_secs(10)).expect("validation finishes within 10 s").unwrap_err();
        assert_eq!(e.for_field("attention.num_heads").len(), 1, "{e}");
        let kv = e.for_field("attention.num_kv_heads");
        assert!(kv.iter().any(|k| k.message.contains("must divide")), "{e}");
    }

    /// Issue 7 (no-panic property test): MLA dimensions near u64::MAX overflowed the
    /// `qk_nope + qk_rope` sums in validation and in the formulas (a panic in debug
    /// builds, a silent wrap in release), although invalid models promise finite counts.
    #[test]
    fn mla_dimensions_at_u64_max_do_not_overflow() {
        use crate::flops::{training_flops, FlopConvention, RematPolicy, Workload};
        let mut m = presets::get("deepseek-v3").unwrap().config;
        if let Attention::Mla(a) = &mut m.attention {
            a.kv_lora_rank = u64::MAX;
            a.qk_nope_head_dim = u64::MAX;
            a.qk_rope_head_dim = 1;
            a.v_head_dim = u64::MAX;
        }
        let e = m.validate().unwrap_err();
        assert_eq!(e.for_field("attention.qk_nope_head_dim").len(), 1, "{e}");
        assert!(crate::params::count_params(&m).total.get().is_finite());
        assert!(crate::kv_cache::kv_bytes_per_token(&m, crate::dtype::DType::Bf16).is_finite());
        let w = Workload { per_device_batch: 1.0, seq_len: 8, grad_accum: 1, remat: RematPolicy::None };
        assert!(training_flops(&m, &w, FlopConvention::Book).total.is_finite());
    }

    #[test]
    fn divisor_helper() {
        for n in 1..200u64 {
            for limit in 1..40u64 {
                let brute = (1..=limit.min(n)).rev().find(|d| n % d == 0).unwrap_or(1);
                assert_eq!(largest_divisor_at_most(n, limit), brute, "n={n} limit={limit}");
            }
        }
        assert_eq!(largest_divisor_at_most(32, 5), 4);
        assert_eq!(largest_divisor_at_most(7, 3), 1);
        assert_eq!(largest_divisor_at_most(0, 3), 1);
    }
}
