//! MoE and MLA serving at scale (issue 17): DeepSeek-V3 with expert parallelism over 32
//! GPUs, its attention tensor-parallel or data-parallel, checked against first-principles
//! counts of the weights, caches and collectives each chip holds and runs.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use serde_json::{json, Value};
use shardcalc_core::collectives::{collective_cost, CollectiveKind};
use shardcalc_core::params::{count_params, ParamComponent};
use shardcalc_core::presets;
use shardcalc_core::report::evaluate;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::units::Bytes;

fn deepseek(dense: &str, batch: u64) -> Scenario {
    serde_json::from_value(json!({
        "model": {"preset": "deepseek-v3"},
        "workload": {"per_device_batch": 1, "seq_len": 4096},
        "hardware": {"chip": {"preset": "h100-sxm"}, "topology": {"axes": [
            {"name": "nvlink", "size": 8}, {"name": "ib", "size": 4, "network": "scale_out"}]}},
        "inference": {"prompt_len": 2048, "output_len": 512, "batch": batch,
            "dtypes": {"weights": "fp8", "kv": "fp8", "compute": "fp8"},
            "sharding": {"model_axes": ["nvlink", "ib"], "expert_axes": ["nvlink", "ib"], "dense": dense}},
        // Hand counts at the catalog's rates: the roofline, not the calibrated derate.
        "conventions": {"prediction": "ideal"}
    }))
    .unwrap()
}

fn run(s: &Scenario) -> Value {
    serde_json::to_value(evaluate(s).unwrap()).unwrap()["inference"].clone()
}

fn num(v: &Value, path: &str) -> f64 {
    path.split('.').fold(v, |v, k| &v[k]).as_f64().unwrap_or_else(|| panic!("{path} is not a number: {v}"))
}

fn close(got: f64, want: f64, rel: f64, what: &str) {
    assert!((got - want).abs() <= rel * want.abs(), "{what}: got {got}, want {want}");
}

/// DeepSeek-V3 in fp8 over 32 H100s (4 nodes of 8), one expert group per GPU (E_p = 32,
/// 8 experts each), attention data-parallel (each GPU decodes 256 / 32 = 8 sequences and
/// keeps their latent caches), as DeepSeek deploys decode (arXiv 2412.19437 §3.4.2).
#[test]
fn deepseek_v3_ep32_with_data_parallel_attention() {
    let m = presets::get("deepseek-v3").unwrap().config;
    let p = count_params(&m);
    let routed = p.get(ParamComponent::RoutedExperts).total.get();
    let stored = p.total.get();
    // 58 MoE layers × 256 experts × 3 × 7168 × 2048 = 653.9 B routed parameters.
    assert_eq!(routed, 58.0 * 256.0 * 3.0 * 7168.0 * 2048.0);
    let r = run(&deepseek("data", 256));
    assert_eq!(r["serving"]["model_parallel"], 32.0);
    // Each GPU stores every non-expert weight (fp8: one byte each) and 1/32 of the experts.
    close(num(&r, "memory.per_chip.weights"), (stored - routed) + routed / 32.0, 1e-12, "weights per chip");
    // Caches: 8 sequences × 2,560 tokens × 61 layers × 576 fp8 elements.
    close(num(&r, "memory.per_chip.kv"), 8.0 * 2560.0 * 61.0 * 576.0, 1e-12, "KV per chip");
    let moe = &r["moe"];
    assert_eq!(moe["expert_parallel"], 32.0);
    assert_eq!(moe["experts_per_chip"], 8.0);
    assert_eq!(moe["dense"], "data");
    // 256 tokens × top-8 = 2,048 routed copies: 8 per expert, 64 per GPU on average.
    assert_eq!(num(moe, "routed_tokens_per_step"), 2048.0);
    assert_eq!(num(moe, "tokens_per_expert"), 8.0);
    let touched = 256.0 * (1.0 - (1.0 - 8.0 / 256.0_f64).powi(256));
    close(num(moe, "experts_touched_per_layer"), touched, 1e-12, "experts touched");
    close(num(moe, "expert_weight_bytes_per_step"), 58.0 * touched * 3.0 * 7168.0 * 2048.0, 1e-12, "expert bytes");
    assert!(num(moe, "load_imbalance") > 1.0 && num(moe, "load_imbalance") < 2.0);
    // The only collectives are the dispatch and combine AllToAlls of [T·k, D] in bf16 over
    // both axes, twice per MoE layer (no attention AllReduce: no non-expert model axis).
    let hw = deepseek("data", 256).validate_hardware().unwrap().unwrap();
    let a2a = collective_cost(CollectiveKind::AllToAll, Bytes(2048.0 * 7168.0 * 2.0), &hw.axes).unwrap();
    close(num(moe, "all_to_all_s"), a2a.time.get() * 2.0 * 58.0, 1e-12, "all-to-all");
    close(num(&r, "decode.comms_s"), num(moe, "all_to_all_s"), 1e-12, "only the all-to-alls");
}

/// The same with tensor-parallel attention: every GPU stores 1/32 of every weight, but
/// the 32-way attention adds an AllReduce per block and (MLA has one latent head) the
/// batch-sharded cache's two AllToAlls per layer: more communication than DP attention.
#[test]
fn tensor_parallel_attention_stores_less_and_talks_more() {
    let m = presets::get("deepseek-v3").unwrap().config;
    let stored = count_params(&m).total.get();
    let tp = run(&deepseek("tensor", 256));
    let dp = run(&deepseek("data", 256));
    close(num(&tp, "memory.per_chip.weights"), stored / 32.0, 1e-12, "weights per chip");
    assert_eq!(num(&tp, "memory.per_chip.kv"), num(&dp, "memory.per_chip.kv"));
    assert!(num(&tp, "decode.comms_s") > 2.0 * num(&dp, "decode.comms_s"));
    assert!(num(&tp, "memory.per_chip.weights") < num(&dp, "memory.per_chip.weights"));
    // Both read the same experts; TP reads 1/32 of the dense weights, DP all of them.
    assert_eq!(tp["moe"]["expert_weight_bytes_per_step"], dp["moe"]["expert_weight_bytes_per_step"]);
    assert!(num(&tp, "decode.weight_bytes_per_chip") < num(&dp, "decode.weight_bytes_per_chip"));
}

#[test]
fn data_parallel_attention_needs_expert_axes_and_a_moe_model() {
    let mut s = deepseek("data", 64);
    if let Some(i) = s.inference.as_mut() {
        i.sharding.expert_axes.clear();
    }
    let e = evaluate(&s).unwrap_err();
    assert!(e.0.iter().any(|e| e.field == "inference.sharding.dense"), "{e:?}");
    let mut s = deepseek("data", 64);
    s.model = shardcalc_core::scenario::ModelSource::Preset("llama-3-70b".into());
    let e = evaluate(&s).unwrap_err();
    assert!(e.0.iter().any(|e| e.field == "inference.sharding.dense"), "{e:?}");
}

/// MLA's report on the same deployment: 576 fp8 elements per token and layer.
#[test]
fn mla_section() {
    let r = run(&deepseek("data", 64));
    assert_eq!(r["mla"]["kv_elements_per_token_per_layer"], 576.0);
    assert_eq!(r["mla"]["kv_bytes_per_token"], 61.0 * 576.0);
    assert_eq!(r["mla"]["attention_flops_per_cached_token"], 278_528.0);
    assert!(run(&serde_json::from_value(json!({
        "model": {"preset": "llama-3-8b"}, "workload": {"per_device_batch": 1, "seq_len": 4096},
        "hardware": {"chip": {"preset": "h100-sxm"}},
        "inference": {"prompt_len": 1000, "output_len": 100}
    }))
    .unwrap())
    .get("mla")
    .is_none());
}

/// Qwen3-235B-A22B (128 experts, top-8, 94 layers, all MoE) in bf16 over two 8-GPU H200
/// nodes, the experts over all 16 GPUs with data-parallel attention at batch 512: 32
/// sequences per GPU, 512·8/128 = 32 tokens per expert, all but a handful of experts
/// touched, 8 experts per GPU.
#[test]
fn qwen3_235b_ep16_over_two_nodes() {
    let m = presets::get("qwen3-235b-a22b").unwrap().config;
    let moe = m.moe.clone().unwrap();
    assert_eq!((moe.num_experts, moe.experts_per_token), (128, 8));
    let s: Scenario = serde_json::from_value(json!({
        "model": {"preset": "qwen3-235b-a22b"},
        "workload": {"per_device_batch": 1, "seq_len": 4096},
        "hardware": {"chip": {"preset": "h200-sxm"}, "topology": {"axes": [
            {"name": "nvlink", "size": 8}, {"name": "ib", "size": 2, "network": "scale_out"}]}},
        "inference": {"prompt_len": 1024, "output_len": 1024, "batch": 512,
            "sharding": {"model_axes": ["nvlink", "ib"], "expert_axes": ["nvlink", "ib"], "dense": "data"}}
    }))
    .unwrap();
    let r = run(&s);
    let p = count_params(&m);
    let routed = p.get(ParamComponent::RoutedExperts).total.get();
    close(num(&r, "memory.per_chip.weights"), 2.0 * ((p.total.get() - routed) + routed / 16.0), 1e-12, "weights");
    let x = &r["moe"];
    assert_eq!(num(x, "tokens_per_expert"), 32.0);
    assert_eq!(num(x, "experts_per_chip"), 8.0);
    let touched = 128.0 * (1.0 - (1.0 - 8.0 / 128.0_f64).powi(512));
    close(num(x, "experts_touched_per_layer"), touched, 1e-12, "touched");
    assert!(touched > 127.99);
    // Each GPU holds the caches of 512/16 = 32 sequences of 2,048 tokens (GQA: 4 KV heads
    // of 128 in bf16 per layer, 94 layers).
    let a = match &m.attention {
        shardcalc_core::model::Attention::Gqa(a) => a.clone(),
        _ => unreachable!("Qwen3 uses GQA"),
    };
    let kv_per_token = 2.0 * a.num_kv_heads as f64 * a.head_dim as f64 * 2.0 * 94.0;
    close(num(&r, "memory.per_chip.kv"), 32.0 * 2048.0 * kv_per_token, 1e-12, "KV per chip");
    assert!(num(x, "all_to_all_s") > 0.0);
}
