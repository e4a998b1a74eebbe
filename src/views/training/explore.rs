//! Exploring one mesh: its six degrees typed in (or taken from the search's best or any
//! ranked row), planned alone (`training.mesh`), with why it cannot be planned when it
//! cannot.

use leptos::prelude::*;
use shardcalc_charts::training::remat_of;
use shardcalc_core::training::mesh::Mesh;
use shardcalc_core::training::section::TrainingSection;
use shardcalc_core::training::space::Variant;
use shardcalc_core::training::tensors::Remat;

use super::derived::Derived;
use super::fields::{apply, current, Spec};
use crate::parse::parse_count;
use crate::state::AppState;

fn degree(t: &TrainingSection, axis: usize) -> String {
    t.mesh.unwrap_or_default().degrees().get(axis).copied().unwrap_or(1).to_string()
}

fn set_degree(t: &mut TrainingSection, axis: usize, text: &str) -> Result<(), String> {
    let v = parse_count(text)?;
    let mut d = t.mesh.unwrap_or_default().degrees();
    if let Some(slot) = d.get_mut(axis) {
        *slot = v;
    }
    t.mesh = Some(Mesh::from_degrees(d));
    Ok(())
}

const fn degree_spec(
    id: &'static str,
    path: &'static str,
    label: &'static str,
    conflicts: &'static [&'static str],
    axis: usize,
) -> Spec {
    Spec::text(id, path, label, degree, set_degree).arg(axis).conflicts(conflicts)
}

/// The explored mesh's six degrees (shown while a mesh is explored).
pub static DEGREES: [Spec; 6] = [
    degree_spec("training-mesh-dp", "training.mesh.dp", "DP (data parallel)", &["training.mesh.dp"], 0),
    degree_spec("training-mesh-fsdp", "training.mesh.fsdp", "FSDP (ZeRO-3)", &["training.mesh.fsdp"], 1),
    degree_spec("training-mesh-tp", "training.mesh.tp", "TP (tensor)", &["training.mesh.tp"], 2),
    degree_spec("training-mesh-ep", "training.mesh.ep", "EP (expert)", &["training.mesh.ep"], 3),
    degree_spec("training-mesh-cp", "training.mesh.cp", "CP (context)", &["training.mesh.cp"], 4),
    degree_spec("training-mesh-pp", "training.mesh.pp", "PP (pipeline stages)", &["training.mesh.pp"], 5),
];

/// Starts exploring `mesh` at `microbatches` with `remat` (and the ZeRO stage and
/// schedule the search chose with it), and rebuilds the degree fields.
pub fn explore(state: AppState, derived: Derived, mesh: Mesh, microbatches: u64, remat: Remat, variant: Variant) {
    let mut remat = Some(remat);
    let _ = apply(state, "training.mesh", &mut |t| {
        t.mesh = Some(mesh);
        t.microbatches = Some(microbatches);
        t.zero_stage = variant.zero;
        t.pipeline = variant.pipeline;
        if let Some(r) = remat.take() {
            t.remat = r;
        }
    });
    derived.form_generation.update(|g| *g += 1);
}

/// "Explore, starting from the best mesh" (`#training-explore-start`): the best plan's mesh,
/// microbatches and remat policy.
pub fn start(state: AppState, derived: Derived) {
    let Some(best) = derived.shown.with_untracked(|b| super::derived::ok(b).cloned()) else { return };
    let remat = current(state, |t| remat_of(&best, t));
    let variant = Variant { zero: best.zero_stage, pipeline: best.pipeline };
    explore(state, derived, best.mesh.degrees, best.microbatches, remat, variant);
}

/// "Stop exploring" (`#training-explore-stop`): back to the search alone.
pub fn stop(state: AppState, derived: Derived) {
    let _ = apply(state, "training.mesh", &mut |t| {
        t.mesh = None;
        t.microbatches = None;
    });
    derived.form_generation.update(|g| *g += 1);
}

/// "FSDP takes the remaining devices" (`#training-mesh-fill`): the FSDP degree that makes
/// the explored mesh's product the best plan's device count, when one does.
pub fn fill(state: AppState, derived: Derived) {
    let devices = derived.shown.with_untracked(|b| super::derived::ok(b).map(|b| b.devices));
    let _ = apply(state, "training.mesh", &mut |t| {
        if let (Some(m), Some(n)) = (t.mesh.as_mut(), devices) {
            let others = m.devices() / m.fsdp.max(1);
            if others > 0 && n.is_multiple_of(others) {
                m.fsdp = n / others;
            }
        }
    });
    derived.form_generation.update(|g| *g += 1);
}
