//! The one plotters backend type the page draws charts with: the canvas
//! ([`MeasuredCanvas`]) or an SVG document (plotters' [`SVGBackend`], for "Download SVG").
//!
//! The chart drawing code in `shardcalc-charts` is generic over the backend, so every backend
//! type the page uses gets its own compiled copy of it. Drawing both outputs through this enum
//! keeps one copy: about 9 KB of gzipped wasm less than drawing SVG with `SVGBackend` directly
//! (`shardcalc_charts::svg::to_svg`, which the CLI and the tests still use). Each call is
//! forwarded unchanged, except that SVG text is sized as `shardcalc_charts::svg` sizes it, so
//! the page's SVG is byte for byte the CLI's.

use std::fmt;

use plotters::prelude::{DrawingBackend, IntoDrawingArea, SVGBackend};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};
use shardcalc_charts::{Chart, ChartError};

use super::measured_canvas::MeasuredCanvas;

/// A chart target: the page's canvas or an SVG string.
pub enum ChartBackend<'a> {
    /// A `<canvas>`, text measured with the canvas.
    Canvas(MeasuredCanvas),
    /// An SVG document written into a string when the backend is dropped.
    Svg(SVGBackend<'a>),
}

/// A backend's error, as its message (the two backends have different error types).
#[derive(Debug)]
pub struct BackendError(String);

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BackendError {}

type Outcome<T = ()> = Result<T, DrawingErrorKind<BackendError>>;

/// A backend's result with its error as a [`BackendError`] (same message).
fn lift<T, E: std::error::Error + Send + Sync>(result: Result<T, DrawingErrorKind<E>>) -> Outcome<T> {
    result.map_err(|e| match e {
        DrawingErrorKind::DrawingError(e) => DrawingErrorKind::DrawingError(BackendError(e.to_string())),
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    })
}

/// Calls the same method on whichever backend this is.
macro_rules! forward {
    ($self:ident, $backend:ident => $call:expr) => {
        match $self {
            ChartBackend::Canvas($backend) => lift($call),
            ChartBackend::Svg($backend) => lift($call),
        }
    };
}

impl DrawingBackend for ChartBackend<'_> {
    type ErrorType = BackendError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            ChartBackend::Canvas(b) => b.get_size(),
            ChartBackend::Svg(b) => b.get_size(),
        }
    }

    fn ensure_prepared(&mut self) -> Outcome {
        forward!(self, b => b.ensure_prepared())
    }

    fn present(&mut self) -> Outcome {
        forward!(self, b => b.present())
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Outcome {
        forward!(self, b => b.draw_pixel(point, color))
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Outcome {
        forward!(self, b => b.draw_line(from, to, style))
    }

    fn draw_rect<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, style: &S, fill: bool) -> Outcome {
        forward!(self, backend => backend.draw_rect(a, b, style, fill))
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Outcome {
        forward!(self, b => b.draw_path(path, style))
    }

    fn draw_circle<S: BackendStyle>(&mut self, center: BackendCoord, radius: u32, style: &S, fill: bool) -> Outcome {
        forward!(self, b => b.draw_circle(center, radius, style, fill))
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Outcome {
        forward!(self, b => b.fill_polygon(vert, style))
    }

    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Outcome {
        forward!(self, b => b.draw_text(text, style, pos))
    }

    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Outcome<(u32, u32)> {
        match self {
            ChartBackend::Canvas(b) => lift(b.estimate_text_size(text, style)),
            // What `shardcalc_charts::svg::to_svg` (and so the CLI) uses, instead of plotters'
            // in-browser measurement with a styled <span>, which the page's policy refuses.
            ChartBackend::Svg(_) => Ok(shardcalc_charts::svg::estimate_text_size(style.size(), text)),
        }
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, (w, h): (u32, u32), src: &[u8]) -> Outcome {
        forward!(self, b => b.blit_bitmap(pos, (w, h), src))
    }
}

/// Renders `chart` at its own size into an SVG string, as `shardcalc_charts::svg::to_svg`
/// does, through [`ChartBackend`].
///
/// # Errors
/// [`ChartError::Draw`] when plotters fails.
pub fn chart_svg(chart: &Chart) -> Result<String, ChartError> {
    let mut out = String::new();
    {
        let root = ChartBackend::Svg(SVGBackend::with_string(&mut out, chart.size())).into_drawing_area();
        chart.draw(&root)?;
        // `draw` presents; the backend writes the closing tag when dropped here.
    }
    Ok(out)
}
