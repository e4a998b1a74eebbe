//! Importers: Hugging Face `config.json` and MaxText model YAML into a [`ModelConfig`].
//!
//! Both importers read every key that changes the parameter count or the FLOPs, accept a
//! per-family allow-list of keys that change neither (RoPE settings, token ids, dtypes, ...)
//! silently, warn about every other key by name, and refuse with an error naming the key
//! whatever would change the count in a way [`ModelConfig`] cannot represent. The result
//! always passes [`ModelConfig::validate`]; validation problems are reported under the
//! importer's own key names (`num_key_value_heads`, not `attention.num_kv_heads`).
//!
//! - [`from_hf_config_json`]: `llama`, `mistral`, `mixtral`, `qwen2`, `qwen3`, `qwen3_moe`,
//!   `deepseek_v3`, `gemma2`, `gemma3` / `gemma3_text`, `gpt_oss`, `llama4` / `llama4_text`.
//! - [`from_maxtext_yaml`]: MaxText `configs/models/*.yml`, with the layer pattern set by
//!   `decoder_block` the way MaxText's FLOP calculator does.
//! - [`detect_and_import`]: either, by looking at the text.
//!
//! Conventions, where the two sources differ:
//! - a key the file leaves out takes the default of the `transformers` config class or of
//!   MaxText's `base.yml`; when that default changes the count, a warning names the key;
//! - `vocab_size` is taken as written, so MaxText's padded vocabularies (Gemma 2: 256,128)
//!   count their padding rows;
//! - DeepSeek's `num_nextn_predict_layers` describes the Hugging Face checkpoint, which
//!   stores each MTP module's own embedding and head ([`crate::model::Mtp`]); MaxText's
//!   `mtp_num_layers` modules share the main model's;
//! - MaxText's Gemma 2 `num_decoder_layers` counts [local, global] pairs and is doubled.

mod hf;
mod hf_family;
mod hf_ffn;
mod hf_layout;
mod keys;
mod maxtext;
mod maxtext_block;
mod maxtext_ffn;
mod pattern;
mod yaml;
mod yaml_scalar;

pub use hf::from_hf_config_json;
pub(crate) use maxtext::from_maxtext_map;
pub use maxtext::from_maxtext_yaml;
pub(crate) use yaml::{parse as parse_yaml, value as yaml_value};

use crate::error::{FieldError, Invalid};
use crate::model::ModelConfig;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A model read from a configuration file, with what the reader could not take at face value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Imported {
    /// The architecture; always valid.
    pub config: ModelConfig,
    /// Keys that were ignored or defaulted, each named.
    pub warnings: Vec<ImportWarning>,
}

/// A key the importer ignored, or a default it had to assume.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ImportWarning {
    /// The key as spelled in the file (`text_config.vocab_size` for a nested key).
    pub key: String,
    /// What was done with it.
    pub message: String,
}

impl ImportWarning {
    /// A warning about `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self { key: key.into(), message: message.into() }
    }
}

impl fmt::Display for ImportWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

/// Why a configuration file could not be imported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ImportError {
    /// The text is not JSON / not in the supported YAML subset.
    Syntax {
        /// 1-based line of the problem, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A key is missing, has the wrong type, or gives an invalid model; every
    /// [`FieldError::field`] is a key of the imported file.
    Field(Invalid),
    /// A key describes something [`ModelConfig`] cannot represent, so any count would be wrong.
    Unsupported {
        /// The key as spelled in the file.
        key: String,
        /// What it asks for and why it cannot be imported.
        message: String,
    },
}

impl ImportError {
    /// A [`ImportError::Field`] error for one key.
    pub(crate) fn field(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Field(Invalid::one(key, message))
    }

    /// An [`ImportError::Unsupported`] error.
    pub(crate) fn unsupported(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Unsupported { key: key.into(), message: message.into() }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Syntax { line: Some(line), message } => write!(f, "line {line}: {message}"),
            ImportError::Syntax { line: None, message } => f.write_str(message),
            ImportError::Field(invalid) => write!(f, "{invalid}"),
            ImportError::Unsupported { key, message } => write!(f, "{key}: unsupported: {message}"),
        }
    }
}

impl std::error::Error for ImportError {}

/// Import a Hugging Face `config.json` or a MaxText model YAML, whichever `text` is.
///
/// Text that parses as a JSON object, or that starts with `{`, is read as a Hugging Face
/// config (so a truncated `config.json` reports its JSON error); anything else as MaxText
/// YAML.
///
/// # Errors
/// See [`from_hf_config_json`] and [`from_maxtext_yaml`].
pub fn detect_and_import(text: &str) -> Result<Imported, ImportError> {
    let looks_like_json = text.trim_start().starts_with('{');
    let is_json_object = matches!(serde_json::from_str::<serde_json::Value>(text), Ok(serde_json::Value::Object(_)));
    if looks_like_json || is_json_object {
        from_hf_config_json(text)
    } else {
        from_maxtext_yaml(text)
    }
}

/// Validate an imported model, reporting problems under the file's key names.
///
/// `origins` maps [`ModelConfig`] field paths to the key each was read from; a problem
/// with a field not in the map keeps the model's path.
pub(crate) fn validated(
    config: ModelConfig,
    origins: &[(&'static str, String)],
    warnings: Vec<ImportWarning>,
) -> Result<Imported, ImportError> {
    match config.validate() {
        Ok(()) => Ok(Imported { config, warnings }),
        Err(Invalid(errors)) => Err(ImportError::Field(Invalid(
            errors
                .into_iter()
                .map(|e| match origins.iter().find(|(field, _)| *field == e.field) {
                    Some((field, key)) => FieldError::new(key.clone(), format!("{} (model field {field})", e.message)),
                    None => e,
                })
                .collect(),
        ))),
    }
}

/// The object inside a JSON value (empty for anything else); for tests.
#[cfg(test)]
pub(crate) fn object(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match v {
        serde_json::Value::Object(m) => m,
        _ => serde_json::Map::new(),
    }
}

/// At most 200 characters, as [`ModelConfig::validate`] requires of a name.
pub(crate) fn model_name(name: &str) -> String {
    name.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_line_and_key() {
        let e = ImportError::Syntax { line: Some(3), message: "expected `key: value`".into() };
        assert_eq!(e.to_string(), "line 3: expected `key: value`");
        let e = ImportError::unsupported("moe_layer_freq", "every 2nd layer from 0");
        assert!(e.to_string().starts_with("moe_layer_freq"));
        let e = ImportError::field("num_key_value_heads", "must divide");
        assert_eq!(e.to_string(), "num_key_value_heads: must divide");
    }

    #[test]
    fn detection_picks_json_objects_and_yaml_otherwise() {
        let json = detect_and_import("{}").unwrap_err();
        assert!(matches!(json, ImportError::Unsupported { ref key, .. } if key == "model_type"), "{json}");
        let yaml = detect_and_import("decoder_block: [").unwrap_err();
        assert!(matches!(yaml, ImportError::Syntax { line: Some(1), .. }), "{yaml}");
        let truncated = detect_and_import("{\"model_type\": \"llama\",").unwrap_err();
        assert!(matches!(truncated, ImportError::Syntax { .. }), "{truncated}");
    }

    #[test]
    fn names_are_capped() {
        assert_eq!(model_name(&"x".repeat(500)).chars().count(), 200);
    }
}
