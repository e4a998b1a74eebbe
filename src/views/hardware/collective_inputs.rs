//! The user's collective queries (book chapter 3): which collective, over which mesh axes,
//! of which array. `V` is the book's full array: the gathered result on one chip
//! (AllGather), the unreduced input (ReduceScatter), the array (AllReduce), the shard times
//! the axis sizes (AllToAll).

use leptos::prelude::*;
use shardcalc_core::collectives::CollectiveKind;
use shardcalc_core::hardware::query::CollectiveQuery;

use super::derived::Derived;
use super::edit::update;
use super::units::{bytes_input, parse_bytes};
use crate::components::SectionField;
use crate::dom::{event_checked, event_value};
use crate::state::{use_app_state, AppState};

/// Display name of a collective.
#[must_use]
pub fn kind_name(kind: CollectiveKind) -> &'static str {
    match kind {
        CollectiveKind::AllGather => "AllGather",
        CollectiveKind::ReduceScatter => "ReduceScatter",
        CollectiveKind::AllReduce => "AllReduce",
        CollectiveKind::AllToAll => "AllToAll",
    }
}

/// The id serde gives a collective (`all_gather`).
fn kind_id(kind: CollectiveKind) -> &'static str {
    match kind {
        CollectiveKind::AllGather => "all_gather",
        CollectiveKind::ReduceScatter => "reduce_scatter",
        CollectiveKind::AllReduce => "all_reduce",
        CollectiveKind::AllToAll => "all_to_all",
    }
}

fn set_query(state: AppState, i: usize, field: &str, f: impl FnOnce(&mut CollectiveQuery)) -> Result<(), String> {
    update(state, &format!("collectives[{i}]{field}"), move |s| {
        if let Some(q) = s.collectives.get_mut(i) {
            f(q);
        }
    })
}

/// The list of queries, one row each, and "Add a collective".
#[component]
pub fn CollectiveInputs(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let state = use_app_state();
    // Rows are rebuilt when queries come or go, or when the topology's axes change.
    let layout = Memo::new(move |_| {
        let count = derived.queries.with(Vec::len);
        let axes: Vec<String> = derived.section.with(|s| {
            s.as_ref().and_then(|h| h.topology.as_ref()).map(|t| t.axes.iter().map(|a| a.name.clone()).collect()).unwrap_or_default()
        });
        (count, axes)
    });
    let add_error = RwSignal::new(None::<String>);
    let add = move |_| {
        let result = update(state, "collectives", |s| {
            let axis = s.hardware.as_ref().and_then(|h| h.topology.as_ref()).and_then(|t| t.axes.first().map(|a| a.name.clone()));
            let last = s.collectives.last().cloned();
            s.collectives.push(last.unwrap_or(CollectiveQuery {
                kind: CollectiveKind::AllGather,
                array_bytes: 33_554_432.0,
                axes: axis.into_iter().collect(),
            }));
        });
        add_error.set(result.err());
    };
    move || {
        state.generation.track();
        let (count, axes) = layout.get();
        let rows = (0..count).map(|i| view! { <QueryRow derived=derived index=i axes=axes.clone() /> }).collect_view();
        view! {
            <fieldset class="collective-inputs" id="collective-inputs">
                <legend>"Collectives"</legend>
                <p class="hint">"V is the full array: the gathered result on one chip (AllGather), the unreduced input (ReduceScatter), the array (AllReduce), the per-chip shard × the axis sizes (AllToAll). Sizes like 34MB, 32 MiB or 33554432."</p>
                {rows}
                <div class="actions">
                    <button type="button" id="collective-add" on:click=add>"Add a collective"</button>
                </div>
                <div class="field-error" id="collective-add-error">{move || add_error.get().map(|m| view! { <p>{m}</p> })}</div>
            </fieldset>
        }
    }
}

#[component]
fn QueryRow(derived: Derived, index: usize, axes: Vec<String>) -> impl IntoView {
    let state = use_app_state();
    let Some(q) = derived.queries.with_untracked(|qs| qs.get(index).cloned()) else { return ().into_any() };
    let error = RwSignal::new(None::<String>);
    let on_kind = move |ev: leptos::ev::Event| {
        let value = event_value(&ev);
        let Some(kind) = CollectiveKind::ALL.into_iter().find(|k| kind_id(*k) == value) else { return };
        error.set(set_query(state, index, ".kind", |q| q.kind = kind).err());
    };
    let kinds = CollectiveKind::ALL
        .into_iter()
        .map(|k| view! { <option value=kind_id(k) selected=k == q.kind>{kind_name(k)}</option> })
        .collect_view();
    let size = Callback::new(move |text: String| {
        let v = parse_bytes(&text).map_err(|m| format!("array size: {m}"))?;
        set_query(state, index, ".array_bytes", |q| q.array_bytes = v)
    });
    let boxes = axes
        .iter()
        .map(|name| {
            let id = format!("collective-{index}-axis-{name}");
            let axis = name.clone();
            let on_change = move |ev: leptos::ev::Event| {
                let on = event_checked(&ev);
                let axis = axis.clone();
                error.set(
                    set_query(state, index, ".axes", move |q| {
                        q.axes.retain(|a| *a != axis);
                        if on {
                            q.axes.push(axis);
                        }
                    })
                    .err(),
                );
            };
            view! {
                <label class="axis-check" for=id.clone()>
                    <input type="checkbox" id=id.clone() checked=q.axes.contains(name) on:change=on_change />
                    {name.clone()}
                </label>
            }
        })
        .collect_view();
    let remove = move |_| {
        error.set(
            update(state, "collectives", |s| {
                if index < s.collectives.len() {
                    s.collectives.remove(index);
                }
            })
            .err(),
        );
    };
    view! {
        <div class="collective-row" id=format!("collective-{index}") class:invalid=move || error.with(Option::is_some)>
            <div class="field">
                <label for=format!("collective-{index}-kind")>{format!("Collective {}", index + 1)}</label>
                <select id=format!("collective-{index}-kind") on:change=on_kind>{kinds}</select>
            </div>
            <SectionField id=format!("collective-{index}-bytes") label="Array size V" unit="bytes" initial=bytes_input(q.array_bytes) apply=size input_mode="text" />
            <fieldset class="axes-choice">
                <legend>"Over axes"</legend>
                {boxes}
            </fieldset>
            <div class="actions">
                <button type="button" id=format!("collective-{index}-remove") on:click=remove>"Remove"</button>
            </div>
            <div class="field-error" id=format!("collective-{index}-error") aria-live="polite">{move || error.get().map(|m| view! { <p>{m}</p> })}</div>
        </div>
    }
    .into_any()
}
