//! How each published run is set up for the planner, and the data points extracted from
//! the seeds (`core/data/run-setups.json`): model families, TPU slice shapes, per-run
//! meshes and remat policies as the runs' own scripts set them (each with its source),
//! the MaxText guide's design points (with every assumption stated), and the points
//! nothing can be predicted for (relative gains of unpublished models).

use crate::model::ModelConfig;
use crate::training::mesh::Mesh;
use crate::training::optimizer::TrainingDtypes;
use crate::training::tensors::Remat;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// A model family the runs share; the run's own shape replaces the template's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelTemplate {
    /// Identifier the setups refer to.
    pub id: String,
    /// Where the architecture comes from.
    pub source: String,
    /// What is taken from where.
    #[serde(default)]
    pub note: String,
    /// A bundled preset to start from.
    #[serde(default)]
    pub preset: Option<String>,
    /// Or a full architecture.
    #[serde(default)]
    pub config: Option<ModelConfig>,
}

/// The standard shape of a TPU slice (or GPU node) of `chips` chips.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SliceShape {
    /// Catalog chip id.
    pub chip: String,
    /// Chips in one slice.
    pub chips: u64,
    /// Its axes.
    pub shape: Vec<u64>,
}

/// The table's chip name and the catalog's id for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChipId {
    /// As in `published-runs.csv`.
    pub csv: String,
    /// As in `chips.json`.
    pub catalog: String,
}

/// The setup shared by a group of runs: one script at several slice counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSetup {
    /// Group identifier.
    pub id: String,
    /// Publication month (YYYY-MM).
    pub published: String,
    /// Model template id.
    pub model: String,
    /// Run id → number of slices (TPU slices or GPU VMs joined over DCN).
    pub runs: BTreeMap<String, u64>,
    /// Tensor parallelism inside a slice; FSDP takes the rest of the slice, DP the slices.
    pub tp: u64,
    /// Remat policy.
    pub remat: Remat,
    /// Whether TP's collectives overlap the matmuls (`training.overlap.tensor`), as the
    /// run's XLA flags ask.
    #[serde(default)]
    pub overlap_tensor: bool,
    /// One-way DCN bandwidth per chip when the catalog's is not the one the run had.
    #[serde(default)]
    pub dcn_link_one_way: Option<f64>,
    /// HBM the run's process could not use (`training.reserved_hbm_fraction`) when its
    /// script says (a JAX GPU process's `XLA_PYTHON_CLIENT_MEM_FRACTION`); the planner's
    /// default otherwise.
    #[serde(default)]
    pub reserved_hbm_fraction: Option<f64>,
    /// The script lines (or notes) the mesh and remat come from.
    pub mesh_source: String,
    /// Anything that differs between the script and the table.
    #[serde(default)]
    pub note: String,
}

/// A design point of the MaxText custom-config guide: a model, a mesh and the MFU the
/// guide states, with whatever the guide leaves out assumed and listed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuidePoint {
    /// Identifier.
    pub id: String,
    /// Where it is stated.
    pub source: String,
    /// Date of the source.
    pub as_of: String,
    /// Catalog chip id.
    pub chip: String,
    /// Shape of one slice.
    pub slice_shape: Vec<u64>,
    /// Slices over DCN.
    pub slices: u64,
    /// The model.
    pub config: ModelConfig,
    /// Tokens per sequence.
    pub seq_len: u64,
    /// Sequences per device.
    pub per_device_batch: f64,
    /// The mesh.
    pub mesh: Mesh,
    /// Remat policy.
    pub remat: Remat,
    /// MoE capacity factor.
    pub capacity_factor: f64,
    /// How the routed experts' matmuls run (default grouped).
    #[serde(default)]
    pub moe_kernel: crate::training::setup::MoeKernel,
    /// Whether TP's collectives overlap the matmuls.
    #[serde(default)]
    pub overlap_tensor: bool,
    /// Microbatches (pipelined runs).
    #[serde(default)]
    pub microbatches: Option<u64>,
    /// MFU the guide states (%).
    pub published_mfu_pct: f64,
    /// Parameters the guide states.
    pub published_params: f64,
    /// Active parameters the guide states (MoE).
    #[serde(default)]
    pub published_active_params: Option<f64>,
    /// Everything not stated by the guide and assumed here.
    pub assumptions: Vec<String>,
    /// The guide's sentence.
    pub statement: String,
}

/// A published number nothing here can predict, kept with the reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnpredictedPoint {
    /// Identifier.
    pub id: String,
    /// Where it is stated.
    pub source: String,
    /// Date of the source.
    pub as_of: String,
    /// Catalog chip id.
    pub chip: String,
    /// Chips.
    pub chips: u64,
    /// What was measured.
    pub what: String,
    /// The number.
    pub value: f64,
    /// Its unit.
    pub unit: String,
    /// Why it is not predicted.
    pub why_not: String,
}

/// `data/run-setups.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupsFile {
    /// What the file is.
    #[serde(rename = "_comment")]
    pub comment: String,
    /// Model families.
    pub models: Vec<ModelTemplate>,
    /// Slice shapes.
    pub slice_shapes: Vec<SliceShape>,
    /// Chip names.
    pub chip_ids: Vec<ChipId>,
    /// Number formats of every run's training state (MaxText's defaults).
    pub run_dtypes: TrainingDtypes,
    /// Where they come from.
    pub run_dtypes_source: String,
    /// Per-group setups of the published runs.
    pub setups: Vec<RunSetup>,
    /// The MaxText guide's design points.
    pub guide_points: Vec<GuidePoint>,
    /// Points that cannot be predicted.
    pub unpredicted_points: Vec<UnpredictedPoint>,
}

/// `data/run-setups.json` as bundled: without indentation (see `build.rs`).
const SETUPS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/run-setups.json"));

/// Parse the bundled file.
///
/// # Errors
/// The parse error; the tests prove the bundled file parses.
pub fn parse_bundled() -> Result<SetupsFile, serde_json::Error> {
    crate::json::from_str(SETUPS_JSON)
}

/// The bundled setups (parsed once; empty if the file did not parse, which a test rules out).
#[must_use]
pub fn bundled() -> &'static SetupsFile {
    static CELL: OnceLock<SetupsFile> = OnceLock::new();
    CELL.get_or_init(|| {
        parse_bundled().unwrap_or_else(|_| SetupsFile {
            comment: String::new(),
            models: Vec::new(),
            slice_shapes: Vec::new(),
            chip_ids: Vec::new(),
            run_dtypes: TrainingDtypes::default(),
            run_dtypes_source: String::new(),
            setups: Vec::new(),
            guide_points: Vec::new(),
            unpredicted_points: Vec::new(),
        })
    })
}

impl SetupsFile {
    /// The setup of a published run and its number of slices.
    #[must_use]
    pub fn setup_of(&self, run_id: &str) -> Option<(&RunSetup, u64)> {
        self.setups.iter().find_map(|s| s.runs.get(run_id).map(|n| (s, *n)))
    }

    /// A model template.
    #[must_use]
    pub fn model(&self, id: &str) -> Option<&ModelTemplate> {
        self.models.iter().find(|m| m.id == id)
    }

    /// The catalog id of a chip as the table names it.
    #[must_use]
    pub fn catalog_chip(&self, csv: &str) -> Option<&str> {
        self.chip_ids.iter().find(|c| c.csv == csv).map(|c| c.catalog.as_str())
    }

    /// The shape of a slice of `chips` chips.
    #[must_use]
    pub fn slice_shape(&self, chip: &str, chips: u64) -> Option<&[u64]> {
        self.slice_shapes.iter().find(|s| s.chip == chip && s.chips == chips).map(|s| s.shape.as_slice())
    }

    /// A guide point.
    #[must_use]
    pub fn guide_point(&self, id: &str) -> Option<&GuidePoint> {
        self.guide_points.iter().find(|g| g.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::count_params;
    use crate::validation::runs;

    #[test]
    fn bundled_text_is_the_data_file() {
        let pretty = include_str!("../../data/run-setups.json");
        let as_edited: serde_json::Value = serde_json::from_str(pretty).unwrap();
        let bundled: serde_json::Value = serde_json::from_str(SETUPS_JSON).unwrap();
        assert_eq!(bundled, as_edited);
        assert!(SETUPS_JSON.len() < pretty.len());
    }

    /// Every run has exactly one setup, every setup names known runs, and the slices
    /// multiply out to the run's chips with a known slice shape.
    #[test]
    fn every_run_has_one_setup_that_adds_up() {
        let f = parse_bundled().expect("run-setups.json parses");
        for r in runs::all() {
            let found: Vec<&RunSetup> = f.setups.iter().filter(|s| s.runs.contains_key(&r.id)).collect();
            assert_eq!(found.len(), 1, "{}: {} setups", r.id, found.len());
            let (s, slices) = f.setup_of(&r.id).unwrap();
            assert!(f.model(&s.model).is_some(), "{}: model {}", s.id, s.model);
            let chip = f.catalog_chip(&r.chip).unwrap_or_else(|| panic!("{}: chip {}", r.id, r.chip));
            assert!(crate::hardware::catalog::get(chip).is_some(), "{chip}");
            assert_eq!(r.chips % slices, 0, "{}", r.id);
            let shape = f
                .slice_shape(chip, r.chips / slices)
                .unwrap_or_else(|| panic!("{}: no slice of {}", r.id, r.chips / slices));
            assert_eq!(shape.iter().product::<u64>(), r.chips / slices, "{}", r.id);
            assert_eq!((r.chips / slices) % s.tp, 0, "{}", r.id);
        }
        let listed: usize = f.setups.iter().map(|s| s.runs.len()).sum();
        assert_eq!(listed, runs::all().len(), "a setup lists a run the table does not have");
    }

    /// The guide's design points reproduce the parameter counts the guide states: the
    /// check behind the assumed vocabularies and MLP kinds.
    #[test]
    fn guide_models_match_the_published_parameter_counts() {
        let f = parse_bundled().unwrap();
        assert!(!f.guide_points.is_empty());
        for g in &f.guide_points {
            g.config.validate().unwrap_or_else(|e| panic!("{}: {e}", g.id));
            let p = count_params(&g.config);
            // The guide gives three significant figures.
            let close = |ours: f64, theirs: f64| (ours - theirs).abs() <= 0.006 * theirs;
            assert!(close(p.total.get(), g.published_params), "{}: {} vs {}", g.id, p.total.get(), g.published_params);
            if let Some(a) = g.published_active_params {
                assert!(close(p.active.get(), a), "{}: active {} vs {a}", g.id, p.active.get());
            }
            assert_eq!(g.mesh.devices(), g.slice_shape.iter().product::<u64>() * g.slices, "{}", g.id);
        }
    }
}
