//! The FLOP-counting conventions in use, as explicit named options.

use super::AttentionCounting;
use serde::Serialize;

/// A FLOP-counting convention. The default is [`FlopConvention::MaxText`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FlopConvention {
    /// MaxText's training log (`calculate_tflops_training_per_device`, since July 2025):
    /// every weight matmul at 6 FLOPs per weight and token, router and shared experts
    /// included, the unembedding once, the input-embedding lookup free; dot-product
    /// attention over the causal mask's area (half of a global layer, a sliding window's
    /// band); each MTP module as one more decoder layer (attention and the last layer's
    /// FFN, without its input projection or the shared output head).
    #[default]
    #[serde(rename = "maxtext")]
    MaxText,
    /// MaxText's LLM-calculator notebook: as MaxText, but dot-product attention is not
    /// halved for the causal mask.
    Notebook,
    /// 6·N·D: six FLOPs per active parameter per token (input embedding included),
    /// dot-product attention ignored.
    SixNd,
    /// How to Scale Your Model, chapter 4: 18·B·T·D·F for the MLP, 12·B·T·D·(N+K)·H for
    /// the projections, 12·B·T²·N·H for dot-product attention (no causal halving),
    /// 6·B·T·D·V for the unembedding, and MTP modules counted like any other layer.
    Book,
}
crate::serde_names::deserialize_by_name!(FlopConvention { MaxText => "maxtext", Notebook => "notebook", SixNd => "six_nd", Book => "book" });

impl FlopConvention {
    /// Every convention, in display order.
    pub const ALL: [FlopConvention; 4] =
        [FlopConvention::MaxText, FlopConvention::Notebook, FlopConvention::SixNd, FlopConvention::Book];

    /// Identifier used in JSON, URLs and the CLI report.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            FlopConvention::MaxText => "maxtext",
            FlopConvention::Notebook => "notebook",
            FlopConvention::SixNd => "six_nd",
            FlopConvention::Book => "book",
        }
    }

    /// Parse an identifier.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.id() == s)
    }

    /// Short display name.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            FlopConvention::MaxText => "MaxText log",
            FlopConvention::Notebook => "MaxText notebook",
            FlopConvention::SixNd => "6·N·D",
            FlopConvention::Book => "Book (ch. 4)",
        }
    }

    /// One-paragraph explanation shown in the UI.
    #[must_use]
    pub fn explanation(self) -> &'static str {
        match self {
            FlopConvention::MaxText => {
                "What MaxText logs as TFLOP/s per device today (calculate_tflops_training_per_device): \
                 6 FLOPs per weight and token for every matmul (attention projections, MLP, routed and \
                 shared experts, router, unembedding once); the input-embedding lookup is free; \
                 dot-product attention counts the causal mask's area (half of a global layer, \
                 T·W − W²/2 for a sliding window of W), chunked layers half their chunks; each \
                 MTP module counts as one more decoder layer (attention and the last layer's \
                 FFN; its input projection and the shared output head are not counted)."
            }
            FlopConvention::Notebook => {
                "MaxText's LLM-calculator notebook: the same matmul accounting, but dot-product \
                 attention counts every query against every key (no causal halving), so attention \
                 FLOPs are twice MaxText's."
            }
            FlopConvention::SixNd => {
                "6·N·D: six FLOPs per active parameter per token (2 forward, 4 backward), with N \
                 the active parameters including the embedding table and excluding MTP. Ignores \
                 dot-product attention, so it undercounts long-context training."
            }
            FlopConvention::Book => {
                "How to Scale Your Model, section 4.3: 18·B·T·D·F per MLP, 12·B·T·D·(N+K)·H for the \
                 QKVO projections, 12·B·T²·N·H for dot-product attention (no causal halving; \
                 windows and chunks count their span), 6·B·T·D·V for the unembedding; MTP modules \
                 count like any other layer."
            }
        }
    }

    /// How this convention counts dot-product attention.
    #[must_use]
    pub fn attention_counting(self) -> AttentionCounting {
        match self {
            FlopConvention::MaxText => AttentionCounting::CausalHalf,
            FlopConvention::Notebook | FlopConvention::Book => AttentionCounting::Dense,
            FlopConvention::SixNd => AttentionCounting::Ignored,
        }
    }

    /// How MTP modules are counted.
    #[must_use]
    pub fn mtp_counting(self) -> MtpCounting {
        match self {
            FlopConvention::MaxText => MtpCounting::DecoderLayer,
            FlopConvention::Book => MtpCounting::WholeModule,
            FlopConvention::Notebook | FlopConvention::SixNd => MtpCounting::NotCounted,
        }
    }
}

/// How a convention counts multi-token-prediction modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MtpCounting {
    /// Not at all (the notebook, 6·N·D).
    NotCounted,
    /// As MaxText does (`calculate_tflops_training_per_device`, the `mtp_num_layers`
    /// block: src/maxtext/utils/maxtext_utils.py at AI-Hypercomputer/maxtext e591f30):
    /// each module is a replica of the last decoder layer — its QKV and output projections,
    /// the last layer's FFN (gate, shared and routed experts for MoE), and one global causal
    /// attention — while the `[h; emb]` projection and the shared output head are left out.
    DecoderLayer,
    /// Like any other layer, with the `2D → D` projection and the output head (the book).
    WholeModule,
}

#[cfg(test)]
mod tests {
    use super::FlopConvention;

    #[test]
    fn serde_names_are_the_ids() {
        for c in FlopConvention::ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), c.id());
            assert_eq!(FlopConvention::parse(c.id()), Some(c));
        }
    }
}
