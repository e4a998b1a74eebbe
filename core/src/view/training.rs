//! What the training page shows, evaluated from a scenario: the search's best plan with the
//! token budget applied, the explored mesh planned alone, the headline numbers' uncertainty
//! bands, and every planning problem (book chapters 5–6). A thin composition of
//! [`mod@crate::training::plan`], [`crate::training::budget`] and [`crate::validation::bands`];
//! `shardcalc eval --view training` prints [`evaluate`], and the page calls the same stages
//! ([`TrainingInputs::of`], [`search`], [`TrainingInputs::with_budget`],
//! [`TrainingInputs::explored`], [`TrainingInputs::bands`]) so that a change of the token
//! budget never searches again.
//!
//! A scenario without `hardware` or `training` is shown with the page's defaults
//! ([`with_defaults`]: a TPU v5p 4×4×4, 2^20 tokens of 4096 per step); they are not written
//! into the scenario until the user edits something.

use serde::{Deserialize, Serialize};

use crate::error::{FieldError, Invalid};
use crate::flops::FlopConvention;
use crate::hardware::query::ResolvedHardware;
use crate::model::ModelConfig;
use crate::scenario::{Scenario, Sections};
use crate::training::budget::{apply_budget, training_cost, SECONDS_PER_DAY};
use crate::training::explain::{step_explanation, step_terms, StepTerm};
use crate::training::mesh::Mesh;
use crate::training::report::SearchRow;
use crate::training::section::{default_hardware, TrainingSection};
use crate::training::space::Variant;
use crate::training::tensors::Remat;
use crate::training::{plan, TrainingReport};
use crate::validation::bands::{training_bands_of, TrainingBands};
use crate::validation::calibration::section_for;
use crate::validation::PredictionMode;

/// `s` with the training page's defaults where it has no `hardware` or `training`.
#[must_use]
pub fn with_defaults(s: &Scenario) -> Scenario {
    let mut out = s.clone();
    out.hardware.get_or_insert_with(default_hardware);
    out.training.get_or_insert_with(TrainingSection::default);
    out
}

/// What the plans are computed from: the model, the chip and topology, the `training`
/// section as written, the FLOP convention of MFU and the prediction mode.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingInputs {
    /// The model.
    pub model: ModelConfig,
    /// Chip and topology.
    pub hw: ResolvedHardware,
    /// The `training` section as written (its own efficiencies, before any calibration).
    pub section: TrainingSection,
    /// FLOP convention of model FLOPs and MFU.
    pub convention: FlopConvention,
    /// Ideal roofline or calibrated.
    pub prediction: PredictionMode,
}

impl TrainingInputs {
    /// A scenario's inputs, with the page's defaults ([`with_defaults`]).
    ///
    /// # Errors
    /// The scenario's problems, each naming its field (not those of the serving section,
    /// which the page does not show: `Sections::TRAINING`).
    pub fn of(s: &Scenario) -> Result<Self, Invalid> {
        let s = with_defaults(s);
        let model = s.validate_with(Sections::TRAINING)?;
        let hw = s.validate_hardware()?.ok_or_else(|| Invalid::one("hardware", "is required by `training`"))?;
        let section = s.training.clone().unwrap_or_default();
        Ok(Self { model, hw, section, convention: s.conventions.flops, prediction: s.conventions.prediction })
    }

    /// What the search depends on: these inputs with the section the search plans
    /// ([`search_section`]) and without the budget and price, which it does not read.
    #[must_use]
    pub fn search_key(&self) -> TrainingInputs {
        let mut section = search_section(&self.section);
        section.token_budget = None;
        section.price_per_chip_hour_usd = None;
        TrainingInputs { section, ..self.clone() }
    }

    /// Plans `section` in the prediction mode.
    fn plan(&self, section: &TrainingSection) -> Result<TrainingReport, Invalid> {
        plan(&self.model, &self.hw, &section_for(section, &self.hw.chip, self.prediction), self.convention)
    }

    /// The search's plan with this section's token budget and price applied.
    ///
    /// # Errors
    /// The search's.
    pub fn with_budget(&self, searched: &Result<TrainingReport, Invalid>) -> Result<TrainingReport, Invalid> {
        let mut r = searched.clone()?;
        let chip = &self.hw.chip;
        apply_budget(&mut r, self.section.token_budget, self.section.price(chip), self.section.chip_peak(chip));
        Ok(r)
    }

    /// The search's best ([`search`], then [`Self::with_budget`]).
    ///
    /// # Errors
    /// As [`fn@plan`].
    pub fn best(&self) -> Result<TrainingReport, Invalid> {
        self.with_budget(&search(&self.search_key()))
    }

    /// The explored mesh's plan (`training.mesh`), when a mesh is explored.
    #[must_use]
    pub fn explored(&self) -> Option<Result<TrainingReport, Invalid>> {
        explore_section(&self.section).map(|s| self.plan(&s))
    }

    /// The bands of `shown`'s headline numbers ([`training_bands_of`]).
    ///
    /// # Errors
    /// When `shown`'s configuration cannot be planned again.
    pub fn bands(&self, shown: &TrainingReport) -> Result<TrainingBands, Invalid> {
        training_bands_of(&self.model, &self.hw, &self.section, self.convention, self.prediction, shown)
    }
}

/// The search of [`TrainingInputs::search_key`]'s inputs.
///
/// # Errors
/// As [`fn@plan`].
pub fn search(key: &TrainingInputs) -> Result<TrainingReport, Invalid> {
    key.plan(&key.section)
}

/// The section the page searches (its "best"): the scenario's without the explored mesh;
/// while a mesh is explored, `microbatches` is that mesh's, so the search tries every count.
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

/// Where a plan's step goes: every term with its source, one sentence, and the roofline's
/// days and cost for the budget (the bound beside the headline's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepAccount {
    /// The terms, adding up to the step time ([`step_terms`]).
    pub terms: Vec<StepTerm>,
    /// Where the step goes, from the largest term, each citing its source ([`step_explanation`]).
    pub explanation: String,
    /// Days for the token budget at the roofline's step time.
    pub roofline_days: Option<f64>,
    /// Cost of the budget at the roofline's step time.
    pub roofline_cost_usd: Option<f64>,
}

impl StepAccount {
    /// The account of `r` (with its budget applied).
    #[must_use]
    pub fn of(r: &TrainingReport) -> Self {
        let finite = |x: f64| x.is_finite().then_some(x);
        // Days are steps × step time (book 6.2's FLOPs / (chips · C · MFU) with MFU at that time).
        let roofline_days = r.steps.and_then(|n| finite(n * r.roofline.step_time_s.get() / SECONDS_PER_DAY));
        Self {
            terms: step_terms(r),
            explanation: step_explanation(r),
            roofline_days,
            roofline_cost_usd: roofline_days.zip(r.price_per_chip_hour_usd).map(|(d, p)| training_cost(r.chips, d, p)),
        }
    }
}

/// Everything the training page shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrainingEval {
    /// The search's best plan, with the budget applied (the keys of the report's `training`).
    #[serde(flatten)]
    pub best: TrainingReport,
    /// Where the best plan's step goes.
    pub step: StepAccount,
    /// The explored mesh's plan, when a mesh is explored and it can be planned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explored: Option<TrainingReport>,
    /// Where the explored plan's step goes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explored_step: Option<StepAccount>,
    /// The headline numbers' uncertainty bands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bands: Option<TrainingBands>,
    /// Why there are no bands, when there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bands_unavailable: Option<String>,
    /// Why the explored mesh cannot be planned, each problem naming its field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<FieldError>,
}

/// Everything the training page shows for `s` (with the page's defaults).
///
/// # Errors
/// The scenario's problems, or why the search found no plan.
pub fn evaluate(s: &Scenario) -> Result<TrainingEval, Invalid> {
    evaluate_inputs(&TrainingInputs::of(s)?)
}

/// [`evaluate`] of a scenario's `training` section only when it has one (what
/// `shardcalc eval` reports under `training`): no defaults for missing sections.
///
/// # Errors
/// As [`evaluate`]; `hardware` when the scenario has `training` but no hardware.
pub fn for_scenario(s: &Scenario) -> Result<Option<TrainingEval>, Invalid> {
    if s.training.is_none() {
        return Ok(None);
    }
    if s.hardware.is_none() {
        return Err(Invalid::one("hardware", "is required by `training` (a chip and a topology)"));
    }
    evaluate(s).map(Some)
}

fn evaluate_inputs(inputs: &TrainingInputs) -> Result<TrainingEval, Invalid> {
    let best = inputs.best()?;
    let (explored, conflicts) = match inputs.explored() {
        Some(Ok(r)) => (Some(r), Vec::new()),
        Some(Err(e)) => (None, e.0),
        None => (None, Vec::new()),
    };
    let (bands, bands_unavailable) = match inputs.bands(&best) {
        Ok(b) => (Some(b), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let step = StepAccount::of(&best);
    let explored_step = explored.as_ref().map(StepAccount::of);
    Ok(TrainingEval { best, step, explored, explored_step, bands, bands_unavailable, conflicts })
}

/// Every planning problem of a best and an explored plan, without repeats (what the page
/// shows under the fields and in its summary).
#[must_use]
pub fn plan_problems(
    best: Option<&Result<TrainingReport, Invalid>>,
    explored: Option<&Result<TrainingReport, Invalid>>,
) -> Vec<FieldError> {
    let mut out: Vec<FieldError> = Vec::new();
    for e in [best, explored].into_iter().flatten().filter_map(|r| r.as_ref().err()) {
        for f in &e.0 {
            if !out.contains(f) {
                out.push(f.clone());
            }
        }
    }
    out
}

/// The remat policy a plan used: the preset it names, else the section's (custom) one.
#[must_use]
pub fn remat_of(r: &TrainingReport, section: &TrainingSection) -> Remat {
    Remat::preset(&r.remat).unwrap_or_else(|| section.remat.clone())
}

/// Starts exploring `mesh` at `microbatches` with `remat` and the ZeRO stage and schedule
/// the search chose with them (the best plan's, or a ranked row's).
pub fn explore(s: &mut Scenario, mesh: Mesh, microbatches: u64, remat: Remat, variant: Variant) {
    let t = s.training.get_or_insert_with(TrainingSection::default);
    t.mesh = Some(mesh);
    t.microbatches = Some(microbatches);
    t.remat = remat;
    t.zero_stage = variant.zero;
    t.pipeline = variant.pipeline;
}

/// Starts exploring the configuration of `plan` (the best plan).
pub fn explore_plan(s: &mut Scenario, plan: &TrainingReport) {
    let remat = remat_of(plan, s.training.as_ref().unwrap_or(&TrainingSection::default()));
    explore(s, plan.mesh.degrees, plan.microbatches, remat, Variant { zero: plan.zero_stage, pipeline: plan.pipeline });
}

/// Starts exploring a row of the search's table.
pub fn explore_row(s: &mut Scenario, row: &SearchRow) {
    let remat =
        Remat::preset(&row.remat).unwrap_or_else(|| s.training.as_ref().map(|t| t.remat.clone()).unwrap_or_default());
    explore(s, row.mesh, row.microbatches, remat, Variant { zero: row.zero_stage, pipeline: row.pipeline });
}

/// Back to the search alone.
pub fn stop_exploring(s: &mut Scenario) {
    if let Some(t) = s.training.as_mut() {
        t.mesh = None;
        t.microbatches = None;
    }
}

/// The FSDP degree that makes `mesh`'s degrees multiply to `devices`, keeping the others,
/// when one does.
#[must_use]
pub fn fsdp_filling(mesh: &Mesh, devices: u64) -> Option<u64> {
    let others = mesh.devices() / mesh.fsdp.max(1);
    (others > 0 && devices.is_multiple_of(others)).then(|| devices / others)
}

/// "FSDP takes the remaining devices": the explored mesh's FSDP degree set by
/// [`fsdp_filling`] for `devices` (the best plan's), when one fits.
pub fn fill_fsdp(s: &mut Scenario, devices: u64) {
    if let Some(m) = s.training.as_mut().and_then(|t| t.mesh.as_mut()) {
        if let Some(fsdp) = fsdp_filling(m, devices) {
            m.fsdp = fsdp;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_view_plans_the_default_scenario_on_a_v5p_slice_without_writing_it() {
        let s = Scenario::default();
        let eval = evaluate(&s).unwrap();
        assert_eq!(eval.best.devices, 64, "a v5p 4x4x4");
        assert!(eval.bands.is_some() && eval.explored.is_none() && eval.conflicts.is_empty());
        assert!(s.hardware.is_none() && s.training.is_none());
        assert_eq!(for_scenario(&s).unwrap(), None, "the report has no training without the section");
        // The budget is applied to the search without searching again: the same mesh.
        let inputs = TrainingInputs::of(&s).unwrap();
        let searched = search(&inputs.search_key());
        let mut cheaper = inputs.clone();
        cheaper.section.token_budget = Some(1e12);
        assert_eq!(cheaper.search_key(), inputs.search_key());
        let r = cheaper.with_budget(&searched).unwrap();
        assert_eq!(r.token_budget, Some(1e12));
        assert_eq!(r.mesh, eval.best.mesh);
    }

    #[test]
    fn exploring_and_filling_fsdp() {
        let mut s = with_defaults(&Scenario::default());
        let best = evaluate(&s).unwrap().best;
        explore_plan(&mut s, &best);
        let eval = evaluate(&s).unwrap();
        assert_eq!(eval.explored.as_ref().map(|e| e.mesh.degrees), Some(best.mesh.degrees));
        // A mesh whose degrees multiply to too few devices: a problem naming the topology,
        // until FSDP takes the rest.
        s.training.as_mut().unwrap().mesh = Some(Mesh { tp: 4, ..Mesh::default() });
        let eval = evaluate(&s).unwrap();
        assert!(eval.explored.is_none());
        assert!(eval.conflicts.iter().any(|e| e.message.contains("hardware.topology")), "{:?}", eval.conflicts);
        assert_eq!(fsdp_filling(&Mesh { tp: 4, ..Mesh::default() }, 64), Some(16));
        assert_eq!(fsdp_filling(&Mesh { tp: 3, ..Mesh::default() }, 64), None);
        fill_fsdp(&mut s, 64);
        assert!(evaluate(&s).unwrap().conflicts.is_empty());
        stop_exploring(&mut s);
        assert!(evaluate(&s).unwrap().explored.is_none());
    }

    /// Every term of the step adds up to the step time the planner reports, by hand from the
    /// report's own breakdown keys; the explanation names each term that takes time with its
    /// source; the roofline's days are the budget's steps at the roofline's step time.
    #[test]
    fn the_step_account_adds_up_and_cites_its_sources() {
        for prediction in [PredictionMode::Calibrated, PredictionMode::Ideal] {
            let mut s = Scenario::default();
            s.conventions.prediction = prediction;
            let eval = evaluate(&s).unwrap();
            let (r, a) = (&eval.best, &eval.step);
            let b = &r.breakdown;
            let by_hand = b.compute_s.get()
                + b.optimizer_s.get()
                + b.sync_s.get()
                + b.exposed_communication_s.get()
                + b.bubble_s.get()
                + b.offload_exposed_s.get();
            let sum: f64 = a.terms.iter().map(|t| t.seconds).sum();
            assert!((sum - r.step_time_s.get()).abs() <= 1e-9 * sum, "{sum} vs {:?}", r.step_time_s);
            assert!((by_hand - sum).abs() <= 1e-9 * sum);
            let mut at = Vec::new();
            for t in a.terms.iter().filter(|t| t.seconds > 1e-6 * sum) {
                let i = a.explanation.find(&format!("{} ", t.label));
                assert!(i.is_some(), "{}: {}", t.label, a.explanation);
                assert!(a.explanation.contains(&t.source), "{}: {}", t.source, a.explanation);
                at.extend(i.map(|i| (i, t.seconds)));
            }
            // Listed from the largest.
            at.sort_by_key(|(i, _)| *i);
            assert!(at.windows(2).all(|w| w[0].1 >= w[1].1), "{at:?}: {}", a.explanation);
            let (days, roofline_days) = (r.days.unwrap(), a.roofline_days.unwrap());
            let ratio = r.roofline.step_time_s.get() / r.step_time_s.get();
            assert!((roofline_days - days * ratio).abs() <= 1e-9 * days, "{roofline_days} vs {days} × {ratio}");
            let cost = a.roofline_cost_usd.unwrap();
            assert!((cost - r.cost_usd.unwrap() * ratio).abs() <= 1e-6 * cost);
            match prediction {
                // The calibrated step counts HBM-bound work the roofline leaves out, and is slower.
                PredictionMode::Calibrated => {
                    assert!(b.elementwise_s.get() > 0.0 && b.optimizer_s.get() > 0.0 && ratio < 1.0);
                    assert!(a.explanation.contains("the bound no run beats"), "{}", a.explanation);
                }
                PredictionMode::Ideal => assert!((ratio - 1.0).abs() < 1e-12 && b.elementwise_s.get() == 0.0),
            }
        }
    }

    #[test]
    fn the_eval_keeps_the_report_s_keys() {
        let eval = evaluate(&Scenario::default()).unwrap();
        let v = serde_json::to_value(&eval).unwrap();
        for key in ["mesh", "step_time_s", "mfu", "memory", "bands", "step", "prediction", "roofline", "breakdown"] {
            assert!(v.get(key).is_some(), "{key}");
        }
        let back: TrainingEval = serde_json::from_value(v).unwrap();
        assert_eq!(back.best.mesh, eval.best.mesh);
    }
}
