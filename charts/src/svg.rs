//! Any chart as an SVG document (plotters' SVG backend): the page's "Download SVG" and
//! `shardcalc chart` in the CLI, byte for byte the same document.
//!
//! An SVG has no fonts to measure text with, so where a chart's layout depends on the width of
//! a label (the legend's spacing), the width is [`estimate_text_size`]: plotters' own estimate
//! for font-less targets, used on every platform. plotters would otherwise measure text in the
//! browser by appending a styled `<span>` to the page, which differs from the CLI's estimate and
//! is refused by a Content-Security-Policy without `'unsafe-inline'` styles.

use crate::{Chart, ChartError};
use plotters::prelude::{DrawingBackend, IntoDrawingArea, SVGBackend};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};

/// Renders `chart` at its own size into an SVG string.
///
/// # Errors
/// [`ChartError::Draw`] when plotters fails.
pub fn to_svg(chart: &Chart) -> Result<String, ChartError> {
    // Charts laid out as a scene write their own SVG (the same file the page downloads).
    if let Some(scene) = chart.scene() {
        return Ok(scene.to_svg());
    }
    let mut out = String::new();
    {
        let root = EstimatedSvg(SVGBackend::with_string(&mut out, chart.size())).into_drawing_area();
        chart.draw(&root)?;
        // `draw` presents; the backend writes the closing tag when dropped here.
    }
    Ok(out)
}

/// Width and height in pixels of `text` at `size` px, as plotters estimates text for targets
/// without fonts (its `naive` font: 0.7 em per byte, em = size / 1.24²).
#[must_use]
pub fn estimate_text_size(size: f64, text: &str) -> (u32, u32) {
    let em = size / 1.24 / 1.24;
    let width = (em * 0.7 * text.len() as f64).round();
    let height = (em * 0.24).round() + em.round();
    // Finite and small for any font size a chart uses; negative sizes clamp to 0.
    (width.max(0.0) as u32, height.max(0.0) as u32)
}

/// plotters' SVG backend with text sized by [`estimate_text_size`] on every platform.
struct EstimatedSvg<'a>(SVGBackend<'a>);

impl DrawingBackend for EstimatedSvg<'_> {
    type ErrorType = <SVGBackend<'static> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.present()
    }
    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_rect(a, b, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.fill_polygon(vert, style)
    }
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_text(text, style, pos)
    }
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        Ok(estimate_text_size(style.size(), text))
    }
    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        (w, h): (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.blit_bitmap(pos, (w, h), src)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use plotters::prelude::IntoFont;

    /// Natively, plotters' SVG backend estimates text exactly so: the CLI's output does not
    /// change, and the page (which cannot use plotters' estimate) writes the same document.
    #[test]
    fn the_estimate_is_plotters_native_one() {
        let mut out = String::new();
        let svg = SVGBackend::with_string(&mut out, (100, 100));
        for (size, text) in
            [(12.0, "Dense MLP"), (16.0, "Parameters per component — Llama 3 70B"), (9.5, ""), (40.0, "x")]
        {
            let style = plotters::style::TextStyle::from(("sans-serif", size).into_font());
            assert_eq!(
                svg.estimate_text_size(text, &style).unwrap(),
                estimate_text_size(size, text),
                "{text:?} at {size}"
            );
        }
    }

    /// Each `<text>` element's anchor and text.
    fn texts(svg: &str) -> Vec<(String, String)> {
        svg.split("<text")
            .skip(1)
            .filter_map(|e| {
                let (attrs, rest) = e.split_once('>')?;
                let anchor = attrs.split("text-anchor=\"").nth(1)?.split('"').next()?.to_string();
                Some((anchor, rest.split("</text>").next()?.trim_matches('\n').to_string()))
            })
            .collect()
    }

    /// `fill="#rrggbb"` as a scene writes it.
    fn fill(c: crate::theme::Rgb) -> String {
        format!(r#"fill="{}""#, c.hex())
    }

    /// Dashed lines of colour `c`.
    fn dashed(svg: &str, c: crate::theme::Rgb) -> usize {
        let stroke = format!(r#"stroke="{}""#, c.hex());
        svg.split("<polyline").skip(1).filter(|e| e.contains(&stroke) && e.contains("stroke-dasharray")).count()
    }

    /// Filled rectangles whose width is not zero, of colour `c`.
    fn wide_rects(svg: &str, c: crate::theme::Rgb) -> usize {
        let f = fill(c);
        svg.split("<rect").skip(1).filter(|r| r.contains(&f) && !r.contains(r#"width="0""#)).count()
    }

    #[test]
    fn bars_draw_one_rect_per_positive_value_a_dashed_mark_and_escape_text() {
        use crate::bars::{BarChart, BarMark, BarSeries};
        use crate::theme;
        let axis = crate::ticks::linear_ticks(10.0, 5);
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
            marks: vec![BarMark { x: 8.0, label: "HBM".into(), color: theme::PURPLE }],
        };
        let svg = to_svg(&Chart::Bars(c)).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("A &lt; B &amp; C"), "{svg}");
        // Two bars each plus the legend swatch; the zero value has no width.
        assert_eq!(wide_rects(&svg, theme::BLUE), 2 + 1);
        assert_eq!(wide_rects(&svg, theme::ORANGE), 1 + 1);
        // The mark: a dashed line of its colour down the plot and its label.
        assert_eq!(dashed(&svg, theme::PURPLE), 1, "{svg}");
        assert!(texts(&svg).contains(&("end".into(), "HBM".into())), "{svg}");
    }

    #[test]
    fn xy_points_map_inside_the_plot_area() {
        use crate::theme;
        use crate::xy::{Rule, XyAxis, XyChart, XySeries, XyStyle};
        let c = XyChart {
            title: "t".into(),
            x: XyAxis::log("x", 10.0, 1000.0, 10.0, |v| v.to_string()),
            y: XyAxis::linear_stepped("y", 1.0, 6),
            series: vec![XySeries {
                name: "s".into(),
                color: theme::BLUE,
                style: XyStyle::LineAndPoints,
                width: 2,
                points: vec![(10.0, 0.0), (100.0, 0.5), (1000.0, 1.0), (-1.0, 0.5)],
            }],
            rules: vec![Rule { value: 100.0, vertical: true, label: "m".into(), color: theme::GREEN }],
            markers: Vec::new(),
            note: None,
        }
        .drawable();
        let svg = to_svg(&Chart::Xy(c.clone())).unwrap();
        let dot = fill(theme::BLUE);
        let circles: Vec<&str> = svg.split("<circle").skip(1).filter(|e| e.contains(&dot)).collect();
        assert_eq!(circles.len(), 3, "the negative x is off a log axis");
        let blue_line = format!(r#"stroke="{}" stroke-width="2""#, theme::BLUE.hex());
        assert_eq!(svg.split("<polyline").skip(1).filter(|e| e.contains(&blue_line)).count(), 1);
        // The middle point sits halfway across the plot on the log axis (plot from x = 76 to
        // the width less 28).
        let (w, _) = c.size();
        let mid = (76 + (i64::from(w) - 28)) / 2;
        assert!(circles[1].contains(&format!(r#"cx="{mid}""#)), "{svg}");
        // A points-only series has dots and no line.
        let mut scatter = c;
        scatter.series[0].style = XyStyle::Points;
        let svg = to_svg(&Chart::Xy(scatter)).unwrap();
        assert_eq!(svg.split("<circle").skip(1).filter(|e| e.contains(&dot)).count(), 3);
        assert_eq!(svg.split("<polyline").skip(1).filter(|e| e.contains(&blue_line)).count(), 0);
        // The rule is dashed in its colour, labelled.
        assert_eq!(dashed(&svg, theme::GREEN), 1, "{svg}");
        assert!(texts(&svg).contains(&("start".into(), "m".into())), "{svg}");
    }

    #[test]
    fn a_vertical_rule_near_the_right_edge_has_its_label_on_its_left() {
        use crate::theme;
        use crate::xy::{Rule, XyAxis, XyChart};
        let rule = |value: f64| Rule { value, vertical: true, label: "HBM 95 GB".into(), color: theme::INK };
        let chart = |value: f64| XyChart {
            title: "t".into(),
            x: XyAxis::linear_stepped("GB", 100.0, 5),
            y: XyAxis::linear_stepped("s", 1.0, 5),
            series: Vec::new(),
            rules: vec![rule(value)],
            markers: Vec::new(),
            note: None,
        };
        let left = to_svg(&Chart::Xy(chart(10.0))).unwrap();
        assert!(texts(&left).contains(&("start".into(), "HBM 95 GB".into())), "{left}");
        let right = to_svg(&Chart::Xy(chart(98.0))).unwrap();
        assert!(texts(&right).contains(&("end".into(), "HBM 95 GB".into())), "{right}");
    }
}
