//! A chart laid out in pixels: lines, circles, rectangles and text, computed (and tested)
//! from the chart's data, then written as SVG text or drawn on any plotters backend.
//!
//! Why a scene: a page can show the SVG inline and rasterise the same primitives on a
//! canvas for PNG downloads without linking plotters (about 40 KB gzip of wasm), while the
//! CLI and the catalog still draw through plotters. Both paths draw the same primitives.

use crate::theme::{self, Rgb};
use crate::ChartError;
use plotters::coord::Shift;
use plotters::prelude::{Circle, Color, DrawingArea, DrawingBackend, IntoFont, PathElement, Rectangle, Text};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;
use shardcalc_core::decimal::fixed;
use std::fmt::Write;

/// Horizontal text anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The point is the text's left end.
    Start,
    /// The point is the text's centre.
    Middle,
    /// The point is the text's right end.
    End,
}

/// Vertical text placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// The point is the text's top.
    Top,
    /// The point is the text's middle.
    Middle,
    /// The point is the text's bottom.
    Bottom,
}

/// One drawn primitive, in pixels from the top-left corner.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A polyline.
    Line {
        /// Corners.
        points: Vec<(f64, f64)>,
        /// Colour.
        color: Rgb,
        /// Stroke width.
        width: f64,
        /// `(on, off)` dash lengths; `None` is solid.
        dash: Option<(f64, f64)>,
    },
    /// A circle, filled and/or stroked.
    Circle {
        /// Centre.
        at: (f64, f64),
        /// Radius.
        r: f64,
        /// Fill colour.
        fill: Option<Rgb>,
        /// Stroke colour and width.
        stroke: Option<(Rgb, f64)>,
    },
    /// A filled rectangle.
    Rect {
        /// Top-left corner.
        from: (f64, f64),
        /// Bottom-right corner.
        to: (f64, f64),
        /// Fill colour.
        fill: Rgb,
    },
    /// A line of text.
    Text {
        /// Anchor point.
        at: (f64, f64),
        /// The text.
        text: String,
        /// Font size in pixels.
        size: f64,
        /// Colour.
        color: Rgb,
        /// Horizontal anchor.
        anchor: Anchor,
        /// Vertical placement.
        baseline: Baseline,
        /// Turned 90° anticlockwise (a y-axis description).
        vertical: bool,
    },
}

/// A chart laid out in pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Accessible title.
    pub title: String,
    /// Primitives, drawn in order.
    pub items: Vec<Item>,
}

impl Scene {
    /// An empty white scene.
    #[must_use]
    pub fn new(width: u32, height: u32, title: &str) -> Self {
        Self { width, height, title: title.to_string(), items: Vec::new() }
    }

    /// Adds a solid or dashed polyline.
    pub fn line(&mut self, points: Vec<(f64, f64)>, color: Rgb, width: f64, dash: Option<(f64, f64)>) {
        self.items.push(Item::Line { points, color, width, dash });
    }

    /// Adds text in the label style (12 px ink unless `color` says otherwise).
    pub fn text(&mut self, at: (f64, f64), text: impl Into<String>, anchor: Anchor, baseline: Baseline) {
        self.items.push(Item::Text {
            at,
            text: text.into(),
            size: f64::from(theme::LABEL_PX),
            color: theme::INK,
            anchor,
            baseline,
            vertical: false,
        });
    }

    /// Adds a circle.
    pub fn circle(&mut self, at: (f64, f64), r: f64, fill: Option<Rgb>, stroke: Option<(Rgb, f64)>) {
        self.items.push(Item::Circle { at, r, fill, stroke });
    }

    /// The scene as a standalone SVG document.
    #[must_use]
    pub fn to_svg(&self) -> String {
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" font-family=\"{}\"><title>{}</title><rect width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>",
            "sans-serif",
            escape(&self.title),
            w = self.width,
            h = self.height
        );
        for item in &self.items {
            // Writing to a String cannot fail.
            let _ = match item {
                Item::Line { points, color, width, dash } => {
                    let pts: Vec<String> = points.iter().map(|(x, y)| format!("{},{}", r1(*x), r1(*y))).collect();
                    let dash =
                        dash.map(|(a, b)| format!(" stroke-dasharray=\"{} {}\"", r1(a), r1(b))).unwrap_or_default();
                    write!(
                        out,
                        "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{dash}/>",
                        pts.join(" "),
                        color.hex(),
                        r1(*width)
                    )
                }
                Item::Circle { at, r, fill, stroke } => {
                    let fill = fill.map_or_else(|| "none".to_string(), Rgb::hex);
                    let stroke = stroke
                        .map(|(c, w)| format!(" stroke=\"{}\" stroke-width=\"{}\"", c.hex(), r1(w)))
                        .unwrap_or_default();
                    write!(
                        out,
                        "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\"{stroke}/>",
                        r1(at.0),
                        r1(at.1),
                        r1(*r)
                    )
                }
                Item::Rect { from, to, fill } => write!(
                    out,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>",
                    r1(from.0),
                    r1(from.1),
                    r1(to.0 - from.0),
                    r1(to.1 - from.1),
                    fill.hex()
                ),
                Item::Text { at, text, size, color, anchor, baseline, vertical } => {
                    let anchor = match anchor {
                        Anchor::Start => "start",
                        Anchor::Middle => "middle",
                        Anchor::End => "end",
                    };
                    let baseline = match baseline {
                        Baseline::Top => "hanging",
                        Baseline::Middle => "central",
                        Baseline::Bottom => "alphabetic",
                    };
                    let turn = if *vertical {
                        format!(" transform=\"rotate(-90 {} {})\"", r1(at.0), r1(at.1))
                    } else {
                        String::new()
                    };
                    write!(
                        out,
                        "<text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{}\" text-anchor=\"{anchor}\" dominant-baseline=\"{baseline}\"{turn}>{}</text>",
                        r1(at.0),
                        r1(at.1),
                        r1(*size),
                        color.hex(),
                        escape(text)
                    )
                }
            };
        }
        out.push_str("</svg>");
        out
    }

    /// Draws the scene on `area` (any plotters backend), which should be the scene's size.
    ///
    /// # Errors
    /// [`ChartError::Draw`] when the backend fails.
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), ChartError> {
        area.fill(&plotters::style::WHITE).map_err(ChartError::draw)?;
        let px = |p: (f64, f64)| (p.0.round() as i32, p.1.round() as i32);
        for item in &self.items {
            match item {
                Item::Line { points, color, width, dash } => {
                    let style = color.plotters().stroke_width(width.round().max(1.0) as u32);
                    let parts = match dash {
                        Some((on, off)) => dash_segments(points, *on, *off),
                        None => vec![points.clone()],
                    };
                    for part in parts {
                        area.draw(&PathElement::new(part.into_iter().map(px).collect::<Vec<_>>(), style))
                            .map_err(ChartError::draw)?;
                    }
                }
                Item::Circle { at, r, fill, stroke } => {
                    let radius = r.round().max(1.0) as u32;
                    if let Some(f) = fill {
                        area.draw(&Circle::new(px(*at), radius, f.plotters().filled())).map_err(ChartError::draw)?;
                    }
                    if let Some((c, w)) = stroke {
                        let style = c.plotters().stroke_width(w.round().max(1.0) as u32);
                        area.draw(&Circle::new(px(*at), radius, style)).map_err(ChartError::draw)?;
                    }
                }
                Item::Rect { from, to, fill } => {
                    area.draw(&Rectangle::new([px(*from), px(*to)], fill.plotters().filled()))
                        .map_err(ChartError::draw)?;
                }
                Item::Text { at, text, size, color, anchor, baseline, vertical } => {
                    let h = match anchor {
                        Anchor::Start => HPos::Left,
                        Anchor::Middle => HPos::Center,
                        Anchor::End => HPos::Right,
                    };
                    let v = match baseline {
                        Baseline::Top => VPos::Top,
                        Baseline::Middle => VPos::Center,
                        Baseline::Bottom => VPos::Bottom,
                    };
                    let mut font = (theme::FONT, *size).into_font();
                    if *vertical {
                        font = font.transform(FontTransform::Rotate270);
                    }
                    let style = font.color(&color.plotters()).pos(Pos::new(h, v));
                    area.draw(&Text::new(text.clone(), px(*at), style)).map_err(ChartError::draw)?;
                }
            }
        }
        area.present().map_err(ChartError::draw)
    }
}

/// One decimal, without a trailing `.0` (SVG coordinates).
fn r1(x: f64) -> String {
    let v = (x * 10.0).round() / 10.0;
    // Not format!: core's float printing costs a page ~10 KB (shardcalc_core::decimal).
    if v.fract() == 0.0 {
        fixed(v, 0)
    } else {
        fixed(v, 1)
    }
}

/// `text` escaped for SVG content and attributes.
#[must_use]
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A polyline cut into the dashes of an `(on, off)` pattern (for backends without dashes).
#[must_use]
pub fn dash_segments(points: &[(f64, f64)], on: f64, off: f64) -> Vec<Vec<(f64, f64)>> {
    let (on, off) = (on.max(0.5), off.max(0.0));
    let mut out = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    // Position within the pattern: [0, on) draws, [on, on + off) skips.
    let mut phase = 0.0;
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let length = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        if !length.is_finite() || length == 0.0 {
            continue;
        }
        let mut t = 0.0;
        while t < length {
            let drawing = phase < on;
            let left_in_phase = if drawing { on - phase } else { on + off - phase };
            let step = left_in_phase.min(length - t);
            let at = |d: f64| (a.0 + (b.0 - a.0) * d / length, a.1 + (b.1 - a.1) * d / length);
            if drawing {
                if current.is_empty() {
                    current.push(at(t));
                }
                current.push(at(t + step));
            } else if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            t += step;
            phase += step;
            if phase >= on + off - 1e-9 {
                phase = 0.0;
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
        }
    }
    if current.len() > 1 {
        out.push(current);
    }
    out
}

/// The plot rectangle of a chart and its two axes: maps data to pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Left edge (pixels).
    pub left: f64,
    /// Top edge.
    pub top: f64,
    /// Right edge.
    pub right: f64,
    /// Bottom edge.
    pub bottom: f64,
    /// Horizontal axis.
    pub x: crate::axis::TickedAxis,
    /// Vertical axis.
    pub y: crate::axis::TickedAxis,
}

impl Frame {
    /// A log-log plot area under a header ending at `top`, in a `width × height` chart,
    /// with room for the tick labels and axis descriptions (the roofline and collective
    /// time charts).
    #[must_use]
    pub fn log_log(
        (width, height): (u32, u32),
        top: f64,
        x: &crate::ticks::LogTicks,
        y: &crate::ticks::LogTicks,
    ) -> Self {
        Self {
            left: 72.0,
            top,
            right: f64::from(width) - 24.0,
            bottom: f64::from(height) - 52.0,
            x: crate::axis::TickedAxis::log(x.min, x.max, x.values.clone()),
            y: crate::axis::TickedAxis::log(y.min, y.max, y.values.clone()),
        }
    }

    /// Pixel position of the data point `(x, y)`.
    #[must_use]
    pub fn px(&self, x: f64, y: f64) -> (f64, f64) {
        (
            self.left + self.x.fraction(x) * (self.right - self.left),
            self.bottom - self.y.fraction(y) * (self.bottom - self.top),
        )
    }

    /// Grid lines, tick labels, the axis lines and their descriptions.
    pub fn draw_axes(
        &self,
        scene: &mut Scene,
        (x_ticks, x_label): (&[f64], &dyn Fn(f64) -> String),
        (y_ticks, y_label): (&[f64], &dyn Fn(f64) -> String),
        x_desc: &str,
        y_desc: &str,
    ) {
        for &v in x_ticks {
            let (x, _) = self.px(v, 1.0);
            scene.line(vec![(x, self.top), (x, self.bottom)], theme::GRID, 1.0, None);
            scene.text((x, self.bottom + 6.0), x_label(v), Anchor::Middle, Baseline::Top);
        }
        for &v in y_ticks {
            let (_, y) = self.px(1.0, v);
            scene.line(vec![(self.left, y), (self.right, y)], theme::GRID, 1.0, None);
            scene.text((self.left - 6.0, y), y_label(v), Anchor::End, Baseline::Middle);
        }
        scene.line(
            vec![(self.left, self.top), (self.left, self.bottom), (self.right, self.bottom)],
            theme::INK,
            1.0,
            None,
        );
        scene.text(((self.left + self.right) / 2.0, self.bottom + 26.0), x_desc, Anchor::Middle, Baseline::Top);
        scene.items.push(Item::Text {
            at: (14.0, (self.top + self.bottom) / 2.0),
            text: y_desc.to_string(),
            size: f64::from(theme::LABEL_PX),
            color: theme::INK,
            anchor: Anchor::Middle,
            baseline: Baseline::Top,
            vertical: true,
        });
    }
}

/// How a legend entry shows its series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Swatch {
    /// A filled square.
    Fill,
    /// A short line in the series' dash style (`None` solid).
    Line(Option<(f64, f64)>),
}

/// One legend entry.
#[derive(Clone, Debug, PartialEq)]
pub struct LegendEntry {
    /// Text.
    pub name: String,
    /// Colour.
    pub color: Rgb,
    /// Square or line sample.
    pub swatch: Swatch,
}

impl LegendEntry {
    /// An entry with a filled square: a series drawn as bars or areas.
    #[must_use]
    pub fn fill(name: &str, color: Rgb) -> Self {
        Self { name: name.to_string(), color, swatch: Swatch::Fill }
    }
}

/// The caption centred at the top and, under it, one legend row per `rows` (left to right),
/// like [`theme::draw_header`]. Returns the y where the plot can start.
pub fn header(scene: &mut Scene, title: &str, rows: &[Vec<LegendEntry>]) -> f64 {
    scene.items.push(Item::Text {
        at: (f64::from(scene.width) / 2.0, 8.0),
        text: title.to_string(),
        size: f64::from(theme::CAPTION_PX),
        color: theme::INK,
        anchor: Anchor::Middle,
        baseline: Baseline::Top,
        vertical: false,
    });
    let mut y = 38.0;
    for row in rows {
        let mut x = 16.0;
        for e in row {
            let w = 20.0 + (e.name.chars().count() as f64) * f64::from(theme::LABEL_CHAR_PX) + 20.0;
            if x > 16.0 && x + w - 20.0 > f64::from(scene.width) - 8.0 {
                // Wrap to a new line.
                x = 16.0;
                y += 18.0;
            }
            match e.swatch {
                Swatch::Fill => {
                    scene.items.push(Item::Rect { from: (x, y - 5.0), to: (x + 12.0, y + 5.0), fill: e.color })
                }
                Swatch::Line(dash) => scene.line(vec![(x - 4.0, y), (x + 16.0, y)], e.color, 2.0, dash),
            }
            scene.text((x + 20.0, y), e.name.clone(), Anchor::Start, Baseline::Middle);
            x += w;
        }
        y += 18.0;
    }
    y + 4.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_escapes_and_rounds() {
        let mut s = Scene::new(100, 50, "a < b");
        s.line(vec![(0.04, 1.26), (10.0, 20.0)], theme::BLUE, 2.0, Some((4.0, 2.0)));
        s.text((5.0, 5.0), "x & y", Anchor::Start, Baseline::Top);
        let svg = s.to_svg();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("<title>a &lt; b</title>"));
        assert!(svg.contains("points=\"0,1.3 10,20\""));
        assert!(svg.contains("stroke-dasharray=\"4 2\""));
        assert!(svg.contains(">x &amp; y</text>"));
    }

    #[test]
    fn dashes_cover_the_on_parts() {
        let parts = dash_segments(&[(0.0, 0.0), (10.0, 0.0)], 3.0, 2.0);
        let spans: Vec<(f64, f64)> = parts.iter().map(|p| (p[0].0, p[p.len() - 1].0)).collect();
        assert_eq!(spans, vec![(0.0, 3.0), (5.0, 8.0)]);
        // Across a corner the dash continues.
        let parts = dash_segments(&[(0.0, 0.0), (2.0, 0.0), (2.0, 2.0)], 3.0, 1.0);
        assert_eq!(parts[0], vec![(0.0, 0.0), (2.0, 0.0), (2.0, 1.0)]);
        assert!(dash_segments(&[(0.0, 0.0)], 1.0, 1.0).is_empty());
    }

    #[test]
    fn frame_maps_log_axes() {
        let f = Frame {
            left: 10.0,
            top: 0.0,
            right: 110.0,
            bottom: 100.0,
            x: crate::axis::TickedAxis::log(1.0, 100.0, vec![1.0, 10.0, 100.0]),
            y: crate::axis::TickedAxis::log(1.0, 1000.0, vec![]),
        };
        assert_eq!(f.px(10.0, 10.0).0, 60.0);
        assert!((f.px(10.0, 10.0).1 - 200.0 / 3.0).abs() < 1e-9);
    }
}
