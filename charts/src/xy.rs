//! Lines on x–y axes, linear or logarithmic, with reference rules and marked points: the
//! serving charts (latency against throughput, step time against batch, memory against
//! context, server ratio against prompt length). Data first — axes with their ticks and tick
//! labels already computed, series in chart coordinates — and one drawing function below.

use crate::axis::TickedAxis;
use crate::theme::{self, Rgb};
use crate::ticks::{linear_ticks, log_ticks};
use crate::ChartError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One axis: its range, ticks and the label of every tick.
#[derive(Clone, Debug, PartialEq)]
pub struct XyAxis {
    /// What it measures, with the unit.
    pub label: String,
    /// Logarithmic (else linear).
    pub log: bool,
    /// Start.
    pub min: f64,
    /// End.
    pub max: f64,
    /// Tick positions.
    pub ticks: Vec<f64>,
    /// One label per tick.
    pub tick_labels: Vec<String>,
}

impl XyAxis {
    /// A linear axis from 0 covering `data_max`, with about `target` intervals.
    #[must_use]
    pub fn linear(label: &str, data_max: f64, target: usize, fmt: fn(f64) -> String) -> Self {
        let t = linear_ticks(data_max, target);
        let tick_labels = t.values.iter().map(|v| fmt(*v)).collect();
        Self { label: label.into(), log: false, min: 0.0, max: t.max, ticks: t.values, tick_labels }
    }

    /// A logarithmic axis on powers of `base` covering `lo..hi` (positive).
    #[must_use]
    pub fn log(label: &str, lo: f64, hi: f64, base: f64, fmt: fn(f64) -> String) -> Self {
        let t = log_ticks(lo, hi, base, 10);
        let tick_labels = t.values.iter().map(|v| fmt(*v)).collect();
        Self { label: label.into(), log: true, min: t.min, max: t.max, ticks: t.values, tick_labels }
    }

    /// The label of the tick nearest `v` (the drawing asks only at ticks).
    #[must_use]
    pub fn label_at(&self, v: f64) -> String {
        let distance = |t: f64| if self.log { (t.ln() - v.ln()).abs() } else { (t - v).abs() };
        self.ticks
            .iter()
            .zip(&self.tick_labels)
            .min_by(|a, b| distance(*a.0).total_cmp(&distance(*b.0)))
            .map(|(_, l)| l.clone())
            .unwrap_or_default()
    }

    /// Whether `v` can be drawn on this axis (finite, and positive on a log axis).
    #[must_use]
    pub fn accepts(&self, v: f64) -> bool {
        v.is_finite() && (!self.log || v > 0.0)
    }

    fn ticked(&self) -> TickedAxis {
        if self.log {
            TickedAxis::log(self.min, self.max, self.ticks.clone())
        } else {
            TickedAxis::linear(self.min, self.max, self.ticks.clone())
        }
    }
}

/// One line.
#[derive(Clone, Debug, PartialEq)]
pub struct XySeries {
    /// Legend text.
    pub name: String,
    /// Stroke colour.
    pub color: Rgb,
    /// Points in chart coordinates, in drawing order (only drawable ones).
    pub points: Vec<(f64, f64)>,
    /// Stroke width in pixels.
    pub width: u32,
    /// Dashed (else solid).
    pub dashed: bool,
}

/// A horizontal or vertical reference line across the plot, labelled.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// y for a horizontal rule, x for a vertical one.
    pub value: f64,
    /// Vertical (else horizontal).
    pub vertical: bool,
    /// Text next to it.
    pub label: String,
    /// Colour.
    pub color: Rgb,
}

/// A marked point with its label (the scenario's operating point).
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// Where, in chart coordinates.
    pub at: (f64, f64),
    /// Text next to it.
    pub label: String,
    /// Colour.
    pub color: Rgb,
}

/// Lines on two axes.
#[derive(Clone, Debug, PartialEq)]
pub struct XyChart {
    /// Caption.
    pub title: String,
    /// Horizontal axis.
    pub x: XyAxis,
    /// Vertical axis.
    pub y: XyAxis,
    /// The lines, drawn in order (later on top).
    pub series: Vec<XySeries>,
    /// Reference lines.
    pub rules: Vec<Rule>,
    /// Marked points.
    pub markers: Vec<Marker>,
    /// A sentence for the caption under the chart (what is left out and why), if any.
    pub note: Option<String>,
}

impl XyChart {
    /// Pixel size (width × height).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (theme::WIDTH, 400)
    }

    /// Drops the points an axis cannot show (log of non-positive, non-finite), and rules and
    /// markers likewise; every remaining value lies on the axes' ranges when they were built
    /// from the same data.
    #[must_use]
    pub fn drawable(mut self) -> Self {
        let (x, y) = (self.x.clone(), self.y.clone());
        for s in &mut self.series {
            s.points.retain(|&(a, b)| x.accepts(a) && y.accepts(b));
        }
        self.rules.retain(|r| if r.vertical { x.accepts(r.value) } else { y.accepts(r.value) });
        self.markers.retain(|m| x.accepts(m.at.0) && y.accepts(m.at.1));
        self
    }
}

/// Smallest and largest of `values` that `accepts` keeps, or `None` if none.
#[must_use]
pub fn extent(values: impl IntoIterator<Item = f64>, accepts: impl Fn(f64) -> bool) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| accepts(*v))
        .fold(None, |acc, v| Some(acc.map_or((v, v), |(lo, hi): (f64, f64)| (lo.min(v), hi.max(v)))))
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
        .margin_top(4)
        .margin_right(28)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(chart.x.ticked(), chart.y.ticked())
        .map_err(ChartError::draw)?;
    let x_fmt = |v: &f64| chart.x.label_at(*v);
    let y_fmt = |v: &f64| chart.y.label_at(*v);
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

    for r in &chart.rules {
        let color = r.color.plotters();
        let (ends, at, pos) = if r.vertical {
            ([(r.value, chart.y.min), (r.value, chart.y.max)], (r.value, chart.y.max), Pos::new(HPos::Left, VPos::Top))
        } else {
            ([(chart.x.min, r.value), (chart.x.max, r.value)], (chart.x.min, r.value), Pos::new(HPos::Left, VPos::Bottom))
        };
        ctx.draw_series(DashedLineSeries::new(ends, 6, 4, color.stroke_width(1))).map_err(ChartError::draw)?;
        let style = label_style.clone().color(&color).pos(pos);
        ctx.draw_series([Text::new(format!(" {}", r.label), at, style)]).map_err(ChartError::draw)?;
    }
    for s in &chart.series {
        let style = s.color.plotters().stroke_width(s.width);
        if s.dashed {
            ctx.draw_series(DashedLineSeries::new(s.points.iter().copied(), 8, 5, style)).map_err(ChartError::draw)?;
        } else {
            ctx.draw_series(LineSeries::new(s.points.iter().copied(), style)).map_err(ChartError::draw)?;
        }
        if s.points.len() == 1 {
            ctx.draw_series(s.points.iter().map(|p| Circle::new(*p, 3, style.filled()))).map_err(ChartError::draw)?;
        }
    }
    for m in &chart.markers {
        let color = m.color.plotters();
        ctx.draw_series([Circle::new(m.at, 5, color.filled())]).map_err(ChartError::draw)?;
        // Label to the left of points in the right half, so it stays inside the plot.
        let right_half = chart.x.ticked().fraction(m.at.0) > 0.6;
        let (h, text) = if right_half { (HPos::Right, format!("{}  ", m.label)) } else { (HPos::Left, format!("  {}", m.label)) };
        let style = label_style.clone().pos(Pos::new(h, VPos::Bottom));
        ctx.draw_series([Text::new(text, m.at, style)]).map_err(ChartError::draw)?;
    }
    area.present().map_err(ChartError::draw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format;

    fn fmt(v: f64) -> String {
        format::significant(v, 3)
    }

    #[test]
    fn axes_label_their_ticks() {
        let a = XyAxis::linear("ms", 17.3, 5, fmt);
        assert_eq!((a.min, a.max), (0.0, 20.0));
        assert_eq!(a.ticks.len(), a.tick_labels.len());
        assert_eq!(a.label_at(10.0), "10.0");
        let l = XyAxis::log("tokens", 128.0, 1_048_576.0, 2.0, |v| format::tokens(v as u64));
        assert!(l.log && l.min == 128.0 && l.max >= 1_048_576.0);
        assert_eq!(l.label_at(l.max), format::tokens(l.max as u64));
        assert!(!l.accepts(0.0) && l.accepts(1.0) && !a.accepts(f64::NAN) && a.accepts(-1.0));
    }

    #[test]
    fn drawable_drops_what_a_log_axis_cannot_show() {
        let axis = XyAxis::log("x", 1.0, 100.0, 10.0, fmt);
        let c = XyChart {
            title: "t".into(),
            x: axis.clone(),
            y: axis,
            series: vec![XySeries { name: "s".into(), color: theme::BLUE, points: vec![(0.0, 1.0), (2.0, 3.0), (4.0, f64::NAN)], width: 2, dashed: false }],
            rules: vec![Rule { value: -1.0, vertical: true, label: "no".into(), color: theme::INK }],
            markers: vec![Marker { at: (10.0, 10.0), label: "me".into(), color: theme::INK }],
            note: None,
        }
        .drawable();
        assert_eq!(c.series[0].points, [(2.0, 3.0)]);
        assert!(c.rules.is_empty());
        assert_eq!(c.markers.len(), 1);
        assert_eq!(extent([3.0, -1.0, 7.0, f64::NAN], |v| v > 0.0), Some((3.0, 7.0)));
        assert_eq!(extent([], |_| true), None);
    }
}
