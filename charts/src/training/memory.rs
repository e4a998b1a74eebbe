//! What one device's HBM holds at the peak of a step (book 5.1, 6.2): weights,
//! gradients, optimizer state, master weights, saved activations and the largest
//! transient buffer, stacked against the chip's HBM.

use shardcalc_core::training::report::MemoryComponent;
use shardcalc_core::training::TrainingReport;

use crate::bars::{BarChart, BarMark, BarSeries};
use crate::format::significant;
use crate::theme::{self, Rgb};
use crate::ticks::{linear_ticks, tick_label};

/// The components in stacking order, with their legend text and colour.
const COMPONENTS: [(MemoryComponent, &str, Rgb); 6] = [
    (MemoryComponent::Weights, "weights", theme::BLUE),
    (MemoryComponent::Gradients, "gradients", theme::SKY),
    (MemoryComponent::Optimizer, "optimizer state", theme::ORANGE),
    (MemoryComponent::MasterWeights, "fp32 master weights", theme::YELLOW),
    (MemoryComponent::Activations, "saved activations", theme::GREEN),
    (MemoryComponent::Transient, "largest transient", theme::VERMILLION),
];

/// Bytes of `component` in `r`'s breakdown.
#[must_use]
pub fn component_bytes(r: &TrainingReport, component: MemoryComponent) -> f64 {
    r.memory.breakdown.iter().filter(|m| m.component == component).map(|m| m.bytes.get()).sum()
}

/// One stacked bar per `(label, plan)` in GB (10⁹ bytes), components that are zero in
/// every row left out, the HBM capacity of the first row marked.
#[must_use]
pub fn memory_chart(rows: &[(String, &TrainingReport)]) -> BarChart {
    let series: Vec<BarSeries> = COMPONENTS
        .iter()
        .map(|(c, name, color)| BarSeries {
            name: (*name).into(),
            color: *color,
            values: rows.iter().map(|(_, r)| component_bytes(r, *c) / 1e9).collect(),
        })
        .filter(|s| s.values.iter().any(|v| *v > 0.0))
        .collect();
    let hbm = rows.first().map_or(0.0, |(_, r)| r.memory.capacity_bytes.get() / 1e9);
    let used = rows.iter().map(|(_, r)| r.memory.per_device_bytes.get() / 1e9).fold(0.0, f64::max);
    let axis = linear_ticks(used.max(hbm), 6);
    let tick_labels = axis.values.iter().map(|v| tick_label(*v, axis.step)).collect();
    BarChart {
        title: "Memory per device at the peak of a step".into(),
        value_label: "GB per device (10⁹ bytes)".into(),
        categories: rows.iter().map(|(l, _)| l.clone()).collect(),
        series,
        stacked: true,
        axis,
        tick_labels,
        marks: vec![BarMark { x: hbm, label: format!("HBM {} GB", significant(hbm, 3)), color: theme::INK }],
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::{plan_with, reference_plan};
    use super::*;
    use shardcalc_core::training::mesh::Mesh;

    #[test]
    fn bars_add_up_to_the_memory_per_device_and_hbm_is_marked() {
        let best = reference_plan();
        let mine = plan_with(Mesh { dp: 64, ..Mesh::default() });
        let c = memory_chart(&[("best".into(), &best), ("dp 64".into(), &mine)]);
        let rects = c.rectangles();
        for (i, r) in [&best, &mine].iter().enumerate() {
            let end =
                rects.iter().filter(|b| (b.from.1 - (1.0 - i as f64)).abs() < 0.5).map(|b| b.to.0).fold(0.0, f64::max);
            assert!((end - r.memory.per_device_bytes.get() / 1e9).abs() < 1e-9, "row {i}: {end}");
        }
        // Pure DP replicates the 8B model's Adam state: more than a v5p's 95 GB.
        assert!(!mine.memory.fits);
        assert_eq!(c.marks[0].x, best.memory.capacity_bytes.get() / 1e9);
        assert!(c.axis.max >= c.marks[0].x && c.axis.max >= mine.memory.per_device_bytes.get() / 1e9);
        assert!(c.series.iter().all(|s| s.name != "fp32 master weights"));
    }
}
