//! How many query–key pairs dot-product attention computes in one sequence.

use crate::model::LocalAttention;
use serde::Serialize;

/// How a convention counts the query–key pairs of dot-product attention.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AttentionCounting {
    /// Every query against every key in its span, ignoring the causal mask
    /// (book 4.3: 12·B·T²·N·H for training; the MaxText notebook).
    Dense,
    /// Half of the dense count, because the causal mask zeroes the upper triangle
    /// (MaxText since July 2025, Megatron-LM, NeMo).
    CausalHalf,
    /// Not counted (6·N·D).
    Ignored,
}
crate::serde_names::deserialize_by_name!(AttentionCounting { Dense => "dense", CausalHalf => "causal_half", Ignored => "ignored" });

/// Query–key pairs in one sequence of `t` tokens for one layer.
///
/// `local` is `None` for a global layer. With `Dense` counting a global layer has t²
/// pairs, a sliding-window layer t·min(w, t) and a chunked layer Σ chunk², exactly the
/// per-layer terms of MaxText's `calculate_tflops_training_per_device`; `CausalHalf`
/// halves each.
#[must_use]
pub fn attention_pairs(t: u64, local: Option<LocalAttention>, counting: AttentionCounting) -> f64 {
    let tf = t as f64;
    let dense = match local {
        None => tf * tf,
        Some(LocalAttention::SlidingWindow { window }) => tf * window.min(t) as f64,
        Some(LocalAttention::Chunked { chunk }) => match (t.checked_div(chunk), t.checked_rem(chunk)) {
            (Some(full), Some(rem)) => {
                let c = chunk as f64;
                full as f64 * c * c + (rem as f64) * (rem as f64)
            }
            // A zero chunk is rejected by validation; count it as global.
            _ => tf * tf,
        },
    };
    match counting {
        AttentionCounting::Dense => dense,
        AttentionCounting::CausalHalf => dense / 2.0,
        AttentionCounting::Ignored => 0.0,
    }
}

/// Arithmetic intensity of dot-product attention (book 7.1.4, Solution 4.4): `t` queries
/// against `s` keys, `g` query heads per KV head, every operand in `bytes_per_element`.
///
/// Per KV head and head dimension H it does 4·T·S·G·H FLOPs (QKᵀ and the weighted sum
/// of V) and reads Q and writes O (T·G·H each) and reads K and V (S·H each), so the
/// intensity is 2·T·S·G / (bytes·(T·G + S)); in bf16, T·S·G / (T·G + S). MHA prefill
/// (G = 1, S = T) gives T/2; generation (T = 1) gives about G.
#[must_use]
pub fn dot_attention_intensity(t: f64, s: f64, g: f64, bytes_per_element: f64) -> f64 {
    2.0 * t * s * g / (bytes_per_element * (t * g + s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_pairs() {
        assert_eq!(attention_pairs(4096, None, AttentionCounting::Dense), 4096.0 * 4096.0);
        assert_eq!(attention_pairs(4096, None, AttentionCounting::CausalHalf), 4096.0 * 2048.0);
        assert_eq!(attention_pairs(4096, None, AttentionCounting::Ignored), 0.0);
    }

    #[test]
    fn window_caps_the_span() {
        let w = Some(LocalAttention::SlidingWindow { window: 1024 });
        assert_eq!(attention_pairs(8192, w, AttentionCounting::Dense), 8192.0 * 1024.0);
        assert_eq!(attention_pairs(512, w, AttentionCounting::Dense), 512.0 * 512.0);
    }

    #[test]
    fn chunks_sum_their_squares() {
        // MaxText _calculate_chunked_attention_flops_per_layer: 2 chunks of 8192 + 1000².
        let c = Some(LocalAttention::Chunked { chunk: 8192 });
        let t = 2 * 8192 + 1000;
        assert_eq!(attention_pairs(t, c, AttentionCounting::Dense), 2.0 * 8192.0 * 8192.0 + 1000.0 * 1000.0);
    }
}
