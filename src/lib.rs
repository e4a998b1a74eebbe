//! shardcalc in the browser: a thin Leptos (client-side rendered) shell over `shardcalc-core`
//! and `shardcalc-charts`.
//!
//! - [`state`]: the scenario (single source of truth, in context) and the form's draft of it;
//!   the URL fragment sync.
//! - [`views`]: one module per view, each its own page ([`start_page`]); [`components`]:
//!   one `Field` for every input (described in `shardcalc_core::field`), one `DataTable`
//!   for every table, pickers, charts.
//! - [`worker_client`]: the background worker (`src/bin/worker.rs`) that imports configs and
//!   renders SVG on request, outside the page's first download.
//! - [`share`]: the scenario as a JSON file and saved in browser storage; [`embed`]: one chart
//!   or table alone (`?embed=`), themes (`?theme=dark`).
//!
//! No code here may panic: no `unwrap`, `expect` or panicking indexing; signals read from
//! callbacks that may outlive the page use `try_` accessors.
#![forbid(unsafe_code)]

mod app;
pub mod components;
pub mod dom;
pub mod embed;
pub mod panic_banner;
pub mod share;
pub mod single_file;
pub mod state;
pub mod svg_export;
pub mod views;
pub mod worker_client;
pub mod worker_handler;
pub mod worker_protocol;

pub use app::App;

pub use components::chart_canvas_draw as draw_chart;
pub use svg_export::chart_svg;

/// Mounts the page of `view` on `<body>`: [`App`] around `render()`, working with the
/// optional `sections` of the scenario (`Sections::TRAINING` on the training page; the others
/// stay the text they came in). Each page's bin (see [`views`]) calls this with its own view
/// and sections only, so a page's wasm holds one view and the code of its sections.
pub fn start_page(
    view: views::View,
    sections: shardcalc_core::scenario::Sections,
    render: fn() -> leptos::prelude::AnyView,
) {
    prepare_page();
    leptos::mount::mount_to_body(move || leptos::view! { <App view=view sections=sections>{render()}</App> });
}

/// What every page does before mounting (also [`single_file::start_all`]).
fn prepare_page() {
    // With panic = "abort" a panic would otherwise surface only as "unreachable" in the console:
    // show what happened, with a link that reloads the page with the user's inputs.
    panic_banner::install();
}
