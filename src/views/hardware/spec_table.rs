//! The chip's spec table: every number with its unit, source and date, what other sources
//! say where they disagree (the book gives the v5e's HBM bandwidth as 8.1e11 in its table
//! and 8.2e11 elsewhere), and the chip's notes.

use leptos::prelude::*;
use shardcalc_core::hardware::chip::ChipFamily;

use super::derived::Derived;
use super::tables;
use crate::components::{DataTable, RowIds};

/// `#spec-chip` in the heading, `#spec-disagreements`, `#spec-table` (rows
/// `#spec-<path with dashes>`, marked `disagree` or `missing`) with its exports, and the
/// notes `#chip-notes`.
#[component]
pub fn SpecSection(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let chip = derived.chip;
    let table = Memo::new(move |_| chip.with(|c| c.as_ref().map(tables::spec).unwrap_or_default()));
    let title = move || {
        chip.with(|c| {
            c.as_ref().map_or_else(String::new, |c| {
                let family = if c.family == ChipFamily::Tpu { "TPU" } else { "GPU" };
                let cores = if c.cores_per_chip == 1 { "1 core".into() } else { format!("{} cores", c.cores_per_chip) };
                format!("{} ({family}, {cores} per chip)", c.name)
            })
        })
    };
    let note = move || {
        let disagreeing = table.with(|t| (0..t.rows.len()).filter(|r| t.classes_of(*r).contains("disagree")).count());
        if disagreeing == 0 {
            return String::new();
        }
        format!(
            "Sources disagree on {disagreeing} of these numbers: the calculator uses the value shown (for the book's chips, the book's spec table, so that its worked answers come out) and lists the others under “Other sources”."
        )
    };
    let notes =
        move || chip.with(|c| c.iter().flat_map(|c| c.notes.clone()).map(|n| view! { <li>{n}</li> }).collect_view());
    view! {
        <section class="result-section" aria-labelledby="spec-heading">
            <h3 id="spec-heading">"Spec table: "<span id="spec-chip">{title}</span></h3>
            <p class="note" id="spec-disagreements">{note}</p>
            <DataTable
                id="spec-table"
                table=table
                caption="Every number per chip, dense (never the sparsity figure), with its source and date"
                row_headers=true
                row_ids=RowIds { key: Some(0), prefix: "spec-" }
                exports="spec"
            />
            <h4>"Notes"</h4>
            <ul id="chip-notes" class="notes">{notes}</ul>
        </section>
    }
}
