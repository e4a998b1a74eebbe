//! The keys of one MaxText run, merged as `configs/pyconfig.py` (`_initialize_pydantic`)
//! merges them: `base.yml` (or the base YAML the command line names, itself on top of its
//! `base_config`), then the model's `configs/models/<model_name>.yml`, then the command
//! line's overrides and `M_<KEY>` environment variables. A key the model file sets may
//! not be overridden with another value unless `override_model_config=true` (MaxText
//! refuses the run otherwise); `-Instruct` is dropped from a model name.

use super::args::CommandLine;
use crate::import::{parse_yaml, ImportError, ImportWarning};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// MaxText's own files: `base.yml` and the model YAMLs `model_name` resolves to.
#[derive(Clone, Copy, Debug)]
pub struct Configs<'a> {
    /// `base.yml`, whose keys are every key MaxText knows and whose values are the defaults.
    pub base_yml: Option<&'a str>,
    /// Model YAMLs by name.
    pub models: &'a [(&'a str, &'a str)],
}

impl Configs<'static> {
    /// No files: defaults are the importer's own (each equal to base.yml's, tested with the
    /// bundle), unknown keys cannot be told from known ones, and `model_name` resolves only
    /// to the presets of [`super::presets::PRESET_MODELS`].
    pub const NONE: Configs<'static> = Configs { base_yml: None, models: &[] };

    /// The bundled files when core is built with `maxtext-configs`, else [`Self::NONE`].
    #[must_use]
    pub fn available() -> Self {
        #[cfg(feature = "maxtext-configs")]
        {
            Configs { base_yml: Some(super::bundle::BASE_YML), models: super::bundle::MODELS }
        }
        #[cfg(not(feature = "maxtext-configs"))]
        {
            Self::NONE
        }
    }
}

impl<'a> Configs<'a> {
    /// The model YAML called `name`.
    #[must_use]
    pub fn model(&self, name: &str) -> Option<&'a str> {
        self.models.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
    }
}

/// Where a key's value came from, in the order they override each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// MaxText's `base.yml` default (not given by the user).
    Default,
    /// The base YAML named on the command line.
    BaseFile,
    /// The model's YAML (`model_name`).
    Model,
    /// A `key=value` override or an `M_<KEY>` environment variable.
    CommandLine,
}

/// The merged keys of a run.
#[derive(Clone, Debug, Default)]
pub struct Merged {
    /// Every key, with its final value.
    pub values: Map<String, Value>,
    /// Where each key of `values` came from.
    pub origin: BTreeMap<String, Origin>,
    /// base.yml's keys and defaults (empty without the bundle).
    pub defaults: Map<String, Value>,
    /// The model `model_name` named (its `-Instruct` dropped).
    pub model_name: Option<String>,
    /// The preset `model_name` resolved to when no model file was at hand
    /// ([`super::presets::PRESET_MODELS`]).
    pub model_preset: Option<&'static str>,
    /// What the merge could not follow.
    pub warnings: Vec<ImportWarning>,
}

impl Merged {
    /// Whether the user set `key` (in a file or on the command line).
    #[must_use]
    pub fn given(&self, key: &str) -> bool {
        self.origin.get(key).is_some_and(|o| *o != Origin::Default)
    }

    /// Whether `key` is one of base.yml's (always true without the bundle).
    #[must_use]
    pub fn known(&self, key: &str) -> bool {
        self.defaults.is_empty() || self.defaults.contains_key(key)
    }

    /// The keys the user gave, without base.yml's defaults: what the model reader reads.
    #[must_use]
    pub fn given_values(&self) -> Map<String, Value> {
        self.values.iter().filter(|(k, _)| self.given(k)).map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    fn set(&mut self, map: Map<String, Value>, origin: Origin) {
        for (k, v) in map {
            self.origin.insert(k.clone(), origin);
            self.values.insert(k, v);
        }
    }
}

/// Whether two values are the same setting (`1` and `1.0` are).
#[must_use]
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Merge a run's keys.
///
/// `base_file` is the text of the base YAML the command line names (`None`: MaxText's
/// `base.yml`, from `configs` when bundled).
///
/// # Errors
/// A file outside the YAML subset, a `model_name` with no model file, or a model key
/// overridden with another value without `override_model_config=true`.
pub fn merge(cmd: &CommandLine, base_file: Option<&str>, configs: Configs<'_>) -> Result<Merged, ImportError> {
    let mut m = Merged::default();
    if let Some(text) = configs.base_yml {
        m.defaults = parse_yaml(text)?;
        m.set(m.defaults.clone(), Origin::Default);
    }
    if let Some(text) = base_file {
        let mut file = parse_yaml(text)?;
        if let Some(parent) = file.remove("base_config") {
            let name = parent.as_str().unwrap_or_default();
            if !(name == "base.yml" || name.ends_with("/base.yml")) {
                m.warnings.push(ImportWarning::new(
                    "base_config",
                    format!("{parent} is not read (only MaxText's base.yml is known); its keys are missing"),
                ));
            }
        }
        m.set(file, Origin::BaseFile);
    }
    let mut overrides = Map::new();
    for o in &cmd.overrides {
        overrides.insert(o.key.clone(), o.value.clone());
    }
    // configs/pyconfig.py: `M_<KEY>` environment variables set keys base.yml has.
    for (name, text) in &cmd.env {
        if let Some(key) = name.strip_prefix("M_").map(str::to_lowercase) {
            if m.values.contains_key(&key) || m.defaults.is_empty() {
                overrides.insert(key, crate::import::yaml_value(text));
            }
        }
    }
    let override_model = overrides.get("override_model_config").or_else(|| m.values.get("override_model_config"))
        == Some(&Value::Bool(true));
    let model_name = overrides
        .get("model_name")
        .or_else(|| m.values.get("model_name"))
        .and_then(Value::as_str)
        .map(|n| n.replace("-Instruct", ""))
        .filter(|n| n != "default");
    if let Some(name) = model_name.as_deref().filter(|n| configs.model(n).is_none()) {
        m.model_preset = Some(super::presets::preset_for(name).ok_or_else(|| unknown_model(name, configs))?);
        m.model_name = model_name.clone();
    } else if let Some(name) = model_name {
        let text = configs.model(&name).ok_or_else(|| unknown_model(&name, configs))?;
        let mut model = parse_yaml(text)?;
        for (key, value) in &overrides {
            if let Some(theirs) = model.get(key) {
                if override_model {
                    model.remove(key);
                } else if !same_value(theirs, value) {
                    return Err(ImportError::field(
                        key.clone(),
                        format!(
                            "is set by model_name={name} ({theirs}) and on the command line ({value}); MaxText refuses this unless override_model_config=true"
                        ),
                    ));
                }
            }
        }
        m.set(model, Origin::Model);
        m.model_name = Some(name);
    }
    m.set(overrides, Origin::CommandLine);
    legacy_keys(&mut m);
    Ok(m)
}

/// Keys older MaxText versions took that today's base.yml has not, with what they became:
/// `base_num_heads` (until late 2023: query and key/value heads alike) and
/// `int8_training` (2023: `quantization=int8`).
pub const LEGACY_KEYS: [(&str, &str); 2] = [
    ("base_num_heads", "base_num_query_heads and base_num_kv_heads (MaxText renamed it in late 2023)"),
    ("int8_training", "quantization=int8 (MaxText's 2023 name)"),
];

/// Read [`LEGACY_KEYS`] the user gave into today's keys, unless those are set where they
/// override the legacy key (on the command line over a file's).
fn legacy_keys(m: &mut Merged) {
    let set = |m: &mut Merged, key: &str, value: Value, from: &str| {
        let origin = m.origin.get(from).copied().unwrap_or(Origin::CommandLine);
        if m.origin.get(key).is_none_or(|o| *o < origin) {
            m.values.insert(key.to_owned(), value);
            m.origin.insert(key.to_owned(), origin);
        }
    };
    if m.given("base_num_heads") {
        if let Some(heads) = m.values.get("base_num_heads").cloned() {
            set(m, "base_num_query_heads", heads.clone(), "base_num_heads");
            set(m, "base_num_kv_heads", heads, "base_num_heads");
        }
    }
    if m.given("int8_training") && m.values.get("int8_training") == Some(&Value::Bool(true)) {
        set(m, "quantization", Value::String("int8".into()), "int8_training");
    }
    for (key, now) in LEGACY_KEYS {
        if m.given(key) {
            m.warnings.push(ImportWarning::new(key, format!("an older MaxText key, read as {now}")));
        }
    }
}

fn unknown_model(name: &str, configs: Configs<'_>) -> ImportError {
    let known: Vec<&str> = configs.models.iter().map(|(n, _)| *n).collect();
    let message = if known.is_empty() {
        let presets: Vec<&str> = super::presets::PRESET_MODELS.iter().map(|(n, _)| *n).collect();
        format!(
            "no model file `{name}.yml` here (the web page carries MaxText's model files only for the models that are presets: {}; the CLI and the Python package carry them all): paste the model's YAML, or give its keys (base_emb_dim=..., ...)",
            presets.join(", ")
        )
    } else {
        format!("no model file `{name}.yml` is bundled; bundled: {}", known.join(", "))
    };
    ImportError::unsupported("model_name", message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const BASE: &str = "per_device_batch_size: 12.0\nbase_emb_dim: 2048\nmodel_name: default\n";
    const MODELS: &[(&str, &str)] = &[("tiny", "base_emb_dim: 64\ndecoder_block: llama2\n")];
    const CONFIGS: Configs<'static> = Configs { base_yml: Some(BASE), models: MODELS };

    fn cmd(args: &[&str]) -> CommandLine {
        CommandLine::parse(args).unwrap()
    }

    #[test]
    fn base_then_model_then_command_line() {
        let m = merge(&cmd(&["model_name=tiny-Instruct", "per_device_batch_size=2"]), None, CONFIGS).unwrap();
        assert_eq!(m.values["base_emb_dim"], json!(64));
        assert_eq!(m.origin["base_emb_dim"], Origin::Model);
        assert_eq!(m.values["per_device_batch_size"], json!(2));
        assert_eq!(m.model_name.as_deref(), Some("tiny"));
        assert!(!m.given("model_name") || m.origin["model_name"] == Origin::CommandLine);
        assert!(m.known("per_device_batch_size") && !m.known("nope"));
        let file = merge(&cmd(&["mine.yml"]), Some("base_config: base.yml\nbase_emb_dim: 32\n"), CONFIGS).unwrap();
        assert_eq!((file.values["base_emb_dim"].clone(), file.origin["base_emb_dim"]), (json!(32), Origin::BaseFile));
        assert!(file.warnings.is_empty());
    }

    #[test]
    fn a_model_key_overridden_needs_override_model_config() {
        let e = merge(&cmd(&["model_name=tiny", "base_emb_dim=128"]), None, CONFIGS).unwrap_err();
        assert!(e.to_string().starts_with("base_emb_dim:"), "{e}");
        assert!(merge(&cmd(&["model_name=tiny", "base_emb_dim=64.0"]), None, CONFIGS).is_ok(), "the same value");
        let m =
            merge(&cmd(&["model_name=tiny", "base_emb_dim=128", "override_model_config=true"]), None, CONFIGS).unwrap();
        assert_eq!(m.values["base_emb_dim"], json!(128));
        let e = merge(&cmd(&["model_name=huge"]), None, CONFIGS).unwrap_err();
        assert!(e.to_string().contains("tiny"), "{e}");
        let preset = merge(&cmd(&["model_name=llama3-8b"]), None, Configs::NONE).unwrap();
        assert_eq!(preset.model_preset, Some("llama-3-8b"));
    }

    #[test]
    fn legacy_keys_are_read_as_today_s() {
        let m = merge(&cmd(&["base_num_heads=24", "int8_training=false"]), None, CONFIGS).unwrap();
        assert_eq!(
            (m.values["base_num_query_heads"].clone(), m.values["base_num_kv_heads"].clone()),
            (json!(24), json!(24))
        );
        assert!(!m.values.contains_key("quantization"));
        assert_eq!(m.warnings.len(), 2);
    }

    #[test]
    fn environment_overrides() {
        let mut c = cmd(&[]);
        c.env.push(("M_PER_DEVICE_BATCH_SIZE".into(), "3".into()));
        assert_eq!(merge(&c, None, CONFIGS).unwrap().values["per_device_batch_size"], json!(3));
    }
}
