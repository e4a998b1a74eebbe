//! The decode (generation) step time, book 7.1.5 equation (4):
//!
//! ```text
//! step = B·KV / W_hbm  +  max(2·B·P / C, P_bytes / W_hbm)
//!        attention:        MLP and projections:
//!        always HBM-bound  compute- or HBM-bound
//! ```
//!
//! with one extension: the attention term is `max(B·KV / W_hbm, attention FLOPs / C)`,
//! because absorbed MLA attention does about 240 FLOPs per cached byte in bf16 and can be
//! compute-bound (`decode_attention`); for GQA the KV load always wins, as the book says.
//! All of it on one chip's share of the work, plus the collectives of the sharding, overlapped or
//! not ([`CommsOverlap`]). Weight, KV, activation and compute formats are independent:
//! they enter through the byte counts and the peak.

use super::options::CommsOverlap;
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Seconds};
use serde::{Deserialize, Serialize};

/// What one decode step reads, computes and communicates on the busiest chip.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepWork {
    /// Weight bytes read from HBM.
    pub weight_bytes: Bytes,
    /// KV-cache bytes read from HBM.
    pub kv_bytes: Bytes,
    /// Dot-product-attention FLOPs against the cache (`decode_attention`).
    pub attention_flops: Flops,
    /// Weight-matmul FLOPs (2 per weight per token).
    pub flops: Flops,
    /// Time of the sharding's collectives.
    pub comms: Seconds,
}

/// The term that sets the step time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DecodeBound {
    /// Loading the weights from HBM (small batches).
    WeightLoading,
    /// Loading the KV caches from HBM (long contexts, big batches).
    KvLoading,
    /// Matmul FLOPs (batches above the critical batch).
    Flops,
    /// The sharding's collectives (too much model parallelism, or latency-bound).
    Communication,
}

/// A decode step's time and where it goes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepTime {
    /// The step, under the chosen overlap.
    pub step_time_s: Seconds,
    /// The step with nothing overlapping the collectives (the upper bound).
    pub step_time_upper_s: Seconds,
    /// Weight bytes / HBM bandwidth.
    pub weight_load_s: Seconds,
    /// KV bytes / HBM bandwidth.
    pub kv_load_s: Seconds,
    /// Attention FLOPs / peak (the attention term is the larger of this and `kv_load_s`).
    pub attention_flops_s: Seconds,
    /// Weight-matmul FLOPs / peak.
    pub flops_s: Seconds,
    /// Collectives.
    pub comms_s: Seconds,
    /// The largest term.
    pub binds: DecodeBound,
}

/// Book 7.1.5 eq. (4) plus communication: `max(KV/W, attention FLOPs/C) + max(FLOPs/C,
/// weights/W)`, then `max(·, comms)` with full overlap or `+ comms` without.
#[must_use]
pub fn decode_step_time(work: &StepWork, hbm: BytesPerSec, peak: FlopsPerSec, overlap: CommsOverlap) -> StepTime {
    let weight_load_s = work.weight_bytes / hbm;
    let kv_load_s = work.kv_bytes / hbm;
    let attention_flops_s = work.attention_flops / peak;
    let flops_s = work.flops / peak;
    let comms_s = work.comms;
    let local = kv_load_s.max(attention_flops_s) + weight_load_s.max(flops_s);
    let upper = local + comms_s;
    let step_time_s = match overlap {
        CommsOverlap::Full => local.max(comms_s),
        CommsOverlap::None => upper,
    };
    let mlp = if flops_s > weight_load_s {
        (DecodeBound::Flops, flops_s)
    } else {
        (DecodeBound::WeightLoading, weight_load_s)
    };
    let binds = [
        (DecodeBound::KvLoading, kv_load_s),
        (DecodeBound::Flops, attention_flops_s),
        (DecodeBound::Communication, comms_s),
    ]
    .into_iter()
    .fold(mlp, |best, (b, t)| if t > best.1 { (b, t) } else { best })
    .0;
    StepTime {
        step_time_s,
        step_time_upper_s: upper,
        weight_load_s,
        kv_load_s,
        attention_flops_s,
        flops_s,
        comms_s,
        binds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Book 7.1.5 Pop Quiz: a 30B int8 model on a v5e 4x4 with 100 kB/token KV caches at
    /// 8192 context: about 2.5 ms at batch 4 (HBM-bound), about 21 ms at batch 256
    /// (KV loading plus FLOPs).
    #[test]
    fn pop_quiz_7_1_5() {
        let (chips, w, c) = (16.0, BytesPerSec(8.1e11), FlopsPerSec(1.97e14));
        let step = |b: f64| {
            let work = StepWork {
                weight_bytes: Bytes(30e9 / chips),
                kv_bytes: Bytes(b * 100e3 * 8192.0 / chips),
                attention_flops: Flops::ZERO,
                flops: Flops(2.0 * b * 30e9 / chips),
                comms: Seconds::ZERO,
            };
            decode_step_time(&work, w, c, CommsOverlap::Full)
        };
        let small = step(4.0);
        assert!((small.step_time_s.get() - 2.57e-3).abs() < 0.05e-3, "{:?}", small);
        assert_eq!(small.binds, DecodeBound::WeightLoading);
        let big = step(256.0);
        assert!((big.step_time_s.get() - 21.0e-3).abs() < 0.5e-3, "{:?}", big);
        assert_eq!(big.binds, DecodeBound::KvLoading);
    }

    #[test]
    fn overlap_takes_the_max_and_no_overlap_the_sum() {
        let work = StepWork {
            weight_bytes: Bytes(1.0),
            kv_bytes: Bytes(1.0),
            attention_flops: Flops::ZERO,
            flops: Flops(0.0),
            comms: Seconds(5.0),
        };
        let full = decode_step_time(&work, BytesPerSec(1.0), FlopsPerSec(1.0), CommsOverlap::Full);
        let none = decode_step_time(&work, BytesPerSec(1.0), FlopsPerSec(1.0), CommsOverlap::None);
        assert_eq!((full.step_time_s, none.step_time_s), (Seconds(5.0), Seconds(7.0)));
        assert_eq!(full.binds, DecodeBound::Communication);
    }

    /// Attention compute-bound (absorbed MLA on a high-bandwidth chip): 4 s of attention
    /// FLOPs hide 1 s of KV reads; the step is 4 + max(1, 0) and FLOPs bind.
    #[test]
    fn attention_flops_replace_the_kv_load_when_larger() {
        let work = StepWork {
            weight_bytes: Bytes(1.0),
            kv_bytes: Bytes(1.0),
            attention_flops: Flops(4.0),
            flops: Flops::ZERO,
            comms: Seconds::ZERO,
        };
        let t = decode_step_time(&work, BytesPerSec(1.0), FlopsPerSec(1.0), CommsOverlap::Full);
        assert_eq!(t.step_time_s, Seconds(5.0));
        assert_eq!(t.binds, DecodeBound::Flops);
    }
}
