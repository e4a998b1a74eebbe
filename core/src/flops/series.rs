//! FLOPs per token versus sequence length, for the "where does attention overtake the
//! MLP" chart (book 4.3).

use super::{attention_forward_per_sequence, forward_per_token, FlopConvention};
use crate::model::ModelConfig;
use serde::{Deserialize, Serialize};

/// One point of the "where does attention overtake the MLP" chart: forward FLOPs per
/// token of each part at sequence length `seq_len`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FlopsAtLength {
    /// Sequence length.
    pub seq_len: u64,
    /// Dot-product attention per token.
    pub attention_dot: f64,
    /// Attention projections per token.
    pub attention_projections: f64,
    /// Dense MLP + experts + router per token.
    pub mlp: f64,
    /// Unembedding per token.
    pub unembedding: f64,
}

/// Forward FLOPs per token versus sequence length (book 4.3: attention dominates once
/// T > 8·D for a vanilla MHA model with F = 4·D).
#[must_use]
pub fn flops_vs_seq_len(
    m: &ModelConfig,
    seq_lens: &[u64],
    convention: FlopConvention,
) -> Vec<FlopsAtLength> {
    let fpt = forward_per_token(m);
    seq_lens
        .iter()
        .map(|&t| {
            let dot = attention_forward_per_sequence(m, t, convention.attention_counting(), false);
            FlopsAtLength {
                seq_len: t,
                attention_dot: if t > 0 { dot / t as f64 } else { 0.0 },
                attention_projections: fpt.attention_projections,
                mlp: fpt.mlp + fpt.routed + fpt.shared + fpt.router,
                unembedding: fpt.unembedding,
            }
        })
        .collect()
}

/// The sequence length at which dot-product attention FLOPs per token first exceed
/// the MLP's (dense + experts + router), searched over powers of two up to 2^30.
#[must_use]
pub fn attention_crossover(m: &ModelConfig, convention: FlopConvention) -> Option<u64> {
    let lens: Vec<u64> = (0..=30).map(|p| 1u64 << p).collect();
    let series = flops_vs_seq_len(m, &lens, convention);
    let first = series.iter().position(|p| p.attention_dot > p.mlp)?;
    if first == 0 {
        return Some(1);
    }
    // Bisect between the last power of two below and the first above.
    let (mut lo, mut hi) = (lens[first - 1], lens[first]);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let p = flops_vs_seq_len(m, &[mid], convention);
        if p.first().is_some_and(|p| p.attention_dot > p.mlp) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}
