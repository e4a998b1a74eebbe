//! The training section's inputs (everything but the model, the hardware and the prediction
//! mode): every field from `shardcalc_core::field::training`, in fieldsets, with the explored
//! mesh's degrees and its buttons, and the boxes of planning problems that belong to a group
//! rather than a field.

use leptos::prelude::*;
use shardcalc_core::field::training::{
    ADVANCED, DEGREES, EXPLORED, FORMAT_FIELDS, POLICY, RUN, SEARCH, SEARCHED, SEARCHED_SCHEDULES, SEARCHED_ZERO,
    STATE, TENSORS,
};
use shardcalc_core::training::tensors::Remat;
use shardcalc_core::view::training::{explore_plan, fill_fsdp, stop_exploring};

use super::derived::{ok, Derived};
use crate::components::{Fields, ProblemBox};

/// The form.
#[component]
pub fn TrainingForm(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let state = derived.state;
    let section = move |f: fn(&shardcalc_core::training::TrainingSection) -> bool| {
        Memo::new(move |_| state.draft.with(|d| d.scenario.training.as_ref().is_some_and(f)))
    };
    let custom = section(|t| matches!(t.remat, Remat::Custom(_)));
    let exploring = section(|t| t.mesh.is_some());
    // "Explore, starting from the best mesh": the best plan's mesh, microbatches and remat.
    let start = move |_| {
        if let Some(best) = derived.shown.with_untracked(|b| ok(b).cloned()) {
            state.update(|s| explore_plan(s, &best));
        }
    };
    // "FSDP takes the remaining devices": the degree that makes the mesh fill the best plan's chips.
    let fill = move |_| {
        if let Some(devices) = derived.shown.with_untracked(|b| ok(b).map(|r| r.devices)) {
            state.update(|s| fill_fsdp(s, devices));
        }
    };
    view! {
        <div class="training-form">
            <fieldset class="training-batch">
                <legend>"Batch and budget"</legend>
                <Fields group=&RUN />
            </fieldset>
            <fieldset class="training-optimizer">
                <legend>"Optimizer and training state"</legend>
                <Fields group=&STATE />
                <details class="subfields">
                    <summary>"Number formats"</summary>
                    <Fields group=&FORMAT_FIELDS />
                </details>
            </fieldset>
            <fieldset class="training-remat">
                <legend>"Rematerialisation"</legend>
                <Fields group=&POLICY />
                <Show when=move || custom.get()>
                    <div class="subfields custom-remat" id="training-remat-custom">
                        <p class="hint">"Each tensor the backward pass reads: kept (HBM), recomputed (FLOPs), or offloaded (PCIe)."</p>
                        <Fields group=&TENSORS />
                    </div>
                </Show>
                <details class="subfields" id="training-search-remat">
                    <summary>"Policies the search tries"</summary>
                    <p class="hint">"Offloading policies only on chips with a published PCIe bandwidth; dominated policies are skipped."</p>
                    <Fields group=&SEARCHED />
                    <ProblemBox id="training-search-remat" paths=&["training.search.remat", "training.search"] />
                </details>
            </fieldset>
            <fieldset class="training-explore" id="training-explore">
                <legend>"Explore a mesh"</legend>
                <Show
                    when=move || exploring.get()
                    fallback=move || view! {
                        <p class="hint">"Plan one mesh of your own next to the search's best: start from the best, or pick a row of the ranked table."</p>
                        <button type="button" id="training-explore-start" on:click=start>"Explore, starting from the best mesh"</button>
                    }
                >
                    <p class="hint">"Degrees multiply to the chip count (devices); the batch is split dp·fsdp·ep ways by whole sequences."</p>
                    <ProblemBox id="training-explore" paths=&["training.mesh"] />
                    <div class="mesh-degrees">
                        <Fields group=&DEGREES />
                    </div>
                    <Fields group=&EXPLORED />
                    <div class="actions">
                        <button type="button" id="training-mesh-fill" on:click=fill>"FSDP takes the remaining devices"</button>
                        <button type="button" id="training-explore-stop" on:click=move |_| state.update(stop_exploring)>"Stop exploring"</button>
                    </div>
                </Show>
            </fieldset>
            <fieldset class="training-pipeline">
                <legend>"Microbatches and search"</legend>
                <Fields group=&SEARCH />
                <details class="subfields" id="training-search-zero">
                    <summary>"ZeRO stages the search tries (where DP > 1)"</summary>
                    <Fields group=&SEARCHED_ZERO />
                </details>
                <details class="subfields" id="training-search-schedules">
                    <summary>"Pipeline schedules the search tries (where PP > 1)"</summary>
                    <Fields group=&SEARCHED_SCHEDULES />
                </details>
            </fieldset>
            <fieldset class="training-advanced">
                <legend>"Kernels and efficiencies"</legend>
                <details class="subfields">
                    <summary>"Your own derating, overlap, MoE kernel and capacity, attention kernel"</summary>
                    <Fields group=&ADVANCED />
                </details>
            </fieldset>
        </div>
    }
}
