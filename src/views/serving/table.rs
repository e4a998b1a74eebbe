//! Every number of the plan in one table, grouped (serving, KV cache, decode step, prefill,
//! memory, disaggregation, speculative decoding, cost), each with its report key; exported
//! as CSV and Markdown (exact values; `shardcalc eval` prints the same keys as JSON).
//!
//! The body is HTML text (far less code than a view per row). When an input changes and the
//! rows are the same quantities, only the cells whose text changed are rewritten: parsing and
//! laying out the whole body again was the largest part of a repaint (docs/size.md).

use leptos::html::Tbody;
use leptos::prelude::*;

use super::derived::Derived;
use super::rows::{rows, table, Row};
use crate::components::CsvButton;
use crate::html_text::escape;

/// `decode.step_time_s` → `row-decode-step_time_s`: the id of the cell holding that value.
#[must_use]
pub fn row_id(key: &str) -> String {
    format!("row-{}", key.replace('.', "-"))
}

/// The table's body as HTML (one string: far less code than a view per row).
#[must_use]
pub fn body_html(rows: &[Row]) -> String {
    let mut out = String::new();
    let mut group = "";
    for r in rows {
        if r.group != group {
            group = r.group;
            out += &format!(r#"<tr class="group"><th scope="colgroup" colspan="4">{}</th></tr>"#, escape(group));
        }
        out += &format!(
            r#"<tr><th scope="row">{}</th><td class="num" id="{}">{}</td><td class="num exact">{}</td><td><code>{}</code></td></tr>"#,
            escape(r.label),
            row_id(r.key),
            escape(&r.shown()),
            escape(&r.exact()),
            escape(r.key)
        );
    }
    out
}

/// Rewrites the value and exact cells of the rows of `new` that differ from `old`, when both
/// list the same quantities in the same order; `false` (nothing done) otherwise.
fn update_cells(old: &[Row], new: &[Row]) -> bool {
    if old.len() != new.len() || old.iter().zip(new).any(|(a, b)| a.key != b.key || a.group != b.group) {
        return false;
    }
    for (a, b) in old.iter().zip(new) {
        if a.value == b.value {
            continue;
        }
        let Some(cell) = document().get_element_by_id(&row_id(b.key)) else { return false };
        cell.set_text_content(Some(&b.shown()));
        let Some(exact) = cell.next_element_sibling() else { return false };
        exact.set_text_content(Some(&b.exact()));
    }
    true
}

/// The grouped table with its CSV and Markdown downloads.
#[component]
pub fn ResultTable(
    /// The memos the table reads.
    derived: Derived,
) -> impl IntoView {
    let all = Memo::new(move |_| derived.with_report(rows).unwrap_or_default());
    let data = Signal::derive(move || all.with(|r| table(r)));
    let body = NodeRef::<Tbody>::new();
    // The rows last written into the body.
    Effect::new(move |shown: Option<Vec<Row>>| {
        let shown = shown.unwrap_or_default();
        let Some(el) = body.get() else { return shown };
        all.with(|now| {
            if shown.is_empty() || !update_cells(&shown, now) {
                el.set_inner_html(&body_html(now));
            }
            now.clone()
        })
    });
    view! {
        <section class="result-section" aria-labelledby="serving-table-heading">
            <h3 id="serving-table-heading">"The plan, number by number"</h3>
            <div class="table-wrap">
                <table id="serving-table">
                    <caption>"Every quantity of the serving plan: formatted, exact (as in the CSV), and its key in the report (shardcalc eval, under inference.)"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Quantity"</th>
                            <th scope="col" class="num">"Value"</th>
                            <th scope="col" class="num">"Exact"</th>
                            <th scope="col">"Key"</th>
                        </tr>
                    </thead>
                    <tbody node_ref=body></tbody>
                </table>
            </div>
            <div class="actions">
                <CsvButton name="serving-table" table=data />
            </div>
        </section>
    }
}
