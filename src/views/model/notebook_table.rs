//! MaxText's LLM-calculator notebook, as it prints its tables for this model, with every row
//! it gets wrong flagged: what it prints, the correct value, and why they differ (HTML text).

use leptos::prelude::*;
use shardcalc_charts::format::{significant, thousands};
use shardcalc_core::notebook::{NotebookFamily, NotebookRow, NotebookTables};

use super::csv;
use super::derived::Derived;
use crate::components::TableExports;
use crate::html_text::{el, escape, table};

fn value(v: f64, unit: &str) -> String {
    if unit == "params" && v.fract() == 0.0 && (0.0..9.0e15).contains(&v) {
        // A non-negative integer below 2^53: exact.
        thousands(v as u64)
    } else {
        significant(v, 4)
    }
}

/// One notebook table (`#notebook-params` or `#notebook-flops`); wrong rows are `tr.wrong`.
fn table_html(id: &str, caption: &str, rows: &[NotebookRow]) -> String {
    let mut body = String::new();
    for r in rows {
        let check = match &r.discrepancy {
            Some(why) => el("span", " class=\"flag\"", "⚠ wrong: ") + &escape(why),
            None => el("span", " class=\"ok\"", "✓ correct"),
        };
        let cells = el("th", " scope=\"row\"", &escape(&r.label))
            + &el("td", " class=\"num\"", &escape(&value(r.printed, &r.unit)))
            + &el("td", " class=\"num\"", &escape(&value(r.correct, &r.unit)))
            + &el("td", "", &check);
        body += &el("tr", if r.discrepancy.is_some() { " class=\"wrong\"" } else { "" }, &cells);
    }
    table(id, caption, &["Row", "#Notebook prints", "#Correct", "Check"], &body)
}

/// The note on the notebook's code path and both tables, as HTML text.
fn notebook_html(t: &NotebookTables) -> String {
    let family = match t.family {
        NotebookFamily::Dense => "dense",
        NotebookFamily::MixtralLike => "Mixtral-like MoE",
        NotebookFamily::DeepSeekLike => "DeepSeek-like MoE",
    };
    let wrong = t.params.iter().chain(&t.flops).filter(|r| r.discrepancy.is_some()).count();
    let verdict = if wrong == 0 {
        "Every row is right for this model.".to_string()
    } else {
        format!("{wrong} row(s) are wrong, flagged below.")
    };
    el(
        "p",
        "",
        &escape(&format!("The notebook's {family} code path (notebook convention: attention not halved). {verdict}")),
    ) + &table_html("notebook-params", "Parameters", &t.params)
        + &table_html("notebook-flops", "TFLOPs per device per step", &t.flops)
}

/// Both notebook tables and a CSV download.
#[component]
pub fn NotebookSection(
    /// The memos the section reads.
    derived: Derived,
) -> impl IntoView {
    let report = derived.report;
    let html = Memo::new(move |_| {
        report.with(|r| r.as_ref().map(|e| &e.report).map(|r| notebook_html(&r.notebook)).unwrap_or_default())
    });
    let data = Signal::derive(move || {
        report.with(|r| r.as_ref().map(|e| &e.report).map(|r| csv::notebook(&r.notebook)).unwrap_or_default())
    });
    view! {
        <section class="result-section" aria-labelledby="notebook-heading">
            <h3 id="notebook-heading">"MaxText notebook check"</h3>
            <div inner_html=html></div>
            <div class="actions">
                <TableExports name="notebook" table=data />
            </div>
        </section>
    }
}
