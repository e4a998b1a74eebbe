//! Exploring one mesh: its six degrees typed in (or taken from the search's best or any
//! ranked row), planned alone (`training.mesh`), with why it cannot be planned when it
//! cannot.

use leptos::prelude::*;
use shardcalc_charts::training::remat_of;
use shardcalc_core::training::mesh::Mesh;
use shardcalc_core::training::section::TrainingSection;
use shardcalc_core::training::tensors::Remat;

use super::conflicts::ConflictMessage;
use super::derived::Derived;
use super::fields::{apply, current, spec_fields, Spec};
use crate::parse::parse_count;
use crate::state::{use_app_state, AppState};

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

const fn degree_spec(id: &'static str, path: &'static str, label: &'static str, conflicts: &'static [&'static str], axis: usize) -> Spec {
    Spec::text(id, path, label, degree, set_degree).arg(axis).conflicts(conflicts)
}

static DEGREES: [Spec; 6] = [
    degree_spec("training-mesh-dp", "training.mesh.dp", "DP (data parallel)", &["training.mesh.dp"], 0),
    degree_spec("training-mesh-fsdp", "training.mesh.fsdp", "FSDP (ZeRO-3)", &["training.mesh.fsdp"], 1),
    degree_spec("training-mesh-tp", "training.mesh.tp", "TP (tensor)", &["training.mesh.tp"], 2),
    degree_spec("training-mesh-ep", "training.mesh.ep", "EP (expert)", &["training.mesh.ep"], 3),
    degree_spec("training-mesh-cp", "training.mesh.cp", "CP (context)", &["training.mesh.cp"], 4),
    degree_spec("training-mesh-pp", "training.mesh.pp", "PP (pipeline stages)", &["training.mesh.pp"], 5),
];

/// Starts exploring `mesh` at `microbatches` with `remat`, and rebuilds the degree fields.
pub fn explore(state: AppState, derived: Derived, mesh: Mesh, microbatches: u64, remat: Remat) {
    let _ = apply(state, "training.mesh", |t| {
        t.mesh = Some(mesh);
        t.microbatches = Some(microbatches);
        t.remat = remat;
    });
    derived.form_generation.update(|g| *g += 1);
}

/// The degree fields, or a button to start exploring from the best mesh.
#[component]
pub fn ExploreInputs(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let state = use_app_state();
    let exploring = Memo::new(move |_| derived.section.with(|s| s.as_ref().is_some_and(|t| t.mesh.is_some())));
    let start = move |_| {
        let Some(best) = derived.best_ok() else { return };
        let remat = current(state, |t| remat_of(&best, t));
        explore(state, derived, best.mesh.degrees, best.microbatches, remat);
    };
    let stop = move |_| {
        let _ = apply(state, "training.mesh", |t| {
            t.mesh = None;
            t.microbatches = None;
        });
        derived.form_generation.update(|g| *g += 1);
    };
    let fill = move |_| {
        let devices = derived.best_ok().map(|b| b.devices);
        let _ = apply(state, "training.mesh", |t| {
            if let (Some(m), Some(n)) = (t.mesh.as_mut(), devices) {
                let others = m.devices() / m.fsdp.max(1);
                if others > 0 && n.is_multiple_of(others) {
                    m.fsdp = n / others;
                }
            }
        });
        derived.form_generation.update(|g| *g += 1);
    };
    view! {
        <fieldset class="training-explore" id="training-explore">
            <legend>"Explore a mesh"</legend>
            {move || {
                if !exploring.get() {
                    return view! {
                        <p class="hint">"Plan one mesh of your own next to the search's best: start from the best, or pick a row of the ranked table."</p>
                        <button type="button" id="training-explore-start" on:click=start>"Explore, starting from the best mesh"</button>
                    }
                    .into_any();
                }
                view! {
                    <p class="hint">"Degrees multiply to the chip count (devices); the batch is split dp·fsdp·ep ways by whole sequences."</p>
                    <ConflictMessage id="training-explore" paths=&["training.mesh"] />
                    <div class="mesh-degrees">{spec_fields(&DEGREES)}</div>
                    <div class="actions">
                        <button type="button" id="training-mesh-fill" on:click=fill>"FSDP takes the remaining devices"</button>
                        <button type="button" id="training-explore-stop" on:click=stop>"Stop exploring"</button>
                    </div>
                }
                .into_any()
            }}
        </fieldset>
    }
}
