//! A table's exports: "Download CSV" and "Download Markdown", both written from one
//! [`Table`], and the table an embed (`?embed=<name>`) shows alone.
//!
//! The buttons are HTML text handled by the page's one delegated click handler
//! ([`crate::delegated`]), not a `view!` tree with a closure per button (docs/size.md,
//! "Exports and share bar, session 14").

use leptos::prelude::*;
use shardcalc_charts::table::Table;
use web_sys::Element;

use crate::delegated::{register, show_failure};
use crate::dom::{download_text, log_error};
use crate::html_text::{attr, el, escape};

/// The export buttons of one table, in `<span class="table-export" id="table-<name>">`:
/// `#<name>-csv` downloads `shardcalc-<name>.csv`, `#<name>-md` downloads
/// `shardcalc-<name>.md`. The table's data come from `table` or, for callers that produce
/// CSV text, from `csv` (read back into a [`Table`]); either is read when a button is
/// clicked. When that fails (CSV text that does not parse) the reason is shown after the
/// buttons (`#<name>-export-error`). In an embed of `table-<name>` (`?embed=table-<name>`) it also renders that table
/// (`#embed-<name>`), exact values as exported, and the page shows nothing else.
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
    let (csv_id, md_id) = (format!("{name}-csv"), format!("{name}-md"));
    register(vec![csv_id.clone(), md_id.clone()], move |button| download(name, button, untrack(data)));
    let embedded = crate::embed::register(format!("table-{name}"));
    let buttons = format!(
        r#"<button type="button" class="csv"{}>Download CSV</button><button type="button" class="md"{}>Download Markdown</button>"#,
        attr("id", &csv_id),
        attr("id", &md_id),
    );
    // Outside an embed the markup never changes (and reads no data).
    let html = move || {
        if !embedded {
            return buttons.clone();
        }
        let inner = match data() {
            Ok(t) => data_table_html(&format!("embed-{name}"), &t),
            Err(e) => el("p", r#" class="field-error""#, &escape(&e)),
        };
        buttons.clone() + &el("div", r#" class="embed-target embed-table table-wrap""#, &inner)
    };
    view! { <span class="table-export" id=format!("table-{name}") inner_html=html></span> }
}

/// Offers the table as `shardcalc-<name>.csv` (or `.md` for the `-md` button), or shows
/// why there is no table after the buttons (`#<name>-export-error`).
fn download(name: &str, button: &Element, data: Result<Table, String>) {
    let t = match data {
        Ok(t) => t,
        Err(e) => {
            show_failure(&format!("{name}-export-error"), "span", false, Some(&e), button.parent_node(), None);
            return;
        }
    };
    let (ext, mime, text) = if button.id().ends_with("-md") {
        ("md", "text/markdown", t.to_markdown())
    } else {
        ("csv", "text/csv", t.to_csv())
    };
    if let Err(e) = download_text(&format!("shardcalc-{name}.{ext}"), mime, &text) {
        log_error("table download", &e);
    }
}

/// A [`Table`] as an HTML table (`<table id=…>`): a header row, then the rows; numeric
/// columns right-aligned (`class="num"`); every cell escaped. (It was the `DataTable`
/// component.)
#[must_use]
pub fn data_table_html(id: &str, table: &Table) -> String {
    let numeric: Vec<bool> = (0..table.columns.len()).map(|i| table.is_numeric_column(i)).collect();
    let class = |n: bool| if n { r#" class="num""# } else { "" };
    let mut head = String::new();
    for (c, &n) in table.columns.iter().zip(&numeric) {
        head += &format!(r#"<th scope="col"{}>{}</th>"#, class(n), escape(c));
    }
    let mut body = String::new();
    for row in &table.rows {
        body += "<tr>";
        for (i, &n) in numeric.iter().enumerate() {
            body += &el("td", class(n), &escape(row.get(i).map_or("", String::as_str)));
        }
        body += "</tr>";
    }
    el("table", &attr("id", id), &format!("<thead><tr>{head}</tr></thead><tbody>{body}</tbody>"))
}
