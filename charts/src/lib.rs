//! shardcalc's charts: data computed from `shardcalc-core` reports, laid out in pixels.
//!
//! Each chart is data first — a plain struct with its series, axis bounds, ticks and labels,
//! computed from `shardcalc-core` types by a tested function — and a layout: a
//! [`scene::Scene`] of lines, circles, rectangles and text, which the page paints on a
//! `<canvas>` without plotters and [`svg::to_svg`] writes as SVG (downloads and the CLI).
//! The validation page's scatter and residuals are still drawn with plotters (its
//! `ChartBuilder`), on any [`plotters::prelude::DrawingBackend`].
//!
//! | chart | data | layout |
//! |---|---|---|
//! | parameters per component, total vs active | [`bars::param_breakdown`] | [`bars::BarChart::scene`] |
//! | training TFLOPs per component, one convention | [`bars::flop_breakdown`] | [`bars::BarChart::scene`] |
//! | forward FLOPs per token vs sequence length | [`lines::flops_vs_seq_len_chart`] | [`lines::SeqLenChart::scene`] |
//! | serving: latency vs throughput, step breakdown, KV memory, prefill:decode ratio | [`serving`] | [`xy::XyChart::scene`] |
//! | predicted vs measured MFU of the published runs | [`scatter::validation_scatter`] | [`scatter::draw_scatter`] (plotters) |
//! | MFU error by chip generation | [`residuals::validation_residuals`] | [`residuals::draw_residuals`] (plotters) |
//! | roofline: attainable FLOP/s vs arithmetic intensity | [`roofline::roofline_chart`] | [`roofline::RooflineChart::scene`] |
//! | collective time vs array size | [`collective_times::collective_times_chart`] | [`collective_times::CollectiveTimesChart::scene`] |
//! | training: step-time and memory breakdowns | [`training::step`], [`training::memory`] | [`bars::BarChart::scene`] |
//! | training: MFU vs tokens per device, memory vs step time | [`training::mfu`], [`training::pareto`] | [`xy::XyChart::scene`] |
//!
//! [`catalog`] names every chart and builds it from a scenario (the CLI's `chart` command, embeds).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod axis;
pub mod bars;
pub mod catalog;
pub mod collective_times;
pub mod format;
pub mod frame;
pub mod lines;
pub mod residuals;
pub mod roofline;
pub mod scatter;
pub mod scene;
pub mod serving;
pub mod serving_validation;
#[cfg(feature = "svg")]
pub mod svg;
pub mod table;
pub mod theme;
pub mod ticks;
pub mod training;
pub mod xy;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use std::fmt;

pub use bars::{flop_breakdown, param_breakdown, BarChart};
pub use collective_times::{collective_times_chart, CollectiveTimesChart};
pub use lines::{flops_vs_seq_len_chart, SeqLenChart};
pub use roofline::{roofline_chart, RooflineChart};

/// Any of the charts, so a shell can hold and draw them uniformly.
#[derive(Clone, Debug, PartialEq)]
pub enum Chart {
    /// A horizontal bar chart.
    Bars(BarChart),
    /// FLOPs per token vs sequence length.
    SeqLen(SeqLenChart),
    /// Lines and points on x–y axes (the serving charts, training's MFU and Pareto charts).
    Xy(xy::XyChart),
    /// Predicted vs measured MFU.
    Scatter(scatter::ScatterChart),
    /// MFU error by chip.
    Residuals(residuals::ResidualChart),
    /// A chart already laid out in pixels ([`scene::Scene`]): the roofline and the
    /// collective-time chart. Pages show these as SVG without plotters, and a page that
    /// draws other charts links only [`scene::Scene::draw`], not their layout code.
    Scene(scene::Scene),
}

impl Chart {
    /// Pixel size the chart is laid out for (width × height).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        match self {
            Chart::Bars(c) => c.size(),
            Chart::SeqLen(c) => c.size(),
            Chart::Xy(c) => c.size(),
            Chart::Scatter(c) => c.size(),
            Chart::Residuals(c) => c.size(),
            Chart::Scene(s) => (s.width, s.height),
        }
    }

    /// The caption.
    #[must_use]
    pub fn title(&self) -> &str {
        match self {
            Chart::Bars(c) => &c.title,
            Chart::SeqLen(c) => &c.title,
            Chart::Xy(c) => &c.title,
            Chart::Scatter(c) => &c.title,
            Chart::Residuals(c) => &c.title,
            Chart::Scene(s) => &s.title,
        }
    }

    /// The chart laid out in pixels, for every kind laid out that way (all but the
    /// validation page's scatter and residuals, which plotters lays out).
    #[must_use]
    pub fn scene(&self) -> Option<scene::Scene> {
        match self {
            Chart::Bars(c) => Some(c.scene()),
            Chart::SeqLen(c) => Some(c.scene()),
            Chart::Xy(c) => Some(c.scene()),
            Chart::Scatter(_) | Chart::Residuals(_) => None,
            Chart::Scene(s) => Some(s.clone()),
        }
    }

    /// Draws the chart on `area`, which should have [`Chart::size`].
    ///
    /// # Errors
    /// [`ChartError::Draw`] when the backend fails.
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), ChartError> {
        match self {
            Chart::Scatter(c) => scatter::draw_scatter(area, c),
            Chart::Residuals(c) => residuals::draw_residuals(area, c),
            chart => chart.scene().map_or(Ok(()), |s| s.draw(area)),
        }
    }
}

/// Why a chart could not be drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChartError {
    /// The target has no 2d drawing context (e.g. a canvas that already has a WebGL one).
    NoContext,
    /// The plotters backend reported an error.
    Draw(String),
}

impl ChartError {
    /// Wraps any backend error.
    pub fn draw(err: impl fmt::Display) -> Self {
        ChartError::Draw(err.to_string())
    }
}

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChartError::NoContext => f.write_str("chart: the canvas has no 2d context"),
            ChartError::Draw(msg) => write!(f, "chart: {msg}"),
        }
    }
}

impl std::error::Error for ChartError {}
