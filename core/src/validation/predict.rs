//! The planner's prediction for a scenario: the training plan of its own mesh, in the
//! scenario's prediction mode; and a scenario resolved once, to be planned under any
//! calibration (what the table and the fit use).

use super::runs::PublishedRun;
use super::scenarios::run_scenario;
use crate::efficiency::{Calibration, PredictionMode};
use crate::error::Invalid;
use crate::hardware::query::ResolvedHardware;
use crate::model::ModelConfig;
use crate::scenario::Scenario;
use crate::training::{plan, TrainingReport, TrainingSection};

/// Validate `s` and plan its `training` section on its hardware.
///
/// # Errors
/// Any invalid field, or a scenario without `training` (field `training`).
pub fn predict(s: &Scenario) -> Result<TrainingReport, Invalid> {
    let m = s.validate()?;
    let hw = s.validate_hardware()?;
    crate::scenario::training_report(&m, hw.as_ref(), s)?
        .ok_or_else(|| Invalid::one("training", "is required for a prediction"))
}

/// A scenario validated and resolved, ready to be planned under any calibration.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The model.
    pub model: ModelConfig,
    /// The chip and topology.
    pub hardware: ResolvedHardware,
    /// The training section as written (its own efficiencies, 1.0 by default).
    pub section: TrainingSection,
}

impl Prepared {
    /// Resolve a scenario with a `training` section and hardware.
    ///
    /// # Errors
    /// Any invalid field; `hardware` or `training` when missing.
    pub fn new(s: &Scenario) -> Result<Self, Invalid> {
        let model = s.validate()?;
        let hardware =
            s.validate_hardware()?.ok_or_else(|| Invalid::one("hardware", "is required for a prediction"))?;
        let section = s.training.clone().ok_or_else(|| Invalid::one("training", "is required for a prediction"))?;
        Ok(Self { model, hardware, section })
    }

    /// A published run's scenario, resolved.
    ///
    /// # Errors
    /// A run whose scenario does not validate (a test rules it out).
    pub fn run(run: &PublishedRun) -> Result<Self, Invalid> {
        Self::new(&run_scenario(run, PredictionMode::Ideal)?)
    }

    /// The plan under `calibration` (`None`: the roofline), MFU in today's MaxText
    /// convention.
    ///
    /// # Errors
    /// As [`plan::plan`].
    pub fn plan(&self, calibration: Option<&Calibration>) -> Result<TrainingReport, Invalid> {
        let mut s = self.section.clone();
        s.calibration = calibration.copied();
        plan::plan(&self.model, &self.hardware, &s, crate::flops::FlopConvention::MaxText)
    }

    /// The MFU alone under `calibration` (today's MaxText convention): [`Prepared::plan`]
    /// without the report, for the fit.
    ///
    /// # Errors
    /// As [`plan::explicit_step`].
    pub fn mfu(&self, calibration: Option<&Calibration>) -> Result<f64, Invalid> {
        let mut s = self.section.clone();
        s.calibration = calibration.copied();
        plan::explicit_step(&self.model, &self.hardware, &s, crate::flops::FlopConvention::MaxText).map(|p| p.mfu)
    }
}
