//! Throughput and cost of decoding (book 7.1.5, 8.1, 8.1.1): a step of `t_step` emits
//! one token per sequence of the batch.

use crate::units::Seconds;

/// Tokens per second: `B / t_step` for a batch of `B` sequences emitting
/// `tokens_per_step` tokens each per step (1 without speculative decoding).
#[must_use]
pub fn tokens_per_s(batch: f64, tokens_per_step: f64, step: Seconds) -> f64 {
    batch * tokens_per_step / step.get()
}

/// Requests finished per second (book 8.1.1): `B / (t_step · G)` for `G` generated
/// tokens per request; divide by chips for the book's "QPS / chip".
#[must_use]
pub fn queries_per_s(batch: f64, tokens_per_step: f64, step: Seconds, output_len: f64) -> f64 {
    tokens_per_s(batch, tokens_per_step, step) / output_len
}

/// Per chip: a rate divided by the chips producing it.
#[must_use]
pub fn per_chip(rate: f64, chips: f64) -> f64 {
    rate / chips
}

/// Wall-clock time to generate `output_len` tokens at `t_step` per step (book 8.1.1:
/// 19 ms × 512 ≈ 9.7 s).
#[must_use]
pub fn decode_latency(step: Seconds, output_len: f64, tokens_per_step: f64) -> Seconds {
    step * (output_len / tokens_per_step)
}

/// US dollars per million tokens: `chips · price / 3600` per second over `tokens_per_s`.
#[must_use]
pub fn usd_per_million_tokens(price_per_chip_hour: f64, chips: f64, tokens_per_s: f64) -> f64 {
    price_per_chip_hour * chips / 3600.0 / tokens_per_s * 1e6
}

/// US dollars per million tokens for a deployment costing `usd_per_hour` that emits
/// `tokens_per_s` ([`usd_per_million_tokens`] for one "chip" at that price); `None` when it
/// is not a finite number (a vanishing rate).
#[must_use]
pub fn usd_per_million_tokens_of(usd_per_hour: f64, tokens_per_s: f64) -> Option<f64> {
    Some(usd_per_million_tokens(usd_per_hour, 1.0, tokens_per_s)).filter(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_8_1_throughput_and_a_price() {
        // 32 sequences every 17 ms on 8 chips: 1882 tokens/s, 235 per chip.
        let t = tokens_per_s(32.0, 1.0, Seconds(0.017));
        assert!((t - 1882.35).abs() < 0.01);
        assert!((per_chip(t, 8.0) - 235.29).abs() < 0.01);
        // At $1.20 per v5e-hour (book 8.1's table), 8 chips cost $9.60/h for 6.78M tokens.
        assert!((usd_per_million_tokens(1.2, 8.0, t) - 1.4167).abs() < 1e-3);
    }
}
