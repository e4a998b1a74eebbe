//! Model presets, as data: `core/data/presets.json`, each with its source and date and
//! the parameter count its publisher states.

use crate::model::ModelConfig;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// A published parameter count to compare against.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReferenceParams {
    /// The count.
    pub value: u64,
    /// Where it is published.
    pub source: String,
    /// True when the publisher gives the exact integer (e.g. safetensors metadata).
    pub exact: bool,
    /// Why our count may differ (rounding, vision tower, MTP, padded vocab...).
    #[serde(default)]
    pub note: String,
}

/// A named model configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Preset {
    /// Stable identifier used in URLs and on the command line, e.g. `llama-3-8b`.
    pub id: String,
    /// Model family, for grouping in the picker.
    pub family: String,
    /// Where the architecture numbers come from.
    pub source: String,
    /// Publication date of the source (YYYY-MM-DD).
    pub as_of: String,
    /// The publisher's parameter count.
    pub reference_params: Option<ReferenceParams>,
    /// Anything a user should know about this preset.
    #[serde(default)]
    pub note: String,
    /// The architecture.
    pub config: ModelConfig,
}

#[derive(Deserialize)]
struct PresetFile {
    presets: Vec<Preset>,
}

/// `data/presets.json` as bundled: without indentation (see `build.rs`).
const PRESETS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/presets.json"));

/// Parse the bundled preset file.
///
/// # Errors
/// Returns the parse error; the test suite proves the bundled file parses.
pub fn parse_bundled() -> Result<Vec<Preset>, serde_json::Error> {
    crate::json::from_str::<PresetFile>(PRESETS_JSON).map(|f| f.presets)
}

/// Every preset (parsed once).
#[must_use]
pub fn all() -> &'static [Preset] {
    static CELL: OnceLock<Vec<Preset>> = OnceLock::new();
    CELL.get_or_init(|| parse_bundled().unwrap_or_default())
}

/// The preset with this id.
#[must_use]
pub fn get(id: &str) -> Option<Preset> {
    find(id).cloned()
}

/// The bundled preset with this id, without copying it.
#[must_use]
pub fn find(id: &str) -> Option<&'static Preset> {
    all().iter().find(|p| p.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::count_params;

    /// `build.rs` only removes whitespace: the bundled text is the data file's JSON.
    #[test]
    fn bundled_text_is_the_data_file() {
        let pretty = include_str!("../data/presets.json");
        let as_edited: serde_json::Value = serde_json::from_str(pretty).unwrap();
        let bundled: serde_json::Value = serde_json::from_str(PRESETS_JSON).unwrap();
        assert_eq!(bundled, as_edited);
        assert!(PRESETS_JSON.len() < pretty.len() && !PRESETS_JSON.contains('\n'));
    }

    #[test]
    fn bundled_presets_parse_and_are_unique() {
        let all = parse_bundled().expect("presets.json parses");
        assert!(all.len() >= 15, "issue #2 asks for at least 15 presets");
        let mut ids: Vec<_> = all.iter().map(|p| p.id.clone()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), all.len(), "duplicate preset id");
        for p in &all {
            assert!(!p.source.is_empty() && p.as_of.len() == 10, "{}: source/as_of", p.id);
        }
    }

    /// The pages' drop-down groups consecutive presets under their family, so each family's
    /// presets must be listed together.
    #[test]
    fn each_family_is_listed_together() {
        let families: Vec<&str> = all().iter().map(|p| p.family.as_str()).collect();
        for (i, f) in families.iter().enumerate() {
            let back = families.get(..i).unwrap_or_default();
            assert!(back.last() == Some(f) || !back.contains(f), "{f} is listed in two places");
        }
    }

    /// Every preset lands on its publisher's count: exactly when the publisher gives
    /// the integer, else within 1% (the notes explain what the publisher includes).
    #[test]
    fn presets_match_published_counts() {
        for p in all() {
            let Some(r) = &p.reference_params else { continue };
            let ours = count_params(&p.config).total.get();
            let theirs = r.value as f64;
            if r.exact {
                assert_eq!(ours, theirs, "{}: ours {ours} vs published {theirs}", p.id);
            } else {
                let rel = (ours - theirs).abs() / theirs;
                assert!(rel < 0.02, "{}: ours {ours} vs published {theirs} ({rel})", p.id);
            }
        }
    }
}
