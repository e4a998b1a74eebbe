//! The traffic a deployment serves: prompt and output lengths as fixed values (the
//! section's `prompt_len`, `output_len`) or as distributions (`inference.traffic`: a few
//! lengths with their shares), independent of each other.
//!
//! What the rate-based quantities take from it:
//! - prefill work per request, per prompt length (the classes of the M/G/1 queue,
//!   [`super::queueing`]);
//! - `E[G]`, the mean output length: a server finishing `X` requests per second emits
//!   `X·E[G]` tokens per second, and by Little's law holds `λ·E[G]·t_step` sequences;
//! - the context a decoding sequence reads. Sequences stay in the batch in proportion to
//!   their output length, so the batch over-represents long outputs (length-biased
//!   sampling): a sequence in the batch has on average `E[P] + E[G²]/E[G]` tokens when
//!   caches are allocated at their final length (`kv_context: full`), and
//!   `E[P] + E[G²]/(2·E[G])` when the kernel reads what has been written (`mean`). For
//!   fixed lengths these are the section's `P + G` and `P + G/2`.

use super::options::KvContext;
use crate::error::{Checker, Invalid};
use crate::flops::MAX_SEQ_LEN;
use serde::{Deserialize, Serialize};

/// One length and the share of requests that have it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LengthShare {
    /// Tokens.
    pub tokens: u64,
    /// Relative share (any positive scale; normalised).
    pub weight: f64,
}

/// `inference.traffic`: length distributions; an empty list means the section's fixed
/// `prompt_len` or `output_len`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TrafficMix {
    /// Prompt lengths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompt: Vec<LengthShare>,
    /// Output lengths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output: Vec<LengthShare>,
}

/// Most lengths a distribution may list.
pub const MAX_LENGTHS: usize = 16;

impl TrafficMix {
    /// Check the lists (paths relative to `traffic`).
    ///
    /// # Errors
    /// Too many lengths, a length out of range, a weight that is not positive and finite.
    pub fn validate(&self) -> Result<(), Invalid> {
        let mut c = Checker::new();
        for (name, list) in [("prompt", &self.prompt), ("output", &self.output)] {
            c.ensure(list.len() <= MAX_LENGTHS, name, || {
                format!("lists {} lengths; at most {MAX_LENGTHS} are accepted", list.len())
            });
            for (i, l) in list.iter().enumerate() {
                c.range(&format!("{name}[{i}].tokens"), l.tokens, 1, MAX_SEQ_LEN);
                if l.weight.is_finite() && l.weight <= 0.0 {
                    c.push(format!("{name}[{i}].weight"), "must be greater than 0");
                } else {
                    c.range_f64(&format!("{name}[{i}].weight"), l.weight, 0.0, 1e12);
                }
            }
        }
        c.finish()
    }
}

/// Lengths with normalised probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct Traffic {
    /// (prompt tokens, probability).
    pub prompt: Vec<(u64, f64)>,
    /// (output tokens, probability).
    pub output: Vec<(u64, f64)>,
}

fn normalised(list: &[LengthShare], fixed: u64) -> Vec<(u64, f64)> {
    let total: f64 = list.iter().map(|l| l.weight).filter(|w| w.is_finite() && *w > 0.0).sum();
    if list.is_empty() || !total.is_finite() || total <= 0.0 {
        return vec![(fixed.max(1), 1.0)];
    }
    list.iter()
        .filter(|l| l.weight.is_finite() && l.weight > 0.0)
        .map(|l| (l.tokens.max(1), l.weight / total))
        .collect()
}

fn moment(list: &[(u64, f64)], k: i32) -> f64 {
    list.iter().map(|(t, p)| p * (*t as f64).powi(k)).sum()
}

impl Traffic {
    /// The mix, or fixed lengths where it lists none.
    #[must_use]
    pub fn new(mix: Option<&TrafficMix>, prompt_len: u64, output_len: u64) -> Self {
        let empty = TrafficMix::default();
        let mix = mix.unwrap_or(&empty);
        Self { prompt: normalised(&mix.prompt, prompt_len), output: normalised(&mix.output, output_len) }
    }

    /// Fixed lengths.
    #[must_use]
    pub fn fixed(prompt_len: u64, output_len: u64) -> Self {
        Self::new(None, prompt_len, output_len)
    }

    /// E\[P\].
    #[must_use]
    pub fn mean_prompt(&self) -> f64 {
        moment(&self.prompt, 1)
    }

    /// E\[G\].
    #[must_use]
    pub fn mean_output(&self) -> f64 {
        moment(&self.output, 1)
    }

    /// The context a decoding sequence reads on average (length-biased, see the module
    /// docs), rounded to a whole token.
    #[must_use]
    pub fn decode_context(&self, kv: KvContext) -> u64 {
        let g = self.mean_output();
        let biased = if g > 0.0 { moment(&self.output, 2) / g } else { 0.0 };
        let c = match kv {
            KvContext::Full => self.mean_prompt() + biased,
            KvContext::Mean => self.mean_prompt() + biased / 2.0,
        };
        // proof: a finite non-negative value below 2^53 rounds to an exact u64.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let t = c.round().clamp(1.0, 2.0 * MAX_SEQ_LEN as f64) as u64;
        t
    }

    /// The longest prompt.
    #[must_use]
    pub fn max_prompt(&self) -> u64 {
        self.prompt.iter().map(|(t, _)| *t).max().unwrap_or(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_lengths_are_the_sections() {
        let t = Traffic::fixed(7680, 512);
        assert_eq!((t.mean_prompt(), t.mean_output()), (7680.0, 512.0));
        assert_eq!(t.decode_context(KvContext::Full), 8192);
        assert_eq!(t.decode_context(KvContext::Mean), 7936);
    }

    /// Outputs of 100 and 900 tokens, half each: E[G] = 500, E[G²] = (10⁴ + 81·10⁴)/2 =
    /// 410,000, so a sequence in the batch has E[G²]/E[G] = 820 output tokens' worth of
    /// cache allocated (900 with probability 0.9: long outputs stay nine times longer).
    #[test]
    fn batches_are_length_biased() {
        let mix = TrafficMix {
            prompt: vec![LengthShare { tokens: 1000, weight: 1.0 }, LengthShare { tokens: 3000, weight: 3.0 }],
            output: vec![LengthShare { tokens: 100, weight: 5.0 }, LengthShare { tokens: 900, weight: 5.0 }],
        };
        let t = Traffic::new(Some(&mix), 1, 1);
        assert_eq!(t.mean_prompt(), 2500.0);
        assert_eq!(t.mean_output(), 500.0);
        assert_eq!(t.decode_context(KvContext::Full), 2500 + 820);
        assert_eq!(t.decode_context(KvContext::Mean), 2500 + 410);
        assert_eq!(t.max_prompt(), 3000);
        assert_eq!(mix.validate(), Ok(()));
    }

    #[test]
    fn bad_lists_name_the_field() {
        let mix = TrafficMix {
            prompt: vec![LengthShare { tokens: 0, weight: 1.0 }],
            output: vec![LengthShare { tokens: 10, weight: f64::NAN }, LengthShare { tokens: 10, weight: -1.0 }],
        };
        let e = mix.validate().unwrap_err();
        let fields: Vec<&str> = e.0.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["prompt[0].tokens", "output[0].weight", "output[1].weight"]);
        // An all-zero list falls back to the fixed length rather than dividing by zero.
        let zero = TrafficMix { prompt: vec![LengthShare { tokens: 5, weight: 0.0 }], output: vec![] };
        assert_eq!(Traffic::new(Some(&zero), 7, 9).prompt, vec![(7, 1.0)]);
    }
}
