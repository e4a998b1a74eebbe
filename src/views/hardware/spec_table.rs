//! The chip's spec table: every number with its unit, source and date, what other sources
//! say where they disagree (the book gives the v5e's HBM bandwidth as 8.1e11 in its table
//! and 8.2e11 elsewhere), and the chip's notes.

use leptos::prelude::*;
use shardcalc_core::hardware::chip::{Chip, ChipFamily};

use super::chip_fields::{display, ChipField, CHIP_FIELDS};
use super::csv;
use super::derived::Derived;
use crate::components::CsvButton;

/// One row: the field, its value (absent = not published), source, date and the other
/// sources' values as text.
pub struct SpecRow {
    /// The field.
    pub field: &'static ChipField,
    /// Value in the base unit.
    pub value: Option<f64>,
    /// Citation.
    pub source: String,
    /// Date of the citation.
    pub as_of: String,
    /// `(value shown in the field's unit, source, note)` of each disagreeing source.
    pub others: Vec<(String, String, String)>,
}

/// The rows of `chip`'s spec table, in [`CHIP_FIELDS`] order.
#[must_use]
pub fn spec_rows(chip: &Chip) -> Vec<SpecRow> {
    let values = chip.numeric_fields();
    CHIP_FIELDS
        .iter()
        .map(|field| {
            let value = values.iter().find(|(p, _)| *p == field.path).and_then(|(_, v)| *v);
            let (source, as_of) = match value {
                Some(_) => {
                    let (s, d) = chip.source_of(field.path);
                    (s.to_string(), d.to_string())
                }
                None => (String::new(), String::new()),
            };
            let others = chip
                .alternatives
                .iter()
                .filter(|a| a.field == field.path)
                .map(|a| (display(field, a.value), a.source.clone(), a.note.clone()))
                .collect();
            SpecRow { field, value, source, as_of, others }
        })
        .collect()
}

/// The spec table, its CSV, and the notes.
#[component]
pub fn SpecSection(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let chip = Memo::new(move |_| derived.resolved.with(|r| r.as_ref().ok().map(|hw| hw.chip.clone())));
    let heading = move || {
        chip.with(|c| {
            c.as_ref().map(|c| {
                let family = if c.family == ChipFamily::Tpu { "TPU" } else { "GPU" };
                format!("{} ({family}, {} per chip)", c.name, match c.cores_per_chip { 1 => "1 core".to_string(), n => format!("{n} cores") })
            })
        })
    };
    let disagreements = move || {
        chip.with(|c| {
            let c = c.as_ref()?;
            let n = spec_rows(c).iter().filter(|r| !r.others.is_empty()).count();
            (n > 0).then(|| {
                format!(
                    "Sources disagree on {n} of these numbers: the calculator uses the value shown (for the book's chips, the book's spec table, so that its worked answers come out) and lists the others under “other sources”."
                )
            })
        })
    };
    let rows = move || {
        chip.with(|c| {
            let c = c.as_ref()?;
            Some(
                spec_rows(c)
                    .into_iter()
                    .map(|r| {
                        let disagree = !r.others.is_empty();
                        let value = r.value.map_or_else(|| "not published".to_string(), |v| display(r.field, v));
                        let exact = r.value.map(|v| format!("{v} (base unit)")).unwrap_or_default();
                        let others = r
                            .others
                            .into_iter()
                            .map(|(v, source, note)| {
                                let note = if note.is_empty() { String::new() } else { format!(" — {note}") };
                                view! { <li><strong>{v}</strong>{format!(": {source}{note}")}</li> }
                            })
                            .collect_view();
                        view! {
                            <tr class:disagree=disagree class:missing=r.value.is_none() data-field=r.field.path>
                                <th scope="row">{r.field.label}</th>
                                <td class="num" title=exact>{value}</td>
                                <td class="source">{r.source}</td>
                                <td class="date">{r.as_of}</td>
                                <td class="others">{disagree.then(|| view! { <ul>{others}</ul> })}</td>
                            </tr>
                        }
                    })
                    .collect_view(),
            )
        })
    };
    let notes = move || {
        chip.with(|c| {
            c.as_ref().map(|c| c.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view())
        })
    };
    let csv_text = Signal::derive(move || chip.with(|c| c.as_ref().map(|c| csv::spec(&spec_rows(c))).unwrap_or_default()));
    view! {
        <section class="result-section" aria-labelledby="spec-heading">
            <h3 id="spec-heading">"Spec table: " <span id="spec-chip">{heading}</span></h3>
            <p class="note" id="spec-disagreements">{disagreements}</p>
            <div class="table-wrap">
                <table id="spec-table">
                    <caption>"Every number per chip, dense (never the sparsity figure), with its source and date"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Quantity"</th>
                            <th scope="col" class="num">"Value"</th>
                            <th scope="col">"Source"</th>
                            <th scope="col">"As of"</th>
                            <th scope="col">"Other sources"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <div class="actions">
                <CsvButton name="spec" csv=csv_text />
            </div>
            <h4>"Notes"</h4>
            <ul id="chip-notes" class="notes">{notes}</ul>
        </section>
    }
}
