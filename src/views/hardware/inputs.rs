//! The inputs column under the chip picker: the custom chip, the mesh axes, the roofline op
//! and the collective queries. Every input is a field of `shardcalc_core::field` (`chip`,
//! `topology`, `roofline`, `collectives`) rendered by [`Field`]; the buttons apply core's
//! actions (`chip::customize`, `collectives::add_query`, `collectives::remove_query`).

use leptos::prelude::*;
use shardcalc_core::collectives::Network;
use shardcalc_core::field::chip::{customize, is_custom, IDENTITY, NUMBER_FIELDS, SPARSE_CORES};
use shardcalc_core::field::collectives::{add_query, remove_query, QUERY_FIELDS};
use shardcalc_core::field::hardware::CHIPLETS;
use shardcalc_core::field::roofline::ROOFLINE;
use shardcalc_core::field::topology::AXIS_FIELDS;

use crate::components::{Field, Fields, SubsetField};
use crate::state::use_app_state;

/// `#chip-customize` while the chip is a catalog one; the custom chip's fields once it is
/// custom.
#[component]
fn ChipEditor() -> impl IntoView {
    let state = use_app_state();
    let custom = Memo::new(move |_| state.draft.with(|d| is_custom(&d.scenario)));
    let copy = move || {
        view! {
            <div class="actions">
                <button type="button" id="chip-customize" on:click=move |_| state.update(customize)>
                    "Edit a copy of this chip"
                </button>
            </div>
            <p class="hint">
                "Define a custom chip: every number of the spec table becomes editable, starting from this chip's."
            </p>
        }
    };
    view! {
        <Show when=move || custom.get() fallback=copy>
            <p class="hint">
                "Pick a preset above to start again from it. Edited numbers are listed as “edited in shardcalc” in the spec table; a link's bidirectional rate is twice its one-way rate."
            </p>
        </Show>
        <Fields group=&IDENTITY />
        <Fields group=NUMBER_FIELDS />
        <Fields group=&SPARSE_CORES />
    }
}

/// Each axis's heading and fields (`#axis-<i>`, `#axis-<i>-wraparound`, ...), then the
/// chiplets (one device per chip, or per chiplet).
#[component]
fn AxisEditor() -> impl IntoView {
    let state = use_app_state();
    // One entry per axis: what its heading says (an axis whose name, size or network
    // changes is a new one).
    let axes = Memo::new(move |_| {
        state.draft.with(|d| {
            let topology = d.scenario.hardware.as_ref().and_then(|h| h.topology.as_ref());
            let axes = topology.iter().flat_map(|t| t.axes.iter()).enumerate();
            axes.map(|(i, a)| {
                let network = match a.network {
                    Network::ScaleUp => "scale-up",
                    Network::ScaleOut => "scale-out (DCN)",
                    Network::DieToDie => "die-to-die",
                };
                (i, format!("{} — {} devices, {network}", a.name, a.size))
            })
            .collect::<Vec<_>>()
        })
    });
    view! {
        <p class="hint">
            "Each axis: wraparound (book 2.2: only a full axis, or a slice of whole cubes, has one), and overrides of its link bandwidth and per-hop latency. Empty = the chip's. The resolved wiring is in the topology table."
        </p>
        <For each=move || axes.get() key=|a| a.clone() let:a>
            <p class="axis-title" id=format!("axis-{}", a.0)><strong>{a.1}</strong></p>
            {AXIS_FIELDS.iter().map(|f| view! { <Field field=f.at(a.0) /> }).collect_view()}
        </For>
        <Fields group=&CHIPLETS />
    }
}

/// Each query's fields and its "Remove" button (`#collective-<i>-remove`), then
/// `#collective-add`.
#[component]
fn QueryEditor() -> impl IntoView {
    let state = use_app_state();
    let count = Memo::new(move |_| state.draft.with(|d| d.scenario.collectives.len()));
    let [kind, bytes, axes] = &QUERY_FIELDS;
    view! {
        <p class="hint">
            "V is the full array: the gathered result on one chip (AllGather), the unreduced input (ReduceScatter), the array (AllReduce), the per-chip shard × the axis sizes (AllToAll). Sizes like 34MB, 32 MiB or 33554432."
        </p>
        <For each=move || 0..count.get() key=|i| *i let:i>
            <p class="axis-title"><strong>{format!("Collective {}", i + 1)}</strong></p>
            <Field field=kind.at(i) />
            <Field field=bytes.at(i) />
            <SubsetField field=axes.at(i) />
            <div class="actions">
                <button type="button" id=format!("collective-{i}-remove") on:click=move |_| state.update(|s| remove_query(s, i))>
                    "Remove"
                </button>
            </div>
        </For>
        <div class="actions">
            <button type="button" id="collective-add" on:click=move |_| state.update(add_query)>
                "Add a collective"
            </button>
        </div>
    }
}

/// The inputs under the chip picker.
#[component]
pub fn HardwareInputs() -> impl IntoView {
    view! {
        <div class="hardware-inputs">
            <fieldset class="chip-editor" id="chip-editor">
                <legend>"Custom chip"</legend>
                <ChipEditor />
            </fieldset>
            <fieldset class="topology-editor" id="topology-editor">
                <legend>"Mesh axes"</legend>
                <AxisEditor />
            </fieldset>
            <fieldset class="roofline-inputs" id="roofline-inputs">
                <legend>"Roofline op"</legend>
                <Fields group=&ROOFLINE />
            </fieldset>
            <fieldset class="collective-inputs" id="collective-inputs">
                <legend>"Collectives"</legend>
                <QueryEditor />
            </fieldset>
        </div>
    }
}
