//! "Download CSV" for a table.

use leptos::prelude::*;

use crate::dom::{download_text, log_error};

/// A button that downloads the CSV text `csv` produces, as `shardcalc-<name>.csv`.
#[component]
pub fn CsvButton(
    /// File stem and element id stem, e.g. `params`.
    name: &'static str,
    /// Produces the table as CSV at click time.
    csv: Signal<String>,
) -> impl IntoView {
    let on_click = move |_| {
        let text = csv.get_untracked();
        if let Err(e) = download_text(&format!("shardcalc-{name}.csv"), "text/csv", &text) {
            log_error("CSV download", &e);
        }
    };
    view! {
        <button type="button" class="csv" id=format!("{name}-csv") on:click=on_click>
            "Download CSV"
        </button>
    }
}
