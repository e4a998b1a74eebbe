//! The charts a page can draw on its canvas ([`DrawableChart`]).
//!
//! Most charts are laid out as a `shardcalc_charts::scene::Scene` and painted on the canvas
//! by [`paint_scene`] (the canvas's own 2d calls: no plotters on the page, about 10 KB of
//! gzipped wasm less on the training page; docs/size.md, "Charts as scenes"). The validation
//! page's scatter and residuals are still drawn by plotters, on [`MeasuredCanvas`], and only
//! that page links it. The SVG download is rendered by the background worker from the chart
//! catalog (`crate::svg_export`).

use plotters::prelude::IntoDrawingArea;
use shardcalc_charts::bars::BarChart;
use shardcalc_charts::lines::SeqLenChart;
use shardcalc_charts::residuals::{draw_residuals, ResidualChart};
use shardcalc_charts::scatter::{draw_scatter, ScatterChart};
use shardcalc_charts::xy::XyChart;
use shardcalc_charts::{Chart, ChartError};
use web_sys::HtmlCanvasElement;

use super::measured_canvas::MeasuredCanvas;
use super::scene_chart::paint_scene;

/// A chart the page can draw: its pixel size, its title, and its drawing on a canvas of that
/// size. A view passes the kind it shows (e.g. [`XyChart`]), so the other kinds' drawing
/// code stays out of its page.
pub trait DrawableChart: Clone + PartialEq + Send + Sync + 'static {
    /// Width × height in pixels.
    fn size(&self) -> (u32, u32);
    /// The caption (the canvas's accessible name).
    fn title(&self) -> String;
    /// Draws on `canvas`, which has [`DrawableChart::size`].
    ///
    /// # Errors
    /// [`ChartError`] when the canvas has no 2d context or a drawing call fails.
    fn draw_on(&self, canvas: &HtmlCanvasElement) -> Result<(), ChartError>;
}

/// Draws with plotters on `canvas` (the charts not laid out as scenes).
fn draw_with_plotters(
    canvas: &HtmlCanvasElement,
    draw: impl FnOnce(&plotters::prelude::DrawingArea<MeasuredCanvas, plotters::coord::Shift>) -> Result<(), ChartError>,
) -> Result<(), ChartError> {
    let backend = MeasuredCanvas::new(canvas.clone()).ok_or(ChartError::NoContext)?;
    draw(&backend.into_drawing_area())
}

impl DrawableChart for Chart {
    fn size(&self) -> (u32, u32) {
        Chart::size(self)
    }
    fn title(&self) -> String {
        Chart::title(self).to_string()
    }
    fn draw_on(&self, canvas: &HtmlCanvasElement) -> Result<(), ChartError> {
        match self.scene() {
            Some(scene) => paint_scene(canvas, &scene),
            None => draw_with_plotters(canvas, |area| self.draw(area)),
        }
    }
}

impl DrawableChart for BarChart {
    fn size(&self) -> (u32, u32) {
        BarChart::size(self)
    }
    fn title(&self) -> String {
        self.title.clone()
    }
    fn draw_on(&self, canvas: &HtmlCanvasElement) -> Result<(), ChartError> {
        paint_scene(canvas, &self.scene())
    }
}

impl DrawableChart for SeqLenChart {
    fn size(&self) -> (u32, u32) {
        SeqLenChart::size(self)
    }
    fn title(&self) -> String {
        self.title.clone()
    }
    fn draw_on(&self, canvas: &HtmlCanvasElement) -> Result<(), ChartError> {
        paint_scene(canvas, &self.scene())
    }
}

impl DrawableChart for XyChart {
    fn size(&self) -> (u32, u32) {
        XyChart::size(self)
    }
    fn title(&self) -> String {
        self.title.clone()
    }
    fn draw_on(&self, canvas: &HtmlCanvasElement) -> Result<(), ChartError> {
        paint_scene(canvas, &self.scene())
    }
}

impl DrawableChart for ScatterChart {
    fn size(&self) -> (u32, u32) {
        ScatterChart::size(self)
    }
    fn title(&self) -> String {
        self.title.clone()
    }
    fn draw_on(&self, canvas: &HtmlCanvasElement) -> Result<(), ChartError> {
        draw_with_plotters(canvas, |area| draw_scatter(area, self))
    }
}

impl DrawableChart for ResidualChart {
    fn size(&self) -> (u32, u32) {
        ResidualChart::size(self)
    }
    fn title(&self) -> String {
        self.title.clone()
    }
    fn draw_on(&self, canvas: &HtmlCanvasElement) -> Result<(), ChartError> {
        draw_with_plotters(canvas, |area| draw_residuals(area, self))
    }
}
