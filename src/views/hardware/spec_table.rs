//! The chip's spec table: every number with its unit, source and date, what other sources
//! say where they disagree (the book gives the v5e's HBM bandwidth as 8.1e11 in its table
//! and 8.2e11 elsewhere), and the chip's notes.

use leptos::prelude::*;
use shardcalc_core::hardware::chip::{Chip, ChipFamily};

use super::chip_fields::{display, ChipField, CHIP_FIELDS};
use super::derived::Derived;
use super::{csv, html};
use crate::components::TableExports;

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

/// The spec section of `chip` as HTML: heading, the disagreement note, the table, the notes.
#[must_use]
pub fn spec_html(chip: &Chip) -> String {
    let family = if chip.family == ChipFamily::Tpu { "TPU" } else { "GPU" };
    let cores = if chip.cores_per_chip == 1 { "1 core".to_string() } else { format!("{} cores", chip.cores_per_chip) };
    let spec = spec_rows(chip);
    let disagreeing = spec.iter().filter(|r| !r.others.is_empty()).count();
    let mut out = format!(
        "<h3 id=\"spec-heading\">Spec table: {}</h3>",
        html::value("spec-chip", &format!("{} ({family}, {cores} per chip)", chip.name), false)
    );
    let note = if disagreeing > 0 {
        format!(
            "Sources disagree on {disagreeing} of these numbers: the calculator uses the value shown (for the book's chips, the book's spec table, so that its worked answers come out) and lists the others under “Other sources”."
        )
    } else {
        String::new()
    };
    out += &format!("<p class=\"note\" id=\"spec-disagreements\">{}</p>", html::escape(&note));
    let rows: Vec<html::Row> = spec
        .iter()
        .map(|r| {
            let value = r.value.map_or_else(|| "not published".to_string(), |v| display(r.field, v));
            let others: String = r
                .others
                .iter()
                .map(|(v, source, note)| {
                    let note = if note.is_empty() { String::new() } else { format!(" — {note}") };
                    format!(
                        "<li><strong>{}</strong>: {}</li>",
                        html::escape(v),
                        html::escape(&format!("{source}{note}"))
                    )
                })
                .collect();
            let others = if others.is_empty() { String::new() } else { format!("<ul>{others}</ul>") };
            html::row(
                r.field.label,
                vec![html::num(value), html::text(r.source.clone()), html::text(r.as_of.clone()), html::raw(others)],
            )
            .id(format!("spec-{}", r.field.path.replace('.', "-")))
            .class_if(!r.others.is_empty(), "disagree")
            .class_if(r.value.is_none(), "missing")
        })
        .collect();
    out += &html::table(
        "spec-table",
        "Every number per chip, dense (never the sparsity figure), with its source and date",
        &["Quantity", "#Value", "Source", "As of", "Other sources"],
        &rows,
    );
    let notes: String = chip.notes.iter().map(|n| format!("<li>{}</li>", html::escape(n))).collect();
    out += &format!("<h4>Notes</h4><ul id=\"chip-notes\" class=\"notes\">{notes}</ul>");
    out
}

/// The spec table, its CSV, and the notes.
#[component]
pub fn SpecSection(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let chip = derived.chip;
    let body = move || chip.with(|c| c.as_ref().map(spec_html).unwrap_or_default());
    let csv_text =
        Signal::derive(move || chip.with(|c| c.as_ref().map(|c| csv::spec(&spec_rows(c))).unwrap_or_default()));
    view! {
        <section class="result-section" aria-labelledby="spec-heading">
            <div inner_html=body></div>
            <div class="actions">
                <TableExports name="spec" table=csv_text />
            </div>
        </section>
    }
}
