//! Rate-based serving end to end (issue 17): continuous batching on co-located servers,
//! disaggregated prefill and decode pools, and the servers a request rate needs, through
//! the report (`shardcalc eval`'s `inference` section).

use serde_json::{json, Value};
use shardcalc_core::report::evaluate;
use shardcalc_core::scenario::Scenario;

fn run(v: Value) -> Value {
    let s: Scenario = serde_json::from_value(v).unwrap();
    serde_json::to_value(evaluate(&s).unwrap()).unwrap()["inference"].clone()
}

fn num(v: &Value, path: &str) -> f64 {
    path.split('.').fold(v, |v, k| &v[k]).as_f64().unwrap_or_else(|| panic!("{path} is not a number: {v}"))
}

fn close(got: f64, want: f64, rel: f64, what: &str) {
    assert!((got - want).abs() <= rel * want.abs(), "{what}: got {got}, want {want}");
}

fn llama70(inference: Value) -> Value {
    json!({
        "model": {"preset": "llama-3-70b"},
        "workload": {"per_device_batch": 1, "seq_len": 4096},
        "hardware": {"chip": {"preset": "tpu-v5e"}, "topology": {"axes": [{"name": "x", "size": 4}, {"name": "y", "size": 4}]}},
        "inference": inference,
    })
}

/// LLaMA 3-70B in int8 on v5e 4x4 servers at 10 requests per second: the fewest
/// co-located servers, their cost at $1.20 per chip-hour, and the report's identities
/// (rate split evenly, Little's law, tokens = rate × output length).
#[test]
fn colocated_servers_for_a_rate() {
    let r = run(llama70(json!({"prompt_len": 2048, "output_len": 512, "batch": 32,
        "dtypes": {"weights": "int8", "kv": "int8"}, "request_rate": 10,
        "targets": {"ttft_p99_s": 2.0, "tpot_s": 0.05}})));
    let cb = &r["continuous_batching"];
    assert_eq!(cb["token_budget"], 8192);
    assert_eq!(cb["context"], 2560);
    let d = &cb["at_request_rate"]["deployment"];
    let n = num(d, "servers");
    close(num(d, "rate_per_server") * n, 10.0, 1e-12, "rate split");
    close(num(d, "chips"), 16.0 * n, 0.0, "chips");
    close(num(d, "usd_per_hour"), 1.2 * 16.0 * n, 1e-12, "cost");
    let p = &d["point"];
    close(num(p, "output_tokens_per_s"), num(d, "rate_per_server") * 512.0, 1e-12, "tokens");
    // Little: the concurrency holds at least rate × G × τ̄ sequences.
    assert!(num(p, "concurrency") >= num(d, "rate_per_server") * 512.0 * num(p, "tpot_s") - 1e-9);
    assert!(num(p, "tpot_s") <= 0.05 && num(&p["ttft"], "p99_s") <= 2.0);
    // One server fewer cannot keep up: the concurrency chart tops out below 10/(n−1).
    let best = cb["curve"].as_array().unwrap().iter().filter_map(|c| c["point"]["requests_per_s"].as_f64());
    assert!(best.fold(0.0, f64::max) < 10.0 / (n - 1.0));
    // Tighter time per output token needs more servers, and says so.
    let tight = run(llama70(json!({"prompt_len": 2048, "output_len": 512, "batch": 32,
        "dtypes": {"weights": "int8", "kv": "int8"}, "request_rate": 10, "targets": {"tpot_s": 0.009}})));
    let t = &tight["continuous_batching"]["at_request_rate"]["deployment"];
    assert!(num(t, "servers") > n);
    assert_eq!(t["binds"], "tpot");
    // Below the unloaded decode step no number of servers helps.
    let never = run(llama70(json!({"prompt_len": 2048, "output_len": 512, "batch": 32,
        "dtypes": {"weights": "int8", "kv": "int8"}, "request_rate": 10, "targets": {"tpot_s": 0.001}})));
    let why = &never["continuous_batching"]["at_request_rate"]["impossible"];
    assert_eq!(why["constraint"], "tpot");
    assert!(why["reason"].as_str().unwrap().contains("unloaded"));
}

/// The concurrency chart: throughput rises and flattens, time per output token and time
/// to first token grow with the load.
#[test]
fn concurrency_chart_is_monotone() {
    let r = run(llama70(json!({"prompt_len": 2048, "output_len": 512, "dtypes": {"weights": "int8", "kv": "int8"}})));
    let curve: Vec<&Value> = r["continuous_batching"]["curve"].as_array().unwrap().iter().collect();
    assert!(curve.len() > 10);
    for w in curve.windows(2) {
        let (a, b) = (&w[0]["point"], &w[1]["point"]);
        if b.is_null() {
            break;
        }
        assert!(num(b, "output_tokens_per_s") >= num(a, "output_tokens_per_s"));
        assert!(num(b, "tpot_s") >= num(a, "tpot_s"));
        assert!(num(&b["ttft"], "p99_s") >= num(&a["ttft"], "p99_s"));
    }
}
