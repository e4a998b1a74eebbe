//! The dot-product attention of a decode step: one new query per sequence against every
//! cached token (book 7.1.4: generation attention is `4·N·H` FLOPs per cached token and
//! layer, intensity about the query-group size G = N/K, so HBM-bound for GQA).
//!
//! MLA decodes with the up-projections absorbed (DeepSeek-V2, arXiv 2405.04434, §2.1.2
//! and appendix C; what SGLang, vLLM and FlashMLA run): `W_UK` folds into the query, so
//! each head scores its `kv_lora_rank`-wide latent query against the cached latent plus
//! the shared rotary key (`2·(r + ρ)` FLOPs per cached token), and `W_UV` folds into the
//! output projection, so the weighted sum runs over the latent (`2·r`). The cache read per
//! cached token is only `r + ρ` elements for every head together, so the intensity is
//! `N·(2r + ρ)·2 / ((r + ρ)·bytes)`: 242 FLOP/B for DeepSeek-V3 in bf16, about a TPU v5e's
//! balance point, where GQA's is 8. Prefill keeps the unabsorbed form (the per-token
//! up-projection is cheaper than the latent attention once T is large).

use crate::model::{Attention, ModelConfig};

/// FLOPs of one decode query against one cached token in one layer, summed over the
/// query heads: `4·N·H` for MHA/GQA/MQA, `2·N·(2·r + ρ)` for absorbed MLA.
#[must_use]
pub fn flops_per_cached_token(m: &ModelConfig) -> f64 {
    match &m.attention {
        Attention::Gqa(a) => 4.0 * a.num_heads as f64 * a.head_dim as f64,
        Attention::Mla(a) => {
            let (n, r, rope) = (a.num_heads as f64, a.kv_lora_rank as f64, a.qk_rope_head_dim as f64);
            2.0 * n * (r + rope) + 2.0 * n * r
        }
    }
}

/// The same without absorption, for comparison: each cached latent is up-projected to
/// every head's key and value (`2·r·N·(d_nope + d_v)`) before the ordinary attention
/// (`2·N·(d_nope + ρ) + 2·N·d_v`). `None` for GQA, which has nothing to absorb.
#[must_use]
pub fn mla_unabsorbed_flops_per_cached_token(m: &ModelConfig) -> Option<f64> {
    match &m.attention {
        Attention::Gqa(_) => None,
        Attention::Mla(a) => {
            let (n, r) = (a.num_heads as f64, a.kv_lora_rank as f64);
            let (nope, rope, v) = (a.qk_nope_head_dim as f64, a.qk_rope_head_dim as f64, a.v_head_dim as f64);
            Some(2.0 * r * n * (nope + v) + 2.0 * n * (nope + rope) + 2.0 * n * v)
        }
    }
}

/// Attention FLOPs of one decode step of one sequence at `context` cached tokens, every
/// layer; a local layer attends to what it caches (`layout.local_span`, as the KV-cache
/// size counts it).
#[must_use]
pub fn decode_attention_flops(m: &ModelConfig, context: u64) -> f64 {
    let (global, local) = m.layout.counts(m.num_layers);
    let local_span = if local > 0 { m.layout.local_span(context) as f64 } else { 0.0 };
    flops_per_cached_token(m) * (global as f64 * context as f64 + local as f64 * local_span)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::kv_cache::kv_bytes_per_sequence;
    use crate::presets;

    /// DeepSeek-V3 (N = 128, r = 512, ρ = 64, 61 layers): 2·128·576 + 2·128·512 = 278,528
    /// FLOPs per cached token and layer absorbed, against 70,272 bytes of bf16 cache per
    /// token (61 × 576 × 2): 278,528 × 61 / 70,272 = 241.8 FLOP/B. Unabsorbed, each
    /// cached token costs 2·512·128·256 + 2·128·192 + 2·128·128 = 33.6 M FLOPs.
    #[test]
    fn mla_absorbed_decode_is_about_240_flops_per_byte() {
        let m = presets::get("deepseek-v3").unwrap().config;
        assert_eq!(flops_per_cached_token(&m), 278_528.0);
        let ctx = 4096;
        let flops = decode_attention_flops(&m, ctx);
        assert_eq!(flops, 278_528.0 * 61.0 * 4096.0);
        let bytes = kv_bytes_per_sequence(&m, ctx, DType::Bf16).get();
        assert_eq!(bytes, 70_272.0 * 4096.0);
        assert!((flops / bytes - 241.78).abs() < 0.01, "{}", flops / bytes);
        assert_eq!(mla_unabsorbed_flops_per_cached_token(&m), Some(33_554_432.0 + 49_152.0 + 32_768.0));
    }

    /// LLaMA 3-70B (N = 64, K = 8, H = 128, 80 layers): 4·64·128 = 32,768 FLOPs per cached
    /// token and layer against 2·8·128 bf16 elements (4,096 B): intensity N/K = 8 (book 7.1.4).
    #[test]
    fn gqa_decode_intensity_is_the_group_size() {
        let m = presets::get("llama-3-70b").unwrap().config;
        assert_eq!(flops_per_cached_token(&m), 32_768.0);
        let f = decode_attention_flops(&m, 1000);
        let b = kv_bytes_per_sequence(&m, 1000, DType::Bf16).get();
        assert!((f / b - 8.0).abs() < 1e-12);
        assert_eq!(mla_unabsorbed_flops_per_cached_token(&m), None);
    }

    #[test]
    fn local_layers_attend_to_their_span() {
        let m = presets::get("gemma-3-27b").unwrap().config; // 10 global, 52 local (window 1024)
        let per = flops_per_cached_token(&m);
        assert_eq!(decode_attention_flops(&m, 32_768), per * (10.0 * 32_768.0 + 52.0 * 1024.0));
        assert_eq!(decode_attention_flops(&m, 100), per * 62.0 * 100.0);
    }
}
