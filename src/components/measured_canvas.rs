//! The canvas backend of the charts: plotters-canvas's drawing (ported from its `CanvasBackend`,
//! MIT), with two changes. Text is measured with the canvas's own `measureText` instead of
//! plotters' default for wasm, which appends a `<span>` to the page and reads its size (a forced
//! layout of the whole page for every label). And colours and font sizes are written with
//! [`shardcalc_core::decimal::shortest`], not `format!("{}", f64)`: plotters-canvas's
//! `format!("rgba({},{},{},{})", …)` was the last user of core's float printing on the pages
//! (about 10 KB of wasm; docs/size.md).

use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform};
use std::cell::RefCell;

use shardcalc_core::decimal::shortest;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A drawing call the canvas refused, with the browser's message.
#[derive(Debug)]
pub struct CanvasError(String);

impl std::fmt::Display for CanvasError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "Canvas Error: {}", self.0)
    }
}

impl std::error::Error for CanvasError {}

fn error_cast(e: &JsValue) -> DrawingErrorKind<CanvasError> {
    DrawingErrorKind::DrawingError(CanvasError(
        js_sys::JSON::stringify(e).map(String::from).unwrap_or_else(|_| "Unknown".to_string()),
    ))
}

type Outcome = Result<(), DrawingErrorKind<CanvasError>>;

/// The plotters backend drawing on a `<canvas>` (see the module doc).
pub struct MeasuredCanvas {
    canvas: HtmlCanvasElement,
    context: CanvasRenderingContext2d,
    /// The font, fill and stroke style last written to the context (as CSS text), so that
    /// each is written only when it changes: setting `font` parses it every time, and was the
    /// largest part of redrawing a chart (docs/size.md, serving page). Cleared by `restore()`.
    written: RefCell<[String; 3]>,
}

/// Slots of [`MeasuredCanvas::written`].
const FONT: usize = 0;
const FILL: usize = 1;
const STROKE: usize = 2;

impl MeasuredCanvas {
    /// The backend for `canvas`; `None` when it has no 2d context.
    #[must_use]
    pub fn new(canvas: HtmlCanvasElement) -> Option<Self> {
        let context = canvas.get_context("2d").ok()??.dyn_into().ok()?;
        Some(Self { canvas, context, written: RefCell::default() })
    }

    /// Calls `write` with `value` unless slot `slot` already holds it.
    fn write_once(&self, slot: usize, value: String, write: impl FnOnce(&CanvasRenderingContext2d, &str)) {
        let mut written = self.written.borrow_mut();
        if let Some(last) = written.get_mut(slot) {
            if *last != value {
                write(&self.context, &value);
                *last = value;
            }
        }
    }

    fn set_line_style(&self, style: &impl BackendStyle) {
        self.write_once(STROKE, css_color(style.color()), |c, v| c.set_stroke_style_str(v));
        self.context.set_line_width(f64::from(style.stroke_width()));
    }

    fn set_fill(&self, color: BackendColor) {
        self.write_once(FILL, css_color(color), |c, v| c.set_fill_style_str(v));
    }

    fn set_font(&self, style: &impl BackendTextStyle) {
        let font = format!("{} {}px {}", style.style().as_str(), shortest(style.size()), style.family().as_str());
        self.write_once(FONT, font, |c, v| c.set_font(v));
    }
}

/// `rgba(r,g,b,alpha)`, the alpha as `format!("{}")` would print it.
fn css_color(color: BackendColor) -> String {
    let (r, g, b) = color.rgb;
    format!("rgba({r},{g},{b},{})", shortest(color.alpha))
}

impl DrawingBackend for MeasuredCanvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        (self.canvas.width(), self.canvas.height())
    }

    fn ensure_prepared(&mut self) -> Outcome {
        Ok(())
    }

    fn present(&mut self) -> Outcome {
        Ok(())
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Outcome {
        if color.alpha == 0.0 {
            return Ok(());
        }
        self.set_fill(color);
        self.context.fill_rect(f64::from(point.0), f64::from(point.1), 1.0, 1.0);
        Ok(())
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Outcome {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (from, to) = fine_hor_ver_lines(from, to);
        self.set_line_style(style);
        self.context.begin_path();
        self.context.move_to(from.0, from.1);
        self.context.line_to(to.0, to.1);
        self.context.stroke();
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, style: &S, fill: bool) -> Outcome {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (x, y) = (f64::from(a.0), f64::from(a.1));
        let (w, h) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
        if fill {
            self.set_fill(style.color());
            self.context.fill_rect(x, y, w, h);
        } else {
            self.set_line_style(style);
            self.context.stroke_rect(x, y, w, h);
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Outcome {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let mut path = path.into_iter();
        self.context.begin_path();
        if let Some(start) = path.next() {
            self.set_line_style(style);
            self.context.move_to(f64::from(start.0), f64::from(start.1));
            for next in path {
                self.context.line_to(f64::from(next.0), f64::from(next.1));
            }
        }
        self.context.stroke();
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(&mut self, center: BackendCoord, radius: u32, style: &S, fill: bool) -> Outcome {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        if fill {
            self.set_fill(style.color());
        } else {
            self.set_line_style(style);
        }
        self.context.begin_path();
        self.context
            .arc(f64::from(center.0), f64::from(center.1), f64::from(radius), 0.0, std::f64::consts::TAU)
            .map_err(|e| error_cast(&e))?;
        if fill {
            self.context.fill();
        } else {
            self.context.stroke();
        }
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Outcome {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let mut path = vert.into_iter();
        self.context.begin_path();
        if let Some(start) = path.next() {
            self.set_fill(style.color());
            self.context.move_to(f64::from(start.0), f64::from(start.1));
            for next in path {
                self.context.line_to(f64::from(next.0), f64::from(next.1));
            }
            self.context.close_path();
        }
        self.context.fill();
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Outcome {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let (mut x, mut y) = (pos.0, pos.1);
        let degree = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        } / 180.0
            * std::f64::consts::PI;
        if degree != 0.0 {
            self.context.save();
            self.context.translate(f64::from(x), f64::from(y)).map_err(|e| error_cast(&e))?;
            self.context.rotate(degree).map_err(|e| error_cast(&e))?;
            x = 0;
            y = 0;
        }
        self.context.set_text_baseline(match style.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        });
        self.context.set_text_align(match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        });
        self.set_fill(color);
        self.set_font(style);
        self.context.fill_text(text, f64::from(x), f64::from(y)).map_err(|e| error_cast(&e))?;
        if degree != 0.0 {
            self.context.restore();
            // restore() brings back the font and styles from before save().
            *self.written.borrow_mut() = Default::default();
        }
        Ok(())
    }

    /// Width from `measureText` in the style's font; height the font size (the em box).
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.set_font(style);
        let width = self
            .context
            .measure_text(text)
            .map(|m| m.width())
            .map_err(|_| DrawingErrorKind::FontError("canvas measureText failed".into()))?;
        // Non-negative and at most a few thousand pixels: the casts are exact enough.
        Ok((width.ceil().max(0.0) as u32, style.size().ceil().max(0.0) as u32))
    }
}

/// Moves a horizontal or vertical line by half a pixel so that a 1-pixel line is not blurred
/// over two (plotters-canvas does the same).
fn fine_hor_ver_lines(from: BackendCoord, end: BackendCoord) -> ((f64, f64), (f64, f64)) {
    let mut from = (f64::from(from.0), f64::from(from.1));
    let mut end = (f64::from(end.0), f64::from(end.1));
    if from.0 == end.0 {
        from.0 -= 0.5;
        end.0 -= 0.5;
    }
    if from.1 == end.1 {
        from.1 -= 0.5;
        end.1 -= 0.5;
    }
    (from, end)
}
