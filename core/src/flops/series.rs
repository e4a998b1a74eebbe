//! FLOPs per token versus sequence length, for the "where does attention overtake the
//! MLP" chart (book 4.3).

use super::{
    attention_flops_per_pair, attention_forward_per_sequence, attention_pairs, forward_per_token, FlopConvention,
};
use crate::model::{LocalAttention, ModelConfig};
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
pub fn flops_vs_seq_len(m: &ModelConfig, seq_lens: &[u64], convention: FlopConvention) -> Vec<FlopsAtLength> {
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
/// the MLP's (dense + experts + router); `None` when they do not by 2^30 tokens (with
/// chunked attention the answer can lie up to one chunk beyond that).
///
/// Attention per token only grows with the length, except in chunked layers, where it is
/// saw-toothed: it peaks at every chunk boundary and dips in between. So the search runs on
/// an envelope that only grows and equals it at every boundary — each chunked layer counted
/// as `T·min(T, chunk)` pairs times the convention's mask fraction (1 dense, 1/2 causal) —
/// and then, if the real model is still below at that length, looks up to the next chunk
/// boundary. (A causal sliding window of the chunk's length is no envelope: its band
/// `T·c − c²/2` exceeds the chunks' `T·c/2` at the boundaries.)
#[must_use]
pub fn attention_crossover(m: &ModelConfig, convention: FlopConvention) -> Option<u64> {
    let overtakes = |t: u64| flops_vs_seq_len(m, &[t], convention).first().is_some_and(|p| p.attention_dot > p.mlp);
    let Some(LocalAttention::Chunked { chunk }) = m.layout.local else {
        return first_from_powers_of_two(overtakes);
    };
    let fpt = forward_per_token(m);
    let mlp = fpt.mlp + fpt.routed + fpt.shared + fpt.router;
    let (global, local) = m.layout.counts(m.num_layers);
    let counting = convention.attention_counting();
    // Pairs of a 1-token global layer: the mask's fraction of the square.
    let mask = attention_pairs(1, None, counting);
    // Written in the order `attention_forward_per_sequence` and `flops_vs_seq_len` use, so
    // that up to the first chunk and at every boundary, where the envelope is the real
    // count, the two round alike (a crossing there is the same in both).
    let envelope_overtakes = |t: u64| {
        let tf = t as f64;
        let local_pairs = tf * t.min(chunk) as f64 * mask;
        let pairs = global as f64 * attention_pairs(t, None, counting) + local as f64 * local_pairs;
        attention_flops_per_pair(m) * pairs / tf > mlp
    };
    let t = first_from_powers_of_two(envelope_overtakes)?;
    if overtakes(t) {
        return Some(t);
    }
    // Between two chunk boundaries attention per token is convex in the length, and at the
    // next boundary it equals the (already larger) envelope: it overtakes on one interval
    // that ends there, whose start bisection finds.
    let boundary = t.div_ceil(chunk).saturating_mul(chunk);
    Some(bisect(t, boundary, overtakes))
}

/// The first `t` in `1..=2^30` where `holds` does, for a condition that stays true once true.
fn first_from_powers_of_two(holds: impl Fn(u64) -> bool) -> Option<u64> {
    let p = (0..=30).find(|&p| holds(1 << p))?;
    Some(if p == 0 { 1 } else { bisect(1 << (p - 1), 1 << p, holds) })
}

/// The smallest `t` in `(lo, hi]` where `holds` does, given that it fails at `lo`, holds
/// at `hi` and stays true once true in between.
fn bisect(mut lo: u64, mut hi: u64, holds: impl Fn(u64) -> bool) -> u64 {
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if holds(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}
