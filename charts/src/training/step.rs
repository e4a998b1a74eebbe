//! Where a step's time goes, term by term (issue 16): every term of the planner's breakdown
//! (`shardcalc_core::training::explain::step_terms`: matmuls, attention, HBM-bound work, the
//! optimizer update, waiting for the slowest slice, the exposed communication of each kind,
//! the pipeline bubble, exposed host offload), then the step time they add up to and the
//! ideal roofline's, the bound no run beats. One bar per plan (the search's best, the
//! explored mesh) in each row, so the plans compare term by term.

use shardcalc_core::training::explain::step_terms;
use shardcalc_core::training::TrainingReport;

use super::time_unit;
use crate::bars::{BarChart, BarSeries};
use crate::theme::{self, Rgb};
use crate::ticks::{linear_ticks, tick_label};

/// Colour of each plan's bars: the best, the explored mesh.
const PLAN_COLORS: [Rgb; 2] = [theme::BLUE, theme::ORANGE];

/// Label of the row of the step time the terms add up to.
pub const STEP_ROW: &str = "= step time";
/// Label of the row of the roofline's step time.
pub const ROOFLINE_ROW: &str = "roofline (the bound)";

/// One row per term that takes time in some plan (in the breakdown's order), then the step
/// time and the roofline's; one series per `(label, plan)`.
#[must_use]
pub fn step_time_chart(rows: &[(String, &TrainingReport)]) -> BarChart {
    let terms: Vec<_> = rows.iter().map(|(_, r)| step_terms(r)).collect();
    // Every key in the order the plans list them (the kinds of communication may differ).
    let mut keys: Vec<(String, String)> = Vec::new();
    for t in terms.iter().flatten() {
        if !keys.iter().any(|(k, _)| *k == t.key) {
            keys.push((t.key.clone(), t.label.clone()));
        }
    }
    let seconds = |plan: usize, key: &str| {
        terms.get(plan).and_then(|ts| ts.iter().find(|t| t.key == key)).map_or(0.0, |t| t.seconds)
    };
    keys.retain(|(k, _)| (0..rows.len()).any(|p| seconds(p, k) > 0.0));
    let max = rows.iter().map(|(_, r)| r.step_time_s.get().max(r.roofline.step_time_s.get())).fold(0.0, f64::max);
    let (div, unit) = time_unit(max);
    let series = rows
        .iter()
        .enumerate()
        .map(|(p, (name, r))| {
            let mut values: Vec<f64> = keys.iter().map(|(k, _)| seconds(p, k) / div).collect();
            values.push(r.step_time_s.get() / div);
            values.push(r.roofline.step_time_s.get() / div);
            BarSeries { name: name.clone(), color: PLAN_COLORS[p.min(PLAN_COLORS.len() - 1)], values }
        })
        .collect();
    let mut categories: Vec<String> = keys.into_iter().map(|(_, label)| label).collect();
    categories.extend([STEP_ROW.to_string(), ROOFLINE_ROW.to_string()]);
    let axis = linear_ticks(max / div, 6);
    let tick_labels = axis.values.iter().map(|v| tick_label(*v, axis.step)).collect();
    BarChart {
        title: "Step time, term by term, and the roofline".into(),
        value_label: format!("{unit} per optimizer step"),
        categories,
        series,
        stacked: false,
        axis,
        tick_labels,
        marks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::{inputs, plan_with, reference_plan};
    use super::*;
    use shardcalc_core::flops::FlopConvention;
    use shardcalc_core::training::mesh::Mesh;
    use shardcalc_core::training::section::TrainingSection;
    use shardcalc_core::validation::calibration::section_for;
    use shardcalc_core::validation::PredictionMode;

    #[test]
    fn the_terms_add_up_to_the_step_row_and_the_roofline_is_beside_it() {
        let (m, hw) = inputs();
        let section = TrainingSection::default();
        let calibrated = section_for(&section, &hw.chip, PredictionMode::Calibrated);
        let r = shardcalc_core::training::plan(&m, &hw, &calibrated, FlopConvention::MaxText).expect("plans");
        let c = step_time_chart(&[("best".into(), &r)]);
        let (div, unit) = time_unit(r.step_time_s.get().max(r.roofline.step_time_s.get()));
        assert!(c.value_label.starts_with(unit) && !c.stacked);
        let values = &c.series[0].values;
        let n = values.len();
        assert_eq!(c.categories[n - 2], STEP_ROW);
        assert_eq!(c.categories[n - 1], ROOFLINE_ROW);
        let sum: f64 = values[..n - 2].iter().sum();
        assert!((sum - values[n - 2]).abs() <= 1e-9 * values[n - 2], "{sum} vs {}", values[n - 2]);
        assert!((values[n - 2] - r.step_time_s.get() / div).abs() <= 1e-12);
        assert!((values[n - 1] - r.roofline.step_time_s.get() / div).abs() <= 1e-12);
        // The calibrated step is slower than its roofline, and its HBM-bound terms show.
        assert!(values[n - 2] > values[n - 1]);
        for label in ["matmuls", "attention", "elementwise (HBM)", "optimizer update"] {
            assert!(c.categories.iter().any(|l| l == label), "{label}: {:?}", c.categories);
        }
        assert!(c.axis.max >= values[n - 2]);
    }

    #[test]
    fn two_plans_share_the_rows_and_a_term_zero_in_both_is_left_out() {
        let best = reference_plan();
        let mine = plan_with(Mesh { tp: 4, fsdp: 16, ..Mesh::default() });
        let c = step_time_chart(&[("best".into(), &best), ("yours".into(), &mine)]);
        assert_eq!(c.series.len(), 2);
        assert!(c.series.iter().all(|s| s.values.len() == c.categories.len()));
        // The roofline plans have no HBM-bound terms; TP's exposed communication is mine only.
        assert!(!c.categories.iter().any(|l| l == "elementwise (HBM)"), "{:?}", c.categories);
        let tp = c.categories.iter().position(|l| l == "TP comms exposed").expect("TP row");
        assert!(c.series[1].values[tp] > 0.0);
    }
}
