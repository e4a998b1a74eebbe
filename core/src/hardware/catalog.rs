//! The bundled chips, as data: `core/data/chips.json`, parsed once. Every number has a
//! source and a date (per chip, overridden per field) and disagreeing sources are kept
//! as `alternatives`.
//!
//! The build splits the file in two (`build.rs`): the chips' numbers, which every page that
//! computes with hardware needs ([`all`], [`get`]: their `source`, `as_of`,
//! `field_sources`, `alternatives` and `notes` are empty), and their provenance, 18 of the
//! file's 25 KB, which only what shows it links in: [`with_provenance`] (the hardware
//! page's spec table and chip editor, the CLI's report). A page that never calls it does not
//! ship the citations.

use super::chip::{Alternative, Chip, FieldSource};
use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Deserialize)]
struct ChipFile {
    chips: Vec<Chip>,
}

/// `data/chips.json`'s chips without their provenance, compact (see `build.rs`).
const CHIPS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/chips.json"));

/// `data/chips.json`'s provenance: each chip's `id` with the keys [`CHIPS_JSON`] lacks.
const PROVENANCE_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/chip-provenance.json"));

/// Where a bundled chip's numbers come from.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Provenance {
    id: String,
    source: String,
    as_of: String,
    #[serde(default)]
    field_sources: Vec<FieldSource>,
    #[serde(default)]
    alternatives: Vec<Alternative>,
    #[serde(default)]
    notes: Vec<String>,
}

#[derive(Deserialize)]
struct ProvenanceFile {
    chips: Vec<Provenance>,
}

/// Parse the bundled catalog (numbers only).
///
/// # Errors
/// Returns the parse error; the test suite proves the bundled file parses.
pub fn parse_bundled() -> Result<Vec<Chip>, serde_json::Error> {
    crate::json::from_str::<ChipFile>(CHIPS_JSON).map(|f| f.chips)
}

/// Every bundled chip (parsed once), without provenance.
#[must_use]
pub fn all() -> &'static [Chip] {
    static CELL: OnceLock<Vec<Chip>> = OnceLock::new();
    CELL.get_or_init(|| parse_bundled().unwrap_or_default())
}

/// The bundled chip with this id, without provenance.
#[must_use]
pub fn get(id: &str) -> Option<Chip> {
    find(id).cloned()
}

/// The bundled chip with this id, without provenance, read in place (not copied).
#[must_use]
pub fn find(id: &str) -> Option<&'static Chip> {
    all().iter().find(|c| c.id == id)
}

fn provenance() -> &'static [Provenance] {
    static CELL: OnceLock<Vec<Provenance>> = OnceLock::new();
    CELL.get_or_init(|| crate::json::from_str::<ProvenanceFile>(PROVENANCE_JSON).map(|f| f.chips).unwrap_or_default())
}

/// `chip` with the bundled provenance of its id, when it has none of its own (a chip from
/// [`get`]); any other chip (a custom chip, which must name its sources) as it is.
#[must_use]
pub fn with_provenance(mut chip: Chip) -> Chip {
    if chip.source.is_empty() {
        if let Some(p) = provenance().iter().find(|p| p.id == chip.id) {
            chip.source.clone_from(&p.source);
            chip.as_of.clone_from(&p.as_of);
            chip.field_sources.clone_from(&p.field_sources);
            chip.alternatives.clone_from(&p.alternatives);
            chip.notes.clone_from(&p.notes);
        }
    }
    chip
}

/// Every bundled chip with its provenance: the whole of `data/chips.json`.
#[must_use]
pub fn all_with_provenance() -> Vec<Chip> {
    all().iter().cloned().map(with_provenance).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::chip::{ChipFamily, Fabric, WrapRule};

    /// `build.rs` splits the file without losing or changing anything: each chip with its
    /// provenance joined back is the data file's chip, key for key and bit for bit.
    #[test]
    fn bundled_numbers_and_provenance_are_the_data_file() {
        let pretty = include_str!("../../data/chips.json");
        let as_edited: serde_json::Value = serde_json::from_str(pretty).unwrap();
        // As JSON: each chip's keys from the two files, merged, are the file's chip.
        let numbers: serde_json::Value = serde_json::from_str(CHIPS_JSON).unwrap();
        let sources: serde_json::Value = serde_json::from_str(PROVENANCE_JSON).unwrap();
        let merged: Vec<serde_json::Value> = numbers["chips"]
            .as_array()
            .unwrap()
            .iter()
            .zip(sources["chips"].as_array().unwrap())
            .map(|(n, p)| {
                let mut chip = n.as_object().unwrap().clone();
                for (k, v) in p.as_object().unwrap() {
                    assert!(k == "id" && chip.get(k) == Some(v) || chip.insert(k.clone(), v.clone()).is_none(), "{k}");
                }
                serde_json::Value::Object(chip)
            })
            .collect();
        assert_eq!(serde_json::Value::Array(merged), as_edited["chips"]);
        // As chips: `with_provenance` joins them the same way.
        let from_file: Vec<Chip> = serde_json::from_value::<ChipFile>(as_edited).unwrap().chips;
        assert_eq!(all_with_provenance(), from_file);
        // The numbers alone carry no citation; the provenance carries no number.
        assert!(!CHIPS_JSON.contains("\"source\"") && !CHIPS_JSON.contains("as_of") && !CHIPS_JSON.contains('\n'));
        assert!(!PROVENANCE_JSON.contains("\"peak_flops\":") && !PROVENANCE_JSON.contains("\"hbm\":"));
        assert!(CHIPS_JSON.len() + PROVENANCE_JSON.len() < pretty.len());
        assert_eq!(provenance().len(), all().len());
    }

    #[test]
    fn a_bundled_chip_has_no_provenance_until_it_is_added() {
        let bare = get("tpu-v5e").unwrap();
        assert!(bare.source.is_empty() && bare.field_sources.is_empty() && bare.alternatives.is_empty());
        let full = with_provenance(bare.clone());
        assert!(full.source.contains("How to Scale Your Model") && !full.field_sources.is_empty());
        assert_eq!((full.peak_flops, full.hbm), (bare.peak_flops, bare.hbm));
        // A chip with its own sources (a custom chip) keeps them.
        let mut custom = full.clone();
        custom.source = "my datasheet".into();
        custom.field_sources.clear();
        assert_eq!(with_provenance(custom.clone()), custom);
    }

    #[test]
    fn catalog_parses_validates_and_is_unique() {
        assert!(parse_bundled().is_ok(), "chips.json parses");
        let chips = all_with_provenance();
        let mut ids: Vec<&str> = chips.iter().map(|c| c.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), chips.len(), "duplicate chip id");
        for id in [
            "tpu-v4",
            "tpu-v5e",
            "tpu-v5p",
            "tpu-v6e",
            "tpu-v7x",
            "h100-sxm",
            "h200-sxm",
            "b200",
            "gb200-nvl72",
            "mi300x",
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

    /// Every network has a per-hop latency with its own citation, so small collectives have
    /// a floor (CHIPS.md "Latencies"), except DCN, for which no figure is published: its
    /// absence is stated in each TPU's notes.
    #[test]
    fn every_latency_is_sourced_or_its_absence_stated() {
        for c in all_with_provenance() {
            let cited =
                |field: &str| c.field_sources.iter().any(|s| s.field == field && s.source.contains(" at commit "));
            assert!(c.scale_up.hop_latency.is_some(), "{}", c.id);
            match c.family {
                ChipFamily::Gpu => {
                    for field in ["scale_up.hop_latency", "scale_out.hop_latency"] {
                        assert!(cited(field), "{}.{field} must cite the library and commit it comes from", c.id);
                    }
                    assert!(c.scale_out.hop_latency.is_some(), "{}", c.id);
                }
                ChipFamily::Tpu => {
                    assert!(c.scale_out.hop_latency.is_none(), "{}: a DCN latency needs a source", c.id);
                    assert!(c.notes.iter().any(|n| n.contains("No DCN latency is published")), "{}", c.id);
                }
            }
        }
        // NCCL's LL constants (tuning.cc): 0.6 us per NVLink step, 2.7 us per network step.
        let h100 = get("h100-sxm").unwrap();
        assert_eq!(h100.scale_up.hop_latency, Some(crate::units::Seconds(6e-7)));
        assert_eq!(h100.scale_out.hop_latency, Some(crate::units::Seconds(2.7e-6)));
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
        assert!(matches!(v5e.scale_up.fabric, Fabric::Torus { dims: 2, wraparound: WrapRule::FullAxis(16) }));
        let v5p = get("tpu-v5p").unwrap();
        assert!(matches!(v5p.scale_up.fabric, Fabric::Torus { dims: 3, wraparound: WrapRule::FullCubes(4) }));
    }

    #[test]
    fn validation_names_the_field() {
        let mut c = with_provenance(get("tpu-v5e").unwrap());
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
