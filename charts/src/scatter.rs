//! Predicted against measured, with the y = x line (a perfect prediction) and a band around
//! it (the goal), on the same scale on both axes, filled points for predictions of fitted
//! data and open ones for held-back data: one chart type, [`ScatterChart`], for
//! - [`validation_scatter`]: MFU of every published training run, one colour per chip
//!   generation, ±5 points (issue 16's goal). The roofline's predictions are filled; in
//!   calibrated mode each run has two points: filled, the calibration fitted on every run (in
//!   sample), and open, the calibration fitted without the run's chip generation (held back:
//!   the leave-one-chip-out split);
//! - `serving_validation::throughput_scatter`: serving throughput per chip, log-log, ±15%.
//!
//! Data first, drawing below.

use crate::axis::TickedAxis;
use crate::theme::{self, Rgb};
use crate::ticks::{linear_ticks, log_ticks};
use crate::ChartError;
use plotters::coord::Shift;
use plotters::prelude::*;
use shardcalc_core::validation::bundled_table::BundledTable;
use shardcalc_core::validation::splits::SplitKind;
use shardcalc_core::validation::table::{PredictionCell, RunRow};
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

/// Both axes of a scatter (the same scale, so y = x is the diagonal).
#[derive(Clone, Debug, PartialEq)]
pub struct ScatterAxis {
    /// Start.
    pub min: f64,
    /// End.
    pub max: f64,
    /// Tick positions.
    pub values: Vec<f64>,
    /// Logarithmic (else linear).
    pub log: bool,
    /// The measured quantity, with its unit (the x axis; the y axis is its prediction).
    pub label: String,
    /// Tick labels: a percentage (`40%`), else three significant digits.
    pub percent: bool,
}

/// The band around y = x.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Band {
    /// ± this many units (percentage points of MFU).
    Plus(f64),
    /// × (1 ± this fraction).
    Ratio(f64),
}

/// The "predicted vs measured" chart.
#[derive(Clone, Debug, PartialEq)]
pub struct ScatterChart {
    /// Caption.
    pub title: String,
    /// Which prediction is plotted.
    pub mode: PredictionMode,
    /// Both axes.
    pub axis: ScatterAxis,
    /// The band drawn around y = x.
    pub band: Band,
    /// The series, in legend order.
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

/// Every run's predictions in `mode` (those the planner refused left out): the bundled
/// calibration's or the roofline's, then, in calibrated mode, the one held back from the
/// calibration fitted without the run's chip generation (`true`).
#[must_use]
pub fn run_predictions(table: &BundledTable, mode: PredictionMode) -> Vec<(&RunRow, &PredictionCell, bool)> {
    let held = table.split(SplitKind::LeaveChipOut).filter(|_| mode == PredictionMode::Calibrated);
    let mut out = Vec::new();
    for r in &table.runs {
        if let Ok(p) = r.prediction(mode) {
            out.push((r, p, false));
        }
        if let Some(Ok(p)) = held.and_then(|s| s.prediction_of(&r.id)) {
            out.push((r, p, true));
        }
    }
    out
}

/// The chart of `table`'s runs in `mode` ([`run_predictions`]).
#[must_use]
pub fn validation_scatter(table: &BundledTable, mode: PredictionMode) -> ScatterChart {
    let generations = shardcalc_core::validation::table::generations(&table.runs);
    let points = run_predictions(table, mode);
    let series: Vec<ScatterSeries> = generations
        .iter()
        .zip(GENERATION_COLORS.iter().cycle())
        .map(|(chip, color)| ScatterSeries {
            name: chip_name(chip),
            color: *color,
            points: points
                .iter()
                .filter(|(r, _, _)| &r.chip == chip)
                .map(|(r, p, held)| (r.measured_mfu_pct, p.mfu_pct, *held))
                .collect(),
        })
        .collect();
    let max = series.iter().flat_map(|s| s.points.iter().map(|p| p.0.max(p.1))).fold(0.0, f64::max);
    let ticks = linear_ticks(max.clamp(10.0, 100.0), 5);
    ScatterChart {
        title: format!("Predicted vs measured MFU — {}", mode.label()),
        mode,
        axis: ScatterAxis {
            min: 0.0,
            max: ticks.max,
            values: ticks.values,
            log: false,
            label: "measured MFU (today's MaxText convention)".into(),
            percent: true,
        },
        band: Band::Plus(5.0),
        series,
    }
}

/// A logarithmic axis covering every value of `series` (positive ones).
#[must_use]
pub fn log_axis(series: &[ScatterSeries], label: &str) -> ScatterAxis {
    let values = series.iter().flat_map(|s| s.points.iter().flat_map(|p| [p.0, p.1])).filter(|v| *v > 0.0);
    let (lo, hi) = values.fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let t = log_ticks(lo, hi, 10.0, 10);
    ScatterAxis { min: t.min, max: t.max, values: t.values, log: true, label: label.into(), percent: false }
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
    let a = &chart.axis;
    let (min, max) = (a.min, a.max);
    let axis = || {
        if a.log {
            TickedAxis::log(min, max, a.values.clone())
        } else {
            TickedAxis::linear(min, max, a.values.clone())
        }
    };
    let mut ctx = ChartBuilder::on(&body)
        .margin(12)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(axis(), axis())
        .map_err(ChartError::draw)?;
    // decimal, not format!: no float printer on the page (docs/size.md).
    let fmt = |v: &f64| {
        if a.percent {
            shardcalc_core::decimal::fixed(*v, 0) + "%"
        } else {
            crate::format::significant(*v, 3)
        }
    };
    let y_desc =
        format!("predicted {}", a.label.split(" (").next().unwrap_or_default().trim_start_matches("measured "));
    ctx.configure_mesh()
        .bold_line_style(theme::GRID.plotters())
        .axis_style(ink)
        .label_style(label_style.clone())
        .axis_desc_style(label_style)
        .x_desc(a.label.as_str())
        .y_desc(y_desc)
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .draw()
        .map_err(ChartError::draw)?;
    ctx.draw_series(LineSeries::new([(min, min), (max, max)], ink.stroke_width(1))).map_err(ChartError::draw)?;
    // The band's edges, clipped to the axes: y = x ± d, or y = x·(1 ± r).
    let edges = match chart.band {
        Band::Plus(d) => [[(min, min + d), (max - d, max)], [(min + d, min), (max, max - d)]],
        Band::Ratio(r) => {
            [[(min, min * (1.0 + r)), (max / (1.0 + r), max)], [(min / (1.0 - r), min), (max, max * (1.0 - r))]]
        }
    };
    for line in edges {
        ctx.draw_series(DashedLineSeries::new(line, 5, 4, ink.mix(0.35).stroke_width(1))).map_err(ChartError::draw)?;
    }
    for s in &chart.series {
        let color = s.color.plotters();
        ctx.draw_series(s.points.iter().map(|&(x, y, held)| {
            let style = if held { color.stroke_width(2) } else { color.filled() };
            // Not `clamp`: its assertion formats floats with `Debug` (~6 KB of wasm).
            Circle::new((x, y.max(min).min(max)), 5, style)
        }))
        .map_err(ChartError::draw)?;
    }
    area.present().map_err(ChartError::draw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardcalc_core::validation::bundled_table;

    #[test]
    fn every_run_is_a_point_coloured_by_generation() {
        let table = bundled_table::bundled();
        let runs = table.runs.len();
        let c = validation_scatter(table, PredictionMode::Calibrated);
        let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["TPU v5p", "TPU v5e", "TPU v4", "NVIDIA H100 SXM"]);
        // Each run twice: in sample (filled) and held back from a fit without its chip (open).
        let held: usize = c.series.iter().flat_map(|s| &s.points).filter(|p| p.2).count();
        assert_eq!((c.points(), held), (2 * runs, runs));
        // Same scale on both axes, covering every point.
        assert_eq!(c.axis.max, 80.0);
        assert!(c.series.iter().flat_map(|s| &s.points).all(|p| p.0 <= c.axis.max && p.1 <= c.axis.max));
        // The ideal roofline predicts up to 100% MFU: the axis grows; nothing is fitted.
        let ideal = validation_scatter(table, PredictionMode::Ideal);
        assert_eq!(ideal.points(), runs);
        assert_eq!(ideal.axis.max, 100.0);
        assert!(ideal.title.contains("ideal"));
    }
}
