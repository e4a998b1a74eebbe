//! The MFU error of every published run (predicted − measured, percentage points) by chip
//! generation: one column of points per generation, in sample filled, held back open
//! ([`crate::scatter::run_predictions`]), with the zero line and ±5 points. Data first,
//! drawing below.

use crate::axis::TickedAxis;
use crate::scatter::{chip_name, run_predictions, GENERATION_COLORS};
use crate::theme::{self, Rgb};
use crate::ticks::linear_ticks;
use crate::ChartError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use shardcalc_core::validation::bundled_table::BundledTable;
use shardcalc_core::validation::table::generations;
use shardcalc_core::validation::PredictionMode;

/// One generation's column.
#[derive(Clone, Debug, PartialEq)]
pub struct ResidualColumn {
    /// The chip's name.
    pub name: String,
    /// Marker colour.
    pub color: Rgb,
    /// (x within the column, MFU error in points, held back); x spreads the column's
    /// points evenly over ±0.35 around its index, in table order.
    pub points: Vec<(f64, f64, bool)>,
    /// Median absolute error of the column, points.
    pub median_abs: f64,
}

/// The "residuals by chip" chart.
#[derive(Clone, Debug, PartialEq)]
pub struct ResidualChart {
    /// Caption.
    pub title: String,
    /// Which prediction.
    pub mode: PredictionMode,
    /// The y axis runs from `-limit` to `limit` points.
    pub limit: f64,
    /// Ticks of the y axis.
    pub ticks: Vec<f64>,
    /// Columns, in table order.
    pub columns: Vec<ResidualColumn>,
}

/// The chart of `table`'s runs in `mode` (refused runs left out).
#[must_use]
pub fn validation_residuals(table: &BundledTable, mode: PredictionMode) -> ResidualChart {
    let points = run_predictions(table, mode);
    let columns: Vec<ResidualColumn> = generations(&table.runs)
        .iter()
        .zip(GENERATION_COLORS.iter().cycle())
        .enumerate()
        .map(|(i, (chip, color))| {
            let errors: Vec<(f64, bool)> = points
                .iter()
                .filter(|(r, _, _)| &r.chip == chip)
                .map(|(_, p, held)| (p.error.mfu_pts, *held))
                .collect();
            let n = errors.len().max(1) as f64;
            let abs: Vec<f64> = errors.iter().map(|e| e.0.abs()).collect();
            ResidualColumn {
                name: chip_name(chip),
                color: *color,
                points: errors
                    .iter()
                    .enumerate()
                    .map(|(k, (e, held))| (i as f64 - 0.35 + 0.7 * (k as f64 + 0.5) / n, *e, *held))
                    .collect(),
                median_abs: shardcalc_core::validation::stats::median(&abs),
            }
        })
        .collect();
    let largest = columns.iter().flat_map(|c| c.points.iter().map(|p| p.1.abs())).fold(5.0, f64::max);
    let half = linear_ticks(largest, 4);
    let mut ticks: Vec<f64> = half.values.iter().rev().map(|v| -v).collect();
    ticks.extend(half.values.iter().skip(1));
    ResidualChart {
        title: format!("MFU error by chip (predicted − measured) — {}", mode.label()),
        mode,
        limit: half.max,
        ticks,
        columns,
    }
}

impl ResidualChart {
    /// Pixel size (width × height).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (theme::WIDTH, 420)
    }
}

/// Draws a [`ResidualChart`] on `area` (any plotters backend).
///
/// # Errors
/// [`ChartError::Draw`] when the backend fails.
pub fn draw_residuals<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &ResidualChart,
) -> Result<(), ChartError> {
    area.fill(&WHITE).map_err(ChartError::draw)?;
    theme::draw_header(area, &chart.title, &[("filled: fitted, open: held back", theme::GRID)])?;
    let (_, body) = area.split_vertically(theme::HEADER_PX);
    let ink = theme::INK.plotters();
    let label_style = (theme::FONT, theme::LABEL_PX).into_font().color(&ink);
    let n = chart.columns.len().max(1) as f64;
    let xs: Vec<f64> = (0..chart.columns.len()).map(|i| i as f64).collect();
    let mut ctx = ChartBuilder::on(&body)
        .margin(12)
        .margin_right(24)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(
            TickedAxis::linear(-0.5, n - 0.5, xs),
            TickedAxis::linear(-chart.limit, chart.limit, chart.ticks.clone()),
        )
        .map_err(ChartError::draw)?;
    let names: Vec<String> = chart.columns.iter().map(|c| c.name.clone()).collect();
    let x_fmt = |v: &f64| names.get(v.round().max(0.0) as usize).cloned().unwrap_or_default();
    // decimal, not format!: no float printer on the page (docs/size.md).
    // The zero tick reads "0", not "-0" or "+0" (a tick computed as -0.0 or -1e-16).
    let y_fmt = |v: &f64| match shardcalc_core::decimal::signed(*v, 0) {
        t if t == "-0" || t == "+0" => "0".to_string(),
        t => t,
    };
    ctx.configure_mesh()
        .bold_line_style(theme::GRID.plotters())
        .axis_style(ink)
        .label_style(label_style.clone())
        .axis_desc_style(label_style.clone())
        .y_desc("MFU error (points)")
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .draw()
        .map_err(ChartError::draw)?;
    ctx.draw_series(LineSeries::new([(-0.5, 0.0), (n - 0.5, 0.0)], ink.stroke_width(1))).map_err(ChartError::draw)?;
    for y in [-5.0, 5.0] {
        ctx.draw_series(DashedLineSeries::new([(-0.5, y), (n - 0.5, y)], 5, 4, ink.mix(0.35).stroke_width(1)))
            .map_err(ChartError::draw)?;
    }
    let note = label_style.pos(Pos::new(HPos::Center, VPos::Top));
    for (i, c) in chart.columns.iter().enumerate() {
        let color = c.color.plotters();
        ctx.draw_series(c.points.iter().map(|&(x, y, held)| {
            let style = if held { color.stroke_width(2) } else { color.filled() };
            Circle::new((x, y), 4, style)
        }))
        .map_err(ChartError::draw)?;
        let text = format!("median |err| {}", shardcalc_core::decimal::fixed(c.median_abs, 1));
        ctx.draw_series([Text::new(text, (i as f64, chart.limit * 0.97), note.clone())]).map_err(ChartError::draw)?;
    }
    area.present().map_err(ChartError::draw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardcalc_core::validation::bundled_table;

    #[test]
    fn one_column_per_generation_inside_the_axis() {
        let table = bundled_table::bundled();
        let c = validation_residuals(table, PredictionMode::Calibrated);
        assert_eq!(c.columns.len(), 4);
        assert_eq!(c.columns.iter().map(|c| c.points.len()).sum::<usize>(), 2 * 51, "in sample and held back");
        for (i, col) in c.columns.iter().enumerate() {
            for p in &col.points {
                assert!((p.0 - i as f64).abs() < 0.36 && p.1.abs() <= c.limit, "{p:?}");
            }
        }
        assert_eq!(c.ticks.first(), Some(&-c.limit));
        assert_eq!(c.ticks.last(), Some(&c.limit));
        assert!(c.ticks.contains(&0.0));
        // The roofline is optimistic everywhere: every ideal error is positive.
        let ideal = validation_residuals(table, PredictionMode::Ideal);
        assert!(ideal.columns.iter().flat_map(|c| &c.points).all(|p| p.1 > 0.0));
        assert!(ideal.limit >= 60.0);
    }
}
