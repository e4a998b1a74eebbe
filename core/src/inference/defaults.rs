//! What serving starts from when a scenario has no `inference` or `hardware` section: the
//! book's chapter 8 workload (8,192 tokens of context: a 7,680-token prompt and 512 generated
//! tokens, batch 32, bf16 throughout) on a TPU v5e, with no topology so that the smallest
//! slice that fits is chosen. The serving page fills a fresh scenario with these, and the
//! chart catalog builds the serving charts of a scenario without them the same way.

use super::options::InferenceSection;

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
