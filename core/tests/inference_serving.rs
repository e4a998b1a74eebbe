//! Rate-based serving end to end (issue 17): continuous batching on co-located servers,
//! disaggregated prefill and decode pools, and the servers a request rate needs, through
//! the report (`shardcalc eval`'s `inference` section).
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

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
        // Hand counts at the catalog's rates: the roofline, not the calibrated derate.
        "conventions": {"prediction": "ideal"},
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

fn hetero(extra: Value) -> Value {
    let mut inference = json!({"prompt_len": 4096, "output_len": 512, "batch": 64,
        "dtypes": {"weights": "fp8", "kv": "fp8", "compute": "fp8"}, "request_rate": 10,
        "prefill": {"chip": {"preset": "b200"}, "topology": {"axes": [{"name": "nvlink", "size": 8}]}}});
    if let (Some(i), Some(e)) = (inference.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            i.insert(k.clone(), v.clone());
        }
    }
    json!({
        "model": {"preset": "llama-3-70b"},
        "workload": {"per_device_batch": 1, "seq_len": 4096},
        "hardware": {"chip": {"preset": "h200-sxm"}, "topology": {"axes": [{"name": "nvlink", "size": 8}]}},
        "inference": inference,
        // Hand counts at the catalog's rates: the roofline, not the calibrated derate.
        "conventions": {"prediction": "ideal"},
    })
}

/// Prefill on eight B200s, decode on eight H200s, the caches over InfiniBand (50 GB/s
/// per GPU each side: 400 GB/s): the transfer of a 4,096-token fp8 cache (80 layers × 8
/// KV heads × 128 × 2 × 1 B = 163,840 B per token, 671 MB) is 1.68 ms and is part of the
/// time to first token; each pool is priced at its own chip's catalog price.
#[test]
fn heterogeneous_pools_with_kv_transfer_in_ttft() {
    let r = run(hetero(json!({})));
    let d = &r["disaggregation"];
    assert_eq!(d["prefill_pool"]["chip"], "b200");
    assert_eq!(d["decode_pool"]["chip"], "h200-sxm");
    assert_eq!(d["kv_link"]["network"], "scale_out");
    assert_eq!(num(&d["kv_link"], "bandwidth"), 8.0 * 50e9);
    let kv = 163_840.0 * 4096.0;
    assert_eq!(num(d, "kv_bytes_per_request"), kv);
    // A copy takes the longer of its first byte's latency (NCCL's 2.7 µs per InfiniBand
    // step) and its bytes over the link (book Solution 2.5): here the bytes.
    let lat = num(&d["kv_link"], "latency_s");
    assert!((lat - 2.7e-6).abs() < 1e-18, "{lat}");
    close(num(d, "kv_transfer_s"), (kv / 4e11_f64).max(lat), 1e-9, "transfer");
    close(num(d, "ttft_unloaded_s"), num(d, "prefill_pass_s") + num(d, "kv_transfer_s"), 1e-12, "unloaded TTFT");
    let dep = &d["deployment"];
    close(num(&dep["ttft"], "service_s"), num(d, "ttft_unloaded_s"), 1e-12, "own latency");
    let (np, nd) = (num(d, "prefill_servers"), num(d, "decode_servers"));
    close(num(dep, "usd_per_hour"), np * 8.0 * 14.24 + nd * 8.0 * 4.54, 1e-12, "pool prices");
    assert_eq!(d["prefill_pool"]["price"]["usd_per_chip_hour"], 14.24);
    // A slow link shows up in the first token one for one.
    let slow = run(hetero(json!({"kv_transfer": {"bandwidth_per_chip": 1e8, "latency": 0.0}})));
    let sd = &slow["disaggregation"];
    close(num(sd, "kv_transfer_s"), kv / 8e8, 1e-12, "slow transfer");
    close(
        num(sd, "ttft_unloaded_s") - num(d, "ttft_unloaded_s"),
        num(sd, "kv_transfer_s") - num(d, "kv_transfer_s"),
        1e-9,
        "TTFT includes the transfer",
    );
    // Streaming layer by layer hides all but one layer's share (80 layers).
    let stream =
        run(hetero(json!({"kv_transfer": {"bandwidth_per_chip": 1e8, "latency": 0.0, "overlap": "layerwise"}})));
    let st = &stream["disaggregation"];
    let (pass, t) = (num(st, "prefill_pass_s"), num(st, "kv_transfer_s"));
    close(num(st, "kv_transfer_added_s"), (t / 80.0).max(t - pass + pass / 80.0), 1e-12, "layerwise");
    assert!(num(st, "ttft_unloaded_s") < num(sd, "ttft_unloaded_s"));
    // NVLink between two chip types is refused, on the field.
    let s: Scenario = serde_json::from_value(hetero(json!({"kv_transfer": {"network": "scale_up"}}))).unwrap();
    let e = evaluate(&s).unwrap_err();
    assert!(e.0.iter().any(|e| e.field == "inference.kv_transfer.network"), "{e:?}");
}

/// Batching short prompts per prefill pass: weight-bound passes share the weight reads,
/// so four 32-token prompts cost less than four passes, and each request waits for the
/// whole pass of four.
#[test]
fn prefill_batching_shares_the_weight_reads() {
    let at = |b: u64| {
        run(hetero(json!({"prompt_len": 32, "prefill": {"chip": {"preset": "b200"}, "batch": b,
            "topology": {"axes": [{"name": "nvlink", "size": 8}]}}})))
    };
    let (one, four) = (at(1), at(4));
    let (p1, p4) = (num(&one["disaggregation"], "prefill_pass_s"), num(&four["disaggregation"], "prefill_pass_s"));
    assert!(p4 >= p1 && p4 < 4.0 * p1, "{p1} {p4}");
    assert_eq!(four["disaggregation"]["prefill_batch"], 4);
    let (l1, l4) = (
        num(&one["disaggregation"]["deployment"], "prefill_load"),
        num(&four["disaggregation"]["deployment"], "prefill_load"),
    );
    close(l1, 10.0 * p1, 1e-12, "load of batch 1");
    close(l4, 10.0 * p4 / 4.0, 1e-12, "load of batch 4");
    // Without a topology the prefill chip gets its smallest slice that holds a pass.
    let auto = run(hetero(json!({"prefill": {"chip": {"preset": "b200"}}})));
    assert_eq!(auto["disaggregation"]["prefill_pool"]["topology"], "1");
    assert_eq!(auto["disaggregation"]["prefill_pool"]["chips_per_server"], 1.0);
}
