//! Benchmarks of shardcalc-core, native (issue 7): what the page computes on every input
//! change, and the importers. Run with `./dev.sh bench` (which prints a median per
//! benchmark) or `cargo bench -p shardcalc-bench [FILTER]`.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use criterion::{criterion_group, criterion_main, Criterion};
use shardcalc_core::flops::{flops_vs_seq_len, training_flops, FlopConvention};
use shardcalc_core::import::{from_hf_config_json, from_maxtext_yaml};
use shardcalc_core::params::count_params;
use shardcalc_core::presets;
use shardcalc_core::report::evaluate;
use shardcalc_core::scenario::{ModelSource, Scenario};
use std::hint::black_box;

/// Presets that cover the variants: dense GQA, MLA + MoE + MTP, sliding windows,
/// chunked attention + interleaved MoE, routed-only MoE.
const PRESETS: [&str; 5] = ["llama-3-8b", "deepseek-v3-mtp", "gemma-3-27b", "llama-4-scout", "mixtral-8x7b"];

fn scenario(id: &str) -> Scenario {
    Scenario { model: ModelSource::Preset(id.into()), ..Scenario::default() }
}

fn model(id: &str) -> shardcalc_core::model::ModelConfig {
    presets::get(id).map(|p| p.config).unwrap_or_else(|| panic!("no preset {id}"))
}

fn report(c: &mut Criterion) {
    let mut g = c.benchmark_group("evaluate");
    for id in PRESETS {
        let s = scenario(id);
        g.bench_function(id, |b| b.iter(|| evaluate(black_box(&s))));
    }
    g.finish();
    // What the page does when the URL changes: parse the scenario, evaluate, serialize.
    let text = serde_json::to_string(&scenario("deepseek-v3-mtp")).unwrap_or_default();
    c.bench_function("scenario_json_to_report_json/deepseek-v3-mtp", |b| {
        b.iter(|| {
            let s = Scenario::from_json(black_box(&text)).ok()?;
            serde_json::to_string(&evaluate(&s).ok()?).ok()
        });
    });
}

fn formulas(c: &mut Criterion) {
    let mut g = c.benchmark_group("count_params");
    for id in ["llama-3-8b", "deepseek-v3-mtp"] {
        let m = model(id);
        g.bench_function(id, |b| b.iter(|| count_params(black_box(&m))));
    }
    g.finish();

    let m = model("llama-3-70b");
    let w = Scenario::default().workload;
    let mut g = c.benchmark_group("training_flops/llama-3-70b");
    for convention in FlopConvention::ALL {
        g.bench_function(convention.id(), |b| b.iter(|| training_flops(black_box(&m), &w, convention)));
    }
    g.finish();

    // The attention-vs-MLP chart: 64 sequence lengths from 16 to 2^30, log-spaced.
    let lens: Vec<u64> = (0..64).map(|i| 2f64.powf(4.0 + 26.0 * f64::from(i) / 63.0) as u64).collect();
    let m = model("gemma-3-27b");
    c.bench_function("flops_vs_seq_len/64_points/gemma-3-27b", |b| {
        b.iter(|| flops_vs_seq_len(black_box(&m), &lens, FlopConvention::MaxText));
    });
}

macro_rules! fixtures {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../../core/tests/fixtures/", $name)))),*]
    };
}

fn importers(c: &mut Criterion) {
    let hf = fixtures![
        "hf-deepseek-v3.json",
        "hf-gemma-2-9b.json",
        "hf-gemma-3-27b.json",
        "hf-gpt-oss-120b.json",
        "hf-llama-2-7b.json",
        "hf-llama-3-70b.json",
        "hf-llama-3-8b.json",
        "hf-llama-3.1-405b.json",
        "hf-llama-4-scout.json",
        "hf-mistral-7b.json",
        "hf-mixtral-8x7b.json",
        "hf-qwen2.5-7b.json",
        "hf-qwen3-30b-a3b.json",
        "hf-qwen3-8b.json",
    ];
    let maxtext = fixtures![
        "maxtext-deepseek3-671b.yml",
        "maxtext-gemma2-9b.yml",
        "maxtext-gemma3-27b.yml",
        "maxtext-gpt-oss-120b.yml",
        "maxtext-llama2-7b.yml",
        "maxtext-llama3-8b.yml",
        "maxtext-llama4-17b-16e.yml",
        "maxtext-mistral-7b.yml",
        "maxtext-mixtral-8x7b.yml",
        "maxtext-qwen3-30b-a3b.yml",
        "maxtext-qwen3-8b.yml",
    ];
    c.bench_function("import/hf_config/all_14_fixtures", |b| {
        b.iter(|| hf.iter().filter(|(_, text)| from_hf_config_json(black_box(text)).is_ok()).count());
    });
    c.bench_function("import/maxtext_yaml/all_11_fixtures", |b| {
        b.iter(|| maxtext.iter().filter(|(_, text)| from_maxtext_yaml(black_box(text)).is_ok()).count());
    });
    let (_, deepseek) = hf[0];
    c.bench_function("import/hf_config/deepseek-v3", |b| b.iter(|| from_hf_config_json(black_box(deepseek))));
}

/// Short runs: these functions take micro- to milliseconds, and `./dev.sh bench` should
/// finish in about a minute.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2))
        .sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = report, formulas, importers
}
criterion_main!(benches);
