//! The Hugging Face model families the importer knows, with the defaults their
//! `transformers` config classes apply and the keys each accepts silently.

/// A `model_type` the importer supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    Llama,
    Mistral,
    Mixtral,
    Qwen2,
    Qwen3,
    Qwen3Moe,
    DeepseekV3,
    Gemma2,
    /// `gemma3_text`, or the text decoder of a `gemma3` multimodal config.
    Gemma3,
    GptOss,
    /// `llama4_text`, or the text decoder of a `llama4` multimodal config.
    Llama4,
}

/// Every supported `model_type`, for error messages.
pub(crate) const SUPPORTED: &str = "llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, deepseek_v3, \
     gemma2, gemma3, gemma3_text, gpt_oss, llama4, llama4_text";

/// Keys of every `transformers` config that change neither parameters nor FLOPs.
pub(crate) const COMMON_SILENT: &[&str] = &[
    "_name_or_path",
    "architectures",
    "attention_dropout",
    "auto_map",
    "bos_token_id",
    "dtype",
    "eos_token_id",
    "hidden_act",
    "initializer_range",
    "max_position_embeddings",
    "model_type",
    "pad_token_id",
    "quantization_config",
    "rms_norm_eps",
    "rope_parameters",
    "rope_scaling",
    "rope_theta",
    "torch_dtype",
    "transformers_version",
    "use_cache",
];

/// Top-level keys of a multimodal wrapper (`gemma3`, `llama4`) besides `text_config`.
pub(crate) const WRAPPER_SILENT: &[&str] = &[
    "_name_or_path",
    "architectures",
    "boi_token_index",
    "bos_token_id",
    "dtype",
    "eoi_token_index",
    "eos_token_id",
    "image_token_index",
    "initializer_range",
    "mm_tokens_per_image",
    "model_type",
    "pad_token_id",
    "torch_dtype",
    "transformers_version",
];

impl Family {
    /// The family of a `model_type`.
    pub fn from_model_type(model_type: &str) -> Option<Self> {
        Some(match model_type {
            "llama" => Self::Llama,
            "mistral" => Self::Mistral,
            "mixtral" => Self::Mixtral,
            "qwen2" => Self::Qwen2,
            "qwen3" => Self::Qwen3,
            "qwen3_moe" => Self::Qwen3Moe,
            "deepseek_v3" => Self::DeepseekV3,
            "gemma2" => Self::Gemma2,
            "gemma3" | "gemma3_text" => Self::Gemma3,
            "gpt_oss" => Self::GptOss,
            "llama4" | "llama4_text" => Self::Llama4,
            _ => return None,
        })
    }

    /// The `model_type` a class name in `architectures` belongs to.
    pub fn model_type_of_architecture(architecture: &str) -> Option<&'static str> {
        Some(match architecture {
            "LlamaForCausalLM" => "llama",
            "MistralForCausalLM" => "mistral",
            "MixtralForCausalLM" => "mixtral",
            "Qwen2ForCausalLM" => "qwen2",
            "Qwen3ForCausalLM" => "qwen3",
            "Qwen3MoeForCausalLM" => "qwen3_moe",
            "DeepseekV3ForCausalLM" => "deepseek_v3",
            "Gemma2ForCausalLM" => "gemma2",
            "Gemma3ForCausalLM" => "gemma3_text",
            "Gemma3ForConditionalGeneration" => "gemma3",
            "GptOssForCausalLM" => "gpt_oss",
            "Llama4ForCausalLM" => "llama4_text",
            "Llama4ForConditionalGeneration" => "llama4",
            _ => return None,
        })
    }

    /// A display label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Llama => "Llama",
            Self::Mistral => "Mistral",
            Self::Mixtral => "Mixtral",
            Self::Qwen2 => "Qwen2",
            Self::Qwen3 => "Qwen3",
            Self::Qwen3Moe => "Qwen3-MoE",
            Self::DeepseekV3 => "DeepSeek-V3",
            Self::Gemma2 => "Gemma 2",
            Self::Gemma3 => "Gemma 3",
            Self::GptOss => "gpt-oss",
            Self::Llama4 => "Llama 4",
        }
    }

    /// `tie_word_embeddings` when the file does not say (the config class default).
    pub fn tied_by_default(self) -> bool {
        matches!(self, Self::Gemma2 | Self::Gemma3)
    }

    /// Norms of width D per layer: Gemma 2/3 norm before and after both blocks.
    pub fn norms_per_layer(self) -> u64 {
        if matches!(self, Self::Gemma2 | Self::Gemma3) {
            4
        } else {
            2
        }
    }

    /// RMS norm with weights on queries and keys (Llama 4's QK norm has no weights).
    pub fn qk_norm(self) -> bool {
        matches!(self, Self::Qwen3 | Self::Qwen3Moe | Self::Gemma3)
    }

    /// `head_dim` when absent, if the config class has its own default rather than
    /// `hidden_size / num_attention_heads`.
    pub fn head_dim_default(self) -> Option<u64> {
        match self {
            Self::Qwen3 | Self::Qwen3Moe | Self::Llama4 => Some(128),
            Self::Gemma2 | Self::Gemma3 => Some(256),
            Self::GptOss => Some(64),
            _ => None,
        }
    }

    /// Whether `attention_bias` is a field of the config class (biases on Q, K, V and O).
    pub fn reads_attention_bias(self) -> bool {
        !matches!(self, Self::Mistral | Self::Mixtral | Self::Qwen2)
    }

    /// `attention_bias` when absent.
    pub fn attention_bias_default(self) -> bool {
        self == Self::GptOss
    }

    /// The family's keys that change neither parameters nor FLOPs (beyond [`COMMON_SILENT`]).
    pub fn silent_keys(self) -> &'static [&'static str] {
        match self {
            Self::Llama => &["pretraining_tp"],
            Self::Mistral => &[],
            Self::Mixtral => &["output_router_logits", "router_aux_loss_coef", "router_jitter_noise"],
            Self::Qwen2 => &["use_mrope"],
            Self::Qwen3 => &[],
            Self::Qwen3Moe => &["norm_topk_prob", "output_router_logits", "router_aux_loss_coef"],
            Self::DeepseekV3 => &[
                "aux_loss_alpha",
                "ep_size",
                "n_group",
                "norm_topk_prob",
                "pretraining_tp",
                "rope_interleave",
                "routed_scaling_factor",
                "scoring_func",
                "seq_aux",
                "topk_group",
            ],
            Self::Gemma2 => &[
                "attn_logit_softcapping",
                "cache_implementation",
                "final_logit_softcapping",
                "hidden_activation",
                "query_pre_attn_scalar",
                "sliding_window_size",
            ],
            Self::Gemma3 => &[
                "attn_logit_softcapping",
                "cache_implementation",
                "final_logit_softcapping",
                "hidden_activation",
                "query_pre_attn_scalar",
                "rope_local_base_freq",
            ],
            Self::GptOss => &["initial_context_length", "output_router_logits", "router_aux_loss_coef", "swiglu_limit"],
            Self::Llama4 => &[
                "_attn_implementation_autoset",
                "attn_scale",
                "attn_temperature_tuning",
                "cache_implementation",
                "floor_scale",
                "for_llm_compressor",
                "output_router_logits",
                "router_aux_loss_coef",
                "router_jitter_noise",
                // Llama 4's QK norm is a weightless L2 norm: no parameters, negligible FLOPs.
                "use_qk_norm",
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_supported_model_type_resolves() {
        for t in SUPPORTED.split(", ") {
            assert!(Family::from_model_type(t).is_some(), "{t}");
        }
        assert_eq!(Family::from_model_type("bert"), None);
    }

    #[test]
    fn architectures_map_to_supported_types() {
        for a in ["LlamaForCausalLM", "Gemma3ForConditionalGeneration", "GptOssForCausalLM"] {
            let t = Family::model_type_of_architecture(a).unwrap();
            assert!(Family::from_model_type(t).is_some(), "{a}");
        }
    }

    #[test]
    fn allow_lists_do_not_hide_architecture_keys() {
        let architecture = [
            "hidden_size",
            "num_hidden_layers",
            "vocab_size",
            "num_attention_heads",
            "num_key_value_heads",
            "head_dim",
            "intermediate_size",
            "tie_word_embeddings",
        ];
        let families = [
            Family::Llama,
            Family::Mistral,
            Family::Mixtral,
            Family::Qwen2,
            Family::Qwen3,
            Family::Qwen3Moe,
            Family::DeepseekV3,
            Family::Gemma2,
            Family::Gemma3,
            Family::GptOss,
            Family::Llama4,
        ];
        for f in families {
            for key in architecture {
                assert!(!f.silent_keys().contains(&key) && !COMMON_SILENT.contains(&key), "{f:?} {key}");
            }
        }
    }
}
