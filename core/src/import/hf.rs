//! Hugging Face `config.json` → [`ModelConfig`]: dispatch on `model_type`, unwrap
//! multimodal configs to their text decoder, and read the dimensions and attention.
//! The layer pattern is read in [`super::hf_layout`], the MLP / MoE keys in
//! [`super::hf_ffn`].

use super::hf_family::{Family, COMMON_SILENT, SUPPORTED, WRAPPER_SILENT};
use super::hf_ffn::{feed_forward, multi_token_prediction};
use super::hf_layout::layout;
use super::keys::Keys;
use super::{model_name, validated, ImportError, ImportWarning, Imported};
use crate::model::{
    Attention, AttentionBias, BlockLayout, Embeddings, GqaAttention, MlaAttention, ModelConfig, Norm, NormKind,
};
use serde_json::Value;

/// `vocab_size` of `Gemma3TextConfig` when absent (Gemma 3 multimodal configs omit it).
const GEMMA3_VOCAB_DEFAULT: u64 = 262_208;

/// Import a Hugging Face `config.json`.
///
/// Reads every key that changes parameters or FLOPs for the families listed in the
/// [module documentation](super); `text_config` of a multimodal config is imported as the
/// model (with a warning that the vision tower is not counted).
///
/// # Errors
/// [`ImportError::Syntax`] for invalid JSON or a non-object; [`ImportError::Unsupported`]
/// for an unknown `model_type` or a key the model cannot represent;
/// [`ImportError::Field`] for a missing or mistyped key or an invalid model, named by key.
pub fn from_hf_config_json(text: &str) -> Result<Imported, ImportError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ImportError::Syntax {
        line: Some(e.line()).filter(|&l| l > 0),
        message: format!("not valid JSON: {e}"),
    })?;
    let Value::Object(top) = &value else {
        return Err(ImportError::Syntax {
            line: None,
            message: "a config.json must be a JSON object `{ ... }`".into(),
        });
    };
    let mut warnings = Vec::new();
    let mut outer = Keys::new(top, "");
    let model_type = model_type(&mut outer)?;
    let family = Family::from_model_type(&model_type).ok_or_else(|| {
        ImportError::unsupported(
            "model_type",
            format!("`{model_type}` is not a supported family (supported: {SUPPORTED})"),
        )
    })?;
    let name = outer
        .value("_name_or_path")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map_or_else(|| format!("{} (config.json)", family.label()), str::to_owned);

    let wrapper = matches!(model_type.as_str(), "gemma3" | "llama4");
    let (config, origins) = if wrapper {
        let text_config = outer.object("text_config")?.ok_or_else(|| outer.missing("text_config"))?;
        let tied = outer.bool("tie_word_embeddings")?;
        if outer.value("vision_config").is_some() {
            warnings.push(ImportWarning::new(
                "vision_config",
                "the vision tower and multimodal projector are not counted; only the text decoder \
                 (text_config) is imported",
            ));
        }
        outer.warn_unknown(&[WRAPPER_SILENT], &mut warnings);
        let mut inner = Keys::new(text_config, "text_config.");
        let config = text_decoder(&mut inner, family, &name, tied, &mut warnings)?;
        inner.warn_unknown(&[COMMON_SILENT, family.silent_keys()], &mut warnings);
        (config, inner.origins)
    } else {
        let config = text_decoder(&mut outer, family, &name, None, &mut warnings)?;
        outer.warn_unknown(&[COMMON_SILENT, family.silent_keys()], &mut warnings);
        (config, outer.origins)
    };
    validated(config, &origins, warnings)
}

/// `model_type`, or the one implied by the first entry of `architectures`.
fn model_type(k: &mut Keys<'_>) -> Result<String, ImportError> {
    if let Some(t) = k.str("model_type")? {
        return Ok(t.to_owned());
    }
    let first = k.array("architectures")?.and_then(|a| a.first()).and_then(Value::as_str);
    match first.and_then(Family::model_type_of_architecture) {
        Some(t) => Ok(t.to_owned()),
        None => Err(ImportError::unsupported(
            "model_type",
            format!("missing, and `architectures` names no supported class (supported families: {SUPPORTED})"),
        )),
    }
}

/// The decoder described by the keys in `k`; `tied_override` is a wrapper's own
/// `tie_word_embeddings`.
fn text_decoder(
    k: &mut Keys<'_>,
    family: Family,
    name: &str,
    tied_override: Option<bool>,
    warnings: &mut Vec<ImportWarning>,
) -> Result<ModelConfig, ImportError> {
    let d_model = k.req_u64("hidden_size")?;
    k.origin("d_model", "hidden_size");
    let num_layers = k.req_u64("num_hidden_layers")?;
    k.origin("num_layers", "num_hidden_layers");
    let vocab_size = match (family, k.u64("vocab_size")?) {
        (_, Some(v)) => v,
        (Family::Gemma3, None) => {
            warnings.push(ImportWarning::new(
                k.name("vocab_size"),
                format!("not given; using Gemma3TextConfig's default {GEMMA3_VOCAB_DEFAULT}"),
            ));
            GEMMA3_VOCAB_DEFAULT
        }
        (_, None) => return Err(k.missing("vocab_size")),
    };
    k.origin("vocab_size", "vocab_size");
    let tied = match k.bool("tie_word_embeddings")? {
        Some(t) => tied_override.unwrap_or(t),
        None => tied_override.unwrap_or(family.tied_by_default()),
    };
    let attention = if family == Family::DeepseekV3 { mla(k)? } else { gqa(k, family, d_model, warnings)? };
    let layout = layout(k, family, num_layers, warnings)?;
    let (mlp, moe) = feed_forward(k, family, num_layers)?;
    let mtp = multi_token_prediction(k, family)?;
    Ok(ModelConfig {
        name: model_name(name),
        d_model,
        num_layers,
        vocab_size,
        attention,
        layout,
        mlp,
        moe,
        norm: Norm { kind: NormKind::Rms, per_layer: family.norms_per_layer() },
        block: BlockLayout::Sequential,
        embeddings: Embeddings { tied, learned_positions: 0 },
        mtp,
    })
}

/// Grouped-query attention (MHA when `num_key_value_heads` is absent).
fn gqa(
    k: &mut Keys<'_>,
    family: Family,
    d_model: u64,
    warnings: &mut Vec<ImportWarning>,
) -> Result<Attention, ImportError> {
    let num_heads = k.req_u64("num_attention_heads")?;
    k.origin("attention.num_heads", "num_attention_heads");
    let num_kv_heads = k.u64("num_key_value_heads")?.unwrap_or(num_heads);
    k.origin("attention.num_kv_heads", "num_key_value_heads");
    let derived = d_model.checked_div(num_heads).unwrap_or(0);
    let head_dim = match (k.u64("head_dim")?, family.head_dim_default()) {
        (Some(h), _) => h,
        (None, Some(default)) => {
            if default != derived {
                warnings.push(ImportWarning::new(
                    k.name("head_dim"),
                    format!(
                        "not given; using the config class default {default} (not hidden_size / \
                         num_attention_heads = {derived})"
                    ),
                ));
            }
            default
        }
        (None, None) => {
            if num_heads > 0 && !d_model.is_multiple_of(num_heads) {
                warnings.push(ImportWarning::new(
                    k.name("head_dim"),
                    format!("not given; hidden_size is not a multiple of num_attention_heads, using {derived} as transformers does"),
                ));
            }
            derived
        }
    };
    k.origin("attention.head_dim", "head_dim");
    let bias = if family == Family::Qwen2 {
        // Qwen2's attention always has Q, K and V biases and no config key for them.
        AttentionBias::Qkv
    } else if family.reads_attention_bias() && k.bool("attention_bias")?.unwrap_or(family.attention_bias_default()) {
        AttentionBias::QkvO
    } else {
        AttentionBias::None
    };
    Ok(Attention::Gqa(GqaAttention {
        num_heads,
        num_kv_heads,
        head_dim,
        qk_norm: family.qk_norm(),
        bias,
        sinks: family == Family::GptOss,
    }))
}

/// DeepSeek multi-head latent attention.
fn mla(k: &mut Keys<'_>) -> Result<Attention, ImportError> {
    let num_heads = k.req_u64("num_attention_heads")?;
    k.origin("attention.num_heads", "num_attention_heads");
    // MLA has no KV heads; DeepSeek's config repeats the head count here.
    k.touch("num_key_value_heads");
    if !k.has("q_lora_rank") {
        return Err(ImportError::field(
            k.name("q_lora_rank"),
            "is required (null when queries are projected without compression)",
        ));
    }
    let q_lora_rank = k.u64("q_lora_rank")?;
    if k.bool("attention_bias")? == Some(true) {
        return Err(ImportError::unsupported(
            k.name("attention_bias"),
            "biases on the MLA projections are not modelled",
        ));
    }
    let mut read = |key: &str, field: &'static str| -> Result<u64, ImportError> {
        let v = k.req_u64(key)?;
        k.origin(field, key);
        Ok(v)
    };
    let kv_lora_rank = read("kv_lora_rank", "attention.kv_lora_rank")?;
    let qk_nope_head_dim = read("qk_nope_head_dim", "attention.qk_nope_head_dim")?;
    let qk_rope_head_dim = read("qk_rope_head_dim", "attention.qk_rope_head_dim")?;
    let v_head_dim = read("v_head_dim", "attention.v_head_dim")?;
    k.origin("attention.q_lora_rank", "q_lora_rank");
    Ok(Attention::Mla(MlaAttention {
        num_heads,
        q_lora_rank,
        kv_lora_rank,
        qk_nope_head_dim,
        qk_rope_head_dim,
        v_head_dim,
    }))
}
