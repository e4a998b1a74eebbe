//! Key-value cache size (book 4.4.3 and 7.1.6).
//!
//! A KV cache is `[2, S, L, K, H]` for MHA/GQA/MQA (keys and values, per layer, per KV
//! head). MLA caches one latent of `kv_lora_rank` plus the shared rotary key of
//! `qk_rope_head_dim` per token and layer. Local layers (sliding window or chunked)
//! keep at most their span.

use crate::dtype::DType;
use crate::model::{Attention, LayerKind, ModelConfig};
use crate::units::Bytes;

/// Elements cached per token in one layer.
#[must_use]
pub fn kv_elements_per_token_per_layer(m: &ModelConfig) -> f64 {
    match &m.attention {
        Attention::Gqa(a) => 2.0 * a.num_kv_heads as f64 * a.head_dim as f64,
        Attention::Mla(a) => a.kv_lora_rank as f64 + a.qk_rope_head_dim as f64,
    }
}

/// KV-cache bytes per token of context when no layer is capped by its window
/// (book 4.4.3: 2·L·K·H elements per token).
#[must_use]
pub fn kv_bytes_per_token(m: &ModelConfig, dtype: DType) -> Bytes {
    Bytes(m.num_layers as f64 * kv_elements_per_token_per_layer(m) * dtype.bytes())
}

/// KV-cache bytes for one sequence with `context` tokens: global layers keep every
/// token, local layers at most their window or chunk.
#[must_use]
pub fn kv_bytes_per_sequence(m: &ModelConfig, context: u64, dtype: DType) -> Bytes {
    let (global, local) = m.layout.counts(m.num_layers);
    let per_layer = kv_elements_per_token_per_layer(m) * dtype.bytes();
    let local_tokens = if local > 0 { m.layout.local_span(context) as f64 } else { 0.0 };
    Bytes(per_layer * (global as f64 * context as f64 + local as f64 * local_tokens))
}

/// KV-cache bytes for `batch` sequences of `context` tokens each (book 8.1:
/// 160 kB × 8192 × 32 = 41.9 GB for LLaMA 3-70B in int8).
#[must_use]
pub fn kv_bytes_per_batch(m: &ModelConfig, context: u64, batch: f64, dtype: DType) -> Bytes {
    kv_bytes_per_sequence(m, context, dtype) * batch
}

/// Distinct key/value heads a token caches per layer, i.e. how many ways the cache can
/// be sharded by heads (book 7.3.3): K for MHA/GQA/MQA, 1 for MLA, whose single latent
/// serves every query head.
#[must_use]
pub fn kv_heads(m: &ModelConfig) -> u64 {
    match &m.attention {
        Attention::Gqa(a) => a.num_kv_heads,
        Attention::Mla(_) => 1,
    }
}

/// True when some layer's cache is capped below `context`.
#[must_use]
pub fn is_window_capped(m: &ModelConfig, context: u64) -> bool {
    m.layout.pattern.contains(&LayerKind::Local) && m.layout.local_span(context) < context
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn llama3_70b_int8_is_160kb_per_token() {
        // Book 8.1: 2·L·K·H = 2·80·8·128 = 163,840 bytes in int8.
        let m = presets::get("llama-3-70b").unwrap().config;
        assert_eq!(kv_bytes_per_token(&m, DType::Int8).get(), 163_840.0);
    }

    #[test]
    fn mha_gqa_and_mqa_differ_by_their_kv_heads_in_every_format() {
        // LLaMA 3-8B: 32 layers, 8 KV heads of 128. As MHA (32 KV heads) the cache is 4x,
        // as MQA (1 KV head) 1/8; fp8 and int8 are 1 byte, int4 half a byte.
        let gqa = presets::get("llama-3-8b").unwrap().config;
        let with_kv_heads = |k: u64| {
            let mut m = gqa.clone();
            if let Attention::Gqa(a) = &mut m.attention {
                a.num_kv_heads = k;
            }
            m
        };
        let (mha, mqa) = (with_kv_heads(32), with_kv_heads(1));
        for (dtype, bytes) in [(DType::Bf16, 2.0), (DType::Fp8, 1.0), (DType::Int8, 1.0), (DType::Int4, 0.5)] {
            assert_eq!(kv_bytes_per_token(&gqa, dtype).get(), 2.0 * 32.0 * 8.0 * 128.0 * bytes);
            assert_eq!(kv_bytes_per_token(&mha, dtype).get(), 2.0 * 32.0 * 32.0 * 128.0 * bytes);
            assert_eq!(kv_bytes_per_token(&mqa, dtype).get(), 2.0 * 32.0 * 128.0 * bytes);
            assert_eq!(kv_bytes_per_sequence(&mqa, 1000, dtype).get(), 1000.0 * 2.0 * 32.0 * 128.0 * bytes);
        }
        assert_eq!((kv_heads(&mha), kv_heads(&mqa)), (32, 1));
    }

    #[test]
    fn deepseek_v3_caches_the_latent() {
        // 61 layers × (512 + 64) × 2 bytes = 70,272 bytes per token in bf16.
        let m = presets::get("deepseek-v3").unwrap().config;
        assert_eq!(kv_bytes_per_token(&m, DType::Bf16).get(), 70_272.0);
    }

    #[test]
    fn local_layers_are_capped_at_the_window() {
        let m = presets::get("gemma-3-27b").unwrap().config;
        let per_layer = 2.0 * 16.0 * 128.0 * 2.0;
        let b = kv_bytes_per_sequence(&m, 32_768, DType::Bf16).get();
        assert_eq!(b, per_layer * (10.0 * 32_768.0 + 52.0 * 1024.0));
        assert!(is_window_capped(&m, 32_768));
        assert!(!is_window_capped(&m, 512));
    }
}
