//! MaxText's own configuration files, bundled (feature `maxtext-configs`, on in the CLI and
//! the Python package, off in the web pages, which would pay ~15 KB gzip for them):
//! `base.yml` (every key MaxText knows, with its default) and the model YAMLs
//! `model_name=<name>` resolves to, copied verbatim from AI-Hypercomputer/maxtext at
//! [`UPSTREAM_COMMIT`] (`core/data/maxtext/README.md` lists them).

/// The MaxText commit the files were copied from.
pub const UPSTREAM_COMMIT: &str = "e591f30cbbf217ed67ef71263ec0538239f9c3b8";

/// `src/maxtext/configs/base.yml`.
pub const BASE_YML: &str = include_str!("../../data/maxtext/base.yml");

/// `src/maxtext/configs/models/<name>.yml`, by name.
pub const MODELS: &[(&str, &str)] = &[
    ("deepseek2-16b", include_str!("../../data/maxtext/models/deepseek2-16b.yml")),
    ("deepseek2-236b", include_str!("../../data/maxtext/models/deepseek2-236b.yml")),
    ("deepseek3-671b-2dfsdp", include_str!("../../data/maxtext/models/deepseek3-671b-2dfsdp.yml")),
    ("deepseek3-671b-batchsplit", include_str!("../../data/maxtext/models/deepseek3-671b-batchsplit.yml")),
    ("deepseek3-671b", include_str!("../../data/maxtext/models/deepseek3-671b.yml")),
    ("deepseek3.2-671b", include_str!("../../data/maxtext/models/deepseek3.2-671b.yml")),
    ("gemma-2b", include_str!("../../data/maxtext/models/gemma-2b.yml")),
    ("gemma-7b", include_str!("../../data/maxtext/models/gemma-7b.yml")),
    ("gemma2-27b", include_str!("../../data/maxtext/models/gemma2-27b.yml")),
    ("gemma2-2b", include_str!("../../data/maxtext/models/gemma2-2b.yml")),
    ("gemma2-9b", include_str!("../../data/maxtext/models/gemma2-9b.yml")),
    ("gemma3-12b", include_str!("../../data/maxtext/models/gemma3-12b.yml")),
    ("gemma3-27b", include_str!("../../data/maxtext/models/gemma3-27b.yml")),
    ("gemma3-4b", include_str!("../../data/maxtext/models/gemma3-4b.yml")),
    ("gpt-oss-120b", include_str!("../../data/maxtext/models/gpt-oss-120b.yml")),
    ("gpt-oss-20b", include_str!("../../data/maxtext/models/gpt-oss-20b.yml")),
    ("gpt3-175b", include_str!("../../data/maxtext/models/gpt3-175b.yml")),
    ("gpt3-22b", include_str!("../../data/maxtext/models/gpt3-22b.yml")),
    ("gpt3-6b", include_str!("../../data/maxtext/models/gpt3-6b.yml")),
    ("kimi-k2-1t", include_str!("../../data/maxtext/models/kimi-k2-1t.yml")),
    ("llama2-13b", include_str!("../../data/maxtext/models/llama2-13b.yml")),
    ("llama2-70b", include_str!("../../data/maxtext/models/llama2-70b.yml")),
    ("llama2-7b", include_str!("../../data/maxtext/models/llama2-7b.yml")),
    ("llama3-405b", include_str!("../../data/maxtext/models/llama3-405b.yml")),
    ("llama3-70b", include_str!("../../data/maxtext/models/llama3-70b.yml")),
    ("llama3-8b", include_str!("../../data/maxtext/models/llama3-8b.yml")),
    ("llama3.1-405b", include_str!("../../data/maxtext/models/llama3.1-405b.yml")),
    ("llama3.1-70b", include_str!("../../data/maxtext/models/llama3.1-70b.yml")),
    ("llama3.1-8b", include_str!("../../data/maxtext/models/llama3.1-8b.yml")),
    ("llama3.3-70b", include_str!("../../data/maxtext/models/llama3.3-70b.yml")),
    ("llama4-17b-128e", include_str!("../../data/maxtext/models/llama4-17b-128e.yml")),
    ("llama4-17b-16e", include_str!("../../data/maxtext/models/llama4-17b-16e.yml")),
    ("mistral-7b", include_str!("../../data/maxtext/models/mistral-7b.yml")),
    ("mixtral-8x22b", include_str!("../../data/maxtext/models/mixtral-8x22b.yml")),
    ("mixtral-8x7b", include_str!("../../data/maxtext/models/mixtral-8x7b.yml")),
    ("qwen3-0.6b", include_str!("../../data/maxtext/models/qwen3-0.6b.yml")),
    ("qwen3-1.7b-base", include_str!("../../data/maxtext/models/qwen3-1.7b-base.yml")),
    ("qwen3-1.7b", include_str!("../../data/maxtext/models/qwen3-1.7b.yml")),
    ("qwen3-14b-base", include_str!("../../data/maxtext/models/qwen3-14b-base.yml")),
    ("qwen3-14b", include_str!("../../data/maxtext/models/qwen3-14b.yml")),
    ("qwen3-235b-a22b", include_str!("../../data/maxtext/models/qwen3-235b-a22b.yml")),
    ("qwen3-30b-a3b-base", include_str!("../../data/maxtext/models/qwen3-30b-a3b-base.yml")),
    ("qwen3-30b-a3b", include_str!("../../data/maxtext/models/qwen3-30b-a3b.yml")),
    ("qwen3-32b", include_str!("../../data/maxtext/models/qwen3-32b.yml")),
    ("qwen3-480b-a35b", include_str!("../../data/maxtext/models/qwen3-480b-a35b.yml")),
    ("qwen3-4b-base", include_str!("../../data/maxtext/models/qwen3-4b-base.yml")),
    ("qwen3-4b-thinking-2507", include_str!("../../data/maxtext/models/qwen3-4b-thinking-2507.yml")),
    ("qwen3-4b", include_str!("../../data/maxtext/models/qwen3-4b.yml")),
    ("qwen3-8b-base", include_str!("../../data/maxtext/models/qwen3-8b-base.yml")),
    ("qwen3-8b", include_str!("../../data/maxtext/models/qwen3-8b.yml")),
];
