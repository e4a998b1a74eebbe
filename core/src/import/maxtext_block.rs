//! MaxText's `decoder_block`: what each block builds, and the attention layer pattern
//! MaxText's FLOP calculator (`calculate_tflops_training_per_device`) assumes for it.

use super::keys::Keys;
use super::{ImportError, ImportWarning};
use crate::model::MAX_LAYERS;
use crate::model::{AttentionLayout, LocalAttention};

/// A `decoder_block` the importer supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Block {
    /// MaxText's `DecoderLayer` (`decoder_block: default`, the only block until late 2023):
    /// one pre-norm feeding attention and the MLP in parallel, their sum added to the
    /// residual stream (`layers/decoders.py`).
    Default,
    Llama2,
    Mistral,
    Mixtral,
    Deepseek,
    Gemma,
    /// One MaxText "layer" is a [local, global] pair.
    Gemma2,
    Gemma3,
    Qwen3,
    Qwen3Moe,
    GptOss,
    Llama4,
    /// MaxText's `gpt3.py`: LayerNorm with biases, fused QKV with biases (as many key and
    /// value heads as query heads), a plain GELU MLP with biases.
    Gpt3,
}

/// Every supported `decoder_block`, for error messages.
pub(crate) const SUPPORTED_BLOCKS: &str =
    "default, llama2, mistral, mixtral, deepseek, gemma, gemma2, gemma3, qwen3, qwen3_moe, gpt_oss, llama4, gpt3";

impl Block {
    /// The block of a `decoder_block` value.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "default" => Self::Default,
            "llama2" => Self::Llama2,
            "mistral" => Self::Mistral,
            "mixtral" => Self::Mixtral,
            "deepseek" => Self::Deepseek,
            "gemma" => Self::Gemma,
            "gemma2" => Self::Gemma2,
            "gemma3" => Self::Gemma3,
            "qwen3" => Self::Qwen3,
            "qwen3_moe" => Self::Qwen3Moe,
            "gpt_oss" => Self::GptOss,
            "llama4" => Self::Llama4,
            "gpt3" => Self::Gpt3,
            _ => return None,
        })
    }

    /// Whether every layer of this block is built around a routed MoE (DeepSeek: after
    /// its dense layers; Llama 4: every `interleave_moe_layer_step`-th layer).
    pub fn is_moe(self) -> bool {
        matches!(self, Self::Mixtral | Self::Deepseek | Self::Qwen3Moe | Self::GptOss | Self::Llama4)
    }

    /// Whether the block has shared experts (`shared_experts`, default 1 in base.yml).
    pub fn has_shared_experts(self) -> bool {
        matches!(self, Self::Deepseek | Self::Llama4)
    }

    /// Whether `use_post_attn_norm` / `use_post_ffw_norm` add norms in this block.
    pub fn has_post_norms(self) -> bool {
        matches!(self, Self::Gemma2 | Self::Gemma3)
    }

    /// Whether attention and the MLP read the same normed input in parallel.
    pub fn is_parallel(self) -> bool {
        self == Self::Default
    }

    /// Whether the block's own layers carry biases and LayerNorms whatever `attention_bias`
    /// and `mlp_bias` say (`gpt3.py` builds them with `use_bias=True`).
    pub fn is_gpt3(self) -> bool {
        self == Self::Gpt3
    }

    /// Decoder layers for a `num_decoder_layers` value (Gemma 2 counts pairs).
    pub fn layers(self, num_decoder_layers: u64) -> u64 {
        if self == Self::Gemma2 {
            num_decoder_layers.saturating_mul(2)
        } else {
            num_decoder_layers
        }
    }

    /// QK norm with weights: always in Gemma 3, by `use_qk_norm` in Qwen 3. Llama 4's
    /// `use_qk_norm` is a weightless L2 norm.
    pub fn qk_norm(self, k: &mut Keys<'_>, warnings: &mut Vec<ImportWarning>) -> Result<bool, ImportError> {
        let flag = k.bool("use_qk_norm")?;
        Ok(match self {
            Self::Gemma3 => true,
            Self::Qwen3 | Self::Qwen3Moe => flag.unwrap_or(false),
            Self::Llama4 => false,
            _ => {
                if flag == Some(true) {
                    warnings.push(ImportWarning::new(
                        "use_qk_norm",
                        "counted only for the qwen3, qwen3_moe and gemma3 decoder blocks; ignored",
                    ));
                }
                false
            }
        })
    }

    /// The attention layer pattern, as MaxText's FLOP calculator assumes it.
    pub fn layout(
        self,
        k: &mut Keys<'_>,
        attention_type: &str,
        warnings: &mut Vec<ImportWarning>,
    ) -> Result<AttentionLayout, ImportError> {
        let window = k.u64_or("sliding_window_size", 0)?;
        let chunk = k.u64_or("chunk_attn_window_size", 0)?;
        let sliding = || -> Result<LocalAttention, ImportError> {
            if window == 0 {
                Err(ImportError::field("sliding_window_size", "must be set for local attention layers"))
            } else {
                Ok(LocalAttention::SlidingWindow { window })
            }
        };
        k.origin("layout.local.window", "sliding_window_size");
        k.origin("layout.local.chunk", "chunk_attn_window_size");
        match self {
            // Gemma 2: [local, global] pairs; Gemma 3: pattern length 6; gpt-oss: length 2.
            Self::Gemma2 | Self::GptOss => Ok(AttentionLayout::locals_then_global(sliding()?, 1)),
            Self::Gemma3 => Ok(AttentionLayout::locals_then_global(sliding()?, 5)),
            Self::Llama4 => {
                if chunk == 0 {
                    return Ok(AttentionLayout::default());
                }
                let local = LocalAttention::Chunked { chunk };
                // MaxText: num_global_layers = L // nope_layer_interval (the NoPE layers).
                let nope = match k.value("nope_layer_interval") {
                    None => -1,
                    Some(v) => v.as_i64().ok_or_else(|| {
                        ImportError::field("nope_layer_interval", "must be a whole number (-1 for none)")
                    })?,
                };
                k.origin("layout.pattern", "nope_layer_interval");
                match usize::try_from(nope) {
                    Ok(interval) if interval >= 1 => Ok(AttentionLayout::locals_then_global(
                        local,
                        (interval - 1).min(usize::try_from(MAX_LAYERS).unwrap_or(usize::MAX)),
                    )),
                    _ => Ok(AttentionLayout::all_local(local)),
                }
            }
            _ => match attention_type {
                "global" | "mla" => {
                    if window > 0 {
                        warnings.push(ImportWarning::new(
                            "sliding_window_size",
                            "ignored: attention_type is not local_sliding for this decoder block",
                        ));
                    }
                    Ok(AttentionLayout::default())
                }
                "local_sliding" => Ok(AttentionLayout::all_local(sliding()?)),
                "chunk" if chunk > 0 => Ok(AttentionLayout::all_local(LocalAttention::Chunked { chunk })),
                "chunk" => Err(ImportError::field("chunk_attn_window_size", "must be set for chunked attention")),
                other => Err(ImportError::unsupported(
                    "attention_type",
                    format!("`{other}` is not global, local_sliding, chunk or mla"),
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::object;
    use serde_json::json;

    #[test]
    fn block_names_round_trip() {
        for name in SUPPORTED_BLOCKS.split(", ") {
            assert!(Block::parse(name).is_some(), "{name}");
        }
        assert_eq!(Block::parse("gpt3"), Some(Block::Gpt3));
        assert_eq!(Block::parse("gpt2"), None);
    }

    #[test]
    fn patterns_match_the_flop_calculator() {
        let m = object(json!({"sliding_window_size": 1024, "chunk_attn_window_size": 8192, "nope_layer_interval": 4}));
        let mut w = Vec::new();
        let gemma3 = Block::Gemma3.layout(&mut Keys::new(&m, ""), "global", &mut w).unwrap();
        assert_eq!(gemma3.counts(62), (10, 52)); // 62 // 6 global layers
        let oss = Block::GptOss.layout(&mut Keys::new(&m, ""), "global", &mut w).unwrap();
        assert_eq!(oss.counts(36), (18, 18));
        let llama4 = Block::Llama4.layout(&mut Keys::new(&m, ""), "global", &mut w).unwrap();
        assert_eq!(llama4.counts(48), (12, 36)); // 48 // 4 NoPE (global) layers
        assert!(w.is_empty());
        assert_eq!(Block::Gemma2.layers(21), 42);
    }

    #[test]
    fn local_blocks_need_a_window() {
        let m = object(json!({}));
        let e = Block::Gemma2.layout(&mut Keys::new(&m, ""), "global", &mut Vec::new()).unwrap_err();
        assert!(e.to_string().starts_with("sliding_window_size:"), "{e}");
    }
}
