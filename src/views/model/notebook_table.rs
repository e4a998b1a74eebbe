//! MaxText's LLM-calculator notebook, as it prints its tables for this model, with every row
//! it gets wrong flagged: what it prints, the correct value, and why they differ.

use leptos::prelude::*;
use shardcalc_core::notebook::{NotebookFamily, NotebookTables};

use super::derived::Derived;
use super::tables;
use crate::components::DataTable;

/// What the notebook's code path is and how many rows it gets wrong.
fn verdict(t: &NotebookTables) -> String {
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
    format!("The notebook's {family} code path (notebook convention: attention not halved). {verdict}")
}

/// `#notebook` (its parameter rows, then its FLOPs rows; wrong rows `tr.wrong`) and its
/// exports.
#[component]
pub fn NotebookSection(
    /// The memos the section reads.
    derived: Derived,
) -> impl IntoView {
    let table = derived.of(|r| tables::notebook(&r.notebook));
    let note = derived.of(|r| verdict(&r.notebook));
    view! {
        <section class="result-section" aria-labelledby="notebook-heading">
            <h3 id="notebook-heading">"MaxText notebook check"</h3>
            <p>{note}</p>
            <DataTable id="notebook" table=table group_by=0 row_headers=true exports="notebook" />
        </section>
    }
}
