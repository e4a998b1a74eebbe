//! A chart's plot area with its axes, grid, tick marks, tick labels and axis titles, laid out
//! on a [`Scene`] below the chart's header, then a mapping from data to pixels
//! ([`scene::Frame`]) for laying out the data: the bar charts and the sequence-length chart.
//!
//! Why not plotters' `ChartBuilder` and mesh: every chart here already computes its own ticks
//! ([`TickedAxis`]), and a scene is shown by a page without plotters (docs/size.md).

use crate::axis::TickedAxis;
use crate::scene::{self, Anchor, Baseline, Item, Scene};
use crate::theme;

/// Length of a tick mark outside the plot, pixels.
const TICK_PX: f64 = 5.0;

/// What a frame shows.
pub struct FrameSpec<'a> {
    /// Space around the frame: top, right, bottom, left, pixels.
    pub margin: (f64, f64, f64, f64),
    /// Height under the plot for the x tick labels and the x title.
    pub x_label_area: f64,
    /// Width left of the plot for the y tick labels and the y title.
    pub y_label_area: f64,
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

/// Lays out the frame of `spec` on `scene` below `top` (the header's end) and returns the
/// plot rectangle with its axes.
pub fn lay_out(scene: &mut Scene, top: f64, spec: &FrameSpec<'_>) -> scene::Frame {
    let (w, h) = (f64::from(scene.width), f64::from(scene.height));
    let (mt, mr, mb, ml) = spec.margin;
    let left = ml + spec.y_label_area;
    let frame = scene::Frame {
        left,
        top: top + mt,
        right: (w - mr).max(left + 1.0),
        bottom: (h - mb - spec.x_label_area).max(top + mt + 1.0),
        x: spec.x.clone(),
        y: spec.y.clone(),
    };
    let line =
        |scene: &mut Scene, from: (f64, f64), to: (f64, f64), color| scene.line(vec![from, to], color, 1.0, None);
    for &t in spec.x.ticks() {
        let (x, _) = frame.px(t, 0.0);
        if spec.x_grid {
            line(scene, (x, frame.top), (x, frame.bottom), theme::GRID);
        }
        line(scene, (x, frame.bottom), (x, frame.bottom + TICK_PX), theme::INK);
        scene.text((x, frame.bottom + TICK_PX + 3.0), (spec.x_label)(t), Anchor::Middle, Baseline::Top);
    }
    for &t in spec.y.ticks() {
        let (_, y) = frame.px(0.0, t);
        if spec.y_grid {
            line(scene, (frame.left, y), (frame.right, y), theme::GRID);
        }
        line(scene, (frame.left - TICK_PX, y), (frame.left, y), theme::INK);
        scene.text((frame.left - TICK_PX - 3.0, y), (spec.y_label)(t), Anchor::End, Baseline::Middle);
    }
    scene.line(
        vec![(frame.left, frame.top), (frame.left, frame.bottom), (frame.right, frame.bottom)],
        theme::INK,
        1.0,
        None,
    );
    scene.text(((frame.left + frame.right) / 2.0, h - mb), spec.x_desc, Anchor::Middle, Baseline::Bottom);
    if !spec.y_desc.is_empty() {
        scene.items.push(Item::Text {
            at: (ml, (frame.top + frame.bottom) / 2.0),
            text: spec.y_desc.to_string(),
            size: f64::from(theme::LABEL_PX),
            color: theme::INK,
            anchor: Anchor::Middle,
            baseline: Baseline::Top,
            vertical: true,
        });
    }
    frame
}
