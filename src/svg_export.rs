//! A chart as an SVG document ("Download SVG"): `shardcalc_charts::svg::to_svg`, byte for byte
//! what `shardcalc chart` writes for the same scenario (text sized by plotters' font-less
//! estimate on every platform, so no styled `<span>` is measured and the page's CSP holds).
//!
//! Runs in the background worker (`src/bin/worker.rs`, through `crate::worker_handler`), so
//! the pages link no SVG code; the lib re-exports it as `shardcalc::chart_svg` for the tests.

use shardcalc_charts::{Chart, ChartError};

/// `chart` at its own size as an SVG string.
///
/// # Errors
/// [`ChartError::Draw`] when plotters fails.
pub fn chart_svg(chart: &Chart) -> Result<String, ChartError> {
    shardcalc_charts::svg::to_svg(chart)
}
