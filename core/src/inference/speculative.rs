//! Speculative decoding (book 7.2.1): a cheap draft proposes γ tokens, the target model
//! scores all of them in one step and keeps the longest accepted prefix plus one token
//! of its own.
//!
//! The expected number of tokens per step is Leviathan, Kalman and Matias, "Fast
//! Inference from Transformers via Speculative Decoding", ICML 2023 (arXiv:2211.17192),
//! equation (1), which assumes every draft token is accepted independently with the
//! same probability α (their "i.i.d. assumption"); real acceptance falls along the draft.

use crate::model_source::ModelSource;
use crate::units::Seconds;
use serde::{Deserialize, Serialize};

/// What the draft model of speculative decoding costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum DraftCost {
    /// One draft step costs this fraction of one target decode step (Leviathan et al.'s c).
    CostRatio(f64),
    /// A draft model served on the same chips with the same formats and sharding; its
    /// weights and KV cache count towards memory.
    Model(ModelSource),
}

/// `inference.speculative`: speculative decoding (book 7.2.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Speculative {
    /// γ: draft tokens proposed per step (1 to 64).
    pub draft_len: u64,
    /// α: probability that the target accepts a draft token, in [0, 1].
    pub acceptance: f64,
    /// The draft's cost.
    pub draft: DraftCost,
}

/// Expected tokens a target step produces for draft length `gamma` and acceptance `alpha`:
/// `(1 − α^(γ+1)) / (1 − α)` — between 1 (α = 0) and γ + 1 (α = 1); α is clamped to
/// [0, 1] (NaN counts as 0).
#[must_use]
pub fn expected_tokens_per_step(gamma: u64, alpha: f64) -> f64 {
    let g = gamma as f64;
    let a = if alpha.is_nan() { 0.0 } else { alpha.clamp(0.0, 1.0) };
    if a >= 1.0 {
        return g + 1.0;
    }
    (1.0 - a.powf(g + 1.0)) / (1.0 - a)
}

/// One speculative iteration and what it buys.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SpeculativeStep {
    /// Expected tokens per sequence per iteration.
    pub expected_tokens: f64,
    /// γ draft steps.
    pub draft_time_s: Seconds,
    /// The target step that scores γ + 1 tokens per sequence.
    pub verify_time_s: Seconds,
    /// Draft plus verify.
    pub iteration_time_s: Seconds,
    /// Iteration time per expected token: the per-token latency.
    pub time_per_token_s: Seconds,
    /// Plain decode step time / time per token (above 1: a win).
    pub speedup: f64,
}

/// Combine the draft's step time, the target's verification step (γ + 1 tokens per
/// sequence) and the plain step into the per-token latency and speedup.
#[must_use]
pub fn speculative_step(
    gamma: u64,
    alpha: f64,
    draft_step: Seconds,
    verify_step: Seconds,
    plain_step: Seconds,
) -> SpeculativeStep {
    let expected_tokens = expected_tokens_per_step(gamma, alpha);
    let draft_time_s = draft_step * gamma as f64;
    let iteration_time_s = draft_time_s + verify_step;
    let time_per_token_s = iteration_time_s / expected_tokens;
    let speedup = if time_per_token_s.get() > 0.0 { plain_step / time_per_token_s } else { 0.0 };
    SpeculativeStep {
        expected_tokens,
        draft_time_s,
        verify_time_s: verify_step,
        iteration_time_s,
        time_per_token_s,
        speedup,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leviathan_equation_1() {
        assert_eq!(expected_tokens_per_step(4, 0.0), 1.0);
        assert_eq!(expected_tokens_per_step(4, 1.0), 5.0);
        // α = 0.8, γ = 5: (1 − 0.8^6) / 0.2 = 3.69.
        assert!((expected_tokens_per_step(5, 0.8) - 3.689_28).abs() < 1e-5);
        // A memory-bound target scores 6 tokens in about one step's time: with a draft
        // costing 5% of a step, 3.69 tokens per 1.25 steps is a 2.95x speedup.
        let s = speculative_step(5, 0.8, Seconds(0.05), Seconds(1.0), Seconds(1.0));
        assert!((s.speedup - 3.689_28 / 1.25).abs() < 1e-5);
    }
}
