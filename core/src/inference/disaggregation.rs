//! Disaggregated serving (book 7.4, 8.1.2): prefill servers feed KV caches to decode
//! servers, a pipeline whose two stages must run at the same rate,
//! `P / t_prefill = B·G / (t_step · L_decode)`, and continuous batching's churn.

use crate::collectives::{point_to_point, Transfer};
use crate::units::{Bytes, BytesPerSec, Seconds};

/// Prefill servers per decode server to keep both saturated (book 8.1.2): a prefill
/// server finishes `1 / t_prefill` requests per second, a decode server
/// `B / (t_step · G)`, so `P/D = t_prefill · B / (t_step · G)` — about 3 for LLaMA 3-70B
/// (0.91 s, 19 ms, B = 32, G = 512).
#[must_use]
pub fn prefill_per_decode(prefill: Seconds, step: Seconds, batch: f64, output_len: f64) -> f64 {
    prefill.get() * batch / (step.get() * output_len)
}

/// Servers needed for `rate` requests per second when one server serves
/// `per_server` per second (fractional; round up to deploy).
#[must_use]
pub fn servers_needed(rate: f64, per_server: f64) -> f64 {
    rate / per_server
}

/// Sequences that finish per decode step: each of `B` slots finishes once every `G`
/// steps on average (book 8.1.2: 32 / 4096).
#[must_use]
pub fn sequences_finished_per_step(batch: f64, output_len: f64) -> f64 {
    batch / output_len
}

/// KV-cache tokens freed per decode step: every finished sequence frees `P + G` tokens,
/// `B·(P + G) / G` (book 8.1.2: 96 for B = 32, P = 8192, G = 4096).
#[must_use]
pub fn kv_tokens_evicted_per_step(batch: f64, prompt_len: f64, output_len: f64) -> f64 {
    batch * (prompt_len + output_len) / output_len
}

/// Time to move one request's KV cache, `bytes`, from a prefill server of `chips`
/// chips to a decode server: every chip sends its shard at once over its own link of
/// `link` bytes/s, one hop away.
#[must_use]
pub fn kv_transfer(bytes: Bytes, chips: f64, link: BytesPerSec, hop_latency: Seconds) -> Transfer {
    point_to_point(bytes, chips.max(1.0), link, 1, hop_latency)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_splits_over_the_senders() {
        let t = kv_transfer(Bytes(1.6e9), 16.0, BytesPerSec(1e9), Seconds(1e-5));
        assert!((t.total.get() - 0.1).abs() < 1e-12);
        assert_eq!(t.first_byte, Seconds(1e-5));
        assert!((servers_needed(10.0, 4.0) - 2.5).abs() < 1e-12);
    }
}
