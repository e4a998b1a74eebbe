//! Mixture-of-experts at inference (book 4.4.1, Exercises 7.5–7.6): a decode step does
//! the FLOPs of the k activated experts per token but reads every expert that some
//! token in the batch routes to, so weight traffic grows with the batch until every
//! expert is touched.

/// Expected number of distinct experts that `tokens` tokens touch in one MoE layer when
/// each picks `k` of `experts` uniformly and independently: `E·(1 − (1 − k/E)^T)`.
///
/// A given expert is missed by one token with probability `C(E−1, k)/C(E, k) = 1 − k/E`,
/// by all `T` with `(1 − k/E)^T`. Real routers are not uniform (hot experts make the
/// count smaller, balanced routing losses keep it close); the busiest chip under expert
/// parallelism touches more than the average this implies.
#[must_use]
pub fn expected_experts_touched(experts: u64, k: u64, tokens: f64) -> f64 {
    if experts == 0 || tokens.is_nan() || tokens <= 0.0 {
        return 0.0;
    }
    let e = experts as f64;
    let miss = (1.0 - (k as f64 / e)).clamp(0.0, 1.0);
    e * (1.0 - miss.powf(tokens))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_token_touches_k_and_a_big_batch_touches_all() {
        assert!((expected_experts_touched(256, 8, 1.0) - 8.0).abs() < 1e-9);
        assert!((expected_experts_touched(8, 2, 1e4) - 8.0).abs() < 1e-9);
        assert_eq!(expected_experts_touched(8, 8, 3.0), 8.0);
        assert_eq!(expected_experts_touched(0, 1, 3.0), 0.0);
        assert_eq!(expected_experts_touched(8, 2, f64::NAN), 0.0);
        // DeepSeek-V3 at batch 32: 256 × (1 − (31/32)^32) ≈ 163 of 256 experts per layer.
        let t = expected_experts_touched(256, 8, 32.0);
        assert!((t - 163.3).abs() < 0.05, "{t}");
    }

    #[test]
    fn monotone_in_tokens() {
        let mut last = 0.0;
        for t in 0..2000 {
            let now = expected_experts_touched(64, 6, f64::from(t));
            assert!(now >= last);
            last = now;
        }
    }
}
