//! shardcalc's charts, drawn with plotters on any backend.
//!
//! Each chart is data first — a plain struct with its series, axis bounds, ticks and labels,
//! computed from `shardcalc-core` types by a tested function — and a thin drawing function
//! generic over [`plotters::prelude::DrawingBackend`]. The page draws on a `<canvas>`
//! (plotters-canvas); [`svg::to_svg`] renders the same chart to an SVG string for downloads
//! and for the CLI.
//!
//! | chart | data | drawing |
//! |---|---|---|
//! | parameters per component, total vs active | [`bars::param_breakdown`] | [`bars::draw_bars`] |
//! | training TFLOPs per component, one convention | [`bars::flop_breakdown`] | [`bars::draw_bars`] |
//! | forward FLOPs per token vs sequence length | [`lines::flops_vs_seq_len_chart`] | [`lines::draw_seq_len`] |
//! | serving: latency vs throughput, step breakdown, KV memory, prefill:decode ratio | [`serving`] | [`xy::draw_xy`] |
//! | predicted vs measured MFU of the published runs | [`scatter::validation_scatter`] | [`scatter::draw_scatter`] |
//! | MFU error by chip generation | [`residuals::validation_residuals`] | [`residuals::draw_residuals`] |
//! | roofline: attainable FLOP/s vs arithmetic intensity | [`roofline::roofline_chart`] | [`roofline::RooflineChart::scene`], then [`scene::Scene`] (SVG text or plotters) |
//! | collective time vs array size | [`collective_times::collective_times_chart`] | [`collective_times::CollectiveTimesChart::scene`], then [`scene::Scene`] |
//! | training: step-time and memory breakdowns | [`training::step`], [`training::memory`] | [`bars::draw_bars`] |
//! | training: MFU vs tokens per device, memory vs step time | [`training::mfu`], [`training::pareto`] | [`xy::draw_xy`] |
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

    /// The chart's scene, for the charts laid out that way (the hardware page's).
    #[must_use]
    pub fn scene(&self) -> Option<&scene::Scene> {
        match self {
            Chart::Scene(s) => Some(s),
            _ => None,
        }
    }

    /// Draws the chart on `area`, which should have [`Chart::size`].
    ///
    /// # Errors
    /// [`ChartError::Draw`] when the backend fails.
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), ChartError> {
        match self {
            Chart::Bars(c) => bars::draw_bars(area, c),
            Chart::SeqLen(c) => lines::draw_seq_len(area, c),
            Chart::Xy(c) => xy::draw_xy(area, c),
            Chart::Scatter(c) => scatter::draw_scatter(area, c),
            Chart::Residuals(c) => residuals::draw_residuals(area, c),
            Chart::Scene(s) => s.draw(area),
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
