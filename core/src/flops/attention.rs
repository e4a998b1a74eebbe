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
    /// The area the causal mask leaves (MaxText since July 2025, Megatron-LM, NeMo): half
    /// of a global layer's `T²` and of each chunk's square, and for a sliding window the
    /// band `T·W − W²/2` (MaxText since 2025; not half of `T·W`). See [`attention_pairs`].
    CausalHalf,
    /// Not counted (6·N·D).
    Ignored,
}
crate::serde_names::deserialize_by_name!(AttentionCounting { Dense => "dense", CausalHalf => "causal_half", Ignored => "ignored" });

/// Query–key pairs in one sequence of `t` tokens for one layer.
///
/// `local` is `None` for a global layer. With `Dense` counting (every key in the span,
/// mask ignored) a global layer has `T²` pairs, a sliding-window layer `T·min(W, T)` and
/// a chunked layer `Σ chunk²`. `CausalHalf` counts the area under the causal mask, as
/// MaxText's `calculate_tflops_training_per_device` does (src/maxtext/utils/maxtext_utils.py
/// at AI-Hypercomputer/maxtext e591f30cbbf217ed67ef71263ec0538239f9c3b8): `T²/2` for a
/// global layer, half of each chunk's square (`calculate_llama4_attention_tflops`), and for
/// a window the band `T·W' − W'²/2` with `W' = min(W, T)`
/// (`calculate_mixed_attention_model_tflops_training_per_device`, `calculate_gemma2_…`),
/// which at `W' = T` is the global `T²/2`. Halving `T·W` instead undercounts a window's
/// band by `W·(T − W)/2` (Gemma 2 at T = 2W: a third of its local pairs).
///
/// The area is [`causal_window_pairs`] less `W'/2`: counting pairs exactly puts half a
/// pair more on every diagonal cell the band crosses, a relative `1/(2T)` or less.
#[must_use]
pub fn attention_pairs(t: u64, local: Option<LocalAttention>, counting: AttentionCounting) -> f64 {
    let tf = t as f64;
    let chunked = |chunk: u64| match (t.checked_div(chunk), t.checked_rem(chunk)) {
        (Some(full), Some(rem)) => {
            let c = chunk as f64;
            full as f64 * c * c + (rem as f64) * (rem as f64)
        }
        // A zero chunk is rejected by validation; count it as global.
        _ => tf * tf,
    };
    match (counting, local) {
        (AttentionCounting::Ignored, _) => 0.0,
        (AttentionCounting::Dense, None) => tf * tf,
        (AttentionCounting::Dense, Some(LocalAttention::SlidingWindow { window })) => tf * window.min(t) as f64,
        (AttentionCounting::Dense, Some(LocalAttention::Chunked { chunk })) => chunked(chunk),
        (AttentionCounting::CausalHalf, None) => tf * tf / 2.0,
        (AttentionCounting::CausalHalf, Some(LocalAttention::SlidingWindow { window })) => {
            let w = window.min(t) as f64;
            tf * w - w * w / 2.0
        }
        (AttentionCounting::CausalHalf, Some(LocalAttention::Chunked { chunk })) => chunked(chunk) / 2.0,
    }
}

/// Query–key pairs of a causal sliding window, counted one by one: query `i` (from 0)
/// sees the `min(i + 1, W)` keys ending at itself, so `Σ_i min(i + 1, W)` is
/// `T·W − W·(W − 1)/2` for `T ≥ W` (`W(W+1)/2` over the first `W` queries, `W` each after)
/// and `T·(T + 1)/2` for `T < W` (every query sees all earlier keys and itself).
#[must_use]
pub fn causal_window_pairs(t: u64, window: u64) -> f64 {
    let (tf, w) = (t as f64, window.min(t) as f64);
    tf * w - w * (w - 1.0) / 2.0
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

    /// Brute force: every query against the keys its causal window lets it see.
    #[test]
    fn causal_window_pairs_count_the_band_exactly() {
        for t in 1..=40_u64 {
            for window in 1..=45_u64 {
                let brute: u64 = (0..t).map(|i| (0..=i).filter(|&j| i - j < window).count() as u64).sum();
                assert_eq!(causal_window_pairs(t, window), brute as f64, "T={t} W={window}");
                // MaxText's area is the exact count less half a pair per diagonal cell of the band.
                let area =
                    attention_pairs(t, Some(LocalAttention::SlidingWindow { window }), AttentionCounting::CausalHalf);
                assert_eq!(area, brute as f64 - window.min(t) as f64 / 2.0, "T={t} W={window}");
            }
            // A window as long as the sequence is a global layer.
            let whole = Some(LocalAttention::SlidingWindow { window: t });
            let global = attention_pairs(t, None, AttentionCounting::CausalHalf);
            assert_eq!(attention_pairs(t, whole, AttentionCounting::CausalHalf), global);
        }
        // Gemma 2 at T = 2W: the band is 3/4 of T·W, not the 1/2 that halving T·W gives.
        let band =
            attention_pairs(8192, Some(LocalAttention::SlidingWindow { window: 4096 }), AttentionCounting::CausalHalf);
        assert_eq!(band, 0.75 * 8192.0 * 4096.0);
    }

    #[test]
    fn chunks_sum_their_squares() {
        // MaxText _calculate_chunked_attention_flops_per_layer: 2 chunks of 8192 + 1000².
        let c = Some(LocalAttention::Chunked { chunk: 8192 });
        let t = 2 * 8192 + 1000;
        assert_eq!(attention_pairs(t, c, AttentionCounting::Dense), 2.0 * 8192.0 * 8192.0 + 1000.0 * 1000.0);
    }
}
