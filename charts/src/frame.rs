//! A chart's plot area with its axes, grid, tick marks, tick labels and axis titles, drawn
//! with plotters' drawing area and elements directly (generic over the backend, like every
//! chart here), then a mapping from data to pixels for drawing the data.
//!
//! Why not plotters' `ChartBuilder` and mesh: every chart here already computes its own ticks
//! ([`TickedAxis`]), and the builder, coordinate and mesh machinery cost each page about 4 KB
//! of gzipped wasm that this frame does not (docs/size.md). Charts drawn with a frame share it;
//! a view that uses `ChartBuilder` pays for it on its own page.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;

use crate::axis::TickedAxis;
use crate::theme;
use crate::ChartError;

/// Length of a tick mark outside the plot, pixels.
const TICK_PX: i32 = 5;

/// What a frame shows.
pub struct FrameSpec<'a> {
    /// Space around the frame: top, right, bottom, left, pixels.
    pub margin: (i32, i32, i32, i32),
    /// Height under the plot for the x tick labels and the x title.
    pub x_label_area: i32,
    /// Width left of the plot for the y tick labels and the y title.
    pub y_label_area: i32,
    /// The x axis and its ticks.
    pub x: TickedAxis,
    /// The y axis and its ticks.
    pub y: TickedAxis,
    /// The x title, with its unit.
    pub x_desc: &'a str,
    /// The y title ("" for none).
    pub y_desc: &'a str,
    /// The label of an x tick.
    pub x_label: &'a dyn Fn(f64) -> String,
    /// The label of a y tick.
    pub y_label: &'a dyn Fn(f64) -> String,
    /// Vertical grid lines at the x ticks.
    pub x_grid: bool,
    /// Horizontal grid lines at the y ticks.
    pub y_grid: bool,
}

/// A drawn frame: where the plot is and how data map into it.
pub struct Frame {
    x: TickedAxis,
    y: TickedAxis,
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
}

fn px(f: f64) -> i32 {
    // Pixel positions of values on or near the axes: `as` saturates far-off ones.
    f.round() as i32
}

impl Frame {
    /// Draws the frame of `spec` on `area` (pixel coordinates) and returns it.
    ///
    /// # Errors
    /// [`ChartError::Draw`] when the backend fails.
    pub fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, spec: &FrameSpec<'_>) -> Result<Self, ChartError> {
        let (w, h) = area.dim_in_pixel();
        let (w, h) = (i32::try_from(w).unwrap_or(i32::MAX), i32::try_from(h).unwrap_or(i32::MAX));
        let (mt, mr, mb, ml) = spec.margin;
        let frame = Frame {
            x: spec.x.clone(),
            y: spec.y.clone(),
            left: ml + spec.y_label_area,
            top: mt,
            right: (w - mr).max(ml + spec.y_label_area + 1),
            bottom: (h - mb - spec.x_label_area).max(mt + 1),
        };
        let (grid, ink) = (theme::GRID.plotters(), theme::INK.plotters());
        let line = |from: (i32, i32), to: (i32, i32), color: &RGBColor| {
            area.draw(&PathElement::new(vec![from, to], color.stroke_width(1))).map_err(ChartError::draw)
        };
        let font = (theme::FONT, theme::LABEL_PX).into_font();
        let x_style = font.clone().color(&ink).pos(Pos::new(HPos::Center, VPos::Top));
        let y_style = font.clone().color(&ink).pos(Pos::new(HPos::Right, VPos::Center));
        for &t in spec.x.ticks() {
            let x = frame.point((t, 0.0)).0;
            if spec.x_grid {
                line((x, frame.top), (x, frame.bottom), &grid)?;
            }
            line((x, frame.bottom), (x, frame.bottom + TICK_PX), &ink)?;
            area.draw(&Text::new((spec.x_label)(t), (x, frame.bottom + TICK_PX + 3), x_style.clone()))
                .map_err(ChartError::draw)?;
        }
        for &t in spec.y.ticks() {
            let y = frame.point((0.0, t)).1;
            if spec.y_grid {
                line((frame.left, y), (frame.right, y), &grid)?;
            }
            line((frame.left - TICK_PX, y), (frame.left, y), &ink)?;
            area.draw(&Text::new((spec.y_label)(t), (frame.left - TICK_PX - 3, y), y_style.clone()))
                .map_err(ChartError::draw)?;
        }
        line((frame.left, frame.top), (frame.left, frame.bottom), &ink)?;
        line((frame.left, frame.bottom), (frame.right, frame.bottom), &ink)?;
        let x_desc = font.clone().color(&ink).pos(Pos::new(HPos::Center, VPos::Bottom));
        area.draw(&Text::new(spec.x_desc.to_string(), ((frame.left + frame.right) / 2, h - mb), x_desc))
            .map_err(ChartError::draw)?;
        if !spec.y_desc.is_empty() {
            let y_desc = font.transform(FontTransform::Rotate270).color(&ink).pos(Pos::new(HPos::Center, VPos::Top));
            area.draw(&Text::new(spec.y_desc.to_string(), (ml, (frame.top + frame.bottom) / 2), y_desc))
                .map_err(ChartError::draw)?;
        }
        Ok(frame)
    }

    /// The pixel of the data point `(x, y)`.
    #[must_use]
    pub fn point(&self, (x, y): (f64, f64)) -> (i32, i32) {
        let fx = self.x.fraction(x);
        let fy = self.y.fraction(y);
        (
            px(f64::from(self.left) + f64::from(self.right - self.left) * fx),
            px(f64::from(self.bottom) - f64::from(self.bottom - self.top) * fy),
        )
    }
}
