//! What serving starts from when a scenario has no `inference` or `hardware` section: the
//! book's chapter 8 workload (8,192 tokens of context: a 7,680-token prompt and 512 generated
//! tokens, batch 32, bf16 throughout) on a TPU v5e, with no topology so that the smallest
//! slice that fits is chosen. The serving page fills a fresh scenario with these, and the
//! chart catalog builds the serving charts of a scenario without them the same way.

use super::options::InferenceSection;
use crate::hardware::query::{ChipSource, HardwareSection};
use crate::scenario::Scenario;

/// Chip used when the scenario names none (the book's serving chip, chapter 8).
pub const DEFAULT_CHIP: &str = "tpu-v5e";
/// P: prompt tokens (8,192 of context with [`DEFAULT_OUTPUT_LEN`]).
pub const DEFAULT_PROMPT_LEN: u64 = 7680;
/// G: generated tokens (book 8.1.1's median decode length).
pub const DEFAULT_OUTPUT_LEN: u64 = 512;
/// B: the batch of book 8.1.
pub const DEFAULT_BATCH: u64 = 32;

/// The default `inference` section: [`DEFAULT_PROMPT_LEN`], [`DEFAULT_OUTPUT_LEN`],
/// [`DEFAULT_BATCH`], every other option at its default.
#[must_use]
pub fn default_section() -> InferenceSection {
    InferenceSection { batch: Some(DEFAULT_BATCH), ..InferenceSection::new(DEFAULT_PROMPT_LEN, DEFAULT_OUTPUT_LEN) }
}

/// `s` with a default `hardware` section (a [`DEFAULT_CHIP`], no topology) and a default
/// `inference` section where it has none; sections it has are kept as they are.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inference::evaluate::scenario_inference;

    #[test]
    fn the_default_scenario_gains_a_valid_serving_setup_and_keeps_its_own() {
        let s = with_serving_defaults(&Scenario::default());
        let model = s.validate().unwrap();
        let r = scenario_inference(&model, &s).unwrap().unwrap();
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
        use crate::efficiency::PredictionMode;
        use crate::inference::curves::Curves;
        use crate::inference::evaluate::scenario_inference_without_curves;
        for mode in [PredictionMode::Ideal, PredictionMode::Calibrated] {
            let mut s = with_serving_defaults(&Scenario::default());
            s.conventions.prediction = mode;
            let model = s.validate().unwrap();
            let mut full = scenario_inference(&model, &s).unwrap().unwrap();
            let bare = scenario_inference_without_curves(&model, &s).unwrap().unwrap();
            assert!(!full.curves.pareto.is_empty() && !full.curves.step_breakdown.is_empty());
            assert_eq!(bare.curves, Curves::none(full.serving.batch));
            full.curves = Curves::none(full.serving.batch);
            assert_eq!(bare, full, "{mode:?}");
        }
    }
}
