//! The FLOP conventions published MFUs were computed in, over the years, each written
//! in terms of the core's conventions ([`crate::flops::FlopConvention`]) so that a run's
//! FLOPs can be recomputed in its own convention and in today's MaxText one.

use crate::flops::{training_flops, FlopComponent, FlopConvention, Workload};
use crate::model::ModelConfig;
use serde::{Deserialize, Serialize};

/// How a published TFLOP/s figure counted the FLOPs of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum PublishedConvention {
    /// 6·N per token, N every parameter (embeddings and norms included), attention
    /// ignored: MaxText's first log (the TPU v4 README, early 2023).
    #[serde(rename = "6N_noattn")]
    SixNNoattn,
    /// 6·N plus dot-product attention with every query against every key (no causal
    /// halving): the TPU v5e README (Oct 2023).
    #[serde(rename = "6N_noncausal")]
    SixNNoncausal,
    /// 6·N plus causal (halved) dot-product attention: the TPU v5p README (Dec 2023)
    /// and the A3 GPU runs (Apr 2024).
    #[serde(rename = "6N_causal")]
    SixNCausal,
    /// Per-matmul counting with causal attention: MaxText's log today.
    #[serde(rename = "matmul_causal")]
    MatmulCausal,
    /// Per-matmul counting with non-causal attention: MaxText's LLM-calculator notebook.
    #[serde(rename = "matmul_noncausal")]
    MatmulNoncausal,
}

impl PublishedConvention {
    /// The name used in the table.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            Self::SixNNoattn => "6N_noattn",
            Self::SixNNoncausal => "6N_noncausal",
            Self::SixNCausal => "6N_causal",
            Self::MatmulCausal => "matmul_causal",
            Self::MatmulNoncausal => "matmul_noncausal",
        }
    }

    /// What it counts, in one line.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::SixNNoattn => "6·N per token, attention ignored",
            Self::SixNNoncausal => "6·N + attention, not halved for the causal mask",
            Self::SixNCausal => "6·N + causal (halved) attention",
            Self::MatmulCausal => "per matmul, causal attention (MaxText today)",
            Self::MatmulNoncausal => "per matmul, non-causal attention (MaxText notebook)",
        }
    }

    /// The core conventions it is made of: the weight part and the attention part.
    #[must_use]
    pub fn parts(self) -> (FlopConvention, Option<FlopConvention>) {
        match self {
            Self::SixNNoattn => (FlopConvention::SixNd, None),
            Self::SixNNoncausal => (FlopConvention::SixNd, Some(FlopConvention::Notebook)),
            Self::SixNCausal => (FlopConvention::SixNd, Some(FlopConvention::MaxText)),
            Self::MatmulCausal => (FlopConvention::MaxText, None),
            Self::MatmulNoncausal => (FlopConvention::Notebook, None),
        }
    }
}

/// FLOPs of one training step on one device (forward + backward) in `convention`:
/// the weight part from one core convention, plus, for the 6·N ones, dot-product
/// attention as another counts it.
#[must_use]
pub fn flops_per_device_step(m: &ModelConfig, w: &Workload, convention: PublishedConvention) -> f64 {
    let (weights, attention) = convention.parts();
    let base = training_flops(m, w, weights).total.get();
    let extra = attention.map_or(0.0, |c| training_flops(m, w, c).get(FlopComponent::AttentionDot).total().get());
    base + extra
}

/// FLOPs of one device-step as MaxText logs them today.
#[must_use]
pub fn maxtext_flops_per_device_step(m: &ModelConfig, w: &Workload) -> f64 {
    flops_per_device_step(m, w, PublishedConvention::MatmulCausal)
}
