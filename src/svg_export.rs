//! A chart as an SVG document ("Download SVG"), laid out exactly like the page's canvas:
//! plotters' [`SVGBackend`] with label widths measured by a 2d canvas context, as
//! `components::measured_canvas` measures them on the page. An `OffscreenCanvas` does the
//! measuring, so this runs in the background worker (`src/bin/worker.rs`, which has no
//! document) as well as on the page; plotters' own measurement on wasm needs a document.
//!
//! Compiled into the lib (`shardcalc::chart_svg`, for tests) and into the worker by `#[path]`.

use plotters::prelude::{DrawingBackend, IntoDrawingArea, SVGBackend};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};
use shardcalc_charts::{Chart, ChartError};
use wasm_bindgen::JsCast;
use web_sys::{OffscreenCanvas, OffscreenCanvasRenderingContext2d};

type SvgError = <SVGBackend<'static> as DrawingBackend>::ErrorType;
type Outcome<T = ()> = Result<T, DrawingErrorKind<SvgError>>;

/// [`SVGBackend`] whose text measurement uses a canvas context.
struct MeasuredSvg<'a> {
    inner: SVGBackend<'a>,
    context: OffscreenCanvasRenderingContext2d,
}

/// A 2d context of a 1×1 `OffscreenCanvas`, for measuring text; `None` where the browser
/// offers none.
fn measuring_context() -> Option<OffscreenCanvasRenderingContext2d> {
    let canvas = OffscreenCanvas::new(1, 1).ok()?;
    canvas.get_context("2d").ok()??.dyn_into().ok()
}

impl DrawingBackend for MeasuredSvg<'_> {
    type ErrorType = SvgError;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Outcome {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Outcome {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Outcome {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Outcome {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, style: &S, fill: bool) -> Outcome {
        self.inner.draw_rect(a, b, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Outcome {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(&mut self, center: BackendCoord, radius: u32, style: &S, fill: bool) -> Outcome {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Outcome {
        self.inner.fill_polygon(vert, style)
    }

    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Outcome {
        self.inner.draw_text(text, style, pos)
    }

    /// Width from `measureText` in the style's font; height the font size (the em box), as
    /// the page's canvas measures.
    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Outcome<(u32, u32)> {
        self.context.set_font(&format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str()
        ));
        let width = self
            .context
            .measure_text(text)
            .map(|m| m.width())
            .map_err(|_| DrawingErrorKind::FontError("canvas measureText failed".into()))?;
        // Non-negative and at most a few thousand pixels: the casts are exact enough.
        Ok((width.ceil().max(0.0) as u32, style.size().ceil().max(0.0) as u32))
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, (w, h): (u32, u32), src: &[u8]) -> Outcome {
        self.inner.blit_bitmap(pos, (w, h), src)
    }
}

/// Renders `chart` at its own size into an SVG document.
///
/// # Errors
/// [`ChartError::NoContext`] without a canvas to measure text with; [`ChartError::Draw`]
/// when plotters fails.
pub fn chart_svg(chart: &Chart) -> Result<String, ChartError> {
    let context = measuring_context().ok_or(ChartError::NoContext)?;
    let mut out = String::new();
    {
        let inner = SVGBackend::with_string(&mut out, chart.size());
        let root = MeasuredSvg { inner, context }.into_drawing_area();
        chart.draw(&root)?;
        // `draw` presents; the backend writes the closing tag when dropped here.
    }
    Ok(out)
}
