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
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, style: &S, fill: bool) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_rect(a, b, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(&mut self, center: BackendCoord, radius: u32, style: &S, fill: bool) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.fill_polygon(vert, style)
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_text(text, style, pos)
    }
    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        Ok(estimate_text_size(style.size(), text))
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, (w, h): (u32, u32), src: &[u8]) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
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
        for (size, text) in [(12.0, "Dense MLP"), (16.0, "Parameters per component — Llama 3 70B"), (9.5, ""), (40.0, "x")] {
            let style = plotters::style::TextStyle::from(("sans-serif", size).into_font());
            assert_eq!(svg.estimate_text_size(text, &style).unwrap(), estimate_text_size(size, text), "{text:?} at {size}");
        }
    }
}
