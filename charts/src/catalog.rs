//! Every chart by name, computed from a scenario alone: what `shardcalc chart SCENARIO.json
//! --chart NAME` draws and what an embed URL names. The page's views compute the same
//! charts from memos they already hold (so the page never goes through this table); each
//! entry here calls the same data function the view calls, so the two cannot drift.
//!
//! A chart's name is its canvas id in the page without the `chart-` prefix (`seq-len` is
//! `#chart-seq-len`). Adding a chart to a view: add its entry here, in the view's group.

use crate::{bars, lines, serving, Chart};
use shardcalc_core::error::Invalid;
use shardcalc_core::inference::defaults::with_serving_defaults;
use shardcalc_core::inference::evaluate::scenario_inference;
use shardcalc_core::inference::InferenceReport;
use shardcalc_core::report::evaluate_model;
use shardcalc_core::scenario::Scenario;

/// One chart the catalog can build.
#[derive(Clone, Copy)]
pub struct ChartEntry {
    /// Name, e.g. `seq-len` (the page's canvas is `#chart-<name>`).
    pub name: &'static str,
    /// The view (page) showing it: `model`, `hardware`, `training`, `serving`, `validation`.
    pub view: &'static str,
    /// One line saying what it shows.
    pub about: &'static str,
    /// Computes it from a scenario.
    pub build: fn(&Scenario) -> Result<Chart, Invalid>,
}

impl std::fmt::Debug for ChartEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChartEntry").field("name", &self.name).field("view", &self.view).finish_non_exhaustive()
    }
}

/// Every chart, grouped by view in navigation order.
pub const CHARTS: &[ChartEntry] = &[
    ChartEntry {
        name: "params",
        view: "model",
        about: "parameters per component, total vs active",
        build: params_chart,
    },
    ChartEntry {
        name: "flops",
        view: "model",
        about: "training TFLOPs per device-step per component, in the scenario's FLOP convention",
        build: flops_chart,
    },
    ChartEntry {
        name: "seq-len",
        view: "model",
        about: "forward FLOPs per token vs sequence length, with where attention overtakes the MLP",
        build: seq_len_chart,
    },
    ChartEntry {
        name: "serving-pareto",
        view: "serving",
        about: "per-token latency vs tokens/s/chip across batch sizes, one line per context length (book 8.2)",
        build: |s| serving_chart(s, |name, _, r| serving::pareto_chart(name, r)),
    },
    ChartEntry {
        name: "serving-breakdown",
        view: "serving",
        about: "decode step time vs batch: parameter loading, KV loading, FLOPs, collectives (book 8.2)",
        build: |s| serving_chart(s, |name, _, r| serving::step_breakdown_chart(name, r)),
    },
    ChartEntry {
        name: "serving-kv-memory",
        view: "serving",
        about: "KV caches and everything else per chip vs context length, against HBM",
        build: |s| serving_chart(s, |name, _, r| serving::kv_memory_chart(name, r)),
    },
    ChartEntry {
        name: "serving-ratio",
        view: "serving",
        about: "prefill servers per decode server vs prompt length, one line per output length (book 8.1.2)",
        build: |s| serving_chart(s, |name, s, r| serving::prefill_decode_ratio_chart(name, s.prompt_len, s.output_len, r)),
    },
    ChartEntry {
        name: "validation-scatter",
        view: "validation",
        about: "predicted vs measured MFU of every published run, in the scenario's prediction mode, with y = x",
        build: validation_scatter_chart,
    },
    ChartEntry {
        name: "validation-residuals",
        view: "validation",
        about: "MFU error (predicted − measured) of every published run by chip generation, in the scenario's prediction mode",
        build: validation_residuals_chart,
    },
];

/// The entry called `name`.
#[must_use]
pub fn by_name(name: &str) -> Option<&'static ChartEntry> {
    CHARTS.iter().find(|c| c.name == name)
}

/// Builds the chart called `name` for `scenario`.
///
/// # Errors
/// An unknown name (on field `chart`, listing the known ones), or the scenario's problems.
pub fn build(name: &str, scenario: &Scenario) -> Result<Chart, Invalid> {
    let entry = by_name(name).ok_or_else(|| {
        let known: Vec<&str> = CHARTS.iter().map(|c| c.name).collect();
        Invalid::one("chart", format!("unknown chart {name:?}; known charts: {}", known.join(", ")))
    })?;
    (entry.build)(scenario)
}

fn params_chart(s: &Scenario) -> Result<Chart, Invalid> {
    let r = evaluate_model(s)?;
    Ok(Chart::Bars(bars::param_breakdown(&r.model.name, &r.params)))
}

fn flops_chart(s: &Scenario) -> Result<Chart, Invalid> {
    let r = evaluate_model(s)?;
    let conv = s.conventions.flops;
    Ok(Chart::Bars(bars::flop_breakdown(&r.model.name, r.flops.get(conv), conv)))
}

fn seq_len_chart(s: &Scenario) -> Result<Chart, Invalid> {
    let m = s.validate()?;
    Ok(Chart::SeqLen(lines::flops_vs_seq_len_chart(&m, s.conventions.flops)))
}

/// A serving chart of `s`, with the serving page's defaults for a missing `hardware` or
/// `inference` section (`shardcalc_core::inference::defaults`).
fn serving_chart(
    s: &Scenario,
    chart: fn(&str, &shardcalc_core::inference::InferenceSection, &InferenceReport) -> crate::xy::XyChart,
) -> Result<Chart, Invalid> {
    let s = with_serving_defaults(s);
    let m = s.validate()?;
    let r = scenario_inference(&m, &s)?.ok_or_else(|| Invalid::one("inference", "is required"))?;
    let section = s.inference.as_ref().ok_or_else(|| Invalid::one("inference", "is required"))?;
    Ok(Chart::Xy(chart(&m.name, section, &r)))
}

fn validation_scatter_chart(s: &Scenario) -> Result<Chart, Invalid> {
    let rows = validation_rows();
    Ok(Chart::Scatter(crate::scatter::validation_scatter(&rows, s.conventions.prediction)))
}

fn validation_residuals_chart(s: &Scenario) -> Result<Chart, Invalid> {
    let rows = validation_rows();
    Ok(Chart::Residuals(crate::residuals::validation_residuals(&rows, s.conventions.prediction)))
}

fn validation_rows() -> Vec<shardcalc_core::validation::table::RunRow> {
    shardcalc_core::validation::table::run_rows(&shardcalc_core::validation::calibration::bundled())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_chart_builds_for_the_default_scenario() {
        let s = Scenario::default();
        for (i, c) in CHARTS.iter().enumerate() {
            assert!(CHARTS[..i].iter().all(|o| o.name != c.name), "duplicate chart name {}", c.name);
            let chart = build(c.name, &s).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            assert!(!chart.title().is_empty(), "{} has no title", c.name);
        }
    }

    #[test]
    fn unknown_names_are_an_error_on_chart() {
        let e = build("nope", &Scenario::default()).unwrap_err();
        assert_eq!(e.0[0].field, "chart");
        assert!(e.0[0].message.contains("seq-len"));
    }
}
