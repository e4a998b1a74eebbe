//! The plans in detail: the best and the explored mesh side by side (with one layer's
//! working set: what a device holds besides the saved activations while a layer runs),
//! communication per kind of parallelism, and memory per device by component (downloads;
//! the chart draws it).

use leptos::prelude::*;

use super::derived::{plans_table, Derived};
use super::tables;
use crate::components::{DataTable, TableExports};

/// The comparison and communication tables and their downloads, after why the explored mesh
/// cannot be planned (`#training-explored-error`) when it cannot.
#[component]
pub fn Details(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let table = |f| plans_table(derived, f);
    let compare = table(tables::compare);
    let communication = table(tables::communication);
    let memory = table(tables::memory);
    let explored_error = move || {
        derived.explored.with(|e| match e {
            Some(Err(err)) => Some(view! {
                <div class="field-error"><p id="training-explored-error">{format!("Your mesh cannot be planned: {err}")}</p></div>
            }),
            _ => None,
        })
    };
    view! {
        <section class="result-section" aria-labelledby="training-details-heading">
            <h3 id="training-details-heading">"Best and explored mesh"</h3>
            {explored_error}
            <div class="table-wrap">
                <DataTable id="training-compare" table=compare row_headers=true />
            </div>
            <TableExports name="training-compare" table=compare />
            <h4>"Communication per step"</h4>
            <div class="table-wrap">
                <DataTable id="training-communication" table=communication />
            </div>
            <TableExports name="training-communication" table=communication />
            <TableExports name="training-memory" table=memory />
        </section>
    }
}
