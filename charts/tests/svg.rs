//! Every chart renders as SVG (what the CLI writes: a scene's own SVG, or plotters' SVG backend) and
//! carries its labels.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.
#![cfg(feature = "svg")]

use shardcalc_charts::svg::to_svg;
use shardcalc_charts::{flop_breakdown, flops_vs_seq_len_chart, param_breakdown, Chart};
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::report::evaluate;
use shardcalc_core::scenario::{ModelSource, Scenario};

fn scenario(preset: &str) -> Scenario {
    Scenario { model: ModelSource::Preset(preset.into()), ..Scenario::default() }
}

fn assert_svg_contains(svg: &str, needles: &[&str]) {
    assert!(svg.starts_with("<svg"), "not an SVG document: {}", &svg[..svg.len().min(80)]);
    assert!(svg.trim_end().ends_with("</svg>"), "unterminated SVG");
    for needle in needles {
        assert!(svg.contains(needle), "SVG lacks {needle:?}");
    }
}

#[test]
fn parameter_chart_as_svg() {
    let r = evaluate(&scenario("mixtral-8x7b")).unwrap();
    let svg = to_svg(&Chart::Bars(param_breakdown(&r.model.name, &r.params))).unwrap();
    assert_svg_contains(
        &svg,
        &[
            "Parameters per component",
            "Routed experts",
            "Router",
            "total (stored)",
            "active (per token)",
            "parameters",
            "<rect",
        ],
    );
}

#[test]
fn flop_chart_as_svg() {
    let r = evaluate(&scenario("llama-3-70b")).unwrap();
    let chart = flop_breakdown(&r.model.name, &r.flops.book, FlopConvention::Book);
    let svg = to_svg(&Chart::Bars(chart)).unwrap();
    assert_svg_contains(&svg, &["Book (ch. 4)", "Dot-product attention", "Dense MLP", "forward", "backward"]);
}

#[test]
fn seq_len_chart_as_svg() {
    let m = scenario("llama-3-8b").validate().unwrap();
    let chart = flops_vs_seq_len_chart(&m, FlopConvention::MaxText);
    let svg = to_svg(&Chart::SeqLen(chart)).unwrap();
    assert_svg_contains(
        &svg,
        &[
            "dot-product attention",
            "attention projections",
            "MLP",
            "unembedding",
            "256",
            "1M",
            "attention &gt; MLP from",
            "<polyline",
        ],
    );
}

#[test]
fn every_preset_renders_every_chart() {
    for p in shardcalc_core::presets::all() {
        let r = evaluate(&scenario(&p.id)).unwrap();
        let m = &p.config;
        for c in FlopConvention::ALL {
            let summary = match c {
                FlopConvention::MaxText => &r.flops.maxtext,
                FlopConvention::Notebook => &r.flops.notebook,
                FlopConvention::SixNd => &r.flops.six_nd,
                FlopConvention::Book => &r.flops.book,
            };
            for chart in [
                Chart::Bars(param_breakdown(&m.name, &r.params)),
                Chart::Bars(flop_breakdown(&m.name, summary, c)),
                Chart::SeqLen(flops_vs_seq_len_chart(m, c)),
            ] {
                let svg = to_svg(&chart).unwrap_or_else(|e| panic!("{} {c:?}: {e}", p.id));
                assert!(svg.len() > 1000, "{} {c:?}", p.id);
            }
        }
    }
}

#[test]
fn validation_charts_as_svg() {
    let mut s = Scenario::default();
    s.conventions.prediction = shardcalc_core::validation::PredictionMode::Calibrated;
    let svg = to_svg(&shardcalc_charts::catalog::build("validation-scatter", &s).unwrap()).unwrap();
    assert_svg_contains(
        &svg,
        &["Predicted vs measured MFU", "Calibrated", "TPU v5p", "NVIDIA H100 SXM", "measured MFU", "<circle"],
    );
    assert_eq!(svg.matches("<circle").count(), 2 * 51, "one marker per run in sample, one held back");
    let svg = to_svg(&shardcalc_charts::catalog::build("validation-residuals", &s).unwrap()).unwrap();
    assert_svg_contains(&svg, &["MFU error by chip", "TPU v4", "median |err|", "MFU error (points)"]);
    let svg = to_svg(&shardcalc_charts::catalog::build("validation-serving", &s).unwrap()).unwrap();
    assert_svg_contains(
        &svg,
        &["Serving throughput per chip", "held back", "predicted output tokens/s per chip", "<circle"],
    );
}
