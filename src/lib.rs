//! shardcalc in the browser: a thin Leptos (client-side rendered) shell over `shardcalc-core`
//! and `shardcalc-charts`.
//!
//! - [`state`]: the scenario (single source of truth, in context) and the form's draft of it;
//!   the URL fragment sync.
//! - [`views`]: one module per view, each its own page ([`start_page`]); [`components`]:
//!   fields, messages, charts.
//! - [`parse`] and [`field_spec`]: reading typed text; fields described as data.
//! - [`worker_client`]: the background worker (`src/bin/worker.rs`) that imports configs and
//!   renders SVG on request, outside the page's first download.
//!
//! No code here may panic: no `unwrap`, `expect` or panicking indexing; signals read from
//! callbacks that may outlive the page use `try_` accessors.
#![forbid(unsafe_code)]

mod app;
pub mod components;
pub mod dom;
pub mod field_spec;
pub mod parse;
pub mod state;
pub mod svg_export;
pub mod views;
pub mod worker_client;
pub mod worker_handler;
pub mod worker_protocol;

pub use app::App;

/// The allocator of every page: lol_alloc's free list (sorted, coalescing), 1.4 KB of gzipped
/// wasm less than Rust's default dlmalloc (docs/size.md). Pages allocate little and briefly
/// (the benchmark in `./dev.sh bench` measures it).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: lol_alloc::LockedAllocator<lol_alloc::FreeListAllocator> =
    lol_alloc::LockedAllocator::new(lol_alloc::FreeListAllocator::new());
pub use components::chart_canvas_draw as draw_chart;
pub use svg_export::chart_svg;

/// Mounts the page of `view` on `<body>`: [`App`] around `render()`. Each page's bin (see
/// [`views`]) calls this with its own view only, so a page's wasm holds one view.
pub fn start_page(view: views::View, render: fn() -> leptos::prelude::AnyView) {
    // With panic = "abort" a panic would otherwise surface only as "unreachable" in the console.
    std::panic::set_hook(Box::new(|info| gloo::console::error!(info.to_string())));
    leptos::mount::mount_to_body(move || leptos::view! { <App view=view>{render()}</App> });
}
