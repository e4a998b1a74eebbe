//! Predicted against measured MFU for every published run, one colour per chip
//! generation, filled for the runs the calibration was fitted on and open for the held-back
//! ones, with the y = x line (a perfect prediction) and ±5 points around it (the issue's
//! goal). Data first, drawing below.

use crate::axis::TickedAxis;
use crate::theme::{self, Rgb};
use crate::ticks::{linear_ticks, LinearTicks};
use crate::ChartError;
use plotters::coord::Shift;
use plotters::prelude::*;
use shardcalc_core::validation::fit::Split;
use shardcalc_core::validation::table::RunRow;
use shardcalc_core::validation::PredictionMode;

/// One chip generation's points.
#[derive(Clone, Debug, PartialEq)]
pub struct ScatterSeries {
    /// Legend text (the chip's name).
    pub name: String,
    /// Marker colour.
    pub color: Rgb,
    /// (measured MFU %, predicted MFU %, held back).
    pub points: Vec<(f64, f64, bool)>,
}

/// The "predicted vs measured" chart.
#[derive(Clone, Debug, PartialEq)]
pub struct ScatterChart {
    /// Caption.
    pub title: String,
    /// Which prediction is plotted.
    pub mode: PredictionMode,
    /// Both axes (MFU %, from 0; the same scale so y = x is the diagonal).
    pub axis: LinearTicks,
    /// One series per chip generation, in table order.
    pub series: Vec<ScatterSeries>,
}

/// Colours of the chip generations, in order of appearance.
pub const GENERATION_COLORS: [Rgb; 6] =
    [theme::BLUE, theme::ORANGE, theme::GREEN, theme::VERMILLION, theme::PURPLE, theme::SKY];

/// Display name of a catalog chip id.
#[must_use]
pub fn chip_name(id: &str) -> String {
    shardcalc_core::hardware::catalog::get(id).map_or_else(|| id.to_string(), |c| c.name)
}

/// The chart of `rows` (runs the planner refused are left out) in `mode`.
#[must_use]
pub fn validation_scatter(rows: &[RunRow], mode: PredictionMode) -> ScatterChart {
    let generations = shardcalc_core::validation::table::generations(rows);
    let series: Vec<ScatterSeries> = generations
        .iter()
        .zip(GENERATION_COLORS.iter().cycle())
        .map(|(chip, color)| ScatterSeries {
            name: chip_name(chip),
            color: *color,
            points: rows
                .iter()
                .filter(|r| &r.chip == chip)
                .filter_map(|r| {
                    let p = r.prediction(mode).as_ref().ok()?;
                    Some((r.measured_mfu_pct, p.mfu_pct, r.split == Split::HeldBack))
                })
                .collect(),
        })
        .collect();
    let max = series.iter().flat_map(|s| s.points.iter().map(|p| p.0.max(p.1))).fold(0.0, f64::max);
    ScatterChart {
        title: format!("Predicted vs measured MFU — {}", mode.label()),
        mode,
        axis: linear_ticks(max.clamp(10.0, 100.0), 5),
        series,
    }
}

impl ScatterChart {
    /// Pixel size (width × height).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (theme::WIDTH, 560)
    }

    /// Points plotted.
    #[must_use]
    pub fn points(&self) -> usize {
        self.series.iter().map(|s| s.points.len()).sum()
    }
}

/// Draws a [`ScatterChart`] on `area` (any plotters backend).
///
/// # Errors
/// [`ChartError::Draw`] when the backend fails.
pub fn draw_scatter<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &ScatterChart) -> Result<(), ChartError> {
    area.fill(&WHITE).map_err(ChartError::draw)?;
    let mut entries: Vec<(&str, Rgb)> = chart.series.iter().map(|s| (s.name.as_str(), s.color)).collect();
    entries.push(("filled: fitted, open: held back", theme::GRID));
    theme::draw_header(area, &chart.title, &entries)?;
    let (_, body) = area.split_vertically(theme::HEADER_PX);
    let ink = theme::INK.plotters();
    let label_style = (theme::FONT, theme::LABEL_PX).into_font().color(&ink);
    let max = chart.axis.max;
    let axis = || TickedAxis::linear(0.0, max, chart.axis.values.clone());
    let mut ctx = ChartBuilder::on(&body)
        .margin(12)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(axis(), axis())
        .map_err(ChartError::draw)?;
    // decimal, not format!: no float printer on the page (docs/size.md).
    let fmt = |v: &f64| shardcalc_core::decimal::fixed(*v, 0) + "%";
    ctx.configure_mesh()
        .bold_line_style(theme::GRID.plotters())
        .axis_style(ink)
        .label_style(label_style.clone())
        .axis_desc_style(label_style)
        .x_desc("measured MFU (today's MaxText convention)")
        .y_desc("predicted MFU")
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .draw()
        .map_err(ChartError::draw)?;
    ctx.draw_series(LineSeries::new([(0.0, 0.0), (max, max)], ink.stroke_width(1))).map_err(ChartError::draw)?;
    // ±5 points: y = x + 5 from (0, 5) to (max − 5, max), y = x − 5 from (5, 0) to (max, max − 5).
    for line in [[(0.0, 5.0), (max - 5.0, max)], [(5.0, 0.0), (max, max - 5.0)]] {
        ctx.draw_series(DashedLineSeries::new(line, 5, 4, ink.mix(0.35).stroke_width(1))).map_err(ChartError::draw)?;
    }
    for s in &chart.series {
        let color = s.color.plotters();
        ctx.draw_series(s.points.iter().map(|&(x, y, held)| {
            let style = if held { color.stroke_width(2) } else { color.filled() };
            Circle::new((x, y.min(max)), 5, style)
        }))
        .map_err(ChartError::draw)?;
    }
    area.present().map_err(ChartError::draw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardcalc_core::validation::calibration;
    use shardcalc_core::validation::table::run_rows;

    #[test]
    fn every_run_is_a_point_coloured_by_generation() {
        let rows = run_rows(&calibration::bundled());
        let c = validation_scatter(&rows, PredictionMode::Calibrated);
        assert_eq!(c.points(), rows.len());
        let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["TPU v5p", "TPU v5e", "TPU v4", "NVIDIA H100 SXM"]);
        let held: usize = c.series.iter().flat_map(|s| &s.points).filter(|p| p.2).count();
        // The interleaved split holds back every other group of near-duplicate runs: 22.
        assert_eq!(held, 22);
        // Same scale on both axes, covering every point.
        assert_eq!(c.axis.max, 80.0);
        assert!(c.series.iter().flat_map(|s| &s.points).all(|p| p.0 <= c.axis.max && p.1 <= c.axis.max));
        // The ideal roofline predicts up to 100% MFU: the axis grows.
        let ideal = validation_scatter(&rows, PredictionMode::Ideal);
        assert_eq!(ideal.axis.max, 100.0);
        assert!(ideal.title.contains("ideal"));
    }
}
