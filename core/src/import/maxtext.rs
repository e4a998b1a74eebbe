//! MaxText model YAML (`configs/models/*.yml`) → [`ModelConfig`].
//!
//! Keys are read under their `base_` names (`base_emb_dim`) or the derived names
//! (`emb_dim`); both may be given if they agree. Keys a model file leaves out take
//! MaxText's `base.yml` default, with a warning whenever that default changes the count.

use super::keys::Keys;
use super::maxtext_block::{Block, SUPPORTED_BLOCKS};
use super::maxtext_ffn::feed_forward;
use super::{model_name, validated, yaml, ImportError, ImportWarning, Imported};
use crate::model::{
    Attention, AttentionBias, BlockLayout, Embeddings, GqaAttention, MlaAttention, ModelConfig, Mtp, Norm, NormKind,
};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Model-file keys that change neither parameters nor FLOPs (training and data settings
/// included: the GPT-3 files carry their MLPerf recipe).
const SILENT: &[&str] = &[
    "adam_b1",
    "adam_b2",
    "adam_eps",
    "adam_weight_decay",
    "attention",
    "attn_logits_soft_cap",
    "checkpoint_period",
    "dataset_name",
    "dataset_path",
    "eval_dataset_name",
    "eval_per_device_batch_size",
    "fused_qkv",
    "gradient_clipping_threshold",
    "logits_dot_in_fp32",
    "max_target_length",
    "opt_type",
    "target_eval_loss",
    "use_iota_embed",
    "beta_fast",
    "beta_slow",
    "capacity_factor",
    "dropout_rate",
    "enable_dropout",
    "final_logits_soft_cap",
    "float32_logits",
    "float32_qk_product",
    "hidden_size_for_vit",
    "image_placeholder",
    "image_size_for_vit",
    "inhomogeneous_layer_cycle_interval",
    "intermediate_size_for_vit",
    "load_balance_loss_weight",
    "local_rope_max_timescale",
    "logical_axis_rules",
    "max_position_embeddings",
    "megablox",
    "mlp_activations_limit",
    "model_name",
    "mscale",
    "n_routing_groups",
    "normalization_layer_epsilon",
    "normalize_embedding_logits",
    "norm_topk_prob",
    "num_attention_heads_for_vit",
    "num_channels_for_vit",
    "num_hidden_layers_for_vit",
    "original_max_position_embeddings",
    "patch_size_for_vit",
    "rope_attention_scaling",
    "rope_factor",
    "rope_interleave",
    "rope_linear_scaling_factor",
    "rope_max_timescale",
    "rope_min_timescale",
    "rope_truncate",
    "rope_type",
    "routed_bias_update_rate",
    "routed_scaling_factor",
    "routed_score_func",
    "sparse_matmul",
    "temperature_tuning",
    "tokenizer_path",
    "tokenizer_type",
    "topk_routing_group",
];

/// Import a MaxText model YAML.
///
/// # Errors
/// [`ImportError::Syntax`] (with the line) for text outside the supported YAML subset;
/// [`ImportError::Unsupported`] for an unknown `decoder_block` or a key the model cannot
/// represent; [`ImportError::Field`] for a missing or mistyped key or an invalid model.
pub fn from_maxtext_yaml(text: &str) -> Result<Imported, ImportError> {
    let map = yaml::parse(text)?;
    let read = from_maxtext_map(&map)?;
    let mut imported = read.imported;
    for key in map.keys().filter(|k| !read.used.contains(*k) && !SILENT.contains(&k.as_str())) {
        imported.warnings.push(ImportWarning::new(
            key.clone(),
            "unknown key, ignored; if it changes the architecture the counts are wrong",
        ));
    }
    Ok(imported)
}

/// A model read from a MaxText configuration, with the keys the reader looked at.
pub(crate) struct ModelRead {
    /// The model and the warnings about its keys (unknown keys not included).
    pub imported: Imported,
    /// Every present key the reader looked at.
    pub used: BTreeSet<String>,
}

/// Read the model keys of a MaxText configuration (a model YAML, or a whole run's merged
/// keys); keys that are not model keys are left alone for the caller to judge.
///
/// # Errors
/// As [`from_maxtext_yaml`].
pub(crate) fn from_maxtext_map(given: &Map<String, Value>) -> Result<ModelRead, ImportError> {
    let map = scaled(given)?;
    let mut k = Keys::new(&map, "");
    let mut warnings = Vec::new();
    let block_name = match k.str("decoder_block")? {
        Some(name) => name,
        None => {
            warnings.push(ImportWarning::new("decoder_block", "not given; using MaxText's default llama2"));
            "llama2"
        }
    };
    let block = Block::parse(block_name).ok_or_else(|| {
        ImportError::unsupported(
            "decoder_block",
            format!("`{block_name}` is not supported (supported: {SUPPORTED_BLOCKS})"),
        )
    })?;
    refuse_unrepresentable(&mut k, &mut warnings)?;

    let d_model = required_dim(&mut k, "emb_dim", "d_model")?;
    let num_layers = block.layers(required_dim(&mut k, "num_decoder_layers", "num_layers")?);
    let vocab_size = defaulted(&mut k, "vocab_size", 32_000, &mut warnings)?;
    k.origin("vocab_size", "vocab_size");
    let tied = k.bool("logits_via_embedding")?.unwrap_or(false);
    let attention_type = k.str("attention_type")?.unwrap_or("global");
    let attention = if attention_type == "mla" {
        if block != Block::Deepseek {
            return Err(ImportError::unsupported(
                "attention_type",
                format!("mla is built by the deepseek decoder block only, not {block_name}"),
            ));
        }
        mla(&mut k, &mut warnings)?
    } else {
        gqa(&mut k, block, &mut warnings)?
    };
    let layout = block.layout(&mut k, attention_type, &mut warnings)?;
    let (mlp, moe) = feed_forward(&mut k, block, &mut warnings)?;
    let mtp = k.u64_or("mtp_num_layers", 0)?;
    k.origin("mtp.depth", "mtp_num_layers");
    let post_norms = post_norms(&mut k, block, &mut warnings)?;
    // MaxText's decoder adds a learned position table for any block when this is positive
    // (base.yml: -1, none).
    let learned_positions = match k.value("trainable_position_size") {
        None => 0,
        Some(v) => match v.as_i64() {
            Some(n) if n <= 0 => 0,
            _ => k.req_u64("trainable_position_size")?,
        },
    };
    k.origin("embeddings.learned_positions", "trainable_position_size");
    // gpt3.py: LayerNorm with a bias (Gpt3LayerNorm, use_bias=True); the others RMSNorm.
    let norm_kind = if block.is_gpt3() { NormKind::Layer } else { NormKind::Rms };
    // The default block's one pre-norm feeds both attention and the MLP.
    let (norms, block_layout) =
        if block.is_parallel() { (1, BlockLayout::Parallel) } else { (2 + post_norms, BlockLayout::Sequential) };

    let config = ModelConfig {
        name: model_name(&format!("MaxText {block_name} model")),
        d_model,
        num_layers,
        vocab_size,
        attention,
        layout,
        mlp,
        moe,
        norm: Norm { kind: norm_kind, per_layer: norms },
        block: block_layout,
        embeddings: Embeddings { tied, learned_positions },
        // MaxText's MTP modules share the main model's embedding and output head.
        mtp: (mtp > 0).then_some(Mtp { depth: mtp, stores_embedding_copies: false }),
    };
    let used = k.used().map(str::to_owned).collect();
    let imported = validated(config, &k.origins, warnings)?;
    Ok(ModelRead { imported, used })
}

/// The keys with `global_parameter_scale` applied the way MaxText applies it
/// (`get_individual_scales` in `configs/types.py`): a power of two 2^s, with s = 3q + r,
/// doubles the heads and the MLP widths q + [r > 0] times, the model width q + [r > 1]
/// times and the layers q times, each `base_` key scaled.
fn scaled(map: &Map<String, Value>) -> Result<std::borrow::Cow<'_, Map<String, Value>>, ImportError> {
    let scale = match map.get("global_parameter_scale") {
        None | Some(Value::Null) => return Ok(std::borrow::Cow::Borrowed(map)),
        Some(v) => {
            v.as_f64().filter(|s| *s >= 1.0 && s.log2().fract() == 0.0 && *s <= 2f64.powi(30)).ok_or_else(|| {
                ImportError::field(
                    "global_parameter_scale",
                    format!("must be a power of 2 (MaxText's rule; got {v}); give the dimensions directly otherwise"),
                )
            })?
        }
    };
    // A power of two up to 2^30 (checked above): its log is a small whole number.
    let log = scale.log2() as u32;
    let (q, r) = (log / 3, log % 3);
    let heads = q + u32::from(r > 0);
    let emb = q + u32::from(r > 1);
    let factors = [
        ("base_emb_dim", emb),
        ("base_num_query_heads", heads),
        ("base_num_kv_heads", heads),
        ("base_mlp_dim", heads),
        ("base_moe_mlp_dim", heads),
        ("base_num_decoder_layers", q),
    ];
    let mut out = map.clone();
    for (key, doublings) in factors {
        if let Some(n) = map.get(key).and_then(Value::as_u64) {
            let v = n
                .checked_shl(doublings)
                .filter(|v| *v >> doublings == n)
                .ok_or_else(|| ImportError::field(key, format!("{n} × global_parameter_scale overflows")))?;
            out.insert(key.to_owned(), Value::from(v));
        }
    }
    Ok(std::borrow::Cow::Owned(out))
}

/// Keys whose non-default values change the model in ways it cannot represent.
fn refuse_unrepresentable(k: &mut Keys<'_>, warnings: &mut Vec<ImportWarning>) -> Result<(), ImportError> {
    k.touch("global_parameter_scale");
    if k.bool("use_sparse_indexer")? == Some(true) {
        return Err(ImportError::unsupported(
            "use_sparse_indexer",
            "the DeepSeek sparse-attention indexer's parameters are not modelled",
        ));
    }
    if k.bool("use_multimodal")? == Some(true) {
        warnings.push(ImportWarning::new(
            "use_multimodal",
            "the vision encoder is not counted; only the text decoder is imported",
        ));
    }
    Ok(())
}

/// `base_<name>` or `<name>`; they must agree when both are given.
pub(super) fn dim(k: &mut Keys<'_>, name: &str, field: &'static str) -> Result<Option<u64>, ImportError> {
    let base = format!("base_{name}");
    match (k.u64(&base)?, k.u64(name)?) {
        (Some(a), Some(b)) if a != b => Err(ImportError::field(base, format!("disagrees with {name} ({a} vs {b})"))),
        (Some(a), _) => {
            k.origin(field, &base);
            Ok(Some(a))
        }
        (None, Some(b)) => {
            k.origin(field, name);
            Ok(Some(b))
        }
        (None, None) => Ok(None),
    }
}

pub(super) fn required_dim(k: &mut Keys<'_>, name: &str, field: &'static str) -> Result<u64, ImportError> {
    dim(k, name, field)?.ok_or_else(|| ImportError::field(format!("base_{name}"), format!("is required (or {name})")))
}

/// A key with MaxText's `base.yml` default, warning when the default is used.
pub(super) fn defaulted(
    k: &mut Keys<'_>,
    key: &str,
    default: u64,
    warnings: &mut Vec<ImportWarning>,
) -> Result<u64, ImportError> {
    match k.u64(key)? {
        Some(v) => Ok(v),
        None => {
            warnings.push(ImportWarning::new(key, format!("not given; using MaxText's base.yml default {default}")));
            Ok(default)
        }
    }
}

fn gqa(k: &mut Keys<'_>, block: Block, warnings: &mut Vec<ImportWarning>) -> Result<Attention, ImportError> {
    let num_heads = required_dim(k, "num_query_heads", "attention.num_heads")?;
    let kv_heads = required_dim(k, "num_kv_heads", "attention.num_kv_heads")?;
    // gpt3.py's fused QKV projection has as many key and value heads as query heads.
    let num_kv_heads = if block.is_gpt3() {
        if kv_heads != num_heads {
            warnings.push(ImportWarning::new(
                "base_num_kv_heads",
                format!("ignored: the gpt3 block projects {num_heads} key and value heads (fused QKV), not {kv_heads}"),
            ));
        }
        num_heads
    } else {
        kv_heads
    };
    let head_dim = defaulted(k, "head_dim", 128, warnings)?;
    k.origin("attention.head_dim", "head_dim");
    let qk_norm = block.qk_norm(k, warnings)?;
    // MaxText's attention_bias puts biases on the query, key, value and output projections;
    // gpt3.py always does.
    let bias_key = k.bool("attention_bias")?.unwrap_or(false);
    let bias = if bias_key || block.is_gpt3() { AttentionBias::QkvO } else { AttentionBias::None };
    Ok(Attention::Gqa(GqaAttention {
        num_heads,
        num_kv_heads,
        head_dim,
        qk_norm,
        bias,
        sinks: k.bool("attention_sink")?.unwrap_or(false),
    }))
}

fn mla(k: &mut Keys<'_>, warnings: &mut Vec<ImportWarning>) -> Result<Attention, ImportError> {
    let num_heads = required_dim(k, "num_query_heads", "attention.num_heads")?;
    // Unused by MLA.
    for key in ["base_num_kv_heads", "num_kv_heads", "head_dim", "use_qk_norm"] {
        k.touch(key);
    }
    let q_lora_rank = k.u64_or("q_lora_rank", 0)?;
    let mut read = |key: &str, default: u64, field: &'static str| -> Result<u64, ImportError> {
        let v = defaulted(k, key, default, warnings)?;
        k.origin(field, key);
        Ok(v)
    };
    let kv_lora_rank = read("kv_lora_rank", 512, "attention.kv_lora_rank")?;
    let qk_nope_head_dim = read("qk_nope_head_dim", 128, "attention.qk_nope_head_dim")?;
    let qk_rope_head_dim = read("qk_rope_head_dim", 64, "attention.qk_rope_head_dim")?;
    let v_head_dim = read("v_head_dim", 128, "attention.v_head_dim")?;
    Ok(Attention::Mla(MlaAttention {
        num_heads,
        // MaxText: q_lora_rank 0 projects queries directly.
        q_lora_rank: (q_lora_rank > 0).then_some(q_lora_rank),
        kv_lora_rank,
        qk_nope_head_dim,
        qk_rope_head_dim,
        v_head_dim,
    }))
}

/// Extra norms per layer from `use_post_attn_norm` / `use_post_ffw_norm` (Gemma 2/3).
fn post_norms(k: &mut Keys<'_>, block: Block, warnings: &mut Vec<ImportWarning>) -> Result<u64, ImportError> {
    let mut extra = 0;
    for key in ["use_post_attn_norm", "use_post_ffw_norm"] {
        if k.bool(key)? == Some(true) {
            if block.has_post_norms() {
                extra += 1;
            } else {
                warnings.push(ImportWarning::new(key, "ignored by this decoder_block in MaxText"));
            }
        }
    }
    Ok(extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = "base_emb_dim: 64\nbase_num_query_heads: 4\nbase_num_kv_heads: 2\n\
                        base_mlp_dim: 128\nbase_num_decoder_layers: 2\nhead_dim: 16\n\
                        mlp_activations: [\"silu\",\"linear\"]\nvocab_size: 100\ndecoder_block: \"llama2\"\n";

    #[test]
    fn tiny_llama2() {
        let m = from_maxtext_yaml(TINY).unwrap();
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert_eq!(m.config.num_layers, 2);
        assert_eq!(m.config.mlp.kind, crate::model::MlpKind::Gated);
    }

    #[test]
    fn base_and_derived_names_must_agree() {
        let e = from_maxtext_yaml(&format!("{TINY}emb_dim: 32\n")).unwrap_err();
        assert!(e.to_string().starts_with("base_emb_dim:"), "{e}");
        assert!(from_maxtext_yaml(&format!("{TINY}emb_dim: 64\n")).is_ok());
    }

    #[test]
    fn global_parameter_scale_doubles_as_maxtext_does() {
        // get_individual_scales(32): log 5 = 3·1 + 2: heads and MLP ×4, width ×4, layers ×2.
        let m = from_maxtext_yaml(&format!("{TINY}global_parameter_scale: 32\n")).unwrap().config;
        assert_eq!((m.d_model, m.num_layers, m.mlp.d_ff), (256, 4, 512));
        assert!(matches!(m.attention, Attention::Gqa(ref a) if (a.num_heads, a.num_kv_heads) == (16, 8)));
        // 128: 3·2 + 1: heads and MLP ×8, width ×4, layers ×4.
        let m = from_maxtext_yaml(&format!("{TINY}global_parameter_scale: 128\n")).unwrap().config;
        assert_eq!((m.d_model, m.num_layers, m.mlp.d_ff), (256, 8, 1024));
        let e = from_maxtext_yaml(&format!("{TINY}global_parameter_scale: 3\n")).unwrap_err();
        assert!(e.to_string().starts_with("global_parameter_scale:"), "{e}");
    }

    #[test]
    fn the_default_block_is_parallel() {
        let m = from_maxtext_yaml(&TINY.replace("llama2", "default")).unwrap().config;
        assert_eq!((m.block, m.norm.per_layer), (BlockLayout::Parallel, 1));
    }

    #[test]
    fn dense_blocks_with_experts_are_refused() {
        let e = from_maxtext_yaml(&format!("{TINY}num_experts: 8\n")).unwrap_err();
        assert!(matches!(e, ImportError::Unsupported { ref key, .. } if key == "num_experts"));
        let e = from_maxtext_yaml(&TINY.replace("llama2", "gpt2")).unwrap_err();
        assert!(matches!(e, ImportError::Unsupported { ref key, .. } if key == "decoder_block"));
    }

    #[test]
    fn defaults_and_ignored_keys_are_visible() {
        let text = TINY.replace("head_dim: 16\n", "").replace("vocab_size: 100\n", "");
        let m = from_maxtext_yaml(&format!("{text}shared_experts: 2\nuse_post_ffw_norm: true\n")).unwrap();
        let keys: Vec<_> = m.warnings.iter().map(|w| w.key.as_str()).collect();
        for key in ["head_dim", "vocab_size", "shared_experts", "use_post_ffw_norm"] {
            assert!(keys.contains(&key), "{key} not in {keys:?}");
        }
        assert_eq!(m.config.vocab_size, 32_000);
    }

    #[test]
    fn kv_heads_errors_use_the_file_key() {
        let e = from_maxtext_yaml(&TINY.replace("base_num_kv_heads: 2", "base_num_kv_heads: 3")).unwrap_err();
        let ImportError::Field(inv) = e else { panic!("{e}") };
        assert_eq!(inv.0[0].field, "base_num_kv_heads");
    }

    #[test]
    fn mtp_modules_share_the_embedding() {
        let m = from_maxtext_yaml(&format!("{TINY}mtp_num_layers: 1\n")).unwrap();
        assert_eq!(m.config.mtp, Some(Mtp { depth: 1, stores_embedding_copies: false }));
    }
}
