//! The training view's charts (book chapters 5–6), each computed from the planner's
//! report: where a step's time goes, what a device's HBM holds, MFU against the batch per
//! device with the book's critical batches marked, and the search's memory against step
//! time.
//!
//! | chart | data |
//! |---|---|
//! | step time term by term (every term of the breakdown), the step and its roofline | [`step::step_time_chart`] |
//! | memory per device by component against HBM | [`memory::memory_chart`] |
//! | MFU against tokens per device, critical batches marked | [`mfu::mfu_sweep`], [`mfu::mfu_batch_chart`] |
//! | memory against step time of the searched configurations, Pareto front | [`pareto::pareto_chart`] |

pub mod memory;
pub mod mfu;
pub mod pareto;
pub mod step;

use shardcalc_core::training::mesh::{Mesh, Parallelism};
use shardcalc_core::training::TrainingReport;

use crate::format::thousands;
use crate::theme::Rgb;
use crate::xy::{XySeries, XyStyle};

/// A series of the training XY charts (lines 2 px wide, as serving's).
#[must_use]
pub fn training_series(name: String, color: Rgb, style: XyStyle, points: Vec<(f64, f64)>) -> XySeries {
    XySeries { name, color, points, width: 2, style }
}

pub use shardcalc_core::view::training::{explore_section, remat_of, search_section, TrainingInputs};

/// The bars of the breakdown charts: the search's best, then the explored mesh.
#[must_use]
pub fn breakdown_rows<'a>(
    best: Option<&'a TrainingReport>,
    explored: Option<&'a TrainingReport>,
) -> Vec<(String, &'a TrainingReport)> {
    let mut rows = Vec::new();
    if let Some(b) = best {
        rows.push((format!("best: {}", mesh_label(&b.mesh.degrees)), b));
    }
    if let Some(e) = explored {
        rows.push((format!("yours: {}", mesh_label(&e.mesh.degrees)), e));
    }
    rows
}

/// The MFU curves of the best plan and the explored one (each its mesh, microbatches
/// and policy at other batches).
#[must_use]
pub fn mfu_curves(
    inputs: &TrainingInputs,
    best: Option<&TrainingReport>,
    explored: Option<&TrainingReport>,
) -> Vec<mfu::MfuCurve> {
    breakdown_rows(best, explored)
        .into_iter()
        .map(|(name, r)| mfu::MfuCurve {
            name,
            points: mfu::mfu_sweep(
                &inputs.model,
                &inputs.hw,
                &inputs.section,
                inputs.convention,
                r.mesh.degrees,
                r.microbatches,
                &remat_of(r, &inputs.section),
            ),
        })
        .collect()
}

/// The degrees above 1, as `fsdp 1,120 × tp 8` (`1 device` when none).
#[must_use]
pub fn mesh_label(mesh: &Mesh) -> String {
    let parts: Vec<String> = Parallelism::ALL
        .iter()
        .filter(|p| mesh.degree(**p) > 1)
        .map(|p| format!("{} {}", p.id(), thousands(mesh.degree(*p))))
        .collect();
    if parts.is_empty() {
        "1 device".into()
    } else {
        parts.join(" × ")
    }
}

/// Seconds shown in milliseconds below 1 s: `(divisor, unit)` for a largest value `max_s`.
#[must_use]
pub fn time_unit(max_s: f64) -> (f64, &'static str) {
    if max_s < 1.0 {
        (1e-3, "ms")
    } else {
        (1.0, "s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_degrees_above_one() {
        assert_eq!(mesh_label(&Mesh { fsdp: 1120, tp: 8, ..Mesh::default() }), "fsdp 1,120 × tp 8");
        assert_eq!(mesh_label(&Mesh::default()), "1 device");
        assert_eq!(time_unit(0.5), (1e-3, "ms"));
        assert_eq!(time_unit(4.0), (1.0, "s"));
    }
}

/// Plans the tests share: LLaMA 3 8B on the training page's default hardware.
#[cfg(test)]
pub(crate) mod tests_support {
    use shardcalc_core::flops::FlopConvention;
    use shardcalc_core::hardware::query::ResolvedHardware;
    use shardcalc_core::training::mesh::Mesh;
    use shardcalc_core::training::section::{default_hardware, TrainingSection};
    use shardcalc_core::training::{plan, TrainingReport};

    /// LLaMA 3 8B and a TPU v5p 4×4×4.
    pub fn inputs() -> (shardcalc_core::model::ModelConfig, ResolvedHardware) {
        let model = shardcalc_core::presets::get("llama-3-8b").expect("preset").config;
        let hw = default_hardware();
        let chip = hw.chip.resolve().expect("chip");
        let axes = hw.topology.expect("topology").resolve(&chip).expect("axes");
        (model, ResolvedHardware { chip, axes })
    }

    /// The default section searched.
    pub fn reference_plan() -> TrainingReport {
        let (m, hw) = inputs();
        plan(&m, &hw, &TrainingSection::default(), FlopConvention::MaxText).expect("plans")
    }

    /// The default section on `mesh` with `remat` and `microbatches`.
    pub fn plan_with(mesh: Mesh) -> TrainingReport {
        let (m, hw) = inputs();
        let s = TrainingSection { mesh: Some(mesh), ..TrainingSection::default() };
        plan(&m, &hw, &s, FlopConvention::MaxText).expect("plans")
    }
}
