//! Each published run and guide point as a scenario: the model (the family's template
//! with the run's shape), the chip and topology (slices joined over DCN), and a
//! `training` section with the run's own mesh, batch and remat policy. What the table
//! predicts from, and what its rows open on the training page.

use super::runs::PublishedRun;
use super::setups::{bundled, GuidePoint};
use crate::collectives::Network;
use crate::efficiency::PredictionMode;
use crate::error::Invalid;
use crate::flops::{FlopConvention, Workload};
use crate::hardware::chip::ChipFamily;
use crate::hardware::query::{ChipSource, HardwareSection};
use crate::hardware::topology::Topology;
use crate::model::{Attention, ModelConfig};
use crate::scenario::{Conventions, ModelSource, Scenario, SCENARIO_VERSION};
use crate::training::mesh::Mesh;
use crate::training::section::{GlobalBatch, TrainingSection};
use crate::training::setup::MoeKernel;
use crate::training::tensors::Remat;

fn missing(what: String) -> Invalid {
    Invalid::one("validation", what)
}

/// The run's model: its family's template with the table's D, L, N (= K), H and F.
///
/// # Errors
/// A run without a setup or with an unknown template.
pub fn run_model(run: &PublishedRun) -> Result<ModelConfig, Invalid> {
    let f = bundled();
    let (setup, _) = f.setup_of(&run.id).ok_or_else(|| missing(format!("run {} has no setup", run.id)))?;
    let t = f.model(&setup.model).ok_or_else(|| missing(format!("unknown model template {}", setup.model)))?;
    let mut m = match (&t.config, &t.preset) {
        (Some(c), _) => c.clone(),
        (None, Some(p)) => {
            crate::presets::find(p).map(|p| p.config.clone()).ok_or_else(|| missing(format!("unknown preset {p}")))?
        }
        (None, None) => return Err(missing(format!("template {} names no model", t.id))),
    };
    m.name = format!("{} ({})", m.name, run.id);
    m.d_model = run.d_model;
    m.num_layers = run.layers;
    m.mlp.d_ff = run.d_ff;
    if let Attention::Gqa(a) = &mut m.attention {
        a.num_heads = run.heads;
        a.num_kv_heads = run.heads;
        a.head_dim = run.head_dim;
    }
    Ok(m)
}

/// A topology of `slices` slices of `shape` on `chip`, DCN overridden when `dcn` is set.
fn topology(chip: &str, shape: &[u64], slices: u64, dcn: Option<f64>) -> Topology {
    let gpu = crate::hardware::catalog::find(chip).is_some_and(|c| c.family == ChipFamily::Gpu);
    let mut t = match shape {
        [n] if gpu => Topology::gpu_cluster(*n, slices),
        _ => Topology::tpu_slice(shape, slices),
    };
    for a in &mut t.axes {
        if a.network == Network::ScaleOut {
            a.link_one_way = dcn.map(crate::units::BytesPerSec);
        }
    }
    t
}

#[allow(clippy::too_many_arguments)]
fn scenario(
    model: ModelConfig,
    chip: &str,
    topology: Topology,
    per_device_batch: f64,
    seq_len: u64,
    chips: u64,
    mesh: Mesh,
    remat: Remat,
    microbatches: Option<u64>,
    capacity_factor: f64,
    moe_kernel: MoeKernel,
    overlap_tensor: bool,
    mode: PredictionMode,
) -> Scenario {
    let sequences = (per_device_batch * chips as f64).round().max(1.0) as u64;
    let mut training = TrainingSection::new(GlobalBatch::Sequences(sequences), seq_len);
    training.mesh = Some(mesh);
    training.microbatches = Some(microbatches.unwrap_or(1));
    training.capacity_factor = capacity_factor;
    training.moe_kernel = moe_kernel;
    training.overlap.tensor = overlap_tensor;
    let workload = Workload { per_device_batch, seq_len, grad_accum: 1, remat: remat.flops_policy() };
    training.remat = remat;
    Scenario {
        version: SCENARIO_VERSION,
        model: ModelSource::Custom(Box::new(model)),
        workload,
        conventions: Conventions { flops: FlopConvention::MaxText, prediction: mode },
        inference: None,
        hardware: Some(HardwareSection { chip: ChipSource::Preset(chip.to_string()), topology: Some(topology) }),
        collectives: Vec::new(),
        roofline: None,
        training: Some(training),
        ..Scenario::default()
    }
}

/// A published run as a scenario: its model, chip, slices and mesh (TP as set, FSDP
/// over the rest of each slice, DP over the slices), batch and remat policy.
///
/// # Errors
/// A run whose setup is missing from `run-setups.json` (a test rules it out).
pub fn run_scenario(run: &PublishedRun, mode: PredictionMode) -> Result<Scenario, Invalid> {
    let f = bundled();
    let (setup, slices) = f.setup_of(&run.id).ok_or_else(|| missing(format!("run {} has no setup", run.id)))?;
    let chip = f.catalog_chip(&run.chip).ok_or_else(|| missing(format!("unknown chip {}", run.chip)))?;
    let per_slice = run.chips / slices.max(1);
    let shape =
        f.slice_shape(chip, per_slice).ok_or_else(|| missing(format!("no {chip} slice of {per_slice} chips")))?;
    let tp = setup.tp.max(1);
    let mesh = Mesh { dp: slices, fsdp: per_slice / tp, tp, ..Mesh::default() };
    let mut s = scenario(
        run_model(run)?,
        chip,
        topology(chip, shape, slices, setup.dcn_link_one_way),
        run.per_device_batch,
        run.seq_len,
        run.chips,
        mesh,
        setup.remat.clone(),
        None,
        1.0,
        MoeKernel::default(),
        setup.overlap_tensor,
        mode,
    );
    if let Some(t) = &mut s.training {
        t.dtypes = f.run_dtypes;
        if let Some(r) = setup.reserved_hbm_fraction {
            t.reserved_hbm_fraction = r;
        }
    }
    Ok(s)
}

/// A guide design point as a scenario.
#[must_use]
pub fn guide_scenario(g: &GuidePoint, mode: PredictionMode) -> Scenario {
    let chips = g.slice_shape.iter().product::<u64>() * g.slices;
    scenario(
        g.config.clone(),
        &g.chip,
        topology(&g.chip, &g.slice_shape, g.slices, None),
        g.per_device_batch,
        g.seq_len,
        chips,
        g.mesh,
        g.remat.clone(),
        g.microbatches,
        g.capacity_factor,
        g.moe_kernel,
        g.overlap_tensor,
        mode,
    )
}
