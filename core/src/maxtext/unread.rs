//! What becomes of the keys a run gives that the importer does not read: listed, never
//! dropped silently. With MaxText's `base.yml` at hand (the CLI, the Python package) a key
//! not in it is **unknown** (MaxText itself would refuse it); a key set to its base.yml
//! default changes nothing; a key that only names paths, logging, checkpoints, data,
//! evaluation, the learning-rate schedule, inference or multimodal settings cannot change
//! a training step's time or memory and is **ignored**; every other key is a **warning**:
//! it may change performance, and shardcalc does not model it.

use super::config::{same_value, Merged};
use super::reader::show;
use crate::import::ImportWarning;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A key and its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KeyValue {
    /// The key.
    pub key: String,
    /// Its value.
    pub value: String,
}

/// Key prefixes that cannot change a training step (paths, logging, checkpointing, data,
/// evaluation, schedules, inference, multimodal encoders, profiling, monitoring).
const INERT_PREFIXES: &[&str] = &[
    "abort_on_",
    "adam_b",
    "adam_eps",
    "adam_weight_decay",
    "adamw_mask",
    "add_bos",
    "add_eos",
    "async_checkpointing",
    "autoregressive_decode",
    "beta_",
    "chat_template",
    "checkpoint",
    "colocated_python",
    "compiled_trainstep",
    "cosine_",
    "data_shuffle",
    "dataset",
    "debug_",
    "decode_sampling",
    "default_prompt",
    "dense_init_scale",
    "distill_",
    "dump_",
    "elastic_",
    "enable_autocheckpoint",
    "enable_checkpoint",
    "enable_continuous_checkpointing",
    "enable_data_shuffling",
    "enable_emergency",
    "enable_gcp_",
    "enable_goodput",
    "enable_jax_profiler",
    "enable_llm_inference",
    "enable_model_warmup",
    "enable_multi_tier",
    "enable_orbax",
    "enable_pathways",
    "enable_prefix_caching",
    "enable_single_replica",
    "enable_tensorboard",
    "enable_tpu_profiling",
    "enable_wandb",
    "eval_",
    "force_unroll",
    "freeze_",
    "gcs_",
    "generate_",
    "global_rampup",
    "global_rope",
    "goodput_",
    "gradient_clipping",
    "grain_",
    "heartbeat_",
    "hf_",
    "hide_profiler",
    "image_",
    "inference_",
    "init_weights",
    "jax_",
    "kv_quant",
    "learning_rate",
    "load_",
    "local_checkpoint",
    "local_rope",
    "log_",
    "lora_",
    "lr_",
    "managed_mldiagnostics",
    "max_checkify",
    "max_corpus",
    "max_num_checkpoints",
    "max_position_embeddings",
    "max_prefill",
    "metrics_",
    "monitor_",
    "mrope",
    "mscale",
    "mtc_",
    "mtp_eval",
    "mtp_loss",
    "multi_sampling",
    "multi_tier",
    "norm_topk_prob",
    "normalization_layer_epsilon",
    "num_epoch",
    "olmo_",
    "original_max_position",
    "per_device_batch_size_",
    "position_id",
    "posemb_",
    "prefill_",
    "prefix_caching",
    "profile",
    "prometheus_",
    "prompt",
    "quantize_kvcache",
    "rope_",
    "report_",
    "return_log_prob",
    "reuse_example_batch",
    "routed_bias_update",
    "routed_scaling",
    "run_name",
    "save_",
    "sft_",
    "skip_",
    "source_checkpoint",
    "stack_prefill",
    "step_deviation",
    "target_eval",
    "temperature_tuning",
    "tokenize",
    "tpu_num_",
    "train_data",
    "train_image",
    "train_split",
    "upload_",
    "use_audio",
    "use_chat_template",
    "use_mrope",
    "use_truncation",
    "use_vertex",
    "vertex_",
    "video_",
    "vllm_",
    "wandb",
    "warmup",
    "write_estimator",
    "wsd_",
    "xprof_",
];

/// Key suffixes that cannot change a training step.
const INERT_SUFFIXES: &[&str] =
    &["_path", "_dir", "_directory", "_for_vit", "_for_audio", "_seed", "_calibration_method"];

/// Single keys that cannot change a training step.
const INERT_KEYS: &[&str] = &[
    "ar_cache_axis_order",
    "audio_placeholder",
    "base_output_directory",
    "check_vma",
    "compute_axis_order",
    "dataset_type",
    "dtype_mm",
    "enable_dropout",
    "enable_rampup_batch_size",
    "expansion_factor_real_data",
    "gcs_metrics",
    "hardware",
    "internal_compile",
    "internal_compile_num_devices",
    "load_balance_loss_weight",
    "max_num_images_per_example",
    "model_call_mode",
    "packing",
    "param_scan_axis",
    "pure_nnx",
    "pure_nnx_decoder",
    "enable_nnx",
    "record_internal_nn_metrics",
    "remove_size_one_mesh_axis_from_type",
    "reshape_q",
    "scan_layers",
    "sharding_tolerance",
    "shardy",
    "steps",
    "training_objective",
    "use_iota_embed",
    "use_sft",
    "video_placeholder",
    "vision_output_length",
    "z_loss_multiplier",
    "image_placeholder",
    "inference_server",
    "inference_benchmark_test",
    "inference_metadata_file",
    "enable_checkpointing",
    "mla_naive_kvcache",
    "use_qwix_quantization",
    "replicate_quant_scale",
    "quantization_local_shard_count",
    "quant_cfg_path",
    "checkpoint_is_quantized",
    "use_untrainable_positional_embedding",
    "prefill_cache_axis_order",
    "log_period",
    "enable_padding_causal_mask",
];

/// Whether `key` cannot change a training step's time or memory.
#[must_use]
pub fn is_inert(key: &str) -> bool {
    INERT_KEYS.contains(&key)
        || INERT_PREFIXES.iter().any(|p| key.starts_with(p))
        || INERT_SUFFIXES.iter().any(|s| key.ends_with(s))
}

/// The unread keys of a run, sorted into the lists of [`super::KeyReport`].
#[derive(Debug, Default)]
pub(super) struct Unread {
    pub unknown: Vec<KeyValue>,
    pub ignored: Vec<KeyValue>,
    pub warnings: Vec<ImportWarning>,
}

/// Sort every key the user gave that is not in `read`.
pub(super) fn sort_unread(m: &Merged, read: &BTreeSet<String>) -> Unread {
    let mut out = Unread::default();
    for (key, value) in &m.values {
        if !m.given(key) || read.contains(key) {
            continue;
        }
        let kv = KeyValue { key: key.clone(), value: show(value) };
        if !m.known(key) {
            out.unknown.push(kv);
        } else if m.defaults.get(key).is_some_and(|d| same_value(d, value)) || is_inert(key) {
            out.ignored.push(kv);
        } else if m.defaults.is_empty() {
            out.warnings.push(ImportWarning::new(
                key.clone(),
                format!("= {}: not read by shardcalc; if it changes performance, the prediction does not show it (without MaxText's base.yml here, an unknown key cannot be told apart)", kv.value),
            ));
        } else {
            out.warnings.push(ImportWarning::new(
                key.clone(),
                format!(
                    "= {} (base.yml: {}): not modelled; if it changes performance, the prediction does not show it",
                    kv.value,
                    m.defaults.get(key).map(show).unwrap_or_default()
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inert_keys() {
        for key in [
            "run_name",
            "base_output_directory",
            "dataset_path",
            "learning_rate",
            "checkpoint_period",
            "steps",
            "hf_access_token",
            "image_size_for_vit",
        ] {
            assert!(is_inert(key), "{key}");
        }
        for key in [
            "sa_block_q",
            "logical_axis_rules",
            "num_vocab_tiling",
            "use_dpo",
            "scan_layers_per_stage",
            "use_ring_of_experts",
            "parameter_memory_host_offload",
        ] {
            assert!(!is_inert(key), "{key}");
        }
    }
}
