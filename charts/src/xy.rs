//! Lines and points on x–y axes, linear or logarithmic, with reference rules and marked
//! points: the serving charts (latency against throughput, step time against batch, memory
//! against context, server ratio against prompt length) and the training charts (MFU against
//! tokens per device with the critical batches as rules, memory against step time with HBM as
//! a rule). Data first — axes with their ticks and tick labels already computed, series in
//! chart coordinates — and one layout as a [`Scene`] below, so a page showing any of them
//! compiles it once.

use crate::axis::TickedAxis;
use crate::scene::{header, Anchor, Baseline, Item, LegendEntry, Scene};
use crate::theme::{self, Rgb};
use crate::ticks::{linear_ticks, log_ticks, tick_label};

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

/// Pixels around the plot below the header: left (y labels and title), right, top, bottom
/// (x labels and title).
const PAD: (f64, f64, f64, f64) = (76.0, 28.0, 0.0, 56.0);
/// Estimated width of a label character, pixels.
const LABEL_CHAR_PX: f64 = theme::LABEL_CHAR_PX as f64;
/// Dash and gap of the reference rules, in pixels.
const DASH: (f64, f64) = (6.0, 4.0);

/// The plot rectangle in pixels and the mapping from chart coordinates into it.
struct Frame {
    x: TickedAxis,
    y: TickedAxis,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Frame {
    /// The pixel of `(x, y)`, kept within a plot width or two of the plot (points far off an
    /// axis' range still draw, at its edge's side).
    fn px(&self, (x, y): (f64, f64)) -> (f64, f64) {
        let fx = self.x.fraction(x).clamp(-1.0, 2.0);
        let fy = self.y.fraction(y).clamp(-1.0, 2.0);
        (self.left + (self.right - self.left) * fx, self.bottom - (self.bottom - self.top) * fy)
    }
}

impl XyChart {
    /// The chart laid out in pixels: caption and legend, the axes with their grid, ticks and
    /// labels, the reference rules (dashed, labelled), the series and the marked points.
    #[must_use]
    pub fn scene(&self) -> Scene {
        let (w, h) = self.size();
        let mut scene = Scene::new(w, h, &self.title);
        let legend: Vec<LegendEntry> = self.series.iter().map(|s| LegendEntry::fill(&s.name, s.color)).collect();
        let top = header(&mut scene, &self.title, &[legend]);
        let (w, h) = (f64::from(w), f64::from(h));
        let f = Frame {
            x: self.x.ticked(),
            y: self.y.ticked(),
            left: PAD.0,
            right: (w - PAD.1).max(PAD.0 + 1.0),
            top: top + PAD.2,
            bottom: (h - PAD.3).max(top + PAD.2 + 1.0),
        };
        let line = |scene: &mut Scene, a: (f64, f64), b: (f64, f64), color| scene.line(vec![a, b], color, 1.0, None);

        // Grid, ticks and their labels.
        for (v, label) in self.x.ticks.iter().zip(&self.x.tick_labels) {
            let (px, _) = f.px((*v, self.y.min));
            line(&mut scene, (px, f.top), (px, f.bottom), theme::GRID);
            line(&mut scene, (px, f.bottom), (px, f.bottom + 4.0), theme::INK);
            scene.text((px, f.bottom + 7.0), label.clone(), Anchor::Middle, Baseline::Top);
        }
        for (v, label) in self.y.ticks.iter().zip(&self.y.tick_labels) {
            let (_, py) = f.px((self.x.min, *v));
            line(&mut scene, (f.left, py), (f.right, py), theme::GRID);
            line(&mut scene, (f.left - 4.0, py), (f.left, py), theme::INK);
            scene.text((f.left - 7.0, py), label.clone(), Anchor::End, Baseline::Middle);
        }
        scene.line(vec![(f.left, f.top), (f.left, f.bottom), (f.right, f.bottom)], theme::INK, 1.0, None);
        scene.text(((f.left + f.right) / 2.0, f.bottom + 28.0), self.x.label.clone(), Anchor::Middle, Baseline::Top);
        scene.items.push(Item::Text {
            at: (8.0, (f.top + f.bottom) / 2.0),
            text: self.y.label.clone(),
            size: f64::from(theme::LABEL_PX),
            color: theme::INK,
            anchor: Anchor::Middle,
            baseline: Baseline::Top,
            vertical: true,
        });

        let mut vertical = 0.0;
        for r in &self.rules {
            let (from, to) = if r.vertical {
                (f.px((r.value, self.y.min)), f.px((r.value, self.y.max)))
            } else {
                (f.px((self.x.min, r.value)), f.px((self.x.max, r.value)))
            };
            scene.line(vec![from, to], r.color, 1.0, Some(DASH));
            // Labels of vertical rules step down, so two rules close together stay readable;
            // one that would run off the chart's right edge goes to the rule's left (widths
            // estimated as in the legend).
            let (at, anchor, baseline) = if r.vertical {
                vertical += 1.0;
                let y = to.1 + 2.0 + 15.0 * (vertical - 1.0);
                let wide = (r.label.chars().count() as f64 + 1.0) * LABEL_CHAR_PX;
                if to.0 + 2.0 + wide > w {
                    ((to.0 - 6.0, y), Anchor::End, Baseline::Top)
                } else {
                    ((to.0 + 6.0, y), Anchor::Start, Baseline::Top)
                }
            } else {
                ((from.0 + 6.0, from.1 - 2.0), Anchor::Start, Baseline::Bottom)
            };
            scene.items.push(Item::Text {
                at,
                text: r.label.clone(),
                size: f64::from(theme::LABEL_PX),
                color: r.color,
                anchor,
                baseline,
                vertical: false,
            });
        }
        for s in &self.series {
            let points: Vec<(f64, f64)> = s.points.iter().map(|p| f.px(*p)).collect();
            // A line of one point is a dot.
            let single = points.len() == 1;
            if s.style != XyStyle::Points && !single {
                scene.line(points.clone(), s.color, f64::from(s.width), None);
            }
            if s.style != XyStyle::Line || single {
                for p in points {
                    scene.circle(p, 3.0, Some(s.color), None);
                }
            }
        }
        for m in &self.markers {
            let at = f.px(m.at);
            scene.circle(at, 5.0, Some(m.color), None);
            // Label to the left of points in the right part, so it stays inside the plot.
            let (anchor, dx) = if f.x.fraction(m.at.0) > 0.6 { (Anchor::End, -8.0) } else { (Anchor::Start, 8.0) };
            scene.text((at.0 + dx, at.1 - 6.0), m.label.clone(), anchor, Baseline::Bottom);
        }
        scene
    }
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
