//! A table's exports: "Download CSV" and "Download Markdown", both written from one
//! [`Table`], and the table an embed (`?embed=<name>`) shows alone.

use leptos::prelude::*;
use shardcalc_charts::table::Table;

use crate::dom::{download_text, log_error};
use crate::embed::use_embed;

/// The export buttons of one table, in `<span class="table-export" id="table-<name>">`:
/// `#<name>-csv` downloads `shardcalc-<name>.csv`, `#<name>-md` downloads
/// `shardcalc-<name>.md`. The table's data come from `table` or, for callers that produce
/// CSV text, from `csv` (read back into a [`Table`]). In an embed of `table-<name>`
/// (`?embed=table-<name>`) it also renders that table (`#embed-<name>`), exact values as
/// exported, and the page shows nothing else.
#[component]
pub fn CsvButton(
    /// File stem and element id stem, e.g. `params` (embed name `table-params`).
    name: &'static str,
    /// The table as CSV text (RFC 4180, header first); read at click time.
    #[prop(optional, into)]
    csv: Option<Signal<String>>,
    /// The table as data; preferred over `csv` when both are given.
    #[prop(optional, into)]
    table: Option<Signal<Table>>,
) -> impl IntoView {
    let data = move || -> Result<Table, String> {
        match (table, csv) {
            (Some(t), _) => Ok(t.get()),
            (None, Some(c)) => Table::from_csv(&c.get()),
            (None, None) => Ok(Table::default()),
        }
    };
    let failure = RwSignal::new(None::<String>);
    let download = move |ext: &'static str, mime: &'static str, write: fn(&Table) -> String| {
        move |_| match untrack(data) {
            Ok(t) => {
                if let Err(e) = download_text(&format!("shardcalc-{name}.{ext}"), mime, &write(&t)) {
                    log_error("table download", &e);
                }
            }
            Err(e) => failure.set(Some(e)),
        }
    };
    let embedded = use_embed().register(format!("table-{name}"));
    let embed_table = embedded.then(|| {
        view! {
            <div class="embed-target embed-table table-wrap">
                {move || match data() {
                    Ok(t) => view! { <DataTable id=format!("embed-{name}") table=t /> }.into_any(),
                    Err(e) => view! { <p class="field-error">{e}</p> }.into_any(),
                }}
            </div>
        }
    });
    view! {
        <span class="table-export" id=format!("table-{name}")>
            <button type="button" class="csv" id=format!("{name}-csv") on:click=download("csv", "text/csv", Table::to_csv)>
                "Download CSV"
            </button>
            <button type="button" class="md" id=format!("{name}-md") on:click=download("md", "text/markdown", Table::to_markdown)>
                "Download Markdown"
            </button>
            {move || failure.get().map(|f| view! { <span class="field-error">{f}</span> })}
            {embed_table}
        </span>
    }
}

/// A [`Table`] as an HTML table: a header row, then the rows; numeric columns right-aligned.
#[component]
pub fn DataTable(
    /// Element id of the `<table>`.
    id: String,
    /// The data.
    table: Table,
) -> impl IntoView {
    let numeric: Vec<bool> = (0..table.columns.len()).map(|i| table.is_numeric_column(i)).collect();
    let head = table
        .columns
        .iter()
        .zip(&numeric)
        .map(|(c, &n)| view! { <th scope="col" class:num=n>{c.clone()}</th> })
        .collect_view();
    let body = table
        .rows
        .iter()
        .map(|row| {
            let cells = numeric
                .iter()
                .enumerate()
                .map(|(i, &n)| view! { <td class:num=n>{row.get(i).cloned().unwrap_or_default()}</td> })
                .collect_view();
            view! { <tr>{cells}</tr> }
        })
        .collect_view();
    view! {
        <table id=id>
            <thead><tr>{head}</tr></thead>
            <tbody>{body}</tbody>
        </table>
    }
}
