//! Pipeline schedules (book 5.1.5): the bubble, and how many microbatches' activations
//! a stage holds at once.
//!
//! With `p` stages and `m` microbatches, GPipe and 1F1B both idle for `p − 1`
//! microbatch-times per step (bubble fraction `(p − 1)/m`); interleaving `v` virtual
//! stages per device (Megatron's interleaved 1F1B, MaxText's circular pipeline with
//! `num_pipeline_repeats = v`) shrinks it to `(p − 1)/v`. GPipe keeps every
//! microbatch's activations until its backward pass; 1F1B at most `p` on the first
//! stage; interleaved 1F1B `2(p − 1) + (v − 1)·p + 1` chunk-microbatches of `L/(p·v)`
//! layers (Megatron-LM's warm-up count, Narayanan et al. 2021).
//!
//! **Uneven stages.** When `p·v` does not divide the `L` layers, chunks hold ⌊L/(p·v)⌋ or
//! one more layer, spread so that no device holds more than
//! `v·⌊L/(p·v)⌋ + ⌈(L mod p·v)/p⌉` ([`Pipeline::stage_layers`]; Megatron-LM allows uneven
//! first and last stages, MaxText requires `p·v` to divide L and runs the rest outside
//! the pipeline). Every stage waits for the slowest, so a step runs at the pace of the
//! device with the most layers and that device's memory is the peak.
//!
//! **Microbatches.** The interleaved schedule needs a multiple of `p` microbatches
//! (Megatron-LM's interleaved schedule and MaxText's `num_pipeline_microbatches %
//! num_stages == 0`, `configs/types.py`); 1F1B and GPipe take any count.

use serde::{Deserialize, Serialize};

/// How microbatches flow through the pipeline stages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Schedule {
    /// All forwards, then all backwards.
    Gpipe,
    /// One forward, one backward (PipeDream-flush / Megatron). The default.
    #[default]
    OneFOneB,
    /// Interleaved 1F1B / circular: each device holds `virtual_stages` chunks.
    Interleaved,
}
crate::serde_names::deserialize_by_name!(Schedule { Gpipe => "gpipe", OneFOneB => "one_f_one_b", Interleaved => "interleaved" });

/// A pipeline schedule with its virtual stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Pipeline {
    /// `gpipe`, `one_f_one_b` (default) or `interleaved`.
    #[serde(default)]
    pub schedule: Schedule,
    /// Chunks per device for `interleaved` (v); 1 otherwise.
    #[serde(default = "one")]
    pub virtual_stages: u64,
}

fn one() -> u64 {
    1
}

impl Default for Pipeline {
    fn default() -> Self {
        Self { schedule: Schedule::OneFOneB, virtual_stages: 1 }
    }
}

impl Pipeline {
    /// Virtual stages in effect (1 unless interleaved).
    #[must_use]
    pub fn chunks(&self) -> u64 {
        match self.schedule {
            Schedule::Interleaved => self.virtual_stages.max(1),
            _ => 1,
        }
    }

    /// Most layers one device holds with `layers` layers over `stages` stages of
    /// [`Pipeline::chunks`] chunks each (module docs); all of them without pipelining.
    #[must_use]
    pub fn stage_layers(&self, layers: u64, stages: u64) -> u64 {
        let (p, v) = (stages.max(1), self.chunks());
        let chunks = p.saturating_mul(v);
        let (q, r) = (layers / chunks, layers % chunks);
        q.saturating_mul(v).saturating_add(r.div_ceil(p))
    }

    /// Whether `microbatches` can run on `stages` stages (interleaving needs a multiple).
    #[must_use]
    pub fn takes_microbatches(&self, stages: u64, microbatches: u64) -> bool {
        self.schedule != Schedule::Interleaved || stages <= 1 || microbatches.is_multiple_of(stages)
    }

    /// Idle time per step in units of one microbatch's time on one stage:
    /// `(p − 1)/v` (0 without pipelining).
    #[must_use]
    pub fn bubble_microbatches(&self, stages: u64) -> f64 {
        stages.saturating_sub(1) as f64 / self.chunks() as f64
    }

    /// Microbatches' worth of a stage's activations held at the peak, on the first
    /// stage, for `m` microbatches over `p` stages.
    #[must_use]
    pub fn in_flight(&self, stages: u64, microbatches: u64) -> f64 {
        let (p, m) = (stages.max(1), microbatches.max(1));
        if p == 1 {
            return 1.0;
        }
        match self.schedule {
            Schedule::Gpipe => m as f64,
            Schedule::OneFOneB => m.min(p) as f64,
            Schedule::Interleaved => {
                let v = self.chunks();
                let chunks = (2 * (p - 1) + (v - 1) * p + 1).min(m.saturating_mul(v));
                chunks as f64 / v as f64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bubbles_and_memory() {
        let gpipe = Pipeline { schedule: Schedule::Gpipe, virtual_stages: 1 };
        let one_f = Pipeline::default();
        let inter = Pipeline { schedule: Schedule::Interleaved, virtual_stages: 4 };
        assert_eq!(one_f.bubble_microbatches(8), 7.0);
        assert_eq!(inter.bubble_microbatches(8), 1.75);
        assert_eq!(gpipe.in_flight(8, 32), 32.0);
        assert_eq!(one_f.in_flight(8, 32), 8.0);
        assert_eq!(one_f.in_flight(1, 32), 1.0);
        // Interleaving holds more than 1F1B: Megatron's longer warm-up.
        assert!(inter.in_flight(8, 32) > one_f.in_flight(8, 32));
        assert_eq!(one_f.bubble_microbatches(1), 0.0);
    }

    #[test]
    fn uneven_stages_take_the_largest_share() {
        let one_f = Pipeline::default();
        assert_eq!(one_f.stage_layers(80, 1), 80);
        assert_eq!(one_f.stage_layers(80, 8), 10);
        // 80 over 3 stages: 27, 27, 26.
        assert_eq!(one_f.stage_layers(80, 3), 27);
        // 80 layers in 3 × 4 = 12 chunks of 6 or 7: 8 chunks of 7, at most 3 on a device.
        let inter = Pipeline { schedule: Schedule::Interleaved, virtual_stages: 4 };
        assert_eq!(inter.stage_layers(80, 3), 4 * 6 + 3);
        // 61 layers (DeepSeek-V3) on 4 stages of 2 chunks: 8 chunks of 7 or 8, 5 of 8.
        let two = Pipeline { schedule: Schedule::Interleaved, virtual_stages: 2 };
        assert_eq!(two.stage_layers(61, 4), 2 * 7 + 2);
        assert!(two.takes_microbatches(4, 8) && !two.takes_microbatches(4, 6));
        assert!(one_f.takes_microbatches(4, 6));
    }
}
