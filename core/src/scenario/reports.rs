//! What needs a whole scenario rather than one of its sections: the serving page's defaults,
//! and the training and serving sections evaluated in the scenario's prediction mode. Here,
//! above the planners, so that `training` and `inference` never depend on the scenario.

use super::Scenario;
use crate::efficiency::PredictionMode;
use crate::error::Invalid;
use crate::hardware::query::{ChipSource, HardwareSection, ResolvedHardware};
use crate::inference::defaults::{default_section, DEFAULT_CHIP};
use crate::inference::evaluate::evaluate_derated;
use crate::inference::search::{search, SearchReport};
use crate::inference::InferenceReport;
use crate::model::ModelConfig;
use crate::training::plan::plan;
use crate::training::section::section_for;
use crate::training::TrainingReport;

/// `s` with a default `hardware` section (a [`DEFAULT_CHIP`], no topology) and a default
/// `inference` section ([`default_section`]) where it has none; sections it has are kept as
/// they are.
#[must_use]
pub fn with_serving_defaults(s: &Scenario) -> Scenario {
    let mut out = s.clone();
    if out.hardware.is_none() {
        out.hardware = Some(HardwareSection { chip: ChipSource::Preset(DEFAULT_CHIP.into()), topology: None });
    }
    if out.inference.is_none() {
        out.inference = Some(default_section());
    }
    out
}

/// The report's `inference` section for a scenario, `None` without one; in calibrated
/// mode (`conventions.prediction`) on the derated hardware; with the search under targets
/// when the scenario asks for one ([`search_report`]).
///
/// # Errors
/// As `inference::evaluate::evaluate_inference`; `hardware` when the scenario has none.
pub fn inference_report(model: &ModelConfig, s: &Scenario) -> Result<Option<InferenceReport>, Invalid> {
    let Some(mut report) = inference_report_with(model, s, true)? else { return Ok(None) };
    report.search = search_report(model, s)?;
    Ok(Some(report))
}

/// [`inference_report`] without the search (`search` is `None`): the plan and its charts.
///
/// # Errors
/// As [`inference_report`].
pub fn inference_report_without_search(model: &ModelConfig, s: &Scenario) -> Result<Option<InferenceReport>, Invalid> {
    inference_report_with(model, s, true)
}

/// [`inference_report`] without the charts' data (`curves` empty) and without the search;
/// every other number is the same.
///
/// # Errors
/// As [`inference_report`].
pub fn inference_report_without_curves(model: &ModelConfig, s: &Scenario) -> Result<Option<InferenceReport>, Invalid> {
    inference_report_with(model, s, false)
}

fn inference_report_with(
    model: &ModelConfig,
    s: &Scenario,
    with_curves: bool,
) -> Result<Option<InferenceReport>, Invalid> {
    let Some(section) = &s.inference else { return Ok(None) };
    let hw = s.validate_hardware()?.ok_or_else(|| Invalid::one("hardware", "is required by `inference`"))?;
    let topology_given = s.hardware.as_ref().is_some_and(|h| h.topology.is_some());
    // Calibrated mode: the chips (the prefill servers' too) as serving's fitted efficiencies
    // derate them (HBM bandwidth and matmul peaks; `efficiency::serving`). Its per-pass
    // overheads are not applied here yet.
    match s.conventions.prediction {
        PredictionMode::Ideal => {
            evaluate_derated(model, &hw, topology_given, section, with_curves, Clone::clone).map(Some)
        }
        PredictionMode::Calibrated => {
            let cal = crate::efficiency::serving::bundled();
            evaluate_derated(model, &hw, topology_given, section, with_curves, |h| cal.derate(h)).map(Some)
        }
    }
}

/// The search under targets of a scenario (`inference.search`), `None` when it asks for
/// none; in calibrated mode every chip it considers is derated as the plan's is.
///
/// # Errors
/// The search's problems (`inference.search.chips[i]`, `inference.search`), `hardware`
/// when the scenario has none.
pub fn search_report(model: &ModelConfig, s: &Scenario) -> Result<Option<SearchReport>, Invalid> {
    let Some(section) = &s.inference else { return Ok(None) };
    let Some(options) = &section.search else { return Ok(None) };
    let hw = s.validate_hardware()?.ok_or_else(|| Invalid::one("hardware", "is required by `inference`"))?;
    let found = match s.conventions.prediction {
        PredictionMode::Ideal => search(model, section, &hw.chip, options, &Clone::clone),
        PredictionMode::Calibrated => {
            let cal = crate::efficiency::serving::bundled();
            let own = cal.derate_chip(&hw.chip);
            search(model, section, &own, options, &|c| cal.derate_chip(c))
        }
    };
    found.map(Some).map_err(|e| e.prefixed("inference"))
}

/// The scenario's `training` section planned on its hardware (`None` without one), in
/// the scenario's prediction mode (`conventions.prediction`: ideal or calibrated).
///
/// # Errors
/// As `training::plan::plan`; `hardware` when the scenario has none.
pub fn training_report(
    m: &ModelConfig,
    hw: Option<&ResolvedHardware>,
    s: &Scenario,
) -> Result<Option<TrainingReport>, Invalid> {
    let Some(section) = &s.training else { return Ok(None) };
    let hw = hw.ok_or_else(|| Invalid::one("hardware", "is required by `training` (a chip and a topology)"))?;
    let section = section_for(section, &hw.chip, s.conventions.prediction);
    plan(m, hw, &section, s.conventions.flops).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inference::defaults::{DEFAULT_BATCH, DEFAULT_OUTPUT_LEN, DEFAULT_PROMPT_LEN};

    #[test]
    fn the_default_scenario_gains_a_valid_serving_setup_and_keeps_its_own() {
        let s = with_serving_defaults(&Scenario::default());
        let model = s.validate().unwrap();
        let r = inference_report(&model, &s).unwrap().unwrap();
        assert_eq!(r.serving.batch, DEFAULT_BATCH);
        assert_eq!(r.serving.context, DEFAULT_PROMPT_LEN + DEFAULT_OUTPUT_LEN);
        let mut mine = s.clone();
        if let Some(i) = mine.inference.as_mut() {
            i.prompt_len = 100;
        }
        assert_eq!(with_serving_defaults(&mine), mine);
    }

    #[test]
    fn without_curves_every_number_but_the_curves_is_the_same() {
        use crate::inference::curves::Curves;
        for mode in [PredictionMode::Ideal, PredictionMode::Calibrated] {
            let mut s = with_serving_defaults(&Scenario::default());
            s.conventions.prediction = mode;
            let model = s.validate().unwrap();
            let mut full = inference_report(&model, &s).unwrap().unwrap();
            let bare = inference_report_without_curves(&model, &s).unwrap().unwrap();
            assert!(!full.curves.pareto.is_empty() && !full.curves.step_breakdown.is_empty());
            assert_eq!(bare.curves, Curves::none(full.serving.batch));
            full.curves = Curves::none(full.serving.batch);
            assert_eq!(bare, full, "{mode:?}");
        }
    }
}
