//! The training view's charts (book chapters 5–6), each computed from the planner's
//! report: where a step's time goes, what a device's HBM holds, MFU against the batch per
//! device with the book's critical batches marked, and the search's memory against step
//! time.
//!
//! | chart | data |
//! |---|---|
//! | step-time breakdown: compute, exposed communication per kind, bubble, offload | [`step::step_time_chart`] |
//! | memory per device by component against HBM | [`memory::memory_chart`] |
//! | MFU against tokens per device, critical batches marked | [`mfu::mfu_sweep`], [`mfu::mfu_batch_chart`] |
//! | memory against step time of the searched configurations, Pareto front | [`pareto::pareto_chart`] |

pub mod memory;
pub mod mfu;
pub mod pareto;
pub mod step;

use shardcalc_core::error::Invalid;
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::model::ModelConfig;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::training::mesh::{Mesh, Parallelism};
use shardcalc_core::training::section::{default_hardware, TrainingSection};
use shardcalc_core::training::tensors::Remat;
use shardcalc_core::training::{plan, TrainingReport};

use crate::format::thousands;
use crate::theme::Rgb;
use crate::xy::{XySeries, XyStyle};

/// A series of the training XY charts (lines 2 px wide, as serving's).
#[must_use]
pub fn training_series(name: String, color: Rgb, style: XyStyle, points: Vec<(f64, f64)>) -> XySeries {
    XySeries { name, color, points, width: 2, style }
}

/// The section the training page searches (its "best"): the scenario's without the
/// explored mesh; while a mesh is explored, `microbatches` is that mesh's, so the search
/// tries every count.
#[must_use]
pub fn search_section(s: &TrainingSection) -> TrainingSection {
    let mut out = s.clone();
    if out.mesh.take().is_some() {
        out.microbatches = None;
    }
    out
}

/// The section of the explored mesh (`training.mesh`), planned without a search; `None`
/// when no mesh is explored.
#[must_use]
pub fn explore_section(s: &TrainingSection) -> Option<TrainingSection> {
    s.mesh?;
    let mut out = s.clone();
    out.search = None;
    Some(out)
}

/// What the training charts are computed from: a scenario's model, hardware, `training`
/// section and FLOP convention.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingInputs {
    /// The model.
    pub model: ModelConfig,
    /// Chip and topology.
    pub hw: ResolvedHardware,
    /// The `training` section.
    pub section: TrainingSection,
    /// FLOP convention of model FLOPs and MFU.
    pub convention: FlopConvention,
}

impl TrainingInputs {
    /// A scenario's inputs; a scenario without `hardware` or `training` gets the training
    /// page's (core's [`default_hardware`] and `TrainingSection::default()`).
    ///
    /// # Errors
    /// The scenario's problems, each naming its field.
    pub fn of(s: &Scenario) -> Result<Self, Invalid> {
        let mut s = s.clone();
        if s.hardware.is_none() {
            s.hardware = Some(default_hardware());
        }
        let section = s.training.get_or_insert_with(TrainingSection::default).clone();
        let model = s.validate()?;
        let hw = s.validate_hardware()?.ok_or_else(|| Invalid::one("hardware", "is required by `training`"))?;
        Ok(Self { model, hw, section, convention: s.conventions.flops })
    }

    /// The search's best ([`search_section`]).
    ///
    /// # Errors
    /// As [`plan`].
    pub fn best(&self) -> Result<TrainingReport, Invalid> {
        plan(&self.model, &self.hw, &search_section(&self.section), self.convention)
    }

    /// The explored mesh's plan, when a mesh is explored.
    #[must_use]
    pub fn explored(&self) -> Option<Result<TrainingReport, Invalid>> {
        explore_section(&self.section).map(|s| plan(&self.model, &self.hw, &s, self.convention))
    }
}

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

/// The remat policy a plan used: the preset it names, else the section's (custom) one.
#[must_use]
pub fn remat_of(r: &TrainingReport, section: &TrainingSection) -> Remat {
    Remat::preset(&r.remat).unwrap_or_else(|| section.remat.clone())
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
