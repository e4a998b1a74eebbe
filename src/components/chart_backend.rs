//! The charts a page can draw on its canvas ([`DrawableChart`]).
//!
//! The chart drawing code in `shardcalc-charts` is generic over the backend; the page draws
//! only on [`MeasuredCanvas`] (the SVG download is rendered by the background worker from the
//! chart catalog, `crate::svg_export`), so each kind of chart is compiled once. A view that
//! shows only one kind of chart (e.g. [`XyChart`]) passes that kind to `ChartCanvas`, so the
//! other kinds' drawing code stays out of its page.

use plotters::coord::Shift;
use plotters::prelude::DrawingArea;
use shardcalc_charts::bars::{draw_bars, BarChart};
use shardcalc_charts::lines::{draw_seq_len, SeqLenChart};
use shardcalc_charts::residuals::{draw_residuals, ResidualChart};
use shardcalc_charts::scatter::{draw_scatter, ScatterChart};
use shardcalc_charts::xy::{draw_xy, XyChart};
use shardcalc_charts::{Chart, ChartError};

use super::measured_canvas::MeasuredCanvas;

/// A chart the page can draw: its pixel size, its title, and its drawing on the page's
/// canvas. [`Chart`] is any chart of `shardcalc-charts`; a view that shows only one kind
/// (e.g. [`XyChart`]) draws that kind directly, so the other kinds' drawing code stays out
/// of its page.
pub trait DrawableChart: Clone + PartialEq + Send + Sync + 'static {
    /// Width × height in pixels.
    fn size(&self) -> (u32, u32);
    /// The caption (the canvas's accessible name).
    fn title(&self) -> String;
    /// Draws on `area`, which has [`DrawableChart::size`].
    ///
    /// # Errors
    /// [`ChartError::Draw`] when the backend fails.
    fn draw_on(&self, area: &DrawingArea<MeasuredCanvas, Shift>) -> Result<(), ChartError>;
}

impl DrawableChart for Chart {
    fn size(&self) -> (u32, u32) {
        Chart::size(self)
    }
    fn title(&self) -> String {
        Chart::title(self).to_string()
    }
    fn draw_on(&self, area: &DrawingArea<MeasuredCanvas, Shift>) -> Result<(), ChartError> {
        self.draw(area)
    }
}

impl DrawableChart for BarChart {
    fn size(&self) -> (u32, u32) {
        BarChart::size(self)
    }
    fn title(&self) -> String {
        self.title.clone()
    }
    fn draw_on(&self, area: &DrawingArea<MeasuredCanvas, Shift>) -> Result<(), ChartError> {
        draw_bars(area, self)
    }
}

impl DrawableChart for SeqLenChart {
    fn size(&self) -> (u32, u32) {
        SeqLenChart::size(self)
    }
    fn title(&self) -> String {
        self.title.clone()
    }
    fn draw_on(&self, area: &DrawingArea<MeasuredCanvas, Shift>) -> Result<(), ChartError> {
        draw_seq_len(area, self)
    }
}

impl DrawableChart for ScatterChart {
    fn size(&self) -> (u32, u32) {
        ScatterChart::size(self)
    }
    fn title(&self) -> String {
        self.title.clone()
    }
    fn draw_on(&self, area: &DrawingArea<MeasuredCanvas, Shift>) -> Result<(), ChartError> {
        draw_scatter(area, self)
    }
}

impl DrawableChart for ResidualChart {
    fn size(&self) -> (u32, u32) {
        ResidualChart::size(self)
    }
    fn title(&self) -> String {
        self.title.clone()
    }
    fn draw_on(&self, area: &DrawingArea<MeasuredCanvas, Shift>) -> Result<(), ChartError> {
        draw_residuals(area, self)
    }
}

impl DrawableChart for XyChart {
    fn size(&self) -> (u32, u32) {
        XyChart::size(self)
    }
    fn title(&self) -> String {
        self.title.clone()
    }
    fn draw_on(&self, area: &DrawingArea<MeasuredCanvas, Shift>) -> Result<(), ChartError> {
        draw_xy(area, self)
    }
}
