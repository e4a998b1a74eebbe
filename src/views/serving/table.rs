//! Every number of the plan in one table, grouped (serving, KV cache, decode step, prefill,
//! memory, disaggregation, speculative decoding, cost), each with its report key; exported
//! as CSV (exact values; `shardcalc eval` prints the same keys as JSON).

use leptos::prelude::*;

use super::derived::Derived;
use super::rows::{csv, rows, Row};
use crate::components::CsvButton;

/// `decode.step_time_s` → `row-decode-step_time_s`: the id of the cell holding that value.
#[must_use]
pub fn row_id(key: &str) -> String {
    format!("row-{}", key.replace('.', "-"))
}

/// `<`, `>`, `&` and `"` as entities.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
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

/// The grouped table with its CSV download.
#[component]
pub fn ResultTable(
    /// The memos the table reads.
    derived: Derived,
) -> impl IntoView {
    let table = Memo::new(move |_| derived.with_report(rows));
    let csv_text = Signal::derive(move || table.with(|t| t.as_deref().map(csv).unwrap_or_default()));
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
                    <tbody inner_html=move || table.with(|t| t.as_deref().map(body_html).unwrap_or_default())></tbody>
                </table>
            </div>
            <div class="actions">
                <CsvButton name="serving-table" csv=csv_text />
            </div>
        </section>
    }
}
