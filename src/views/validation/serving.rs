//! The serving half of the validation page (issue 17): the serving model against published
//! serving measurements (`core/data/serving-runs.csv`), ideal and calibrated, from core's
//! bundled serving validation: held-back and fitted errors, the errors per engine × chip
//! group, predicted against measured throughput, and every run with a link opening it on the
//! Serving page.

use leptos::prelude::*;
use shardcalc_charts::scatter::chip_name;
use shardcalc_charts::serving_validation::throughput_scatter;
use shardcalc_charts::table::Table;
use shardcalc_core::decimal::{fixed, shortest, signed};
use shardcalc_core::efficiency::serving::bundled_file;
use shardcalc_core::validation::bundled_serving;
use shardcalc_core::validation::fit::Split;
use shardcalc_core::validation::serving::Compared;
use shardcalc_core::validation::serving_runs::LoadKind;
use shardcalc_core::validation::serving_table::{ErrorSummary, MetricStats, Predicted, ServingValidation};
use shardcalc_core::validation::PredictionMode;

use super::derived::Derived;
use super::tables::link;
use crate::components::{ChartCanvas, DataTable, RowIds};

fn text(t: impl Into<String>) -> (String, String) {
    let t = t.into();
    (t.clone(), t)
}

/// A metric's median and p90 |error| (%) and count.
fn metric_cells(m: &MetricStats) -> Vec<(String, String)> {
    let none = || text(String::new());
    if m.count == 0 {
        return vec![text("0"), none(), none()];
    }
    vec![
        text(m.count.to_string()),
        (shortest(m.median_abs_pct), fixed(m.median_abs_pct, 1)),
        (shortest(m.p90_abs_pct), fixed(m.p90_abs_pct, 1)),
    ]
}

/// The columns of one prediction's [`ErrorSummary`], `<stem>_…`.
fn summary_columns(stem: &str, title: &str) -> Vec<(String, String)> {
    let mut out = vec![(format!("{stem}_modelled"), format!("{title}: modelled"))];
    for metric in ["throughput", "ttft", "tpot"] {
        let label = match metric {
            "throughput" => "throughput",
            "ttft" => "TTFT",
            _ => "TPOT",
        };
        out.push((format!("{stem}_{metric}_n"), String::new()));
        out.push((format!("{stem}_{metric}_median_abs_err_pct"), format!("{label}: median |err| %")));
        out.push((format!("{stem}_{metric}_p90_abs_err_pct"), "p90".into()));
    }
    out
}

fn summary_cells(e: &ErrorSummary) -> Vec<(String, String)> {
    let mut out = vec![text(e.modelled.to_string())];
    for m in [&e.throughput, &e.ttft, &e.tpot] {
        out.extend(metric_cells(m));
    }
    out
}

/// A table of error summaries: `first` columns, then the roofline's and the calibration's.
fn summaries_table(first: &[(&str, &str)]) -> Table {
    let mut columns: Vec<(String, String)> = first.iter().map(|(a, b)| ((*a).to_string(), (*b).to_string())).collect();
    columns.extend(summary_columns("ideal", "Roofline"));
    columns.extend(summary_columns("calibrated", "Calibrated"));
    let pairs: Vec<(&str, &str)> = columns.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    Table::labelled(&pairs)
}

/// Held back, fitted and every run (`#serving-validation-sides`).
#[must_use]
pub fn sides(v: &ServingValidation) -> Table {
    let mut out = summaries_table(&[("side", "Runs"), ("runs", "n")]);
    for s in &v.sides {
        let side = s.split.map_or(("all", "every run"), |sp| (sp.id(), sp.label()));
        let mut cells = vec![(side.0.to_string(), side.1.to_string()), text(s.runs.to_string())];
        cells.extend(summary_cells(&s.ideal));
        cells.extend(summary_cells(&s.calibrated));
        out.push_shown(cells);
        if s.split == Some(Split::HeldBack) {
            out.mark("total");
        }
    }
    out
}

/// Per engine × chip group (`#serving-validation-groups`).
#[must_use]
pub fn groups(v: &ServingValidation) -> Table {
    let mut out = summaries_table(&[("group", "Engine × chip"), ("split", "Side"), ("runs", "n")]);
    for g in &v.groups {
        let mut cells =
            vec![text(g.group.clone()), (g.split.id().into(), g.split.label().into()), text(g.runs.to_string())];
        cells.extend(summary_cells(&g.ideal));
        cells.extend(summary_cells(&g.calibrated));
        out.push_shown(cells);
    }
    out
}

/// A quantity's cells: measured and predicted (exact in base units; shown in `unit`), and
/// the error in %.
fn compared_cells(c: Option<Compared>, scale: f64, decimals: usize) -> Vec<(String, String)> {
    match c {
        Some(c) => vec![
            (shortest(c.predicted), fixed(c.predicted / scale, decimals)),
            (shortest(c.error_pct), signed(c.error_pct, 1)),
        ],
        None => vec![text(String::new()), text(String::new())],
    }
}

fn measured_cell(x: Option<f64>, scale: f64, decimals: usize) -> (String, String) {
    x.map_or_else(|| text(String::new()), |x| (shortest(x), fixed(x / scale, decimals)))
}

/// How the engine was loaded, as the data file says it.
fn load_text(load: LoadKind) -> &'static str {
    match load {
        LoadKind::Offline => "offline",
        LoadKind::Online => "online",
        LoadKind::Latency => "latency",
        LoadKind::Prefill => "prefill",
        LoadKind::Decode => "decode",
    }
}

/// Every published serving run (`#serving-validation-runs`, rows `#serving-run-<id>`) in
/// `mode`, each linking to its scenario on the Serving page.
#[must_use]
pub fn runs(v: &ServingValidation, mode: PredictionMode) -> Table {
    let mut out = Table::labelled(&[
        ("run", "Run"),
        ("engine", "Engine"),
        ("chip", "Chip"),
        ("chips", "Chips"),
        ("model", "Model"),
        ("split", "Side"),
        ("load", "Load"),
        ("measured_throughput_per_chip", "Measured: tok/s/chip"),
        ("measured_ttft_s", "TTFT ms"),
        ("measured_tpot_s", "TPOT ms"),
        ("predicted_throughput_per_chip", "Predicted: tok/s/chip"),
        ("throughput_error_pct", "err %"),
        ("predicted_ttft_s", "TTFT ms"),
        ("ttft_error_pct", "err %"),
        ("predicted_tpot_s", "TPOT ms"),
        ("tpot_error_pct", "err %"),
        ("batch", "Batch"),
        ("source", "Source"),
        ("date", ""),
        ("serving_link", "Scenario"),
    ]);
    out.links.push(19);
    for r in &v.rows {
        let p: &Predicted = match mode {
            PredictionMode::Ideal => &r.ideal,
            PredictionMode::Calibrated => &r.calibrated,
        };
        let ok = p.as_ref().ok();
        let mut cells = vec![
            text(r.id.clone()),
            text(r.engine.clone()),
            (r.chip.clone(), chip_name(&r.chip)),
            text(shortest(r.chips)),
            text(r.model.clone()),
            (r.split.id().into(), r.split.label().into()),
            text(load_text(r.load)),
            measured_cell(r.measured.throughput_per_chip, 1.0, 0),
            measured_cell(r.measured.ttft_s, 1e-3, 1),
            measured_cell(r.measured.tpot_s, 1e-3, 2),
        ];
        match (ok, p) {
            (Some(p), _) => {
                cells.extend(compared_cells(p.throughput, 1.0, 0));
                cells.extend(compared_cells(p.ttft, 1e-3, 1));
                cells.extend(compared_cells(p.tpot, 1e-3, 2));
                cells.push((shortest(p.batch), fixed(p.batch, 0)));
            }
            (None, Err(e)) => {
                cells.push((String::new(), format!("not modelled: {e}")));
                cells.extend(std::iter::repeat_n(text(String::new()), 6));
            }
            (None, Ok(_)) => cells.extend(std::iter::repeat_n(text(String::new()), 7)),
        }
        cells.extend([text(r.source.clone()), text(r.date.clone())]);
        cells.push(
            r.scenario
                .as_ref()
                .map_or_else(|| text(String::new()), |s| (link("serving.html", s, mode), "Open in Serving".into())),
        );
        out.push_shown(cells);
        if r.split == Split::HeldBack {
            out.mark("held-back");
        }
    }
    out
}

/// The serving section: its summary, the groups, the scatter and every run.
#[component]
pub fn ServingValidationSection(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let v = bundled_serving::bundled;
    let sides = Memo::new(move |_| sides(v()));
    let groups = Memo::new(move |_| groups(v()));
    let runs = Memo::new(move |_| runs(v(), derived.mode.get()));
    let scatter = Memo::new(move |_| Some(throughput_scatter(v(), derived.mode.get())));
    let caption = Signal::derive(move || {
        format!(
            "Each published serving run that measured a throughput: measured output tokens/s per chip across, predicted ({}) up, log-log. On the solid line the prediction is exact; the dashed lines are ±15%, the issue's goal for the held-back median. Filled: the fitted group; open: held back.",
            derived.mode.get().label().to_lowercase()
        )
    });
    let calibration = bundled_file()
        .map(|f| {
            let each: Vec<String> =
                f.parameters.iter().map(|p| format!("{} = {} ({})", p.id, shortest(p.value), p.meaning)).collect();
            format!("Its fitted parameters: {}.", each.join("; "))
        })
        .unwrap_or_default();
    view! {
        <section class="result-section" aria-labelledby="serving-validation-heading">
            <h3 id="serving-validation-heading">"Serving: predicted vs measured"</h3>
            <p class="note">
                "Published serving measurements (TensorRT-LLM tables, MLPerf Inference, vLLM, SGLang and JetStream results; core/data/serving-runs.csv), each run as a scenario on its own chips, formats, lengths and batch, predicted by the serving model: the roofline, and the calibration of a few physical parameters (achieved HBM bandwidth, matmul efficiency, per-pass and per-layer overheads). Split: "
                {v().split_rule.clone()}". "{calibration}
            </p>
            <DataTable id="serving-validation-sides" table=sides caption="Errors in % of the measured value: throughput per chip, time to first token, time per output token; p90 is the nearest-rank 90th percentile." row_headers=true exports="serving-validation-sides" />
            <ChartCanvas id="chart-validation-serving" chart=scatter caption=caption />
            <h4>"Per engine × chip"</h4>
            <DataTable id="serving-validation-groups" table=groups row_headers=true exports="serving-validation-groups" />
            <h4>"Every run"</h4>
            <DataTable
                id="serving-validation-runs"
                table=runs
                caption="Measured against predicted; errors are (predicted − measured) / measured: positive means the model says faster for a throughput, slower for a latency."
                row_headers=true
                row_ids=RowIds { key: Some(0), prefix: "serving-run-" }
                exports="serving-validation-runs"
            />
        </section>
    }
}
