//! The serving charts (book chapters 7 and 8), from the report's `inference` section and its
//! `curves` (computed and tested in `shardcalc_core::inference::curves`):
//! - [`pareto_chart`]: per-token latency against throughput per chip, one line per context
//!   length, every batch that fits a point (book 8.2, first figure);
//! - [`step_breakdown_chart`]: the decode step's terms against batch (book 8.2, second figure);
//! - [`kv_memory_chart`]: KV caches and everything else per chip against context, under HBM;
//! - [`prefill_decode_ratio_chart`]: prefill servers per decode server against prompt length,
//!   one line per output length (book 8.1.2).
//!
//! - [`concurrency_throughput_chart`], [`concurrency_latency_chart`]: continuous batching
//!   against concurrency ([`concurrency`]);
//! - [`search_pareto_chart`]: the search under targets, cost against latency ([`search`]).
//!
//! Each marks the scenario's own point.

pub mod concurrency;
pub mod search;

pub use concurrency::{concurrency_latency_chart, concurrency_throughput_chart};
pub use search::search_pareto_chart;

use crate::format;
use crate::theme::{self, Rgb};
use crate::xy::{extent, Marker, Rule, XyAxis, XyChart, XySeries, XyStyle};
use shardcalc_core::inference::InferenceReport;

/// Colours of the lines of one chart, in order (Okabe–Ito).
const PALETTE: [Rgb; 6] = [theme::BLUE, theme::ORANGE, theme::GREEN, theme::VERMILLION, theme::PURPLE, theme::SKY];

fn color(i: usize) -> Rgb {
    PALETTE.get(i % PALETTE.len()).copied().unwrap_or(theme::INK)
}

/// A tick value without trailing zeros: `5`, `12.5`, `0.001`, `1,000`.
fn plain(v: f64) -> String {
    let text = format::significant(v, 3);
    if text.contains('.') && !text.contains('e') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

fn ms(v: f64) -> String {
    plain(v)
}

fn count(v: f64) -> String {
    plain(v)
}

fn tokens(v: f64) -> String {
    // Ticks of a base-2 axis over token counts: exact powers of two.
    format::tokens(v.round().max(0.0) as u64)
}

fn gb(v: f64) -> String {
    plain(v)
}

fn ratio(v: f64) -> String {
    plain(v)
}

fn line(name: String, color: Rgb, points: Vec<(f64, f64)>) -> XySeries {
    XySeries { name, color, points, width: 2, style: XyStyle::Line }
}

/// "8K context (this scenario)".
fn context_name(context: u64, ours: u64) -> String {
    let mine = if context == ours { " (this scenario)" } else { "" };
    format!("{} context{mine}", format::tokens(context))
}

/// Per-token latency (ms) against tokens/s/chip, one line per context length, every
/// batch that fits a point; the scenario's batch and context marked.
#[must_use]
pub fn pareto_chart(model: &str, r: &InferenceReport) -> XyChart {
    let ours = r.serving.context;
    let mut series = Vec::new();
    let mut empty = Vec::new();
    for (i, s) in r.curves.pareto.iter().enumerate() {
        if s.points.is_empty() {
            empty.push(format::tokens(s.context));
            continue;
        }
        let points = s.points.iter().map(|p| (p.step_time_s.get() * 1e3, p.tokens_per_s_per_chip)).collect();
        series.push(line(context_name(s.context, ours), color(i), points));
    }
    let at = (r.decode.step.step_time_s.get() * 1e3, r.decode.tokens_per_s_per_chip);
    let all = || series.iter().flat_map(|s: &XySeries| s.points.iter().copied()).chain([at]);
    let x_max = extent(all().map(|p| p.0), f64::is_finite).map_or(1.0, |e| e.1);
    let y_max = extent(all().map(|p| p.1), f64::is_finite).map_or(1.0, |e| e.1);
    let note = (!empty.is_empty()).then(|| format!("No batch fits at {} of context.", empty.join(", ")));
    XyChart {
        title: format!("Latency vs throughput per chip — {model}, {}", r.serving.topology),
        x: XyAxis::linear("per-token latency: one decode step (ms)", x_max, 6, ms),
        y: XyAxis::linear("throughput (tokens/s/chip)", y_max, 5, count),
        series,
        rules: Vec::new(),
        markers: vec![Marker {
            at,
            label: format!("B = {}: {} ms, {} tok/s/chip", r.serving.batch, ms(at.0), format::significant(at.1, 3)),
            color: theme::INK,
        }],
        note,
    }
    .drawable()
}

/// The decode step's terms — parameter loading, KV loading, FLOPs, collectives — and the
/// step against batch at the scenario's context, with the largest batch that fits and the
/// critical batch marked.
#[must_use]
pub fn step_breakdown_chart(model: &str, r: &InferenceReport) -> XyChart {
    let pts = &r.curves.step_breakdown;
    let pick = |f: fn(&shardcalc_core::inference::curves::BreakdownPoint) -> f64| -> Vec<(f64, f64)> {
        pts.iter().map(|p| (p.batch as f64, f(p) * 1e3)).collect()
    };
    let mut series = vec![
        line("parameter loading".into(), theme::BLUE, pick(|p| p.weight_load_s.get())),
        line("KV loading".into(), theme::ORANGE, pick(|p| p.kv_load_s.get())),
        line("FLOPs".into(), theme::GREEN, pick(|p| p.flops_s.get())),
    ];
    if pts.iter().any(|p| p.comms_s.get() > 0.0) {
        series.push(line("collectives".into(), theme::PURPLE, pick(|p| p.comms_s.get())));
    }
    series.push(XySeries {
        name: "step".into(),
        color: theme::INK,
        points: pick(|p| p.step_time_s.get()),
        width: 3,
        style: XyStyle::Line,
    });
    let at = (r.serving.batch as f64, r.decode.step.step_time_s.get() * 1e3);
    let xs = pts.iter().map(|p| p.batch as f64).chain([at.0]);
    let (x_lo, x_hi) = extent(xs, |v| v > 0.0).unwrap_or((1.0, 2.0));
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).chain([at.1]);
    let y_max = extent(ys, f64::is_finite).map_or(1.0, |e| e.1);
    let critical = r.decode.critical_batch_moe.unwrap_or(r.decode.critical_batch);
    let mut rules = vec![Rule {
        value: critical,
        vertical: true,
        label: format!("critical batch ≈ {}", format::significant(critical, 3)),
        color: theme::GREEN,
    }];
    if r.max_batch >= 1 && (r.max_batch as f64) < x_hi {
        rules.push(Rule {
            value: r.max_batch as f64,
            vertical: true,
            label: format!("largest batch that fits: {}", format::thousands(r.max_batch)),
            color: theme::VERMILLION,
        });
    }
    rules.retain(|rule| rule.value >= x_lo && rule.value <= x_hi);
    XyChart {
        title: format!("Decode step time vs batch — {model}, {} context", format::tokens(r.serving.context)),
        x: XyAxis::log("batch (sequences per replica, log scale)", x_lo, x_hi, 2.0, count),
        y: XyAxis::linear("time per decode step (ms)", y_max, 6, ms),
        series,
        rules,
        markers: vec![Marker { at, label: format!("B = {}: {} ms", r.serving.batch, ms(at.1)), color: theme::INK }],
        note: None,
    }
    .drawable()
}

/// KV caches and everything (weights + KV + working memory) per chip against context at the
/// scenario's batch, under the HBM per chip; the scenario's context marked.
#[must_use]
pub fn kv_memory_chart(model: &str, r: &InferenceReport) -> XyChart {
    let k = &r.curves.kv_memory;
    let pts = &k.points;
    let kv: Vec<(f64, f64)> = pts.iter().map(|p| (p.context as f64, p.kv_bytes_per_chip.gb())).collect();
    let total: Vec<(f64, f64)> = pts.iter().map(|p| (p.context as f64, p.total_bytes_per_chip.gb())).collect();
    let hbm = k.hbm_per_chip.gb();
    let weights = k.weights_per_chip.gb();
    let at = (r.serving.context as f64, r.memory.per_chip.total.gb());
    let xs = pts.iter().map(|p| p.context as f64);
    let (x_lo, x_hi) = extent(xs, |v| v > 0.0).unwrap_or((128.0, 1_048_576.0));
    let ys = kv.iter().chain(&total).map(|p| p.1).chain([hbm, weights, at.1]);
    let (y_lo, y_hi) = extent(ys, |v| v.is_finite() && v > 0.0).unwrap_or((0.1, 10.0));
    XyChart {
        title: format!("HBM per chip vs context — {model}, batch {}", format::thousands(k.batch)),
        x: XyAxis::log("context (tokens per sequence, log scale)", x_lo, x_hi, 4.0, tokens),
        y: XyAxis::log("GB per chip (log scale)", y_lo, y_hi, 10.0, gb),
        series: vec![
            line("weights + KV + working memory".into(), theme::BLUE, total),
            line("KV caches".into(), theme::ORANGE, kv),
        ],
        rules: vec![
            Rule { value: hbm, vertical: false, label: format!("HBM: {} GB", gb(hbm)), color: theme::VERMILLION },
            Rule {
                value: weights,
                vertical: false,
                label: format!("weights: {} GB", gb(weights)),
                color: theme::GREEN,
            },
        ],
        markers: vec![Marker {
            at,
            label: format!("{} tokens: {} GB", format::thousands(r.serving.context), gb(at.1)),
            color: theme::INK,
        }],
        note: None,
    }
    .drawable()
}

/// Prefill servers per decode server against prompt length, one line per output length
/// (book 8.1.2: `t_prefill·B / (t_step·G)`); the scenario's prompt `prompt_len` and output
/// `output_len` marked.
#[must_use]
pub fn prefill_decode_ratio_chart(model: &str, prompt_len: u64, output_len: u64, r: &InferenceReport) -> XyChart {
    let mut series = Vec::new();
    for (i, s) in r.curves.prefill_decode_ratio.iter().enumerate() {
        let mine = if s.output_len == output_len { " (this scenario)" } else { "" };
        let points = s.points.iter().map(|p| (p.prompt_len as f64, p.prefill_per_decode)).collect();
        series.push(line(format!("G = {}{mine}", format::tokens(s.output_len)), color(i), points));
    }
    let at = (prompt_len as f64, r.disaggregation.prefill_per_decode);
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).chain([at.0]);
    let (x_lo, x_hi) = extent(xs, |v| v > 0.0).unwrap_or((128.0, 32768.0));
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).chain([at.1, 1.0]);
    let (y_lo, y_hi) = extent(ys, |v| v.is_finite() && v > 0.0).unwrap_or((0.1, 10.0));
    XyChart {
        title: format!("Prefill servers per decode server — {model}, batch {}", format::thousands(r.serving.batch)),
        x: XyAxis::log("prompt length P (tokens, log scale)", x_lo, x_hi, 4.0, tokens),
        y: XyAxis::log("prefill : decode servers (log scale)", y_lo, y_hi, 10.0, ratio),
        series,
        rules: vec![Rule { value: 1.0, vertical: false, label: "1 : 1".into(), color: theme::INK }],
        markers: vec![Marker {
            at,
            label: format!(
                "P = {}, G = {}: {}",
                format::thousands(prompt_len),
                format::thousands(output_len),
                ratio(at.1)
            ),
            color: theme::INK,
        }],
        note: None,
    }
    .drawable()
}

#[cfg(test)]
mod tests;
