//! Points and lines on linear or logarithmic axes, with labelled vertical marks: the
//! training view's MFU against per-device batch (critical batches marked) and its
//! memory-against-step-time scatter (HBM marked). One drawing function serves both, so
//! the page compiles it once. Data first, drawing below.

use crate::axis::TickedAxis;
use crate::theme::{self, Rgb};
use crate::ticks::{linear_ticks, log_ticks};
use crate::ChartError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// An axis: its ends, its ticks and their labels (computed here, so tests see them).
#[derive(Clone, Debug, PartialEq)]
pub struct XyAxis {
    /// What it measures, with the unit.
    pub label: String,
    /// Start (a tick).
    pub min: f64,
    /// End (a tick).
    pub max: f64,
    /// Tick positions.
    pub ticks: Vec<f64>,
    /// One label per tick.
    pub tick_labels: Vec<String>,
    /// Logarithmic (else linear).
    pub log: bool,
}

/// A linear tick value with as many decimals as its step needs: `20`, `0.5`, `2.5`, `0.25`;
/// zero is `0`.
#[must_use]
pub fn tick_label(v: f64, step: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let power = if step > 0.0 && step.is_finite() { step.log10().floor() } else { 0.0 };
    let mantissa = step / 10f64.powf(power);
    let decimals = (-power + if (mantissa - 2.5).abs() < 1e-9 { 1.0 } else { 0.0 }).max(0.0);
    crate::format::grouped(v, decimals.min(12.0) as usize)
}

impl XyAxis {
    /// A linear axis from 0 covering `data_max`, ticks labelled with the decimals their
    /// step needs ([`tick_label`]).
    #[must_use]
    pub fn linear(label: impl Into<String>, data_max: f64) -> Self {
        let t = linear_ticks(data_max, 6);
        let tick_labels = t.values.iter().map(|v| tick_label(*v, t.step)).collect();
        Self { label: label.into(), min: 0.0, max: t.max, ticks: t.values, tick_labels, log: false }
    }

    /// A logarithmic axis over powers of `base` covering `lo..hi`, ticks labelled by `fmt`.
    #[must_use]
    pub fn log(label: impl Into<String>, lo: f64, hi: f64, base: f64, fmt: fn(f64) -> String) -> Self {
        let t = log_ticks(lo, hi, base, 10);
        let tick_labels = t.values.iter().map(|v| fmt(*v)).collect();
        Self { label: label.into(), min: t.min, max: t.max, ticks: t.values, tick_labels, log: true }
    }

    /// Whether `v` is drawable on the axis (positive on a log axis, finite).
    #[must_use]
    pub fn shows(&self, v: f64) -> bool {
        v.is_finite() && (!self.log || v > 0.0)
    }

    fn ranged(&self) -> TickedAxis {
        if self.log {
            TickedAxis::log(self.min, self.max, self.ticks.clone())
        } else {
            TickedAxis::linear(self.min, self.max, self.ticks.clone())
        }
    }

    /// The label of the tick at `v` (empty off the ticks).
    fn tick_label(&self, v: f64) -> String {
        let tolerance = 1e-9 * self.max.abs().max(1e-300);
        self.ticks
            .iter()
            .position(|t| (t - v).abs() <= tolerance)
            .and_then(|i| self.tick_labels.get(i).cloned())
            .unwrap_or_default()
    }
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XyStyle {
    /// A line through the points.
    Line,
    /// Dots.
    Points,
    /// A line with a dot at each point.
    LineAndPoints,
}

/// One series.
#[derive(Clone, Debug, PartialEq)]
pub struct XySeries {
    /// Legend text.
    pub name: String,
    /// Colour.
    pub color: Rgb,
    /// How it is drawn.
    pub style: XyStyle,
    /// (x, y), in the axes' units.
    pub points: Vec<(f64, f64)>,
}

/// A labelled vertical line at `x`.
#[derive(Clone, Debug, PartialEq)]
pub struct XyMark {
    /// Where, in x units.
    pub x: f64,
    /// What it is.
    pub label: String,
    /// Colour.
    pub color: Rgb,
}

/// A chart of points and lines with vertical marks.
#[derive(Clone, Debug, PartialEq)]
pub struct XyChart {
    /// Caption.
    pub title: String,
    /// Horizontal axis.
    pub x: XyAxis,
    /// Vertical axis.
    pub y: XyAxis,
    /// The series, drawn in order.
    pub series: Vec<XySeries>,
    /// Vertical marks (those outside the x axis are left out of the drawing).
    pub marks: Vec<XyMark>,
}

impl XyChart {
    /// Pixel size (width × height).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (theme::WIDTH, 420)
    }

    /// The marks inside the x axis.
    #[must_use]
    pub fn visible_marks(&self) -> Vec<&XyMark> {
        let (lo, hi) = (self.x.min.min(self.x.max), self.x.max.max(self.x.min));
        self.marks.iter().filter(|m| self.x.shows(m.x) && m.x >= lo && m.x <= hi).collect()
    }
}

/// Draws an [`XyChart`] on `area` (any plotters backend).
///
/// # Errors
/// [`ChartError::Draw`] when the backend fails.
pub fn draw_xy<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &XyChart) -> Result<(), ChartError> {
    area.fill(&WHITE).map_err(ChartError::draw)?;
    let (header, body) = area.split_vertically(theme::HEADER_PX);
    let entries: Vec<(&str, Rgb)> = chart.series.iter().map(|s| (s.name.as_str(), s.color)).collect();
    theme::draw_header(&header, &chart.title, &entries)?;
    let ink = theme::INK.plotters();
    let label_style = (theme::FONT, theme::LABEL_PX).into_font().color(&ink);
    let mut ctx = ChartBuilder::on(&body)
        .margin(12)
        .margin_top(18)
        .margin_right(28)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(chart.x.ranged(), chart.y.ranged())
        .map_err(ChartError::draw)?;
    let x_fmt = |v: &f64| chart.x.tick_label(*v);
    let y_fmt = |v: &f64| chart.y.tick_label(*v);
    ctx.configure_mesh()
        .bold_line_style(theme::GRID.plotters())
        .axis_style(ink)
        .label_style(label_style.clone())
        .axis_desc_style(label_style.clone())
        .x_desc(chart.x.label.as_str())
        .y_desc(chart.y.label.as_str())
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .draw()
        .map_err(ChartError::draw)?;

    for (i, mark) in chart.visible_marks().into_iter().enumerate() {
        let color = mark.color.plotters();
        ctx.draw_series(DashedLineSeries::new([(mark.x, chart.y.min), (mark.x, chart.y.max)], 6, 4, color.stroke_width(1)))
            .map_err(ChartError::draw)?;
        // Labels stack down from the top so that neighbouring marks do not overprint.
        let y = if chart.y.log {
            chart.y.max / (chart.y.max / chart.y.min).powf(0.07 * (i as f64 + 1.0))
        } else {
            chart.y.max - (chart.y.max - chart.y.min) * 0.07 * i as f64
        };
        let style = label_style.clone().color(&color).pos(Pos::new(HPos::Left, VPos::Top));
        ctx.draw_series([Text::new(format!(" {}", mark.label), (mark.x, y), style)]).map_err(ChartError::draw)?;
    }
    for s in &chart.series {
        let color = s.color.plotters();
        let points: Vec<(f64, f64)> = s.points.iter().copied().filter(|(x, y)| chart.x.shows(*x) && chart.y.shows(*y)).collect();
        if matches!(s.style, XyStyle::Line | XyStyle::LineAndPoints) {
            ctx.draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2))).map_err(ChartError::draw)?;
        }
        if matches!(s.style, XyStyle::Points | XyStyle::LineAndPoints) {
            ctx.draw_series(points.iter().map(|p| Circle::new(*p, 3, color.filled()))).map_err(ChartError::draw)?;
        }
    }
    area.present().map_err(ChartError::draw)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(v: f64) -> String {
        crate::format::significant(v, 3)
    }

    #[test]
    fn axes_cover_the_data_and_label_every_tick() {
        let a = XyAxis::linear("GB", 87.3);
        assert_eq!((a.min, a.max), (0.0, 100.0));
        assert_eq!(a.ticks.len(), a.tick_labels.len());
        assert_eq!(a.tick_label(20.0), "20");
        assert_eq!(XyAxis::linear("s", 2.7).tick_labels, ["0", "0.5", "1.0", "1.5", "2.0", "2.5", "3.0"]);
        assert_eq!(super::tick_label(7.5, 2.5), "7.5");
        assert_eq!(super::tick_label(1_250_000.0, 250_000.0), "1,250,000");
        assert_eq!(a.tick_label(21.0), "");
        let l = XyAxis::log("tokens", 100.0, 70_000.0, 10.0, fmt);
        assert_eq!((l.min, l.max), (100.0, 100_000.0));
        assert!(l.shows(5.0) && !l.shows(0.0) && !l.shows(f64::NAN));
    }

    #[test]
    fn marks_off_the_axis_are_not_drawn() {
        let chart = XyChart {
            title: "t".into(),
            x: XyAxis::log("x", 10.0, 1000.0, 10.0, fmt),
            y: XyAxis::linear("y", 1.0),
            series: Vec::new(),
            marks: vec![
                XyMark { x: 50.0, label: "in".into(), color: theme::BLUE },
                XyMark { x: 5.0, label: "below".into(), color: theme::BLUE },
                XyMark { x: f64::INFINITY, label: "nowhere".into(), color: theme::BLUE },
            ],
        };
        let shown: Vec<&str> = chart.visible_marks().iter().map(|m| m.label.as_str()).collect();
        assert_eq!(shown, ["in"]);
    }
}
