//! What serving keeps in HBM (book 7.1.6, 8.1, 8.1.1): one copy of the weights, a KV
//! cache per sequence, and the working memory of the forward pass; how many chips that
//! needs and how big a batch fits.

use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// Chips' worth of HBM that `bytes` fill, as a fraction (book 8.1: 112 GB / 16 GB = 7).
#[must_use]
pub fn chips_needed(bytes: Bytes, hbm_per_chip: Bytes) -> f64 {
    bytes / hbm_per_chip
}

/// A whole, non-negative count: NaN and negatives are 0, anything past `u64::MAX` is
/// `u64::MAX`.
fn count(n: f64) -> u64 {
    if n.is_nan() || n <= 0.0 {
        0
    } else if n >= u64::MAX as f64 {
        u64::MAX
    } else {
        // proof: a positive integral value below 2^64 converts exactly enough.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let c = n as u64;
        c
    }
}

/// Whole chips needed: `⌈bytes / HBM⌉` (book 8.1.1: `ceil(params·sizeof(dtype) / HBM)`).
/// Zero for nothing to store; `u64::MAX` when no number of chips holds it.
#[must_use]
pub fn min_chips(bytes: Bytes, hbm_per_chip: Bytes) -> u64 {
    count(chips_needed(bytes, hbm_per_chip).ceil())
}

/// The smallest power of two at least [`min_chips`] (book 8.2's `min_topology`, and
/// Exercise 7.6's "smallest slice").
#[must_use]
pub fn min_power_of_two_chips(bytes: Bytes, hbm_per_chip: Bytes) -> u64 {
    min_chips(bytes, hbm_per_chip).max(1).checked_next_power_of_two().unwrap_or(u64::MAX)
}

/// Sequences of `per_sequence` bytes that fit in `free` bytes: `⌊free / per_sequence⌋`
/// (book 7.1.7, 8.1.1 "num KV caches"); zero when nothing is free.
#[must_use]
pub fn sequences_that_fit(free: Bytes, per_sequence: Bytes) -> u64 {
    count((free / per_sequence).floor())
}

/// The largest `b` in `[0, limit]` with `fits(b)`, for a `fits` that is true up to some
/// batch and false after it (binary search, at most 64 calls).
pub fn largest_fitting(limit: u64, mut fits: impl FnMut(u64) -> bool) -> u64 {
    let (mut lo, mut hi) = (0_u64, limit);
    if fits(hi) {
        return hi;
    }
    // Invariant: lo is 0 or fits; hi does not fit.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Activations of one forward pass over `tokens` tokens on one chip, the working memory
/// (book 7.1.6: "a single activation [of 8k tokens] only uses around 80MB"): the
/// residual stream in and out (`2·D`) and the MLP's hidden activations (`(m−1)·F / Y`
/// for `m` matrices) per token, and the logits (`V / Y`) of the `logits` tokens that
/// need them (every token when decoding, the last one of a prefill), all in the
/// activation format. A rough figure: the book calls the real working set "not
/// ridiculous with Flash Attention" and leaves it out of its tables.
#[must_use]
pub fn working_bytes_per_chip(
    tokens: f64,
    logits: f64,
    d: f64,
    mlp_hidden: f64,
    vocab: f64,
    model_parallel: f64,
    activation_bytes: f64,
) -> Bytes {
    let y = model_parallel.max(1.0);
    Bytes((tokens * (2.0 * d + mlp_hidden / y) + logits * vocab / y) * activation_bytes)
}

/// HBM of one chip, by use.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MemoryPerChip {
    /// HBM capacity.
    pub hbm: Bytes,
    /// Kept free for the runtime (`reserved_hbm_fraction`).
    pub reserved: Bytes,
    /// This chip's share of the weights (and a draft model's).
    pub weights: Bytes,
    /// The KV caches it holds (and a draft model's).
    pub kv: Bytes,
    /// Working memory.
    pub working: Bytes,
    /// Everything above but HBM.
    pub total: Bytes,
    /// HBM − total (negative when it does not fit).
    pub free: Bytes,
    /// total ≤ HBM.
    pub fits: bool,
}

impl MemoryPerChip {
    /// Sum the uses.
    #[must_use]
    pub fn new(hbm: Bytes, reserved: Bytes, weights: Bytes, kv: Bytes, working: Bytes) -> Self {
        let total = reserved + weights + kv + working;
        Self { hbm, reserved, weights, kv, working, total, free: hbm - total, fits: total <= hbm }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding() {
        assert_eq!(min_chips(Bytes(112e9), Bytes(16e9)), 7);
        assert_eq!(min_chips(Bytes(112.1e9), Bytes(16e9)), 8);
        assert_eq!(min_chips(Bytes::ZERO, Bytes(16e9)), 0);
        assert_eq!(min_chips(Bytes(1.0), Bytes::ZERO), u64::MAX);
        assert_eq!(min_power_of_two_chips(Bytes(112e9), Bytes(16e9)), 8);
        assert_eq!(min_power_of_two_chips(Bytes(1.0), Bytes(16e9)), 1);
        assert_eq!(sequences_that_fit(Bytes(-1.0), Bytes(1.0)), 0);
        assert_eq!(sequences_that_fit(Bytes(1.0), Bytes::ZERO), u64::MAX);
    }

    #[test]
    fn binary_search_finds_the_edge() {
        for edge in [0_u64, 1, 2, 17, 999, 1000] {
            assert_eq!(largest_fitting(1000, |b| b <= edge), edge);
        }
        assert_eq!(largest_fitting(0, |_| false), 0);
        assert_eq!(largest_fitting(u64::MAX, |b| b <= 123_456_789), 123_456_789);
    }
}
