//! The bundled chips, as data: `core/data/chips.json`, parsed once. Every number has a
//! source and a date (per chip, overridden per field) and disagreeing sources are kept
//! as `alternatives`.

use super::chip::Chip;
use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Deserialize)]
struct ChipFile {
    chips: Vec<Chip>,
}

/// `data/chips.json` as bundled: without indentation (see `build.rs`).
const CHIPS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/chips.json"));

/// Parse the bundled catalog.
///
/// # Errors
/// Returns the parse error; the test suite proves the bundled file parses.
pub fn parse_bundled() -> Result<Vec<Chip>, serde_json::Error> {
    serde_json::from_str::<ChipFile>(CHIPS_JSON).map(|f| f.chips)
}

/// Every bundled chip (parsed once).
#[must_use]
pub fn all() -> &'static [Chip] {
    static CELL: OnceLock<Vec<Chip>> = OnceLock::new();
    CELL.get_or_init(|| parse_bundled().unwrap_or_default())
}

/// The bundled chip with this id.
#[must_use]
pub fn get(id: &str) -> Option<Chip> {
    all().iter().find(|c| c.id == id).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip::{Fabric, WrapRule};

    /// `build.rs` only removes whitespace: the bundled text is the data file's JSON.
    #[test]
    fn bundled_text_is_the_data_file() {
        let pretty = include_str!("../../data/chips.json");
        let as_edited: serde_json::Value = serde_json::from_str(pretty).unwrap();
        let bundled: serde_json::Value = serde_json::from_str(CHIPS_JSON).unwrap();
        assert_eq!(bundled, as_edited);
        assert!(CHIPS_JSON.len() < pretty.len() && !CHIPS_JSON.contains('\n'));
    }

    #[test]
    fn catalog_parses_validates_and_is_unique() {
        let chips = parse_bundled().expect("chips.json parses");
        let mut ids: Vec<&str> = chips.iter().map(|c| c.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), chips.len(), "duplicate chip id");
        for id in [
            "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7x", "h100-sxm", "h200-sxm", "b200",
            "gb200-nvl72", "mi300x",
        ] {
            assert!(get(id).is_some(), "issue #3 asks for {id}");
        }
        for c in &chips {
            // Every number positive and finite, sources and dates present,
            // bidirectional = 2 × one-way, provenance names real fields.
            assert_eq!(c.validate(), Ok(()), "{}", c.id);
            for (field, value) in c.numeric_fields() {
                if value.is_some() {
                    let (source, as_of) = c.source_of(field);
                    assert!(!source.is_empty() && as_of.len() == 10, "{}.{field}", c.id);
                }
            }
        }
    }

    #[test]
    fn dense_never_sparse() {
        // Sparsity figures are twice the dense ones; the catalog keeps dense figures,
        // so no GPU's bf16 peak may exceed its datasheet's dense value.
        let h100 = get("h100-sxm").unwrap();
        assert!((h100.peak_flops.bf16.get() - 9.89e14).abs() < 1e12);
    }

    #[test]
    fn torus_chips_state_their_wraparound_rule() {
        let v5e = get("tpu-v5e").unwrap();
        assert!(matches!(
            v5e.scale_up.fabric,
            Fabric::Torus { dims: 2, wraparound: WrapRule::FullAxis(16) }
        ));
        let v5p = get("tpu-v5p").unwrap();
        assert!(matches!(
            v5p.scale_up.fabric,
            Fabric::Torus { dims: 3, wraparound: WrapRule::FullCubes(4) }
        ));
    }

    #[test]
    fn validation_names_the_field() {
        let mut c = get("tpu-v5e").unwrap();
        c.hbm.bandwidth = crate::units::BytesPerSec(f64::NAN);
        c.scale_up.link.bidirectional = crate::units::BidiBytesPerSec(1.0);
        c.alternatives[0].field = "nope".into();
        let e = c.validate().unwrap_err();
        let fields: Vec<&str> = e.0.iter().map(|e| e.field.as_str()).collect();
        assert!(fields.contains(&"hbm.bandwidth"), "{fields:?}");
        assert!(fields.contains(&"scale_up.link.bidirectional"), "{fields:?}");
        assert!(fields.contains(&"alternatives[0].field"), "{fields:?}");
    }
}
