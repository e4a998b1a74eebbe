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
//! | training: step-time and memory breakdowns | [`training::step`], [`training::memory`] | [`bars::draw_bars`] |
//! | training: MFU vs tokens per device, memory vs step time | [`training::mfu`], [`training::pareto`] | [`xy::draw_xy`] |
//!
//! [`markup`] writes bar and XY charts as SVG markup without plotters (the training page's
//! charts, so that page does not link plotters' drawing).
//!
//! [`catalog`] names every chart and builds it from a scenario (the CLI's `chart` command, embeds).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod axis;
pub mod bars;
pub mod catalog;
pub mod format;
pub mod lines;
pub mod markup;
#[cfg(feature = "svg")]
pub mod svg;
pub mod theme;
pub mod ticks;
pub mod training;
pub mod xy;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use std::fmt;

pub use bars::{flop_breakdown, param_breakdown, BarChart};
pub use lines::{flops_vs_seq_len_chart, SeqLenChart};

/// Any of the charts, so a shell can hold and draw them uniformly.
#[derive(Clone, Debug, PartialEq)]
pub enum Chart {
    /// A horizontal bar chart.
    Bars(BarChart),
    /// FLOPs per token vs sequence length.
    SeqLen(SeqLenChart),
    /// Points and lines with vertical marks.
    Xy(xy::XyChart),
}

impl Chart {
    /// Pixel size the chart is laid out for (width × height).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        match self {
            Chart::Bars(c) => c.size(),
            Chart::SeqLen(c) => c.size(),
            Chart::Xy(c) => c.size(),
        }
    }

    /// The caption.
    #[must_use]
    pub fn title(&self) -> &str {
        match self {
            Chart::Bars(c) => &c.title,
            Chart::SeqLen(c) => &c.title,
            Chart::Xy(c) => &c.title,
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
