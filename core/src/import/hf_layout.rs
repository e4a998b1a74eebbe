//! Hugging Face keys for which layers attend locally: `layer_types` when present, else
//! each family's own rule (Mistral's window on every layer, Gemma 2's alternation, Gemma 3's
//! `sliding_window_pattern`, Qwen's `max_window_layers`, Llama 4's NoPE layers).

use super::hf_family::Family;
use super::keys::{show, Keys};
use super::pattern::{layout_from_layers, per_layer};
use super::{ImportError, ImportWarning};
use crate::model::{AttentionLayout, LayerKind, LocalAttention};

/// A window key with the config class default when the key is absent (`null` = none).
fn window(
    k: &mut Keys<'_>,
    key: &str,
    default: Option<u64>,
    warnings: &mut Vec<ImportWarning>,
) -> Result<Option<u64>, ImportError> {
    if k.has(key) {
        return k.u64(key);
    }
    if let Some(d) = default {
        warnings.push(ImportWarning::new(k.name(key), format!("not given; using the config class default {d}")));
    }
    Ok(default)
}

/// Which layers attend locally: `layer_types` when given, else the family's rule.
pub(super) fn layout(
    k: &mut Keys<'_>,
    family: Family,
    num_layers: u64,
    warnings: &mut Vec<ImportWarning>,
) -> Result<AttentionLayout, ImportError> {
    if matches!(family, Family::Llama | Family::DeepseekV3) {
        // No sliding-window or layer-type keys in these config classes: if a file has
        // them, they stay unread and are reported as unknown.
        return Ok(AttentionLayout::default());
    }
    let layers_key = k.name("num_hidden_layers");
    let (local, window_key) = if family == Family::Llama4 {
        let chunk = window(k, "attention_chunk_size", Some(8192), warnings)?;
        (chunk.map(|chunk| LocalAttention::Chunked { chunk }), "attention_chunk_size")
    } else {
        let default = match family {
            Family::Mistral | Family::Gemma2 | Family::Gemma3 => Some(4096),
            Family::GptOss => Some(128),
            _ => None,
        };
        let w = window(k, "sliding_window", default, warnings)?;
        (w.map(|window| LocalAttention::SlidingWindow { window }), "sliding_window")
    };
    k.origin(if family == Family::Llama4 { "layout.local.chunk" } else { "layout.local.window" }, window_key);
    let window_key = k.name(window_key);

    let has_layer_types = !matches!(family, Family::Mistral | Family::Mixtral);
    if let Some(types) = if has_layer_types { k.array("layer_types")? } else { None } {
        // `layer_types` supersedes the older per-family keys, which newer files still carry.
        for older in [
            "sliding_window_pattern",
            "use_sliding_window",
            "max_window_layers",
            "no_rope_layers",
            "no_rope_layer_interval",
        ] {
            k.touch(older);
        }
        let list_key = k.name("layer_types");
        if types.len() as u64 != num_layers {
            return Err(ImportError::field(
                list_key,
                format!("has {} entries but num_hidden_layers is {num_layers}", types.len()),
            ));
        }
        let kinds = types
            .iter()
            .enumerate()
            .map(|(i, t)| match t.as_str() {
                Some("full_attention") => Ok(LayerKind::Global),
                Some("sliding_attention" | "chunked_attention") => Ok(LayerKind::Local),
                _ => Err(ImportError::unsupported(
                    format!("{list_key}[{i}]"),
                    format!("layer type {} is not full, sliding or chunked attention", show(t)),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        return layout_from_layers(&kinds, local, &list_key, &window_key);
    }

    let kinds = match family {
        Family::Mistral | Family::Mixtral => per_layer(num_layers, &layers_key, |_| LayerKind::Local)?,
        Family::Qwen2 | Family::Qwen3 | Family::Qwen3Moe => {
            let on = k.bool("use_sliding_window")?.unwrap_or(false);
            let full_below = k.u64_or("max_window_layers", num_layers)?;
            if !on {
                return Ok(AttentionLayout::default());
            }
            per_layer(num_layers, &layers_key, |i| kind(i >= full_below))?
        }
        // Gemma 2 and gpt-oss alternate, starting with a local layer.
        Family::Gemma2 | Family::GptOss => per_layer(num_layers, &layers_key, |i| kind(i % 2 == 0))?,
        Family::Gemma3 => {
            let every = k.u64_or("sliding_window_pattern", 6)?;
            if every == 0 {
                return Err(ImportError::field(k.name("sliding_window_pattern"), "must be at least 1"));
            }
            per_layer(num_layers, &layers_key, |i| kind((i + 1) % every != 0))?
        }
        Family::Llama4 => llama4_layers(k, num_layers, &layers_key)?,
        Family::Llama | Family::DeepseekV3 => Vec::new(),
    };
    if local.is_none() {
        // No window (e.g. Mistral v0.3's `"sliding_window": null`): every layer is global.
        return Ok(AttentionLayout::default());
    }
    layout_from_layers(&kinds, local, &layers_key, &window_key)
}

fn kind(local: bool) -> LayerKind {
    if local {
        LayerKind::Local
    } else {
        LayerKind::Global
    }
}

/// Llama 4: layers with RoPE use chunked attention, the NoPE layers attend globally.
fn llama4_layers(k: &mut Keys<'_>, num_layers: u64, layers_key: &str) -> Result<Vec<LayerKind>, ImportError> {
    let interval = k.u64_or("no_rope_layer_interval", 4)?;
    match k.u64_list("no_rope_layers")? {
        Some(list) => {
            let key = k.name("no_rope_layers");
            if list.len() as u64 != num_layers {
                return Err(ImportError::field(
                    key,
                    format!("has {} entries but num_hidden_layers is {num_layers}", list.len()),
                ));
            }
            if list.iter().any(|&x| x > 1) {
                return Err(ImportError::field(key, "entries must be 0 (NoPE, global) or 1 (RoPE, chunked)"));
            }
            Ok(list.iter().map(|&uses_rope| kind(uses_rope == 1)).collect())
        }
        None if interval == 0 => Err(ImportError::field(k.name("no_rope_layer_interval"), "must be at least 1")),
        None => per_layer(num_layers, layers_key, |i| kind((i + 1) % interval != 0)),
    }
}

#[cfg(test)]
mod tests {
    use crate::import::{from_hf_config_json, ImportError, Imported};
    use crate::model::{AttentionLayout, LayerKind::Global as G, LayerKind::Local as L, LocalAttention};
    use serde_json::{json, Value};

    /// A tiny four-layer config of `model_type` with `extra` keys.
    fn import(model_type: &str, extra: Value) -> Result<Imported, ImportError> {
        let mut c = json!({
            "model_type": model_type, "hidden_size": 64, "num_hidden_layers": 4, "vocab_size": 100,
            "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128
        });
        if model_type == "llama4_text" || model_type == "gpt_oss" {
            c["num_local_experts"] = json!(4);
            c["num_experts_per_tok"] = json!(1);
        }
        if model_type == "llama4_text" {
            c["intermediate_size_mlp"] = json!(128);
        }
        for (k, v) in extra.as_object().into_iter().flatten() {
            c[k.as_str()] = v.clone();
        }
        from_hf_config_json(&c.to_string())
    }

    fn window(w: u64) -> Option<LocalAttention> {
        Some(LocalAttention::SlidingWindow { window: w })
    }

    #[test]
    fn qwen_windows_start_at_max_window_layers() {
        let m =
            import("qwen2", json!({"use_sliding_window": true, "sliding_window": 32, "max_window_layers": 2})).unwrap();
        assert_eq!(m.config.layout, AttentionLayout { local: window(32), pattern: vec![G, G, L, L] });
        let off = import("qwen2", json!({"use_sliding_window": false, "sliding_window": 32})).unwrap();
        assert_eq!(off.config.layout, AttentionLayout::default());
    }

    #[test]
    fn layer_types_supersede_older_keys_silently() {
        let m = import(
            "gemma3_text",
            json!({"sliding_window": 8, "sliding_window_pattern": 6,
                   "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"]}),
        )
        .unwrap();
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert_eq!(m.config.layout.pattern, vec![L, G]);
    }

    #[test]
    fn bad_layer_types_are_named() {
        let e = import("gpt_oss", json!({"layer_types": ["full_attention"]})).unwrap_err();
        assert!(e.to_string().starts_with("layer_types:"), "{e}");
        let e =
            import("gpt_oss", json!({"layer_types": ["full_attention", "linear_attention", "x", "y"]})).unwrap_err();
        assert!(matches!(e, ImportError::Unsupported { ref key, .. } if key == "layer_types[1]"), "{e}");
    }

    #[test]
    fn family_rules() {
        // Mistral v0.3 has no window; v0.1 one on every layer; the class default is 4096.
        assert_eq!(
            import("mistral", json!({"sliding_window": null})).unwrap().config.layout,
            AttentionLayout::default()
        );
        let v01 = import("mistral", json!({})).unwrap();
        assert_eq!(v01.config.layout, AttentionLayout { local: window(4096), pattern: vec![L] });
        assert_eq!(v01.warnings[0].key, "sliding_window");
        // Llama 4 without a list: every 4th layer is NoPE and global.
        let l4 = import("llama4_text", json!({"attention_chunk_size": 16})).unwrap();
        assert_eq!(l4.config.layout.pattern, vec![L, L, L, G]);
        let no_chunks = import("llama4_text", json!({"attention_chunk_size": null, "no_rope_layers": [1, 0, 1, 0]}));
        assert_eq!(no_chunks.unwrap().config.layout, AttentionLayout::default());
        let e = import("llama4_text", json!({"no_rope_layers": [1, 2, 1, 0]})).unwrap_err();
        assert!(e.to_string().starts_with("no_rope_layers:"), "{e}");
        // A Llama config's `sliding_window` is not a LlamaConfig key: reported, not applied.
        let llama = import("llama", json!({"sliding_window": 8})).unwrap();
        assert_eq!(llama.config.layout, AttentionLayout::default());
        assert_eq!(llama.warnings[0].key, "sliding_window");
    }
}
