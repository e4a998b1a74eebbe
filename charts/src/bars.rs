//! Horizontal bar charts: parameters per component (total vs active, grouped) and training
//! FLOPs per component (forward + backward, stacked). Data first, then its layout as a
//! [`Scene`] (drawn as SVG, on a canvas, or on any plotters backend).

use crate::axis::TickedAxis;
use crate::format;
use crate::frame::{self, FrameSpec};
use crate::scene::{header, Anchor, Baseline, Item, LegendEntry, Scene};
use crate::theme::{self, Rgb};
use crate::ticks::{linear_ticks, LinearTicks};
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::report::{FlopsSummary, ParamsReport};

/// One series of bars (one value per category).
#[derive(Clone, Debug, PartialEq)]
pub struct BarSeries {
    /// Legend text.
    pub name: String,
    /// Fill colour.
    pub color: Rgb,
    /// One value per category, in the chart's category order.
    pub values: Vec<f64>,
}

/// One drawn bar: opposite corners in chart coordinates and the series it belongs to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    /// Bottom-left corner (x = value start).
    pub from: (f64, f64),
    /// Top-right corner (x = value end).
    pub to: (f64, f64),
    /// Index into [`BarChart::series`].
    pub series: usize,
}

/// A labelled dashed vertical line at a value (e.g. the HBM capacity on a memory chart).
#[derive(Clone, Debug, PartialEq)]
pub struct BarMark {
    /// Where, in the value axis' units.
    pub x: f64,
    /// What it is (drawn to its left, at the top of the plot).
    pub label: String,
    /// Colour.
    pub color: Rgb,
}

/// A horizontal bar chart: categories top to bottom, values along x from 0.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    /// Caption.
    pub title: String,
    /// What the x axis measures, with its unit.
    pub value_label: String,
    /// Category labels, top to bottom.
    pub categories: Vec<String>,
    /// The series; grouped side by side, or stacked when `stacked`.
    pub series: Vec<BarSeries>,
    /// Stack the series (sum along x) instead of grouping them.
    pub stacked: bool,
    /// The x axis.
    pub axis: LinearTicks,
    /// One label per tick of `axis`.
    pub tick_labels: Vec<String>,
    /// Labelled vertical lines at values (e.g. the HBM capacity), within the axis.
    pub marks: Vec<BarMark>,
}

/// Parameters per component of `params` (non-zero components only): total and active
/// side by side, in parameters.
#[must_use]
pub fn param_breakdown(model_name: &str, params: &ParamsReport) -> BarChart {
    let rows: Vec<_> = params.breakdown.iter().filter(|r| r.total.get() > 0.0).collect();
    let total = rows.iter().map(|r| r.total.get()).collect::<Vec<_>>();
    let active = rows.iter().map(|r| r.active.get()).collect::<Vec<_>>();
    let axis = linear_ticks(total.iter().copied().fold(0.0, f64::max), 6);
    let tick_labels = axis.values.iter().map(|v| format::short_count(*v)).collect();
    BarChart {
        title: format!("Parameters per component — {model_name}"),
        value_label: "parameters".into(),
        categories: rows.iter().map(|r| r.label.clone()).collect(),
        series: vec![
            BarSeries { name: "total (stored)".into(), color: theme::BLUE, values: total },
            BarSeries { name: "active (per token)".into(), color: theme::ORANGE, values: active },
        ],
        stacked: false,
        axis,
        tick_labels,
        marks: Vec::new(),
    }
}

/// Training TFLOPs per device-step of each component under `convention` (non-zero
/// components only), forward and backward stacked.
#[must_use]
pub fn flop_breakdown(model_name: &str, summary: &FlopsSummary, convention: FlopConvention) -> BarChart {
    let rows: Vec<_> = summary.rows.iter().filter(|r| r.total_tflops > 0.0).collect();
    let max = rows.iter().map(|r| r.total_tflops).fold(0.0, f64::max);
    let axis = linear_ticks(max, 6);
    let tick_labels = axis.values.iter().map(|v| format::significant(*v, 2)).collect();
    BarChart {
        title: format!("Training TFLOPs per device-step — {model_name}, {}", convention.label()),
        value_label: "TFLOP per device per optimizer step".into(),
        categories: rows.iter().map(|r| r.label.clone()).collect(),
        series: vec![
            BarSeries {
                name: "forward".into(),
                color: theme::BLUE,
                values: rows.iter().map(|r| r.forward_tflops).collect(),
            },
            BarSeries {
                name: "backward".into(),
                color: theme::SKY,
                values: rows.iter().map(|r| r.backward_tflops).collect(),
            },
        ],
        stacked: true,
        axis,
        tick_labels,
        marks: Vec::new(),
    }
}

impl BarChart {
    /// Pixel size that fits every category (width × height).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        let per_row = if self.stacked { 28 } else { 36 };
        let rows = u32::try_from(self.categories.len()).unwrap_or(u32::MAX).min(64);
        (theme::WIDTH, (110 + rows * per_row).max(200))
    }

    /// Width of the category-label area: the longest label, within 80..280 pixels.
    #[must_use]
    pub fn label_area_width(&self) -> u32 {
        let longest = self.categories.iter().map(|c| c.chars().count()).max().unwrap_or(0);
        let chars = u32::try_from(longest).unwrap_or(u32::MAX);
        chars.saturating_mul(theme::LABEL_CHAR_PX).saturating_add(16).clamp(80, 280)
    }

    /// The label of the tick at `value` (formatted on the fly for a value off the ticks).
    fn tick_label(&self, value: f64) -> String {
        self.axis
            .values
            .iter()
            .position(|v| (v - value).abs() <= 1e-9 * self.axis.max)
            .and_then(|i| self.tick_labels.get(i).cloned())
            .unwrap_or_else(|| format::significant(value, 3))
    }

    /// The category whose band is centred at `y` (category 0 at the top).
    fn category_at(&self, y: f64) -> String {
        let n = self.categories.len() as f64;
        let index = (n - y - 0.5).round();
        // `as usize` saturates (negative → 0), and `get` handles anything out of range.
        if index < 0.0 {
            return String::new();
        }
        self.categories.get(index as usize).cloned().unwrap_or_default()
    }

    /// The bars in chart coordinates: category `i` occupies y ∈ [n − i − 1, n − i].
    #[must_use]
    pub fn rectangles(&self) -> Vec<Bar> {
        let n = self.categories.len() as f64;
        let groups = self.series.len().max(1) as f64;
        let mut out = Vec::new();
        for (i, _) in self.categories.iter().enumerate() {
            let top = n - i as f64 - 0.18;
            let bottom = n - i as f64 - 1.0 + 0.18;
            let mut stack = 0.0;
            for (s, series) in self.series.iter().enumerate() {
                let value = series.values.get(i).copied().unwrap_or(0.0).max(0.0);
                if self.stacked {
                    out.push(Bar { from: (stack, bottom), to: (stack + value, top), series: s });
                    stack += value;
                } else {
                    let band = (top - bottom) / groups;
                    let y1 = top - band * s as f64;
                    out.push(Bar { from: (0.0, y1 - band), to: (value, y1), series: s });
                }
            }
        }
        out
    }
}

impl BarChart {
    /// The chart laid out in pixels: caption and legend, the value axis with its grid, a
    /// label per category, the bars, and the marks (dashed, labelled at the top).
    #[must_use]
    pub fn scene(&self) -> Scene {
        let (w, h) = self.size();
        let mut scene = Scene::new(w, h, &self.title);
        let legend: Vec<LegendEntry> = self.series.iter().map(|s| LegendEntry::fill(&s.name, s.color)).collect();
        let top = header(&mut scene, &self.title, &[legend]);
        let n = self.categories.len().max(1) as f64;
        let centres: Vec<f64> = (0..self.categories.len()).map(|i| n - i as f64 - 0.5).collect();
        let x_fmt = |v: f64| self.tick_label(v);
        let y_fmt = |y: f64| self.category_at(y);
        let frame = frame::lay_out(
            &mut scene,
            top,
            &FrameSpec {
                margin: (0.0, 28.0, 12.0, 12.0),
                x_label_area: 44.0,
                y_label_area: f64::from(self.label_area_width()),
                x: TickedAxis::linear(0.0, self.axis.max, self.axis.values.clone()),
                y: TickedAxis::linear(0.0, n, centres),
                x_desc: &self.value_label,
                y_desc: "",
                x_label: &x_fmt,
                y_label: &y_fmt,
                x_grid: true,
                y_grid: false,
            },
        );
        for bar in self.rectangles() {
            let fill = self.series.get(bar.series).map_or(theme::INK, |s| s.color);
            // `from` is the bottom-left corner in chart coordinates: the top-left in pixels is
            // (from.x, to.y).
            let (from, to) = (frame.px(bar.from.0, bar.to.1), frame.px(bar.to.0, bar.from.1));
            scene.items.push(Item::Rect { from, to, fill });
        }
        for mark in self.marks.iter().filter(|m| m.x.is_finite() && m.x >= 0.0 && m.x <= self.axis.max) {
            let ((x, bottom), (_, top)) = (frame.px(mark.x, 0.0), frame.px(mark.x, n));
            scene.line(vec![(x, top), (x, bottom)], mark.color, 2.0, Some((6.0, 4.0)));
            scene.items.push(Item::Text {
                at: (x - 4.0, top),
                text: mark.label.clone(),
                size: f64::from(theme::LABEL_PX),
                color: mark.color,
                anchor: Anchor::End,
                baseline: Baseline::Top,
                vertical: false,
            });
        }
        scene
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardcalc_core::report::evaluate;
    use shardcalc_core::scenario::{ModelSource, Scenario};

    fn report(preset: &str) -> shardcalc_core::report::Report {
        let s = Scenario { model: ModelSource::Preset(preset.into()), ..Scenario::default() };
        evaluate(&s).expect("preset scenario is valid")
    }

    #[test]
    fn params_skip_zero_components_and_keep_order() {
        let r = report("llama-3-8b");
        let c = param_breakdown(&r.model.name, &r.params);
        assert_eq!(
            c.categories,
            ["Embedding", "Unembedding (output head)", "Attention projections", "Dense MLP", "Norms"]
        );
        let sum: f64 = c.series[0].values.iter().sum();
        assert_eq!(sum, r.params.total.get());
        assert!(c.axis.max >= 5.6e9 && c.axis.values.first() == Some(&0.0));
        assert_eq!(c.tick_labels.len(), c.axis.values.len());
    }

    #[test]
    fn moe_active_is_below_total() {
        let r = report("mixtral-8x7b");
        let c = param_breakdown("m", &r.params);
        let i = c.categories.iter().position(|l| l == "Routed experts").unwrap();
        assert!(c.series[1].values[i] < c.series[0].values[i]);
    }

    #[test]
    fn flops_stack_forward_and_backward() {
        let r = report("llama-3-8b");
        let c = flop_breakdown("m", &r.flops.maxtext, FlopConvention::MaxText);
        assert!(c.stacked);
        assert!(c.categories.iter().any(|l| l == "Dot-product attention"));
        let max_row = r.flops.maxtext.rows.iter().map(|r| r.total_tflops).fold(0.0, f64::max);
        assert!(c.axis.max >= max_row);
        // The stacked rectangles of each category end at its total.
        let rects = c.rectangles();
        let ends: f64 = rects.iter().filter(|b| b.series == 1).map(|b| b.to.0).sum();
        assert!((ends - r.flops.maxtext.total_tflops_per_device_step).abs() < 1e-6);
    }

    #[test]
    fn labels_map_back_from_coordinates() {
        let r = report("llama-3-8b");
        let c = param_breakdown("m", &r.params);
        let n = c.categories.len() as f64;
        assert_eq!(c.category_at(n - 0.5), "Embedding");
        assert_eq!(c.category_at(0.5), "Norms");
        assert_eq!(c.category_at(n + 3.0), "");
        assert_eq!(c.category_at(-7.0), "");
        assert_eq!(c.tick_label(0.0), "0");
    }

    #[test]
    fn sizes_fit_the_labels() {
        let r = report("deepseek-v3");
        let c = param_breakdown("m", &r.params);
        assert!(c.label_area_width() >= 80 && c.label_area_width() <= 280);
        let (w, h) = c.size();
        assert_eq!(w, theme::WIDTH);
        assert!(h >= 200);
    }
}
