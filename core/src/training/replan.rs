//! A plan's own configuration planned again under other options (efficiencies): the same
//! degrees split over the networks as the plan's placement says, the same microbatches and
//! remat. What the uncertainty bands (`crate::validation::bands`) re-evaluate under each
//! calibration. An explicit `training.mesh` is not enough for that: it is split over the
//! networks in a fixed order ([`super::mesh::split_mesh`]), while the search may have put
//! the same degrees on other networks (FSDP over DCN and PP over ICI rather than the
//! reverse), which can change the step by 2× (found by the no-panic test's bands).

use super::mesh::{mesh_of, network_index, NetworkSplit};
use super::placement::{scaled_axes, CostCache};
use super::plan::{report, roofline_of};
use super::report::{PlanSource, TrainingReport};
use super::section::TrainingSection;
use super::setup::MeshContext;
use super::step::evaluate_config;
use super::tensors::{Remat, RematCost};
use crate::error::Invalid;
use crate::flops::FlopConvention;
use crate::hardware::query::ResolvedHardware;
use crate::model::ModelConfig;

/// How `shown`'s degrees are split over the networks, read off its placement; `None` when
/// the placement does not add up to its degrees.
#[must_use]
pub fn split_of(shown: &TrainingReport) -> Option<NetworkSplit> {
    let mut split: NetworkSplit = [[1; 6]; 3];
    for a in &shown.mesh.placement {
        for p in &a.pieces {
            let slot = split.get_mut(network_index(p.network))?.get_mut(a.axis as usize)?;
            *slot = slot.checked_mul(p.size)?;
        }
    }
    (mesh_of(&split) == shown.mesh.degrees).then_some(split)
}

/// `shown`'s configuration (split, ZeRO stage, schedule, microbatches, remat) planned
/// under `section`'s options (its efficiencies, budget and price; its mesh, search,
/// microbatches, ZeRO stage and schedule are ignored).
///
/// # Errors
/// As [`TrainingSection::setup`]; `training.mesh` when `shown`'s placement does not fit
/// this hardware.
pub fn replan(
    m: &ModelConfig,
    hw: &ResolvedHardware,
    section: &TrainingSection,
    convention: FlopConvention,
    shown: &TrainingReport,
) -> Result<TrainingReport, Invalid> {
    let mut setup = section.setup(m, hw, convention)?;
    // The plan's own ZeRO stage and schedule (the search's may differ from the section's).
    setup.options.zero = shown.zero_stage;
    setup.options.pipeline = shown.pipeline;
    let eff = setup.options.efficiency;
    let mut cache = CostCache::new(scaled_axes(&hw.axes, eff.ici, eff.dcn));
    let unplaceable = || Invalid::one("training.mesh", "the plan's placement does not fit the topology's axes");
    let split = split_of(shown).ok_or_else(unplaceable)?;
    let mc = MeshContext::new(&setup, &mut cache, &split).ok_or_else(unplaceable)?;
    let remat = Remat::preset(&shown.remat).unwrap_or_else(|| section.remat.clone());
    let cost = RematCost::of(&remat.placements(), &setup.profile);
    let microbatches = shown.microbatches.max(1);
    let parts = evaluate_config(&setup, &cache, &mc, microbatches, &cost);
    let roofline = roofline_of(m, hw, section, convention, &split, microbatches, &cost, &setup, &parts)?;
    Ok(report(&setup, section, hw, &cache, &mc, &parts, &roofline, PlanSource::Explicit, remat.id().to_string(), None))
}
