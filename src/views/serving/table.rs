//! Every number of the plan in one table, grouped (serving, KV cache, decode step, prefill,
//! memory, disaggregation, speculative decoding, cost), each with its report key; the same
//! [`shardcalc_charts::table::Table`] is the CSV and Markdown download (exact values;
//! `shardcalc eval` prints the same keys as JSON).

use leptos::prelude::*;

use super::derived::Derived;
use super::rows::{rows, table};
use crate::components::{CellIds, DataTable, TableExports};

/// The grouped table (`#serving-table`; each value's cell is `#row-<key>`, e.g.
/// `#row-decode-step_time_s`) with its downloads.
#[component]
pub fn ResultTable(
    /// The memos the table reads.
    derived: Derived,
) -> impl IntoView {
    let data = Memo::new(move |_| derived.with_report(|r| table(&rows(r))).unwrap_or_default());
    let ids = CellIds { key: 4, value: 2, prefix: "row-", strip: "inference." };
    view! {
        <section class="result-section" aria-labelledby="serving-table-heading">
            <h3 id="serving-table-heading">"The plan, number by number"</h3>
            <div class="table-wrap">
                <DataTable
                    id="serving-table"
                    table=data
                    caption="Every quantity of the serving plan and its key in the report (shardcalc eval --view serving); the downloads hold the exact values."
                    group_by=0
                    cell_ids=ids
                    row_headers=false
                />
            </div>
            <div class="actions">
                <TableExports name="serving-table" table=data />
            </div>
        </section>
    }
}
