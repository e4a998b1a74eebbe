//! A table's exports: "Download CSV" and "Download Markdown", both written from one
//! [`Table`] (its column names and exact cells), and, in an embed of the table
//! (`?embed=table-<name>`), the table alone with its exact values.

use leptos::prelude::*;
use shardcalc_charts::table::Table;

use super::data_table::DataTable;
use crate::dom::{download_text, log_error};

/// The export buttons of one table, in `<span class="table-export" id="table-<name>">`:
/// `#<name>-csv` downloads `shardcalc-<name>.csv`, `#<name>-md` downloads
/// `shardcalc-<name>.md`; the table is read when a button is clicked. In an embed of
/// `table-<name>` it also shows the table (`#embed-<name>`), exact values as exported, and
/// the page shows nothing else.
#[component]
pub fn TableExports(
    /// File stem and element id stem, e.g. `params` (embed name `table-params`).
    name: &'static str,
    /// The table.
    #[prop(into)]
    table: Signal<Table>,
) -> impl IntoView {
    let embedded = crate::embed::register(format!("table-{name}"));
    let download = move |markdown: bool| {
        let (ext, mime, text) = table.with_untracked(|t| {
            if markdown {
                ("md", "text/markdown", t.to_markdown())
            } else {
                ("csv", "text/csv", t.to_csv())
            }
        });
        if let Err(e) = download_text(&format!("shardcalc-{name}.{ext}"), mime, &text) {
            log_error("table download", &e);
        }
    };
    view! {
        <span class="table-export" id=format!("table-{name}")>
            <button type="button" class="csv" id=format!("{name}-csv") on:click=move |_| download(false)>
                "Download CSV"
            </button>
            <button type="button" class="md" id=format!("{name}-md") on:click=move |_| download(true)>
                "Download Markdown"
            </button>
            {embedded.then(|| view! {
                <div class="embed-target embed-table table-wrap">
                    <DataTable id=format!("embed-{name}") table=table exact=true />
                </div>
            })}
        </span>
    }
}
