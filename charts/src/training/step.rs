//! Where a step's time goes (book 5.1: `T ≈ max(T_math, T_comms)` per overlapped group):
//! compute, the exposed communication of each kind of parallelism, the pipeline bubble
//! and exposed host offload, stacked so that each bar ends at the step time.

use shardcalc_core::training::mesh::Parallelism;
use shardcalc_core::training::TrainingReport;

use super::time_unit;
use crate::bars::{BarChart, BarSeries};
use crate::theme::{self, Rgb};
use crate::ticks::{linear_ticks, tick_label};

/// Colour of each kind's exposed communication, in [`Parallelism::ALL`] order.
const COMM_COLORS: [Rgb; 6] =
    [theme::SKY, theme::ORANGE, theme::VERMILLION, theme::PURPLE, theme::GREEN, theme::YELLOW];

/// One stacked bar per `(label, plan)`: compute, then each kind's exposed communication
/// (only kinds exposing time in some row), bubble and exposed offload.
#[must_use]
pub fn step_time_chart(rows: &[(String, &TrainingReport)]) -> BarChart {
    let max = rows.iter().map(|(_, r)| r.step_time_s.get()).fold(0.0, f64::max);
    let (div, unit) = time_unit(max);
    let column = |f: &dyn Fn(&TrainingReport) -> f64| rows.iter().map(|(_, r)| f(r) / div).collect::<Vec<f64>>();
    let mut series = vec![BarSeries {
        name: "compute".into(),
        color: theme::BLUE,
        values: column(&|r| r.breakdown.compute_s.get()),
    }];
    for (p, color) in Parallelism::ALL.iter().zip(COMM_COLORS) {
        let exposed = move |r: &TrainingReport| {
            r.communication.iter().filter(|c| c.parallelism == *p).map(|c| c.exposed_s.get()).sum::<f64>()
        };
        let values = column(&exposed);
        if values.iter().any(|v| *v > 0.0) {
            series.push(BarSeries { name: format!("{} comms exposed", p.label()), color, values });
        }
    }
    for (name, color, pick) in [
        (
            "pipeline bubble",
            theme::GREY,
            (|r: &TrainingReport| r.breakdown.bubble_s.get()) as fn(&TrainingReport) -> f64,
        ),
        ("host offload exposed", theme::INK, |r: &TrainingReport| r.breakdown.offload_exposed_s.get()),
    ] {
        let values = column(&pick);
        if values.iter().any(|v| *v > 0.0) {
            series.push(BarSeries { name: name.into(), color, values });
        }
    }
    let axis = linear_ticks(max / div, 6);
    let tick_labels = axis.values.iter().map(|v| tick_label(*v, axis.step)).collect();
    BarChart {
        title: "Step time: compute, exposed communication, bubble".into(),
        value_label: format!("{unit} per optimizer step"),
        categories: rows.iter().map(|(l, _)| l.clone()).collect(),
        series,
        stacked: true,
        axis,
        tick_labels,
        marks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::reference_plan;
    use super::*;

    #[test]
    fn each_bar_ends_at_its_step_time() {
        let r = reference_plan();
        let c = step_time_chart(&[("best".into(), &r)]);
        let (div, unit) = time_unit(r.step_time_s.get());
        assert!(c.value_label.starts_with(unit));
        let end = c.rectangles().iter().map(|b| b.to.0).fold(0.0, f64::max);
        assert!((end - r.step_time_s.get() / div).abs() <= 1e-9 * end, "{end}");
        assert_eq!(c.series[0].name, "compute");
        assert!(c.axis.max >= end);
        // Every series has a value for the one row.
        assert!(c.series.iter().all(|s| s.values.len() == 1));
    }
}
