//! MaxText's LLM-calculator notebook, as it prints its tables for this model, with every row
//! it gets wrong flagged: what it prints, the correct value, and why they differ.

use leptos::prelude::*;
use shardcalc_charts::format::{significant, thousands};
use shardcalc_core::notebook::{NotebookFamily, NotebookRow};

use super::csv;
use super::derived::Derived;
use crate::components::CsvButton;

fn value(v: f64, unit: &str) -> String {
    if unit == "params" && v.fract() == 0.0 && (0.0..9.0e15).contains(&v) {
        // A non-negative integer below 2^53: exact.
        thousands(v as u64)
    } else {
        significant(v, 4)
    }
}

fn table(id: &'static str, caption: &'static str, rows: &[NotebookRow]) -> impl IntoView {
    let body = rows
        .iter()
        .map(|r| {
            let wrong = r.discrepancy.is_some();
            view! {
                <tr class:wrong=wrong>
                    <th scope="row">{r.label.clone()}</th>
                    <td class="num">{value(r.printed, &r.unit)}</td>
                    <td class="num">{value(r.correct, &r.unit)}</td>
                    <td>
                        {match &r.discrepancy {
                            Some(why) => view! { <span class="flag">"⚠ wrong: "</span> {why.clone()} }.into_any(),
                            None => view! { <span class="ok">"✓ correct"</span> }.into_any(),
                        }}
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-wrap">
            <table id=id>
                <caption>{caption}</caption>
                <thead>
                    <tr>
                        <th scope="col">"Row"</th>
                        <th scope="col" class="num">"Notebook prints"</th>
                        <th scope="col" class="num">"Correct"</th>
                        <th scope="col">"Check"</th>
                    </tr>
                </thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

/// Both notebook tables and a CSV download.
#[component]
pub fn NotebookSection(
    /// The memos the section reads.
    derived: Derived,
) -> impl IntoView {
    let report = derived.report;
    let tables = Memo::new(move |_| report.with(|r| r.as_ref().ok().map(|r| r.notebook.clone())));
    let data = Signal::derive(move || tables.with(|t| t.as_ref().map(csv::notebook).unwrap_or_default()));
    view! {
        <section class="result-section" aria-labelledby="notebook-heading">
            <h3 id="notebook-heading">"MaxText notebook check"</h3>
            {move || tables.with(|t| t.as_ref().map(|t| {
                let family = match t.family {
                    NotebookFamily::Dense => "dense",
                    NotebookFamily::MixtralLike => "Mixtral-like MoE",
                    NotebookFamily::DeepSeekLike => "DeepSeek-like MoE",
                };
                let wrong = t.params.iter().chain(&t.flops).filter(|r| r.discrepancy.is_some()).count();
                view! {
                    <p>
                        "The notebook's " {family} " code path (notebook convention: attention not halved). "
                        {if wrong == 0 { "Every row is right for this model.".to_string() } else { format!("{wrong} row(s) are wrong, flagged below.") }}
                    </p>
                    {table("notebook-params", "Parameters", &t.params)}
                    {table("notebook-flops", "TFLOPs per device per step", &t.flops)}
                }
            }))}
            <div class="actions">
                <CsvButton name="notebook" table=data />
            </div>
        </section>
    }
}
