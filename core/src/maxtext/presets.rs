//! MaxText model names whose architecture is a bundled preset's: what `model_name`
//! resolves to where MaxText's model YAMLs are not bundled (the web pages). A test with
//! the bundle checks that each model YAML imports to the preset's parameters and MaxText
//! FLOPs exactly (MaxText's `gemma2-9b`, `gemma3-27b` and `gpt3-175b` do not: their
//! padded vocabularies and GPT-3's position table differ from the Hugging Face presets).

/// MaxText `model_name` → shardcalc preset id.
pub const PRESET_MODELS: &[(&str, &str)] = &[
    ("llama2-7b", "llama-2-7b"),
    ("llama2-13b", "llama-2-13b"),
    ("llama2-70b", "llama-2-70b"),
    ("llama3-8b", "llama-3-8b"),
    ("llama3.1-8b", "llama-3-8b"),
    ("llama3-70b", "llama-3-70b"),
    ("llama3.1-70b", "llama-3-70b"),
    ("llama3.3-70b", "llama-3-70b"),
    ("llama3.1-405b", "llama-3.1-405b"),
    ("mistral-7b", "mistral-7b"),
    ("mixtral-8x7b", "mixtral-8x7b"),
    ("mixtral-8x22b", "mixtral-8x22b"),
    ("qwen3-8b", "qwen3-8b"),
    ("qwen3-30b-a3b", "qwen3-30b-a3b"),
    ("qwen3-235b-a22b", "qwen3-235b-a22b"),
    ("deepseek3-671b", "deepseek-v3"),
    ("gpt-oss-120b", "gpt-oss-120b"),
    ("llama4-17b-16e", "llama-4-scout"),
    ("llama3-405b", "llama-3.1-405b"),
];

/// The preset a MaxText model name is, when it is one.
#[must_use]
pub fn preset_for(model_name: &str) -> Option<&'static str> {
    PRESET_MODELS.iter().find(|(n, _)| *n == model_name).map(|(_, p)| *p)
}
