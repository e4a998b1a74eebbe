//! Every chart by name, computed from a scenario alone: what `shardcalc chart SCENARIO.json
//! --chart NAME` draws and what an embed URL names. The page's views compute the same
//! charts from memos they already hold (so the page never goes through this table); each
//! entry here calls the same data function the view calls, so the two cannot drift.
//!
//! A chart's name is its canvas id in the page without the `chart-` prefix (`seq-len` is
//! `#chart-seq-len`). Adding a chart to a view: add its entry here, in the view's group.

use crate::{bars, lines, training, Chart};
use shardcalc_core::training::report::SearchReport;
use shardcalc_core::training::TrainingReport;
use shardcalc_core::error::Invalid;
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
        name: "training-step",
        view: "training",
        about: "step time: compute, exposed communication per kind of parallelism, pipeline bubble; the search's best and the explored mesh",
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
    let search = best.search.clone().unwrap_or_else(|| SearchReport { meshes: 0, evaluated: 0, feasible: 0, best: Vec::new(), pareto: Vec::new() });
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
    fn the_training_charts_also_render_as_markup() {
        let s = Scenario::default();
        for c in CHARTS.iter().filter(|c| c.view == "training") {
            let chart = build(c.name, &s).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let svg = crate::markup::chart_markup(&chart).unwrap_or_else(|| panic!("{} has no markup", c.name));
            assert!(svg.contains(&crate::markup::escape(chart.title())), "{}", c.name);
            #[cfg(feature = "svg")]
            assert!(crate::svg::to_svg(&chart).is_ok_and(|s| s.contains("<svg")), "{}", c.name);
        }
    }

    #[test]
    fn unknown_names_are_an_error_on_chart() {
        let e = build("nope", &Scenario::default()).unwrap_err();
        assert_eq!(e.0[0].field, "chart");
        assert!(e.0[0].message.contains("seq-len"));
    }
}
