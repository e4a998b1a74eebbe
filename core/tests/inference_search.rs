//! The search under targets (issue 17) against brute force: on small spaces (two or three
//! chips, servers of up to 8 chips), every deployment is evaluated exhaustively — every
//! decode batch, every prefill server and batch paired with every decode server, every
//! server count scanned from 1 — with the same physics (`ServingSetup`, the co-located
//! model, the M/G/1 queue, the KV link) and no pruning, bounds or bisection. The search
//! must find the same cheapest deployment, the same candidates (cost and latency) and the
//! same Pareto front.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use serde_json::{json, Value};
use shardcalc_core::hardware::catalog;
use shardcalc_core::hardware::Chip;
use shardcalc_core::inference::curves::batch_grid;
use shardcalc_core::inference::disaggregated::{decode_servers_for, prefill_queue, KvLink, PrefillClass};
use shardcalc_core::inference::options::InferenceSection;
use shardcalc_core::inference::search::options::SearchOptions;
use shardcalc_core::inference::search::space::{server_configs, ServerConfig};
use shardcalc_core::inference::search::{self, colocated, Problem};
use shardcalc_core::model::ModelConfig;
use shardcalc_core::presets;
use shardcalc_core::report::evaluate;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::units::Bytes;

/// Server counts the brute force scans (the cases keep every count far below).
const MAX_N: u64 = 2000;

fn section(v: Value) -> InferenceSection {
    serde_json::from_value(v).unwrap()
}

fn meets_tpot(s: &InferenceSection, tpot: f64) -> bool {
    s.targets.tpot_s.is_none_or(|t| tpot <= t * (1.0 + 1e-9))
}

/// (cost per hour, mean time to the last token) of every feasible deployment, exhaustively.
fn brute_force(model: &ModelConfig, s: &InferenceSection, own: &Chip, options: &SearchOptions) -> Vec<(f64, f64)> {
    let rate = s.request_rate.unwrap();
    let traffic = s.traffic();
    let p = Problem { section: s, rate, context: traffic.decode_context(s.kv_context), traffic: traffic.clone() };
    let (configs, _) = server_configs(model, s, own, options, &Clone::clone).unwrap();
    let g = traffic.mean_output();
    let t = &s.targets;
    let mut out = Vec::new();
    // Co-located: every config, every server count from 1.
    for c in &configs {
        let cb = colocated::server(&p, c);
        let max_c = colocated::max_concurrency(&p, c) as f64;
        for n in 1..=MAX_N {
            let Ok((steps, q)) = cb.queue_at_rate(rate / n as f64, max_c).unwrap() else { continue };
            if meets_tpot(s, steps.tpot.get()) && q.meets(t.ttft_p50_s, t.ttft_p99_s) {
                let ttft = q.mean_wait().unwrap() + q.mean_own_latency();
                out.push((n as f64 * c.chips * c.price, ttft + g * steps.tpot.get()));
                break;
            }
        }
    }
    // Disaggregated: every decode config and batch, paired with every prefill config and
    // batch of the same formats; keep the cheapest pool per decode choice (ties: quicker).
    let fits_decode = |c: &ServerConfig, b: u64| {
        let b = b as f64;
        c.setup.memory(b, p.context, b, 0.0, s.working_memory, s.reserved_hbm_fraction, (Bytes::ZERO, Bytes::ZERO)).fits
    };
    for d in &configs {
        let mut max_batch = 0;
        while fits_decode(d, max_batch + 1) {
            max_batch += 1;
        }
        let mut pools: Option<(f64, f64)> = None; // (cost, mean TTFT) of the best prefill pool
        for c in configs.iter().filter(|c| c.dtypes.weights == d.dtypes.weights && c.dtypes.kv == d.dtypes.kv) {
            let Ok(link) = KvLink::resolve(s, &c.chip, c.chips, &d.chip, d.chips) else { continue };
            for b in [1_u64, 2, 4, 8, 16] {
                let longest = traffic.max_prompt();
                let chunk = s.prefill.chunk.unwrap_or(longest);
                if !c.setup.prefill_memory(b as f64, longest, chunk, s.working_memory, s.reserved_hbm_fraction).fits {
                    break;
                }
                let classes: Vec<PrefillClass> = traffic
                    .prompt
                    .iter()
                    .map(|(tokens, w)| {
                        let chunk = s.prefill.chunk.unwrap_or(*tokens);
                        let pass = c
                            .setup
                            .prefill(*tokens, chunk, b as f64, s.prefill.mfu.unwrap_or(1.0), s.prefill.attention)
                            .unwrap()
                            .time_s;
                        let t_kv = link.transfer(c.setup.kv_per_sequence(*tokens) * b as f64);
                        PrefillClass {
                            weight: *w,
                            pass,
                            transfer_added: link.added(pass, t_kv, c.setup.model.num_layers as f64),
                        }
                    })
                    .collect();
                for n in 1..=MAX_N {
                    let Some(q) = prefill_queue(&classes, b as f64, rate, n) else { continue };
                    if q.meets(t.ttft_p50_s, t.ttft_p99_s) {
                        let cost = n as f64 * c.chips * c.price;
                        let ttft = q.mean_wait().unwrap() + q.mean_own_latency();
                        if pools.is_none_or(|x| cost < x.0 || (cost == x.0 && ttft < x.1)) {
                            pools = Some((cost, ttft));
                        }
                        break;
                    }
                }
            }
        }
        let Some((cost_p, ttft)) = pools else { continue };
        for batch in batch_grid(max_batch) {
            let step = d.setup.decode(batch as f64, p.context, 1.0).unwrap().time.step_time_s;
            if !meets_tpot(s, step.get()) {
                continue;
            }
            let n_d = decode_servers_for(rate, g, step, batch as f64);
            out.push((cost_p + n_d as f64 * d.chips * d.price, ttft + g * step.get()));
        }
    }
    out
}

fn sorted(mut v: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    v
}

/// The non-dominated points, by definition.
fn front_of(v: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> =
        v.iter().copied().filter(|a| !v.iter().any(|b| b.0 <= a.0 && b.1 <= a.1 && (b.0 < a.0 || b.1 < a.1))).collect();
    out = sorted(out);
    out.dedup();
    out
}

fn close(a: (f64, f64), b: (f64, f64)) -> bool {
    let c = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1e-12);
    c(a.0, b.0) && c(a.1, b.1)
}

fn compare(model_id: &str, own: &str, v: Value) {
    let model = presets::get(model_id).unwrap().config;
    let s = section(v);
    let own = catalog::get(own).unwrap();
    let options = s.search.clone().unwrap_or_default();
    let want = sorted(brute_force(&model, &s, &own, &options));
    let r = search::search(&model, &s, &own, &SearchOptions { top: 1000, ..options }, &Clone::clone).unwrap();
    let got = sorted(r.ranked.iter().map(|d| (d.usd_per_hour, d.latency_s)).collect());
    assert!(!want.is_empty(), "{model_id}: the case has no feasible deployment");
    assert_eq!(got.len(), want.len(), "{model_id}: {} candidates, brute force {}", got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!(close(*g, *w), "{model_id}: search {g:?}, brute force {w:?}");
    }
    let best = r.best.as_ref().unwrap();
    assert!(close((best.usd_per_hour, best.latency_s), want[0]), "{model_id}: best {best:?} vs {:?}", want[0]);
    let front: Vec<(f64, f64)> = r.pareto.iter().map(|d| (d.usd_per_hour, d.latency_s)).collect();
    let want_front = front_of(&want);
    assert_eq!(front.len(), want_front.len(), "{model_id}: front {front:?} vs {want_front:?}");
    for (g, w) in front.iter().zip(&want_front) {
        assert!(close(*g, *w), "{model_id}: front {g:?} vs {w:?}");
    }
}

#[test]
fn dense_model_equals_brute_force() {
    compare(
        "llama-3-8b",
        "h100-sxm",
        json!({"prompt_len": 1024, "output_len": 256, "request_rate": 4,
            "targets": {"ttft_p99_s": 0.5, "tpot_s": 0.02},
            "search": {"chips": ["h100-sxm", "tpu-v5e"], "max_chips_per_server": 8}}),
    );
}

#[test]
fn traffic_mix_and_formats_equal_brute_force() {
    compare(
        "llama-3-8b",
        "tpu-v5e",
        json!({"prompt_len": 1024, "output_len": 256, "request_rate": 3,
            "traffic": {"prompt": [{"tokens": 256, "weight": 3}, {"tokens": 4096, "weight": 1}],
                        "output": [{"tokens": 64, "weight": 1}, {"tokens": 512, "weight": 1}]},
            "targets": {"ttft_p50_s": 0.4, "ttft_p99_s": 2.0},
            "search": {"chips": ["tpu-v5e", "h200-sxm", "b200"], "weights": ["bf16", "fp8"], "kv": ["bf16", "fp8"],
                       "max_chips_per_server": 8}}),
    );
}

#[test]
fn moe_with_a_slow_link_equals_brute_force() {
    compare(
        "qwen3-30b-a3b",
        "h100-sxm",
        json!({"prompt_len": 2048, "output_len": 128, "request_rate": 2,
            "kv_transfer": {"bandwidth_per_chip": 1e9, "overlap": "layerwise"},
            "targets": {"ttft_p99_s": 1.5, "tpot_s": 0.03},
            "search": {"chips": ["h100-sxm", "mi300x"], "max_chips_per_server": 8}}),
    );
}

#[test]
fn without_targets_equals_brute_force() {
    compare(
        "llama-3-8b",
        "h100-sxm",
        json!({"prompt_len": 512, "output_len": 512, "request_rate": 6,
            "search": {"chips": ["h100-sxm", "tpu-v6e"], "max_chips_per_server": 4}}),
    );
}

fn run(v: Value) -> Value {
    let s: Scenario = serde_json::from_value(v).unwrap();
    serde_json::to_value(evaluate(&s).unwrap()).unwrap()["inference"]["search"].clone()
}

fn llama70(inference: Value) -> Value {
    json!({"model": {"preset": "llama-3-70b"}, "workload": {"per_device_batch": 1, "seq_len": 4096},
           "hardware": {"chip": {"preset": "tpu-v5e"}}, "inference": inference})
}

/// Through the report: the best meets every target, the Pareto front is cheapest first and
/// faster at every step, the explanation names what binds, chips without a public price
/// are listed (and come in with a typed price).
#[test]
fn report_semantics() {
    let r = run(llama70(json!({"prompt_len": 2048, "output_len": 512, "dtypes": {"weights": "int8", "kv": "int8"},
        "request_rate": 10, "targets": {"ttft_p99_s": 2.0, "tpot_s": 0.05}, "search": {}})));
    let best = &r["best"];
    assert!(best["ttft_p99_s"].as_f64().unwrap() <= 2.0 && best["tpot_s"].as_f64().unwrap() <= 0.05);
    assert_eq!(r["ranked"][0], *best);
    let front = r["pareto"].as_array().unwrap();
    for w in front.windows(2) {
        assert!(w[1]["usd_per_hour"].as_f64() > w[0]["usd_per_hour"].as_f64());
        assert!(w[1]["latency_s"].as_f64() < w[0]["latency_s"].as_f64());
    }
    assert!(r["explanation"].as_str().unwrap().starts_with("cheapest: "));
    let excluded: Vec<&str> = r["excluded"].as_array().unwrap().iter().map(|e| e["chip"].as_str().unwrap()).collect();
    assert!(excluded.contains(&"tpu-v4") && excluded.contains(&"tpu-v7x"));
    let priced = run(llama70(
        json!({"prompt_len": 2048, "output_len": 512, "dtypes": {"weights": "int8", "kv": "int8"},
        "request_rate": 10, "search": {"chips": ["tpu-v7x"], "prices": [{"chip": "tpu-v7x", "usd_per_chip_hour": 6.0}]}}),
    ));
    assert_eq!(priced["best"]["decode"]["chip"], "tpu-v7x");
    assert_eq!(priced["best"]["decode"]["usd_per_chip_hour"], 6.0);
    assert!(priced["excluded"].as_array().unwrap().is_empty());
}

/// Impossible targets say which constraint and why.
#[test]
fn impossible_targets_name_the_constraint() {
    let tpot = run(llama70(json!({"prompt_len": 2048, "output_len": 512, "request_rate": 10,
        "targets": {"tpot_s": 1e-5}, "search": {}})));
    assert!(tpot.get("best").is_none());
    assert_eq!(tpot["impossible"]["constraint"], "tpot");
    assert!(tpot["impossible"]["reason"].as_str().unwrap().contains("fastest decode step"));
    let ttft = run(llama70(json!({"prompt_len": 32768, "output_len": 16, "request_rate": 1,
        "targets": {"ttft_p99_s": 0.001}, "search": {}})));
    assert_eq!(ttft["impossible"]["constraint"], "ttft_p99");
    assert!(ttft["explanation"].as_str().unwrap().starts_with("no deployment meets the targets"));
}
