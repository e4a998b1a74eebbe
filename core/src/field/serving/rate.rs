//! The fields of serving at a request rate: the rate, the token budget of continuous
//! batching, the traffic mix (prompt and output lengths as weighted points, or the fixed
//! `prompt_len` and `output_len`), and the latency targets the server counts and the search
//! must meet (`inference::traffic`, `inference::targets`).
//!
//! A length distribution reads as `tokens:weight` items separated by semicolons,
//! `512:2; 8192:1` (a weight of 1 may be left out: `512; 8192`); empty text is the fixed
//! length. Weights are relative shares.

use super::{read, section};
use crate::field::{Field, InputMode, Kind, Min};
use crate::inference::targets::ServingTargets;
use crate::inference::traffic::{LengthShare, TrafficMix};
use crate::scenario::Scenario;
use crate::text::{count, positive_real, shortest};

/// Which length distribution of the mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lengths {
    /// `inference.traffic.prompt`.
    Prompt,
    /// `inference.traffic.output`.
    Output,
}

impl Lengths {
    fn of(self, mix: &TrafficMix) -> &Vec<LengthShare> {
        match self {
            Lengths::Prompt => &mix.prompt,
            Lengths::Output => &mix.output,
        }
    }
}

/// The lengths of the scenario's distribution (none: the fixed length).
#[must_use]
pub fn lengths(s: &Scenario, which: Lengths) -> Vec<LengthShare> {
    read(s, |i| i.traffic.as_ref().map(|m| which.of(m).clone()).unwrap_or_default())
}

/// `512:2; 8192:1` (a weight of 1 is written too, so that a row reads back as it was typed).
#[must_use]
pub fn lengths_text(list: &[LengthShare]) -> String {
    list.iter().map(|l| format!("{}:{}", l.tokens, shortest(l.weight))).collect::<Vec<_>>().join("; ")
}

/// One item, `tokens` or `tokens:weight`.
///
/// # Errors
/// What is wrong with the tokens or the weight.
pub fn read_length(item: &str) -> Result<LengthShare, String> {
    let (tokens, weight) = item.split_once(':').unwrap_or((item, "1"));
    let tokens = count(tokens).map_err(|e| format!("tokens {e}"))?;
    let weight = positive_real(weight).map_err(|e| format!("weight {e}"))?;
    Ok(LengthShare { tokens, weight })
}

/// `512:2; 8192:1` → the lengths; empty text → none.
///
/// # Errors
/// The first item that does not read, by its position.
pub fn read_lengths(text: &str) -> Result<Vec<LengthShare>, String> {
    text.split(';')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .enumerate()
        .map(|(i, item)| read_length(item).map_err(|e| format!("length {}: {e} (write tokens:weight; …)", i + 1)))
        .collect()
}

/// Stores a distribution; the mix goes when both are empty.
fn set_lengths(s: &mut Scenario, which: Lengths, text: &str) -> Result<(), String> {
    let list = read_lengths(text)?;
    let i = section(s);
    let mut mix = i.traffic.take().unwrap_or_default();
    match which {
        Lengths::Prompt => mix.prompt = list,
        Lengths::Output => mix.output = list,
    }
    i.traffic = (mix != TrafficMix::default()).then_some(mix);
    Ok(())
}

fn targets(s: &mut Scenario) -> &mut ServingTargets {
    &mut section(s).targets
}

/// The request rate and the latency targets.
pub static RATE: [Field; 4] = [
    Field::new(
        "inference.request_rate",
        "Request rate λ",
        Kind::OptionalReal {
            min: Min::Positive,
            get: |s| read(s, |i| i.request_rate),
            set: |s, v| section(s).request_rate = v,
        },
    )
    .unit("requests/s")
    .hint("Poisson arrivals: sizes the co-located and the prefill and decode servers, with queueing; empty = none"),
    Field::new(
        "inference.targets.ttft_p50_s",
        "Target: median time to first token",
        Kind::OptionalReal {
            min: Min::Positive,
            get: |s| read(s, |i| i.targets.ttft_p50_s),
            set: |s, v| targets(s).ttft_p50_s = v,
        },
    )
    .unit("s")
    .hint("TTFT p50, queueing included; empty = no target")
    .also(&["inference.targets"]),
    Field::new(
        "inference.targets.ttft_p99_s",
        "Target: p99 time to first token",
        Kind::OptionalReal {
            min: Min::Positive,
            get: |s| read(s, |i| i.targets.ttft_p99_s),
            set: |s, v| targets(s).ttft_p99_s = v,
        },
    )
    .unit("s")
    .hint("TTFT p99, queueing included (the queue's Cramér–Lundberg tail); empty = no target"),
    Field::new(
        "inference.targets.tpot_s",
        "Target: time per output token",
        Kind::OptionalReal {
            min: Min::Positive,
            get: |s| read(s, |i| i.targets.tpot_s),
            set: |s, v| targets(s).tpot_s = v,
        },
    )
    .unit("s")
    .hint("TPOT: the mean decode step a request sees, e.g. 0.05; empty = no target"),
];

/// The traffic mix: prompt and output length distributions.
pub static TRAFFIC: [Field; 2] = [
    Field::new(
        "inference.traffic.prompt",
        "Prompt lengths",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| lengths_text(&lengths(s, Lengths::Prompt)),
            set: |s, t| set_lengths(s, Lengths::Prompt, t),
        },
    )
    .hint("tokens:weight; … e.g. 512:2; 8192:1; empty = every prompt is P")
    .also(&["inference.traffic"]),
    Field::new(
        "inference.traffic.output",
        "Output lengths",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| lengths_text(&lengths(s, Lengths::Output)),
            set: |s, t| set_lengths(s, Lengths::Output, t),
        },
    )
    .hint("tokens:weight; … e.g. 128:1; 1024:1; empty = every output is G"),
];

/// Continuous batching's token budget.
pub static BATCHING: [Field; 1] = [Field::new(
    "inference.token_budget",
    "Token budget per step",
    Kind::OptionalCount { get: |s| read(s, |i| i.token_budget), set: |s, v| section(s).token_budget = v },
)
.unit("tokens")
.hint(
    "Continuous batching: decode tokens plus a prefill chunk per step (vLLM's max_num_batched_tokens); empty = 8,192",
)];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::apply;

    #[test]
    fn length_lists_read_and_write_back() {
        let l = read_lengths(" 512:2 ; 8,192 ;").unwrap();
        assert_eq!(l, [LengthShare { tokens: 512, weight: 2.0 }, LengthShare { tokens: 8192, weight: 1.0 }]);
        assert_eq!(lengths_text(&l), "512:2; 8192:1");
        assert_eq!(read_lengths(""), Ok(Vec::new()));
        let e = read_lengths("512:2; abc:1").unwrap_err();
        assert!(e.starts_with("length 2: tokens is not a number"), "{e}");
        assert!(read_lengths("512:0").unwrap_err().contains("weight must be greater than 0"));
    }

    /// A distribution replaces the fixed length; clearing both drops the mix; a length out of
    /// range is the scenario's problem, on the element (`prompt[1].tokens`).
    #[test]
    fn the_mix_is_created_and_dropped_by_its_fields() {
        let mut s = crate::scenario::with_serving_defaults(&Scenario::default());
        apply(&mut s, "inference.traffic.output", "128:1; 1024:1").unwrap();
        let t = s.inference.as_ref().unwrap().traffic();
        assert_eq!((t.mean_prompt(), t.mean_output()), (7680.0, 576.0));
        apply(&mut s, "inference.traffic.output", "").unwrap();
        assert_eq!(s.inference.as_ref().unwrap().traffic, None);
        apply(&mut s, "inference.traffic.prompt", "512; 2000000000").unwrap();
        let e = s.validate().unwrap_err();
        assert_eq!(e.0[0].field, "inference.traffic.prompt[1].tokens");
        assert!(crate::field::find("inference.traffic.prompt").unwrap().shows(&e.0[0]));
    }
}
