//! Bar and XY charts as SVG markup written directly (no plotters): what the training page
//! shows and exports, so that the page does not link plotters' drawing code (docs/size.md:
//! plotters is the largest part of a page's charts). Same data, layout constants and
//! colours as [`crate::bars::draw_bars`] and [`crate::training::xy::draw_xy`], which the CLI keeps
//! using; text is measured by the viewer, not estimated.

use std::fmt::Write;

use crate::axis::TickedAxis;
use crate::bars::BarChart;
use crate::theme::{self, Rgb};
use crate::training::xy::{XyChart, XyStyle};
use crate::Chart;

/// Margins around the plot area, in pixels.
const RIGHT: f64 = 28.0;
const BOTTOM: f64 = 48.0;
const TOP_GAP: f64 = 12.0;

/// `chart` as an SVG document, for the kinds drawn here (bars and XY charts); `None`
/// for the others.
#[must_use]
pub fn chart_markup(chart: &Chart) -> Option<String> {
    match chart {
        Chart::Bars(c) => Some(bars_markup(c)),
        Chart::TrainingXy(c) => Some(xy_markup(c)),
        _ => None,
    }
}

/// Text with `&`, `<`, `>` and `"` escaped for XML.
#[must_use]
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// A document of `w × h` pixels, white, with the caption and one legend entry per series.
fn open(out: &mut String, (w, h): (u32, u32), title: &str, legend: &[(&str, Rgb)]) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{font}" font-size="{px}" fill="{ink}"><rect width="{w}" height="{h}" fill="white"/><text x="{cx}" y="24" text-anchor="middle" font-size="{cap}">{title}</text>"#,
        font = "sans-serif",
        px = theme::LABEL_PX,
        ink = theme::INK.hex(),
        cx = w / 2,
        cap = theme::CAPTION_PX,
        title = escape(title),
    );
    // Legend entries flow left to right and wrap; widths are estimated from the text.
    let (mut x, mut y) = (16.0, 42.0);
    for (name, color) in legend {
        let width = 18.0 + f64::from(theme::LABEL_CHAR_PX) * name.chars().count() as f64 + 20.0;
        if x + width > f64::from(w) - 8.0 && x > 16.0 {
            x = 16.0;
            y += 16.0;
        }
        let _ = write!(
            out,
            r#"<rect x="{x}" y="{}" width="12" height="10" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            y - 9.0,
            color.hex(),
            x + 18.0,
            y,
            escape(name)
        );
        x += width;
    }
}

/// The plot area: left, top, right, bottom in pixels.
struct Area {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
}

impl Area {
    fn x(&self, axis: &TickedAxis, v: f64) -> f64 {
        self.left + (self.right - self.left) * axis.fraction(v)
    }

    fn y(&self, axis: &TickedAxis, v: f64) -> f64 {
        self.bottom - (self.bottom - self.top) * axis.fraction(v)
    }
}

/// Vertical grid lines and labels at `ticks` of the x axis, and the axis' description.
fn x_axis(out: &mut String, a: &Area, axis: &TickedAxis, ticks: &[(f64, String)], desc: &str) {
    let grid = theme::GRID.hex();
    for (v, label) in ticks {
        let x = a.x(axis, *v);
        let _ = write!(
            out,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{grid}"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            a.top,
            a.bottom,
            a.bottom + 16.0,
            escape(label)
        );
    }
    let _ = write!(
        out,
        r#"<line x1="{:.1}" y1="{b:.1}" x2="{:.1}" y2="{b:.1}" stroke="{ink}"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        a.left,
        a.right,
        (a.left + a.right) / 2.0,
        a.bottom + 36.0,
        escape(desc),
        b = a.bottom,
        ink = theme::INK.hex(),
    );
}

/// A dashed vertical line at pixel `x` with its label in row `row` from the top (or, with
/// `from_bottom`, from the bottom), on the side `anchor` says (`start` or `end`).
#[allow(clippy::too_many_arguments)]
fn mark(out: &mut String, a: &Area, x: f64, label: &str, color: Rgb, row: usize, anchor: &str, from_bottom: bool) {
    let dx = if anchor == "end" { -4.0 } else { 4.0 };
    let y = if from_bottom { a.bottom - 6.0 - 14.0 * row as f64 } else { a.top + 12.0 + 14.0 * row as f64 };
    let _ = write!(
        out,
        r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{c}" stroke-width="1.5" stroke-dasharray="6 4"/><text x="{:.1}" y="{:.1}" text-anchor="{anchor}" fill="{c}" stroke="white" stroke-width="3" paint-order="stroke">{}</text>"#,
        a.top,
        a.bottom,
        x + dx,
        y,
        escape(label),
        c = color.hex(),
    );
}

/// A [`BarChart`]: categories top to bottom, bars from their rectangles, marks dashed.
#[must_use]
pub fn bars_markup(c: &BarChart) -> String {
    let size = c.size();
    let mut out = String::new();
    let legend: Vec<(&str, Rgb)> = c.series.iter().map(|s| (s.name.as_str(), s.color)).collect();
    open(&mut out, size, &c.title, &legend);
    let a = Area {
        left: f64::from(c.label_area_width()) + 12.0,
        top: f64::from(theme::HEADER_PX) + TOP_GAP,
        right: f64::from(size.0) - RIGHT,
        bottom: f64::from(size.1) - BOTTOM,
    };
    let x_axis_ = TickedAxis::linear(0.0, c.axis.max, c.axis.values.clone());
    let n = c.categories.len().max(1) as f64;
    let y_axis = TickedAxis::linear(0.0, n, Vec::new());
    let ticks: Vec<(f64, String)> = c.axis.values.iter().copied().zip(c.tick_labels.iter().cloned()).collect();
    x_axis(&mut out, &a, &x_axis_, &ticks, &c.value_label);
    for (i, label) in c.categories.iter().enumerate() {
        let y = a.y(&y_axis, n - i as f64 - 0.5);
        let _ = write!(out, r#"<text x="{:.1}" y="{:.1}" text-anchor="end" dominant-baseline="middle">{}</text>"#, a.left - 8.0, y, escape(label));
    }
    for bar in c.rectangles() {
        let Some(series) = c.series.get(bar.series) else { continue };
        let (x0, x1) = (a.x(&x_axis_, bar.from.0), a.x(&x_axis_, bar.to.0));
        let (y0, y1) = (a.y(&y_axis, bar.to.1), a.y(&y_axis, bar.from.1));
        if x1 - x0 <= 0.0 {
            continue;
        }
        let _ = write!(
            out,
            r#"<rect x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}: {}</title></rect>"#,
            x1 - x0,
            y1 - y0,
            series.color.hex(),
            escape(&series.name),
            crate::format::significant(bar.to.0 - bar.from.0, 3)
        );
    }
    for (i, m) in c.marks.iter().filter(|m| m.x.is_finite() && m.x >= 0.0 && m.x <= c.axis.max).enumerate() {
        mark(&mut out, &a, a.x(&x_axis_, m.x), &m.label, m.color, i, "end", false);
    }
    out.push_str("</svg>");
    out
}

/// An [`XyChart`]: grid at both axes' ticks, marks dashed, lines and dots.
#[must_use]
pub fn xy_markup(c: &XyChart) -> String {
    let size = c.size();
    let mut out = String::new();
    let legend: Vec<(&str, Rgb)> = c.series.iter().map(|s| (s.name.as_str(), s.color)).collect();
    open(&mut out, size, &c.title, &legend);
    let a = Area { left: 76.0, top: f64::from(theme::HEADER_PX) + TOP_GAP, right: f64::from(size.0) - RIGHT, bottom: f64::from(size.1) - BOTTOM };
    let axis = |x: &crate::training::xy::XyAxis| if x.log { TickedAxis::log(x.min, x.max, Vec::new()) } else { TickedAxis::linear(x.min, x.max, Vec::new()) };
    let (xa, ya) = (axis(&c.x), axis(&c.y));
    let ticks: Vec<(f64, String)> = c.x.ticks.iter().copied().zip(c.x.tick_labels.iter().cloned()).collect();
    x_axis(&mut out, &a, &xa, &ticks, &c.x.label);
    let grid = theme::GRID.hex();
    for (v, label) in c.y.ticks.iter().zip(&c.y.tick_labels) {
        let y = a.y(&ya, *v);
        let _ = write!(
            out,
            r#"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{grid}"/><text x="{:.1}" y="{y:.1}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
            a.left,
            a.right,
            a.left - 6.0,
            escape(label)
        );
    }
    let _ = write!(
        out,
        r#"<text transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        (a.top + a.bottom) / 2.0,
        escape(&c.y.label)
    );
    for (i, m) in c.visible_marks().into_iter().enumerate() {
        let x = a.x(&xa, m.x);
        let anchor = if x > (a.left + a.right) / 2.0 { "end" } else { "start" };
        mark(&mut out, &a, x, &m.label, m.color, i, anchor, true);
    }
    for s in &c.series {
        let color = s.color.hex();
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|(x, y)| c.x.shows(*x) && c.y.shows(*y))
            .map(|(x, y)| (a.x(&xa, *x), a.y(&ya, *y)))
            .collect();
        if matches!(s.style, XyStyle::Line | XyStyle::LineAndPoints) && points.len() > 1 {
            let path: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let _ = write!(out, r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"/>"#, path.join(" "));
        }
        if matches!(s.style, XyStyle::Points | XyStyle::LineAndPoints) {
            for (x, y) in &points {
                let _ = write!(out, r#"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" fill="{color}"/>"#);
            }
        }
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bars::BarSeries;
    use crate::ticks::linear_ticks;
    use crate::training::xy::{XyAxis, XyMark, XySeries};

    fn count(haystack: &str, needle: &str) -> usize {
        haystack.matches(needle).count()
    }

    #[test]
    fn bars_draw_one_rect_per_positive_value_and_escape_text() {
        let axis = linear_ticks(10.0, 5);
        let c = BarChart {
            title: "A < B & C".into(),
            value_label: "s".into(),
            categories: vec!["best".into(), "yours".into()],
            series: vec![
                BarSeries { name: "compute".into(), color: theme::BLUE, values: vec![4.0, 6.0] },
                BarSeries { name: "TP".into(), color: theme::ORANGE, values: vec![0.0, 3.0] },
            ],
            stacked: true,
            tick_labels: axis.values.iter().map(|v| v.to_string()).collect(),
            axis,
            marks: vec![XyMark { x: 8.0, label: "HBM".into(), color: theme::INK }],
        };
        let svg = bars_markup(&c);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("A &lt; B &amp; C"));
        // 3 bars (the zero one is not drawn) + 2 legend swatches + the background.
        assert_eq!(count(&svg, "<rect"), 3 + 2 + 1);
        assert_eq!(count(&svg, "stroke-dasharray"), 1);
        assert_eq!(count(&svg, "<svg"), count(&svg, "</svg>"));
    }

    #[test]
    fn xy_points_map_inside_the_plot_area() {
        let c = XyChart {
            title: "t".into(),
            x: XyAxis::log("x", 10.0, 1000.0, 10.0, |v| v.to_string()),
            y: XyAxis::linear("y", 1.0),
            series: vec![XySeries { name: "s".into(), color: theme::BLUE, style: XyStyle::LineAndPoints, points: vec![(10.0, 0.0), (100.0, 0.5), (1000.0, 1.0), (-1.0, 0.5)] }],
            marks: vec![XyMark { x: 100.0, label: "m".into(), color: theme::GREEN }],
        };
        let svg = xy_markup(&c);
        assert_eq!(count(&svg, "<circle"), 3, "the negative x is off a log axis");
        assert_eq!(count(&svg, "<polyline"), 1);
        // The middle point sits halfway across the plot on the log axis.
        let (w, _) = c.size();
        let mid = 76.0 + (f64::from(w) - RIGHT - 76.0) / 2.0;
        assert!(svg.contains(&format!(r#"cx="{mid:.1}""#)), "{svg}");
    }
}
