//! Prefill (book 7.1.3, 7.3.1, 8.1.2): one forward pass over the prompt, compute-bound
//! once the prompt is longer than the critical batch, so its time is FLOPs over the
//! chips' peak at some utilisation; chunked prefill splits it into passes of `c`
//! tokens, each of which reloads the weights and reads the KV cache written so far.

use super::options::CommsOverlap;
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Seconds};
use serde::{Deserialize, Serialize};

/// `2·N·T`: forward FLOPs of `tokens` tokens through `params` weights, 2 per weight and
/// token (book 4.1, 8.1.2).
#[must_use]
pub fn forward_flops(params: f64, tokens: f64) -> Flops {
    Flops(2.0 * params * tokens)
}

/// Time to do `flops` on `chips` chips of `peak` FLOP/s at utilisation `mfu` (book 8.1.2:
/// `2·70e9·8192 / (16·1.97e14·0.4) = 0.91 s`).
#[must_use]
pub fn prefill_time_at_mfu(flops: Flops, chips: f64, peak: FlopsPerSec, mfu: f64) -> Seconds {
    flops / (peak * (chips * mfu))
}

/// What bounds a prefill pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PrefillBound {
    /// FLOPs (at the assumed utilisation): long prompts.
    Compute,
    /// Weights and KV cache from HBM: short prompts or small chunks.
    Hbm,
    /// The sharding's collectives.
    Communication,
}

/// One pass's work on the busiest chip: FLOPs, HBM bytes, collective time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassWork {
    /// FLOPs on this chip.
    pub flops: Flops,
    /// HBM bytes read on this chip.
    pub hbm_bytes: Bytes,
    /// Collectives.
    pub comms: Seconds,
}

/// A prefill's time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PrefillTime {
    /// Wall-clock time of every pass.
    pub time_s: Seconds,
    /// FLOPs on one chip.
    pub flops: Flops,
    /// Time the FLOPs take at peak: `flops / C`.
    pub compute_at_peak_s: Seconds,
    /// `compute_at_peak_s / time_s`: the utilisation this prefill achieves.
    pub mfu_effective: f64,
    /// Passes (chunks).
    pub passes: u64,
    /// What bounds the longest share of the time.
    pub bound: PrefillBound,
}

/// Passes timed one by one; longer prefills are timed in this many groups of equal
/// chunks, each at its middle chunk.
pub const MAX_TIMED_PASSES: u64 = 1024;

/// Time a prompt of `prompt` tokens in passes of `chunk` tokens (`chunk ≥ prompt` is one
/// pass): each pass takes `max(FLOPs / (C·mfu), HBM bytes / W)` and its collectives,
/// overlapped or not. `pass(tokens, prior)` gives the work of a pass of `tokens` tokens
/// after `prior` tokens of context.
#[must_use]
pub fn prefill_time(
    prompt: u64,
    chunk: u64,
    peak: FlopsPerSec,
    mfu: f64,
    hbm: BytesPerSec,
    overlap: CommsOverlap,
    mut pass: impl FnMut(u64, u64) -> PassWork,
) -> PrefillTime {
    let chunk = chunk.clamp(1, prompt.max(1));
    let passes = prompt.div_ceil(chunk);
    let groups = passes.clamp(1, MAX_TIMED_PASSES);
    let per_group = passes as f64 / groups as f64;
    let (mut time, mut flops) = (Seconds::ZERO, Flops::ZERO);
    let mut by_bound = [Seconds::ZERO; 3];
    for g in 0..groups {
        // The middle pass of group g (every pass when there are few).
        let i = if passes <= MAX_TIMED_PASSES { g } else { ((g as f64 + 0.5) * per_group) as u64 };
        let prior = i.saturating_mul(chunk).min(prompt);
        let tokens = chunk.min(prompt - prior);
        let w = pass(tokens, prior);
        let weight = if passes <= MAX_TIMED_PASSES { 1.0 } else { per_group };
        let compute = prefill_time_at_mfu(w.flops, 1.0, peak, mfu);
        let memory = w.hbm_bytes / hbm;
        let local = compute.max(memory);
        let t = match overlap {
            CommsOverlap::Full => local.max(w.comms),
            CommsOverlap::None => local + w.comms,
        };
        let bound = if w.comms > local {
            2
        } else if memory > compute {
            1
        } else {
            0
        };
        if let Some(b) = by_bound.get_mut(bound) {
            *b += t * weight;
        }
        time += t * weight;
        flops += w.flops * weight;
    }
    let compute_at_peak_s = flops / peak;
    let bound = match by_bound
        .iter()
        .enumerate()
        .fold((0, Seconds::ZERO), |best, (i, t)| if *t > best.1 { (i, *t) } else { best })
        .0
    {
        1 => PrefillBound::Hbm,
        2 => PrefillBound::Communication,
        _ => PrefillBound::Compute,
    };
    let mfu_effective = if time.get() > 0.0 { compute_at_peak_s / time } else { 0.0 };
    PrefillTime { time_s: time, flops, compute_at_peak_s, mfu_effective, passes, bound }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_chunks_reload_the_weights() {
        // A toy model: 1e9 FLOPs and 1e6 weight bytes per token-pass on one chip.
        let pass = |t: u64, _prior: u64| PassWork {
            flops: Flops(1e9 * t as f64),
            hbm_bytes: Bytes(1e8),
            comms: Seconds::ZERO,
        };
        let (c, w) = (FlopsPerSec(1e12), BytesPerSec(1e11));
        let whole = prefill_time(4096, 4096, c, 1.0, w, CommsOverlap::Full, pass);
        assert_eq!(whole.passes, 1);
        assert!((whole.time_s.get() - 4.096).abs() < 1e-12);
        assert_eq!(whole.bound, PrefillBound::Compute);
        assert!((whole.mfu_effective - 1.0).abs() < 1e-12);
        // Chunks of 1 token: each pass reads 1e8 bytes in 1 ms > 1 ms of FLOPs.
        let tiny = prefill_time(4096, 1, c, 1.0, w, CommsOverlap::Full, pass);
        assert_eq!(tiny.passes, 4096);
        assert!((tiny.time_s.get() - 4.096).abs() < 1e-9);
        let tinier = prefill_time(4096, 1, c, 1.0, BytesPerSec(5e10), CommsOverlap::Full, pass);
        assert_eq!(tinier.bound, PrefillBound::Hbm);
        assert!((tinier.time_s.get() - 8.192).abs() < 1e-9);
        // At 40% utilisation the compute-bound time is 2.5 times longer.
        let slow = prefill_time(4096, 4096, c, 0.4, w, CommsOverlap::Full, pass);
        assert!((slow.mfu_effective - 0.4).abs() < 1e-12);
    }
}
