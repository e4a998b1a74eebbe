//! The serving search under targets (issue 17): the cheapest deployment over every priced
//! catalog chip, mesh, sharding, batch and prefill:decode split for a request rate and
//! latency targets. The page runs it on input changes and must stay under 100 ms in
//! Chromium; natively it should take a few milliseconds. `./dev.sh bench serving` or
//! `cargo bench -p shardcalc-bench --bench serving`.
//!
//! Cases: LLaMA 3-70B in int8 at 10 requests per second (TTFT p99 ≤ 2 s, TPOT ≤ 50 ms),
//! the same with a traffic mix and three weight formats, and DeepSeek-V3 in fp8 at 20
//! requests per second (TP, EP and data-parallel attention over one and several nodes).
#![allow(clippy::unwrap_used)] // A benchmark whose setup cannot unwrap has failed; the panic says why.

use criterion::{criterion_group, criterion_main, Criterion};
use shardcalc_core::report::evaluate;
use shardcalc_core::scenario::Scenario;
use std::hint::black_box;

fn scenario(model: &str, chip: &str, inference: &str) -> Option<Scenario> {
    let text = format!(
        r#"{{"model": {{"preset": "{model}"}}, "workload": {{"per_device_batch": 1, "seq_len": 4096}},
            "hardware": {{"chip": {{"preset": "{chip}"}}}}, "inference": {inference}}}"#
    );
    Scenario::from_json(&text).ok()
}

fn case(c: &mut Criterion, name: &str, s: Option<Scenario>) {
    let Some(s) = s else { return };
    if let Ok(r) = evaluate(&s) {
        if let Some(x) = r.inference.as_ref().and_then(|i| i.search.as_ref()) {
            eprintln!(
                "{name}: {} servers, {} configurations evaluated, {} feasible",
                x.servers, x.evaluated, x.feasible
            );
        }
    }
    c.bench_function(name, |b| b.iter(|| evaluate(black_box(&s))));
}

fn serving_search(c: &mut Criterion) {
    let targets = r#""targets": {"ttft_p99_s": 2.0, "tpot_s": 0.05}"#;
    case(
        c,
        "serving_search/llama-3-70b_int8_10rps",
        scenario(
            "llama-3-70b",
            "tpu-v5e",
            &format!(
                r#"{{"prompt_len": 2048, "output_len": 512, "dtypes": {{"weights": "int8", "kv": "int8"}},
                    "request_rate": 10, {targets}, "search": {{}}}}"#
            ),
        ),
    );
    case(
        c,
        "serving_search/llama-3-70b_mix_3_formats",
        scenario(
            "llama-3-70b",
            "h100-sxm",
            &format!(
                r#"{{"prompt_len": 2048, "output_len": 512, "request_rate": 10, {targets},
                    "traffic": {{"prompt": [{{"tokens": 512, "weight": 2}}, {{"tokens": 8192, "weight": 1}}],
                                 "output": [{{"tokens": 128, "weight": 1}}, {{"tokens": 1024, "weight": 1}}]}},
                    "search": {{"weights": ["bf16", "fp8", "int8"]}}}}"#
            ),
        ),
    );
    case(
        c,
        "serving_search/deepseek-v3_fp8_20rps",
        scenario(
            "deepseek-v3",
            "h200-sxm",
            r#"{"prompt_len": 2048, "output_len": 512, "dtypes": {"weights": "fp8", "kv": "fp8", "compute": "fp8"},
                "request_rate": 20, "targets": {"ttft_p99_s": 3.0, "tpot_s": 0.05}, "search": {}}"#,
        ),
    );
    // The same evaluation without the search, for the difference.
    case(
        c,
        "serving_search/llama-3-70b_int8_10rps_no_search",
        scenario(
            "llama-3-70b",
            "tpu-v5e",
            &format!(
                r#"{{"prompt_len": 2048, "output_len": 512, "dtypes": {{"weights": "int8", "kv": "int8"}},
                    "request_rate": 10, {targets}}}"#
            ),
        ),
    );
}

criterion_group!(benches, serving_search);
criterion_main!(benches);
