//! The serving charts against the report they are drawn from, on book 8.2's setup (LLaMA
//! 3-70B, int8 weights and KV, bf16 FLOPs, a TPU v5e 4x4) and book 8.1.2's ratio.

use super::*;
use shardcalc_core::scenario::inference_report;
use shardcalc_core::scenario::Scenario;

/// LLaMA 3-70B on a v5e 4x4 with `inference` (JSON text).
fn report(inference: &str) -> (Scenario, InferenceReport) {
    let s = Scenario::from_json(&format!(
        r#"{{"model": {{"preset": "llama-3-70b"}}, "workload": {{"per_device_batch": 1, "seq_len": 4096}},
            "hardware": {{"chip": {{"preset": "tpu-v5e"}}, "topology": {{"axes": [{{"name": "x", "size": 4}}, {{"name": "y", "size": 4}}]}}}},
            "inference": {inference}, "conventions": {{"prediction": "ideal"}}}}"#
    ))
    .unwrap();
    let m = s.validate().unwrap();
    let r = inference_report(&m, &s).unwrap().unwrap();
    (s, r)
}

fn book_8_2() -> InferenceReport {
    report(r#"{"prompt_len": 7680, "output_len": 512, "batch": 32, "dtypes": {"weights": "int8", "kv": "int8"}}"#).1
}

fn inside(c: &XyChart) {
    let on = |a: &XyAxis, v: f64| v >= a.min * (1.0 - 1e-9) && v <= a.max * (1.0 + 1e-9);
    for s in &c.series {
        for p in &s.points {
            assert!(
                on(&c.x, p.0) && on(&c.y, p.1),
                "{}: {p:?} outside {:?} × {:?}",
                s.name,
                (c.x.min, c.x.max),
                (c.y.min, c.y.max)
            );
        }
    }
    for m in &c.markers {
        assert!(on(&c.x, m.at.0) && on(&c.y, m.at.1), "marker {m:?}");
    }
    assert_eq!(c.x.ticks.len(), c.x.tick_labels.len());
    assert_eq!(c.y.ticks.len(), c.y.tick_labels.len());
}

#[test]
fn pareto_has_a_line_per_context_from_the_curves() {
    let r = book_8_2();
    let c = pareto_chart("LLaMA 3 70B", &r);
    inside(&c);
    let fitting: Vec<_> = r.curves.pareto.iter().filter(|s| !s.points.is_empty()).collect();
    assert_eq!(c.series.len(), fitting.len());
    // Book 8.2: "latency can range anywhere from 5.5ms with low batch size"; throughput per
    // chip plateaus near 1 token/ms/chip at 2k context.
    let two_k = &c.series[0];
    assert!(two_k.name.starts_with("2K context"));
    assert!((two_k.points[0].0 - 5.5).abs() < 0.3, "{:?}", two_k.points[0]);
    let last = two_k.points.last().unwrap();
    assert!((850.0..1050.0).contains(&last.1), "{last:?}");
    // Every point is the curve's, in ms and tokens/s/chip.
    for (s, line) in fitting.iter().zip(&c.series) {
        for (p, q) in s.points.iter().zip(&line.points) {
            assert_eq!(*q, (p.step_time_s.get() * 1e3, p.tokens_per_s_per_chip));
        }
    }
    assert!(c.series.iter().any(|s| s.name == "8K context (this scenario)"));
    // Ticks read as plain numbers: 10, 20 ms, not 10.0.
    assert!(c.x.tick_labels.iter().all(|l| !(l.contains('.') && l.ends_with('0'))), "{:?}", c.x.tick_labels);
    assert_eq!(c.x.tick_labels.get(1).map(String::as_str), Some("10"));
    let m = &c.markers[0];
    assert_eq!(m.at, (r.decode.step.step_time_s.get() * 1e3, r.decode.tokens_per_s_per_chip));
    assert!(m.label.starts_with("B = 32: "));
}

#[test]
fn pareto_says_which_contexts_fit_no_batch() {
    // bf16 weights on a 2x2 v5e: 141 GB do not fit in 64 GB, so nothing fits anywhere.
    let mut s = book_8_2();
    s.curves.pareto.iter_mut().for_each(|p| p.points.clear());
    let c = pareto_chart("m", &s);
    assert!(c.series.is_empty());
    assert!(c.note.as_deref().is_some_and(|n| n.contains("2K") && n.contains("32K")), "{:?}", c.note);
    inside(&c);
}

#[test]
fn breakdown_lines_are_the_step_terms_in_ms() {
    let r = book_8_2();
    let c = step_breakdown_chart("m", &r);
    inside(&c);
    let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["parameter loading", "KV loading", "FLOPs", "collectives", "step"]);
    for (p, q) in r.curves.step_breakdown.iter().zip(&c.series[4].points) {
        assert_eq!(*q, (p.batch as f64, p.step_time_s.get() * 1e3));
    }
    // int8 weights, bf16 FLOPs on a v5e: the critical batch is about 120 (book 8.2).
    let critical = c.rules.iter().find(|r| r.label.starts_with("critical batch")).unwrap();
    assert!((critical.value - 121.6).abs() < 1.0, "{critical:?}");
    let fits = c.rules.iter().find(|r| r.label.starts_with("largest batch")).unwrap();
    assert_eq!(fits.value, r.max_batch as f64);
    assert!(c.x.log && c.x.min <= 1.0 && c.x.max >= 256.0);
}

#[test]
fn kv_memory_crosses_hbm() {
    let r = book_8_2();
    let c = kv_memory_chart("m", &r);
    inside(&c);
    let hbm = c.rules.iter().find(|r| r.label.starts_with("HBM")).unwrap();
    assert_eq!(hbm.value, 16.0);
    let total = &c.series[0].points;
    assert!(total.first().unwrap().1 < hbm.value && total.last().unwrap().1 > hbm.value);
    for (t, k) in total.iter().zip(&c.series[1].points) {
        assert!(t.1 >= k.1 && t.0 == k.0);
    }
    // 32 int8 caches of 8,192 tokens on 16 chips: 32 × 163,840 × 8,192 / 16 = 2.68 GB a chip.
    let at = c.series[1].points.iter().find(|p| p.0 == 8192.0).unwrap();
    assert!((at.1 - 32.0 * 163_840.0 * 8192.0 / 16.0 / 1e9).abs() < 1e-9, "{at:?}");
    assert_eq!(c.markers[0].at.0, 8192.0);
}

#[test]
fn ratio_is_about_three_for_the_book_s_disaggregation() {
    // Book 8.1.2: 8k prompts, 512-token answers, bf16, prefill at 40% MFU: about 3 prefill
    // servers per decode server.
    let (s, r) = report(
        r#"{"prompt_len": 8192, "output_len": 512, "batch": 32, "prefill": {"mfu": 0.4, "attention": "ignored"}}"#,
    );
    let i = s.inference.as_ref().unwrap();
    let c = prefill_decode_ratio_chart("m", i.prompt_len, i.output_len, &r);
    inside(&c);
    let line = c.series.iter().find(|l| l.name == "G = 512 (this scenario)").unwrap();
    let p = line.points.iter().find(|p| p.0 == 8192.0).unwrap();
    assert!((p.1 - 3.0).abs() < 0.3, "{p:?}");
    assert_eq!(c.markers[0].at, (8192.0, r.disaggregation.prefill_per_decode));
    assert!((p.1 - r.disaggregation.prefill_per_decode).abs() < 1e-9 * p.1);
    // Longer answers need fewer prefill servers per decode server.
    let g128 = c.series.iter().find(|l| l.name.starts_with("G = 128")).unwrap();
    assert!(g128.points.iter().find(|p| p.0 == 8192.0).unwrap().1 > p.1);
}

/// Continuous batching on book 8.2's setup at 2 requests per second under a 50 ms TPOT:
/// every sustained concurrency is a point (tokens/s per chip = the server's over its 16
/// chips), the largest that fits is the rule, and the target and the operating point at the
/// rate are drawn.
#[test]
fn concurrency_charts_are_the_curve_with_the_targets() {
    let (s, r) = report(
        r#"{"prompt_len": 2048, "output_len": 512, "dtypes": {"weights": "int8", "kv": "int8"},
            "request_rate": 2, "targets": {"tpot_s": 0.05, "ttft_p99_s": 2}}"#,
    );
    let cb = &r.continuous_batching;
    let sustained: Vec<_> = cb.curve.iter().filter_map(|c| c.point.as_ref().map(|p| (c.concurrency, p))).collect();
    assert!(sustained.len() > 5, "{:?}", cb.curve.len());
    let t = concurrency_throughput_chart("m", &r);
    inside(&t);
    assert_eq!(t.series[0].points.len(), sustained.len());
    for ((c, p), q) in sustained.iter().zip(&t.series[0].points) {
        assert_eq!(*q, (*c as f64, p.output_tokens_per_s / 16.0));
    }
    assert_eq!(t.rules.first().map(|r| r.value), Some(cb.max_concurrency as f64).filter(|m| *m <= t.x.max));
    // Throughput grows with concurrency (more sequences share each weight load).
    assert!(t.series[0].points.windows(2).all(|w| w[1].1 >= w[0].1), "{:?}", t.series[0].points);
    let l = concurrency_latency_chart("m", &s.inference.as_ref().unwrap().targets, &r);
    inside(&l);
    let names: Vec<&str> = l.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["time per output token", "time to first token, p50", "time to first token, p99"]);
    assert!(l.rules.iter().any(|r| !r.vertical && r.value == 50.0 && r.label.starts_with("TPOT target")));
    assert!(l.rules.iter().any(|r| !r.vertical && r.value == 2000.0 && r.label.starts_with("TTFT p99 target")));
    let at = cb.at_request_rate.as_ref().unwrap().deployment.as_ref().unwrap();
    assert!(l.markers.iter().any(|m| m.at == (at.point.concurrency, at.point.ttft.p99_s * 1e3)));
}

/// The search's chart: the Pareto front's points are the report's (latency, USD per million
/// output tokens), split by mode; the cheapest is marked.
#[test]
fn search_chart_is_the_front_and_the_ranked_rows() {
    let (_, r) = report(
        r#"{"prompt_len": 2048, "output_len": 512, "dtypes": {"weights": "int8", "kv": "int8"},
            "request_rate": 10, "targets": {"tpot_s": 0.05, "ttft_p99_s": 2},
            "search": {"chips": ["tpu-v5e", "h100-sxm"]}}"#,
    );
    let search = r.search.as_ref().unwrap();
    let c = search_pareto_chart("m", search);
    inside(&c);
    let front = c.series.iter().find(|s| s.name == "Pareto front").unwrap();
    let expected: Vec<(f64, f64)> =
        search.pareto.iter().map(|d| (d.latency_s, d.usd_per_million_output_tokens.unwrap())).collect();
    assert_eq!(front.points, expected);
    let by_mode: usize =
        c.series.iter().filter(|s| s.name == "co-located" || s.name == "disaggregated").map(|s| s.points.len()).sum();
    assert_eq!(by_mode, search.pareto.len());
    let best = search.best.as_ref().unwrap();
    assert_eq!(c.markers[0].at, (best.latency_s, best.usd_per_million_output_tokens.unwrap()));
    // The cheapest is the front's first point (cheapest first).
    assert_eq!(front.points[0].1, expected.iter().map(|p| p.1).fold(f64::INFINITY, f64::min));
}
