//! Any chart as an SVG document (plotters' SVG backend): the page's "Download SVG" and,
//! later, `shardcalc chart` in the CLI.

use crate::{Chart, ChartError};
use plotters::prelude::{IntoDrawingArea, SVGBackend};

/// Renders `chart` at its own size into an SVG string.
///
/// # Errors
/// [`ChartError::Draw`] when plotters fails.
pub fn to_svg(chart: &Chart) -> Result<String, ChartError> {
    // Charts laid out as a scene write their own SVG (the same file the page downloads).
    if let Some(scene) = chart.scene() {
        return Ok(scene.to_svg());
    }
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, chart.size()).into_drawing_area();
        chart.draw(&root)?;
        // `draw` presents; the backend writes the closing tag when dropped here.
    }
    Ok(out)
}
