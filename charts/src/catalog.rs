//! Every chart by name, computed from a scenario alone: what `shardcalc chart SCENARIO.json
//! --chart NAME` draws and what an embed URL names. The page's views compute the same
//! charts from memos they already hold (so the page never goes through this table); each
//! entry here calls the same data function the view calls, so the two cannot drift.
//!
//! A chart's name is its canvas id in the page without the `chart-` prefix (`seq-len` is
//! `#chart-seq-len`). Adding a chart to a view: add its entry here, in the view's group.

use crate::collective_times::{collective_times_chart, QueryPoint};
use crate::{bars, lines, roofline, serving, training, Chart};
use shardcalc_core::collectives::CollectiveKind;
use shardcalc_core::error::Invalid;
use shardcalc_core::inference::InferenceReport;
use shardcalc_core::report::evaluate_model;
use shardcalc_core::report_hardware::{collective_reports, CollectiveReport};
use shardcalc_core::roofline::query::RooflineQuery;
use shardcalc_core::scenario::inference_report;
use shardcalc_core::scenario::with_serving_defaults;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::training::TrainingReport;
use shardcalc_core::validation::{bundled_serving, bundled_table};

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
        name: "roofline",
        view: "hardware",
        about: "the chip's roofline (FLOP/s vs arithmetic intensity, HBM, ICI and DCN ridges) with the scenario's roofline op",
        build: roofline_of,
    },
    ChartEntry {
        name: "collective-times",
        view: "hardware",
        about: "AllGather, AllReduce and AllToAll time vs array size per set of mesh axes, with the scenario's collectives",
        build: collective_times_of,
    },
    ChartEntry {
        name: "training-step",
        view: "training",
        about: "step time term by term (matmuls, attention, HBM-bound work, optimizer, slice sync, exposed communication per kind, bubble, offload), the step and its roofline; the search's best and the explored mesh",
        build: training_step_chart,
    },
    ChartEntry {
        name: "training-memory",
        view: "training",
        about: "memory per device by component against HBM; the search's best and the explored mesh",
        build: training_memory_chart,
    },
    ChartEntry {
        name: "training-mfu",
        view: "training",
        about: "MFU against tokens per device for the best (and explored) mesh, the book's critical batches marked",
        build: training_mfu_chart,
    },
    ChartEntry {
        name: "training-pareto",
        view: "training",
        about: "memory per device against step time of the search's fastest configurations and its Pareto front",
        build: training_pareto_chart,
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
        name: "serving-concurrency-throughput",
        view: "serving",
        about: "continuous batching: output tokens/s per chip vs concurrency, prefill and decode on the same chips",
        build: |s| serving_chart(s, |name, _, r| serving::concurrency_throughput_chart(name, r)),
    },
    ChartEntry {
        name: "serving-concurrency-latency",
        view: "serving",
        about: "continuous batching: time per output token and time to first token (p50, p99) vs concurrency, with the targets",
        build: |s| serving_chart(s, |name, s, r| serving::concurrency_latency_chart(name, &s.targets, r)),
    },
    ChartEntry {
        name: "serving-search-pareto",
        view: "serving",
        about: "the search under targets: cost vs mean time to the last token of the cheapest deployments and the Pareto front",
        build: serving_search_chart,
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
    ChartEntry {
        name: "validation-serving",
        view: "validation",
        about: "predicted vs measured serving throughput per chip of every published serving run, log-log, with y = x",
        build: serving_validation_chart,
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

pub use shardcalc_core::hardware::shape::default_topology;
pub use shardcalc_core::view::hardware::{with_defaults as with_hardware_defaults, DEFAULT_CHIP, DEFAULT_SHAPE};

/// The chart's queries: each answered collective of a kind the chart draws.
#[must_use]
pub fn query_points(reports: &[CollectiveReport]) -> Vec<QueryPoint> {
    reports
        .iter()
        .map(|r| QueryPoint {
            // A ReduceScatter is drawn on the AllGather line it equals.
            kind: if r.kind == CollectiveKind::ReduceScatter { CollectiveKind::AllGather } else { r.kind },
            bytes: r.array_bytes.get(),
            seconds: r.time_s.get(),
        })
        .collect()
}

fn roofline_of(s: &Scenario) -> Result<Chart, Invalid> {
    let s = with_hardware_defaults(s);
    let hw = s.validate_hardware()?.ok_or_else(|| Invalid::one("hardware", "is required"))?;
    let (op, dtype) = match &s.roofline {
        Some(RooflineQuery::Matmul(m)) => (Some(m.op_cost()), m.compute),
        Some(RooflineQuery::Op(op)) => (Some(op.clone()), op.dtype),
        None => (None, shardcalc_core::dtype::DType::Bf16),
    };
    Ok(Chart::Scene(roofline::roofline_chart(&hw.chip, op.as_ref(), dtype).scene()))
}

fn collective_times_of(s: &Scenario) -> Result<Chart, Invalid> {
    let s = with_hardware_defaults(s);
    let hw = s.validate_hardware()?.ok_or_else(|| Invalid::one("hardware", "is required"))?;
    let reports = collective_reports(&s.collectives, &hw.axes)?;
    Ok(Chart::Scene(collective_times_chart(&hw.chip.name, &hw.axes, &query_points(&reports)).scene()))
}

/// A serving chart of `s`, with the serving page's defaults for a missing `hardware` or
/// `inference` section (`shardcalc_core::inference::defaults`).
fn serving_chart(
    s: &Scenario,
    chart: fn(&str, &shardcalc_core::inference::InferenceSection, &InferenceReport) -> crate::xy::XyChart,
) -> Result<Chart, Invalid> {
    let s = with_serving_defaults(s);
    let m = s.validate()?;
    let r = inference_report(&m, &s)?.ok_or_else(|| Invalid::one("inference", "is required"))?;
    let section = s.inference.as_ref().ok_or_else(|| Invalid::one("inference", "is required"))?;
    Ok(Chart::Xy(chart(&m.name, section, &r)))
}

/// The search's chart; a scenario without `inference.search` is searched with the defaults
/// (what ticking "Search" on the page does: every priced chip, 10 requests/s without a rate).
fn serving_search_chart(s: &Scenario) -> Result<Chart, Invalid> {
    let mut s = with_serving_defaults(s);
    shardcalc_core::field::serving::search::start_search(&mut s);
    let report =
        shardcalc_core::view::serving::search(&s)?.ok_or_else(|| Invalid::one("inference.search", "is required"))?;
    let name = s.model.resolve().map(|m| m.name).unwrap_or_default();
    Ok(Chart::Xy(serving::search_pareto_chart(&name, &report)))
}

fn validation_scatter_chart(s: &Scenario) -> Result<Chart, Invalid> {
    Ok(Chart::Scatter(crate::scatter::validation_scatter(bundled_table::bundled(), s.conventions.prediction)))
}

fn validation_residuals_chart(s: &Scenario) -> Result<Chart, Invalid> {
    Ok(Chart::Residuals(crate::residuals::validation_residuals(bundled_table::bundled(), s.conventions.prediction)))
}

fn serving_validation_chart(s: &Scenario) -> Result<Chart, Invalid> {
    Ok(Chart::Scatter(crate::serving_validation::throughput_scatter(
        bundled_serving::bundled(),
        s.conventions.prediction,
    )))
}

/// The best plan and the explored one (when its plan succeeds).
fn training_plans(s: &Scenario) -> Result<(training::TrainingInputs, TrainingReport, Option<TrainingReport>), Invalid> {
    let inputs = training::TrainingInputs::of(s)?;
    let best = inputs.best()?;
    let explored = inputs.explored().transpose()?;
    Ok((inputs, best, explored))
}

fn training_step_chart(s: &Scenario) -> Result<Chart, Invalid> {
    let (_, best, explored) = training_plans(s)?;
    Ok(Chart::Bars(training::step::step_time_chart(&training::breakdown_rows(Some(&best), explored.as_ref()))))
}

fn training_memory_chart(s: &Scenario) -> Result<Chart, Invalid> {
    let (_, best, explored) = training_plans(s)?;
    Ok(Chart::Bars(training::memory::memory_chart(&training::breakdown_rows(Some(&best), explored.as_ref()))))
}

fn training_mfu_chart(s: &Scenario) -> Result<Chart, Invalid> {
    let (inputs, best, explored) = training_plans(s)?;
    let curves = training::mfu_curves(&inputs, Some(&best), explored.as_ref());
    let current = best.global_batch_tokens / best.devices.max(1) as f64;
    Ok(Chart::Xy(training::mfu::mfu_batch_chart(&curves, &best.thresholds, current)))
}

fn training_pareto_chart(s: &Scenario) -> Result<Chart, Invalid> {
    let (_, best, explored) = training_plans(s)?;
    let search = best.search.clone().unwrap_or_default();
    let highlight = explored.map(|e| training::pareto::Highlight {
        name: format!("yours: {}", training::mesh_label(&e.mesh.degrees)),
        memory_bytes: e.memory.per_device_bytes.get(),
        step_time_s: e.step_time_s.get(),
    });
    Ok(Chart::Xy(training::pareto::pareto_chart(&search, best.memory.capacity_bytes.get(), highlight.as_ref())))
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
    fn hardware_defaults_are_valid_and_reproduce_pop_quiz_2() {
        use shardcalc_core::hardware::query::{ChipSource, HardwareSection};
        let s = with_hardware_defaults(&Scenario::default());
        assert!(s.validate().is_ok());
        let hw = s.validate_hardware().unwrap().unwrap();
        let r = collective_reports(&s.collectives, &hw.axes).unwrap();
        // Book 3.2 Pop Quiz 2: 3 hops of 8.4 MB at 4.5e10 B/s, about 560 µs.
        assert!((r[0].time_s.get() - 3.0 * 8.388_608e6 / 4.5e10).abs() < 1e-9, "{:?}", r[0].time_s);
        // A scenario that has hardware keeps it (and gets no collectives it did not ask for).
        let mut h100 = s.clone();
        h100.hardware = Some(HardwareSection { chip: ChipSource::Preset("h100-sxm".into()), topology: None });
        h100.collectives.clear();
        let d = with_hardware_defaults(&h100);
        assert!(d.collectives.is_empty());
        assert_eq!(d.hardware.unwrap().topology.unwrap().axes[0].size, 8);
        for c in shardcalc_core::hardware::catalog::all() {
            let mut x = h100.clone();
            x.hardware = Some(HardwareSection { chip: ChipSource::Preset(c.id.clone()), topology: None });
            assert!(with_hardware_defaults(&x).validate().is_ok(), "{}", c.id);
        }
    }

    /// The training page draws its bar charts and XY charts with the same code as the model
    /// and serving pages (`BarChart::scene`, `XyChart::scene`), so the catalog builds them as those.
    #[test]
    fn the_training_charts_are_bars_and_xy_charts_and_render_as_svg() {
        let s = Scenario::default();
        for c in CHARTS.iter().filter(|c| c.view == "training") {
            let chart = build(c.name, &s).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let bars = matches!(c.name, "training-step" | "training-memory");
            assert!(if bars { matches!(chart, Chart::Bars(_)) } else { matches!(chart, Chart::Xy(_)) }, "{}", c.name);
            #[cfg(feature = "svg")]
            assert!(
                crate::svg::to_svg(&chart).is_ok_and(|svg| svg.contains("<svg") && svg.contains(chart.title())),
                "{}",
                c.name
            );
        }
    }

    #[test]
    fn unknown_names_are_an_error_on_chart() {
        let e = build("nope", &Scenario::default()).unwrap_err();
        assert_eq!(e.0[0].field, "chart");
        assert!(e.0[0].message.contains("seq-len"));
    }
}
