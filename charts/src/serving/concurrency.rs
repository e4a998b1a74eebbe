//! Continuous batching against concurrency (`inference.continuous_batching.curve`, computed
//! in `shardcalc_core::inference::colocated`): a server doing prefill and decode together
//! with chunked prefill, at 1, 2, 3, 4, 6, 8, … sequences in flight up to the largest that
//! fits. Two charts on the same x axis (concurrency, log scale):
//! - [`concurrency_throughput_chart`]: output tokens per second per chip;
//! - [`concurrency_latency_chart`]: time per output token and the time to first token (p50,
//!   p99) at the request rate that concurrency serves, with the scenario's targets.
//!
//! Each marks the serving batch, and the operating point at the request rate when there is one.

use super::{count, line};
use crate::format;
use crate::theme;
use crate::xy::{extent, Marker, Rule, XyAxis, XyChart, XySeries, XyStyle};
use shardcalc_core::inference::colocated::ConcurrencyPoint;
use shardcalc_core::inference::continuous::ColocatedPoint;
use shardcalc_core::inference::targets::ServingTargets;
use shardcalc_core::inference::InferenceReport;

/// The points of the curve that can be sustained, with their operating point.
fn sustained(r: &InferenceReport) -> impl Iterator<Item = (f64, &ColocatedPoint)> {
    r.continuous_batching
        .curve
        .iter()
        .filter_map(|c: &ConcurrencyPoint| c.point.as_ref().map(|p| (c.concurrency as f64, p)))
}

/// The co-located operating point at the request rate, when one exists.
fn at_rate(r: &InferenceReport) -> Option<&ColocatedPoint> {
    r.continuous_batching.at_request_rate.as_ref()?.deployment.as_ref().map(|d| &d.point)
}

/// The x axis: concurrency from 1 to the largest point (or the serving batch).
fn concurrency_axis(r: &InferenceReport, extra: &[f64]) -> XyAxis {
    let xs = sustained(r).map(|(c, _)| c).chain(extra.iter().copied());
    let (lo, hi) = extent(xs, |v| v > 0.0).unwrap_or((1.0, 2.0));
    XyAxis::log("concurrency: sequences in flight per server (log scale)", lo.min(1.0), hi.max(2.0), 2.0, count)
}

/// A rule at the largest concurrency that fits, when the axis reaches it.
fn max_rule(r: &InferenceReport) -> Rule {
    let m = r.continuous_batching.max_concurrency;
    Rule {
        value: m as f64,
        vertical: true,
        label: format!("largest that fits: {}", format::thousands(m)),
        color: theme::VERMILLION,
    }
}

/// Output tokens per second per chip against concurrency.
#[must_use]
pub fn concurrency_throughput_chart(model: &str, r: &InferenceReport) -> XyChart {
    let chips = r.serving.model_parallel.max(1.0);
    let points: Vec<(f64, f64)> = sustained(r).map(|(c, p)| (c, p.output_tokens_per_s / chips)).collect();
    let mut markers = Vec::new();
    if let Some(p) = &r.continuous_batching.at_batch.point {
        markers.push(Marker {
            at: (p.concurrency, p.output_tokens_per_s / chips),
            label: format!(
                "B = {}: {} tok/s/chip",
                r.serving.batch,
                format::significant(p.output_tokens_per_s / chips, 3)
            ),
            color: theme::INK,
        });
    }
    if let Some(p) = at_rate(r) {
        markers.push(Marker {
            at: (p.concurrency, p.output_tokens_per_s / chips),
            label: format!("at the request rate: {} in flight", format::significant(p.concurrency, 3)),
            color: theme::GREEN,
        });
    }
    let extra: Vec<f64> = markers.iter().map(|m| m.at.0).collect();
    let x = concurrency_axis(r, &extra);
    let y_max =
        extent(points.iter().map(|p| p.1).chain(markers.iter().map(|m| m.at.1)), f64::is_finite).map_or(1.0, |e| e.1);
    let note =
        points.is_empty().then(|| "No concurrency can be sustained: nothing fits next to the weights.".to_string());
    XyChart {
        title: format!(
            "Continuous batching: throughput vs concurrency — {model}, {}, {} tokens per step",
            r.serving.topology,
            format::thousands(r.continuous_batching.token_budget)
        ),
        x,
        y: XyAxis::linear("output tokens/s per chip", y_max, 5, count),
        series: vec![XySeries {
            name: "prefill and decode on the same chips".into(),
            color: theme::BLUE,
            points,
            width: 2,
            style: XyStyle::LineAndPoints,
        }],
        rules: vec![max_rule(r)],
        markers,
        note,
    }
    .drawable()
}

/// Milliseconds as a tick label.
fn ms(v: f64) -> String {
    super::plain(v)
}

/// Time per output token and time to first token (p50, p99) in ms against concurrency, with
/// the scenario's `targets` as horizontal rules.
#[must_use]
pub fn concurrency_latency_chart(model: &str, targets: &ServingTargets, r: &InferenceReport) -> XyChart {
    let pick =
        |f: fn(&ColocatedPoint) -> f64| -> Vec<(f64, f64)> { sustained(r).map(|(c, p)| (c, f(p) * 1e3)).collect() };
    let series = vec![
        line("time per output token".into(), theme::BLUE, pick(|p| p.tpot_s.get())),
        line("time to first token, p50".into(), theme::ORANGE, pick(|p| p.ttft.p50_s)),
        line("time to first token, p99".into(), theme::VERMILLION, pick(|p| p.ttft.p99_s)),
    ];
    let mut markers = Vec::new();
    if let Some(p) = &r.continuous_batching.at_batch.point {
        markers.push(Marker {
            at: (p.concurrency, p.tpot_s.get() * 1e3),
            label: format!("B = {}: {} ms per token", r.serving.batch, format::significant(p.tpot_s.get() * 1e3, 3)),
            color: theme::INK,
        });
    }
    if let Some(p) = at_rate(r) {
        markers.push(Marker {
            at: (p.concurrency, p.ttft.p99_s * 1e3),
            label: format!("at the request rate: TTFT p99 {} ms", format::significant(p.ttft.p99_s * 1e3, 3)),
            color: theme::GREEN,
        });
    }
    let mut rules = vec![max_rule(r)];
    for (target, label, color) in [
        (targets.tpot_s, "TPOT target", theme::BLUE),
        (targets.ttft_p50_s, "TTFT p50 target", theme::ORANGE),
        (targets.ttft_p99_s, "TTFT p99 target", theme::VERMILLION),
    ] {
        if let Some(t) = target {
            let value = t * 1e3;
            rules.push(Rule { value, vertical: false, label: format!("{label}: {} ms", ms(value)), color });
        }
    }
    let extra: Vec<f64> = markers.iter().map(|m| m.at.0).collect();
    let x = concurrency_axis(r, &extra);
    let ys = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .chain(markers.iter().map(|m| m.at.1))
        .chain(rules.iter().filter(|r| !r.vertical).map(|r| r.value));
    let (lo, hi) = extent(ys, |v| v.is_finite() && v > 0.0).unwrap_or((1.0, 10.0));
    XyChart {
        title: format!("Continuous batching: latency vs concurrency — {model}, {}", r.serving.topology),
        x,
        y: XyAxis::log("milliseconds (log scale)", lo, hi, 10.0, ms),
        series,
        rules,
        markers,
        note: None,
    }
    .drawable()
}
