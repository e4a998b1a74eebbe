//! Lines and points on x–y axes, linear or logarithmic, with reference rules and marked
//! points: the serving charts (latency against throughput, step time against batch, memory
//! against context, server ratio against prompt length) and the training charts (MFU against
//! tokens per device with the critical batches as rules, memory against step time with HBM as
//! a rule). Data first — axes with their ticks and tick labels already computed, series in
//! chart coordinates — and one drawing function below, so a page showing any of them compiles
//! it once.

use crate::axis::TickedAxis;
use crate::theme::{self, Rgb};
use crate::ticks::{linear_ticks, log_ticks, tick_label};
use crate::ChartError;
use plotters::coord::Shift;
use plotters::prelude::{
    Circle, Color, DrawingArea, DrawingBackend, IntoFont, PathElement, ShapeStyle, Text, TextStyle, WHITE,
};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;

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

    /// A linear axis from 0 covering `data_max` with about `target` intervals, each tick
    /// labelled with the decimals its step needs ([`tick_label`]: `0`, `0.5`, `1.0`, …).
    #[must_use]
    pub fn linear_stepped(label: &str, data_max: f64, target: usize) -> Self {
        let t = linear_ticks(data_max, target);
        let tick_labels = t.values.iter().map(|v| tick_label(*v, t.step)).collect();
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

    /// Whether `v` is drawable and within the axis' range (its ends included).
    #[must_use]
    pub fn covers(&self, v: f64) -> bool {
        self.accepts(v) && v >= self.min.min(self.max) && v <= self.max.max(self.min)
    }

    fn ticked(&self) -> TickedAxis {
        if self.log {
            TickedAxis::log(self.min, self.max, self.ticks.clone())
        } else {
            TickedAxis::linear(self.min, self.max, self.ticks.clone())
        }
    }
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XyStyle {
    /// A line through the points (a dot when there is only one).
    Line,
    /// A dot at each point, no line (a scatter).
    Points,
    /// A line with a dot at each point.
    LineAndPoints,
}

/// One line or set of points.
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
    /// Line, dots, or both.
    pub style: XyStyle,
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

    /// Drops the points an axis cannot show (log of non-positive, non-finite), rules outside
    /// the axes' ranges, and markers an axis cannot show; every remaining point and marker
    /// lies on the axes' ranges when they were built from the same data.
    #[must_use]
    pub fn drawable(mut self) -> Self {
        let (x, y) = (self.x.clone(), self.y.clone());
        for s in &mut self.series {
            s.points.retain(|&(a, b)| x.accepts(a) && y.accepts(b));
        }
        self.rules.retain(|r| if r.vertical { x.covers(r.value) } else { y.covers(r.value) });
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

/// Pixels around the plot inside the chart body: left (y labels and title), right, top,
/// bottom (x labels and title).
const PAD: (i32, i32, i32, i32) = (76, 28, 8, 56);
/// Estimated width of a label character, pixels.
const LABEL_CHAR_PX: i32 = theme::LABEL_CHAR_PX as i32;
/// Dash and gap of the reference rules, in pixels.
const DASH: (f64, f64) = (6.0, 4.0);

/// The plot rectangle in pixels and the mapping from chart coordinates into it.
struct Frame<'a> {
    chart: &'a XyChart,
    x: TickedAxis,
    y: TickedAxis,
    left: i32,
    right: i32,
    top: i32,
    bottom: i32,
}

impl Frame<'_> {
    fn px(&self, (x, y): (f64, f64)) -> (i32, i32) {
        let fx = self.x.fraction(x).clamp(-1.0, 2.0);
        let fy = self.y.fraction(y).clamp(-1.0, 2.0);
        let w = f64::from(self.right - self.left);
        let h = f64::from(self.bottom - self.top);
        // Within a few plot widths of the frame (clamped above): the casts cannot overflow.
        (self.left + (w * fx).round() as i32, self.bottom - (h * fy).round() as i32)
    }
}

/// `from`–`to` as dashes of [`DASH`].
fn dashes(from: (i32, i32), to: (i32, i32)) -> Vec<[(i32, i32); 2]> {
    let (dx, dy) = (f64::from(to.0 - from.0), f64::from(to.1 - from.1));
    let len = dx.hypot(dy);
    let mut out = Vec::new();
    let mut t = 0.0;
    while t < len {
        let end = (t + DASH.0).min(len);
        let at = |d: f64| (from.0 + (dx * d / len).round() as i32, from.1 + (dy * d / len).round() as i32);
        out.push([at(t), at(end)]);
        t += DASH.0 + DASH.1;
    }
    out
}

/// Draws an [`XyChart`] on `area` (any plotters backend) with plotters' drawing primitives
/// only (text, paths, circles): no chart builder, so a page that shows only these charts
/// does not ship plotters' chart machinery.
///
/// # Errors
/// [`ChartError::Draw`] when the backend fails.
pub fn draw_xy<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &XyChart) -> Result<(), ChartError> {
    area.fill(&WHITE).map_err(ChartError::draw)?;
    let (header, body) = area.split_vertically(theme::HEADER_PX);
    let entries: Vec<(&str, Rgb)> = chart.series.iter().map(|s| (s.name.as_str(), s.color)).collect();
    theme::draw_header(&header, &chart.title, &entries)?;
    let (w, h) = body.dim_in_pixel();
    let (w, h) = (i32::try_from(w).unwrap_or(0), i32::try_from(h).unwrap_or(0));
    let f = Frame {
        chart,
        x: chart.x.ticked(),
        y: chart.y.ticked(),
        left: PAD.0,
        right: (w - PAD.1).max(PAD.0 + 1),
        top: PAD.2,
        bottom: (h - PAD.3).max(PAD.2 + 1),
    };
    let ink = theme::INK.plotters();
    let grid = theme::GRID.plotters();
    let font = (theme::FONT, theme::LABEL_PX).into_font().color(&ink);
    let line = |a: (i32, i32), b: (i32, i32), style: ShapeStyle| {
        body.draw(&PathElement::new(vec![a, b], style)).map_err(ChartError::draw)
    };
    let text = |t: String, at: (i32, i32), style: &TextStyle| {
        body.draw(&Text::new(t, at, style.clone())).map_err(ChartError::draw)
    };

    // Grid, ticks and their labels.
    let below = font.clone().pos(Pos::new(HPos::Center, VPos::Top));
    for (v, label) in f.chart.x.ticks.iter().zip(&f.chart.x.tick_labels) {
        let (px, _) = f.px((*v, f.chart.y.min));
        line((px, f.top), (px, f.bottom), grid.stroke_width(1))?;
        line((px, f.bottom), (px, f.bottom + 4), ink.stroke_width(1))?;
        text(label.clone(), (px, f.bottom + 7), &below)?;
    }
    let beside = font.clone().pos(Pos::new(HPos::Right, VPos::Center));
    for (v, label) in f.chart.y.ticks.iter().zip(&f.chart.y.tick_labels) {
        let (_, py) = f.px((f.chart.x.min, *v));
        line((f.left, py), (f.right, py), grid.stroke_width(1))?;
        line((f.left - 4, py), (f.left, py), ink.stroke_width(1))?;
        text(label.clone(), (f.left - 7, py), &beside)?;
    }
    line((f.left, f.top), (f.left, f.bottom), ink.stroke_width(1))?;
    line((f.left, f.bottom), (f.right, f.bottom), ink.stroke_width(1))?;
    let centre_x = (f.left + f.right) / 2;
    text(f.chart.x.label.clone(), (centre_x, f.bottom + 28), &below)?;
    let rotated = font.clone().transform(FontTransform::Rotate270).pos(Pos::new(HPos::Center, VPos::Top));
    text(f.chart.y.label.clone(), (8, (f.top + f.bottom) / 2), &rotated)?;

    let mut vertical = 0;
    for r in &chart.rules {
        let color = r.color.plotters();
        // Labels of vertical rules step down, so two rules close together stay readable.
        let drop = if r.vertical {
            vertical += 1;
            2 + 15 * (vertical - 1)
        } else {
            -2
        };
        let (a, b, at, pos) = if r.vertical {
            (
                f.px((r.value, chart.y.min)),
                f.px((r.value, chart.y.max)),
                f.px((r.value, chart.y.max)),
                Pos::new(HPos::Left, VPos::Top),
            )
        } else {
            (
                f.px((chart.x.min, r.value)),
                f.px((chart.x.max, r.value)),
                f.px((chart.x.min, r.value)),
                Pos::new(HPos::Left, VPos::Bottom),
            )
        };
        for [p, q] in dashes(a, b) {
            line(p, q, color.stroke_width(1))?;
        }
        // A vertical rule's label goes to its left when it would run off the chart's right
        // edge (widths estimated as in the legend).
        let chars = i32::try_from(r.label.chars().count()).unwrap_or(i32::MAX);
        let wide = chars.saturating_add(1).saturating_mul(LABEL_CHAR_PX);
        let (label, x, pos) = if r.vertical && at.0 + 2 + wide > w {
            (format!("{} ", r.label), at.0 - 2, Pos::new(HPos::Right, VPos::Top))
        } else {
            (format!(" {}", r.label), at.0 + 2, pos)
        };
        let style = font.clone().color(&color).pos(pos);
        text(label, (x, at.1 + drop), &style)?;
    }
    for s in &chart.series {
        let style = s.color.plotters().stroke_width(s.width);
        let points: Vec<(i32, i32)> = s.points.iter().map(|p| f.px(*p)).collect();
        // A line of one point is a dot.
        let single = points.len() == 1;
        if s.style != XyStyle::Points && !single {
            body.draw(&PathElement::new(points.clone(), style)).map_err(ChartError::draw)?;
        }
        if s.style != XyStyle::Line || single {
            for p in points {
                body.draw(&Circle::new(p, 3, style.filled())).map_err(ChartError::draw)?;
            }
        }
    }
    for m in &chart.markers {
        let at = f.px(m.at);
        body.draw(&Circle::new(at, 5, m.color.plotters().filled())).map_err(ChartError::draw)?;
        // Label to the left of points in the right part, so it stays inside the plot.
        let right_part = f.x.fraction(m.at.0) > 0.6;
        let (h, dx) = if right_part { (HPos::Right, -8) } else { (HPos::Left, 8) };
        text(m.label.clone(), (at.0 + dx, at.1 - 6), &font.clone().pos(Pos::new(h, VPos::Bottom)))?;
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
        assert!(a.covers(20.0) && a.covers(0.0) && !a.covers(-1.0) && !a.covers(20.5));
    }

    #[test]
    fn stepped_axes_cover_the_data_and_label_every_tick_with_its_decimals() {
        let a = XyAxis::linear_stepped("GB", 87.3, 6);
        assert_eq!((a.min, a.max), (0.0, 100.0));
        assert_eq!(a.ticks.len(), a.tick_labels.len());
        assert_eq!(a.label_at(20.0), "20");
        assert_eq!(XyAxis::linear_stepped("s", 2.7, 6).tick_labels, ["0", "0.5", "1.0", "1.5", "2.0", "2.5", "3.0"]);
        let l = XyAxis::log("tokens", 100.0, 70_000.0, 10.0, fmt);
        assert_eq!((l.min, l.max), (100.0, 100_000.0));
        assert!(l.accepts(5.0) && !l.accepts(0.0) && !l.accepts(f64::NAN));
    }

    #[test]
    fn drawable_drops_what_a_log_axis_cannot_show() {
        let axis = XyAxis::log("x", 1.0, 100.0, 10.0, fmt);
        let c = XyChart {
            title: "t".into(),
            x: axis.clone(),
            y: axis,
            series: vec![XySeries {
                name: "s".into(),
                color: theme::BLUE,
                points: vec![(0.0, 1.0), (2.0, 3.0), (4.0, f64::NAN)],
                width: 2,
                style: XyStyle::Line,
            }],
            rules: vec![
                Rule { value: -1.0, vertical: true, label: "no".into(), color: theme::INK },
                Rule { value: 50.0, vertical: true, label: "in".into(), color: theme::INK },
                Rule { value: 5.0, vertical: false, label: "in too".into(), color: theme::INK },
                Rule { value: 0.5, vertical: true, label: "below the axis".into(), color: theme::INK },
                Rule { value: f64::INFINITY, vertical: false, label: "nowhere".into(), color: theme::INK },
            ],
            markers: vec![Marker { at: (10.0, 10.0), label: "me".into(), color: theme::INK }],
            note: None,
        }
        .drawable();
        assert_eq!(c.series[0].points, [(2.0, 3.0)]);
        let kept: Vec<&str> = c.rules.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(kept, ["in", "in too"]);
        assert_eq!(c.markers.len(), 1);
        assert_eq!(extent([3.0, -1.0, 7.0, f64::NAN], |v| v > 0.0), Some((3.0, 7.0)));
        assert_eq!(extent([], |_| true), None);
    }
}
