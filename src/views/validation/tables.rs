//! The training half of the validation page as [`Table`]s, each shown on the page and
//! exported (CSV, Markdown): the grouped splits per fold, the errors per chip generation,
//! every published run, the calibration's parameters, the guide's design points and what
//! nothing predicts. Exact cells are unrounded (`decimal::shortest`: the shortest text that
//! reads back as the same `f64`); shown cells are rounded, with units.

use shardcalc_charts::scatter::chip_name;
use shardcalc_charts::table::Table;
use shardcalc_core::decimal::{fixed, shortest, signed};
use shardcalc_core::scenario::Scenario;
use shardcalc_core::training::mesh::{Mesh, Parallelism};
use shardcalc_core::validation::bundled_table::BundledTable;
use shardcalc_core::validation::calibration::CalibrationFile;
use shardcalc_core::validation::case_studies::CaseStudyRow;
use shardcalc_core::validation::splits::{SplitKind, SplitSummary};
use shardcalc_core::validation::stats::ErrorStats;
use shardcalc_core::validation::table::{Predicted, RunRow};
use shardcalc_core::validation::PredictionMode;
use shardcalc_core::view::validation::GenerationErrors;

use crate::state::url;

/// `dp=2 fsdp=16 tp=4`: the axes of degree > 1.
#[must_use]
pub fn mesh_text(m: &Mesh) -> String {
    let parts: Vec<String> =
        Parallelism::ALL.iter().filter(|p| m.degree(**p) > 1).map(|p| format!("{}={}", p.id(), m.degree(*p))).collect();
    if parts.is_empty() {
        "1 device".into()
    } else {
        parts.join(" ")
    }
}

/// The page `page` (`training.html`) with `scenario` in `mode`.
#[must_use]
pub fn link(page: &str, scenario: &Scenario, mode: PredictionMode) -> String {
    let mut s = scenario.clone();
    s.conventions.prediction = mode;
    format!("{page}{}", url::fragment(&s))
}

/// A cell of a number: exact, and shown with `decimals`.
fn num(x: f64, decimals: usize) -> (String, String) {
    (shortest(x), fixed(x, decimals))
}

/// A signed number: exact, and shown with a sign.
fn signed_num(x: f64, decimals: usize) -> (String, String) {
    (shortest(x), signed(x, decimals))
}

fn text(t: impl Into<String>) -> (String, String) {
    let t = t.into();
    (t.clone(), t)
}

/// The six cells of error statistics: n, median and p90 |MFU error|, median and p90
/// |step-time error|, mean signed MFU error.
fn stats_cells(s: &ErrorStats) -> Vec<(String, String)> {
    vec![
        text(s.count.to_string()),
        num(s.median_abs_mfu_pts, 1),
        num(s.p90_abs_mfu_pts, 1),
        num(s.median_abs_step_pct, 1),
        num(s.p90_abs_step_pct, 1),
        signed_num(s.mean_mfu_pts, 1),
    ]
}

/// The stats columns, `(name, label)`.
const STATS: [(&str, &str); 6] = [
    ("n", "n"),
    ("median_abs_mfu_err_pts", "Median |MFU err| (pts)"),
    ("p90_abs_mfu_err_pts", "p90"),
    ("median_abs_step_err_pct", "Median |step err| %"),
    ("p90_abs_step_err_pct", "p90 %"),
    ("mean_mfu_err_pts", "Mean MFU err"),
];

/// The grouped splits (`#validation-splits`): per split, every fold pooled (marked
/// `total`, with whether it meets the goal), then each fold with the parameters it fitted.
#[must_use]
pub fn splits(summaries: &[SplitSummary]) -> Table {
    let mut columns = vec![("split", ""), ("fold", "Held back"), ("fitted", "Fitted")];
    columns.extend(STATS);
    columns.extend([("goal_met", "Median ≤ 5 pts"), ("calibration", "Parameters fitted")]);
    let mut out = Table::labelled(&columns);
    for s in summaries {
        let mut pooled = vec![text(s.label.clone()), text("every fold"), text(String::new())];
        pooled.extend(stats_cells(&s.stats));
        pooled.extend([text(if s.meets_goal { "met" } else { "not met" }), text(String::new())]);
        out.push_shown(pooled);
        out.mark("total");
        for f in &s.folds {
            let params: Vec<String> = f.calibration.iter().map(|(id, v)| format!("{id} {}", shortest(*v))).collect();
            let mut cells = vec![text(s.label.clone()), text(f.fold.clone()), text(f.fitted.to_string())];
            cells.extend(stats_cells(&f.stats));
            cells.extend([text(String::new()), text(params.join(", "))]);
            out.push_shown(cells);
        }
    }
    out
}

/// The errors per chip generation (`#validation-summary`): the roofline, the calibration in
/// sample, and held back (fitted without the chip's runs).
#[must_use]
pub fn generations(rows: &[GenerationErrors]) -> Table {
    let mut out = Table::labelled(&[
        ("chip", "Chip"),
        ("runs", "Runs"),
        ("ideal_median_abs_mfu_err_pts", "Roofline: median |MFU err|"),
        ("ideal_p90_abs_mfu_err_pts", "p90"),
        ("calibrated_median_abs_mfu_err_pts", "Calibrated, in sample"),
        ("calibrated_p90_abs_mfu_err_pts", "p90"),
        ("held_back_median_abs_mfu_err_pts", "Held back: median |MFU err|"),
        ("held_back_p90_abs_mfu_err_pts", "p90"),
        ("held_back_median_abs_step_err_pct", "Held back: median |step err| %"),
        ("held_back_mean_mfu_err_pts", "Held back: mean MFU err"),
    ]);
    for g in rows {
        let chip = g
            .chip
            .as_deref()
            .map_or_else(|| ("all".to_string(), "All chips".to_string()), |c| (c.into(), chip_name(c)));
        out.push_shown(vec![
            chip,
            text(g.runs.to_string()),
            num(g.ideal.median_abs_mfu_pts, 1),
            num(g.ideal.p90_abs_mfu_pts, 1),
            num(g.calibrated.median_abs_mfu_pts, 1),
            num(g.calibrated.p90_abs_mfu_pts, 1),
            num(g.held_back.median_abs_mfu_pts, 1),
            num(g.held_back.p90_abs_mfu_pts, 1),
            num(g.held_back.median_abs_step_pct, 1),
            signed_num(g.held_back.mean_mfu_pts, 1),
        ]);
        if g.chip.is_none() {
            out.mark("total");
        }
    }
    out
}

/// A prediction's cells: step time, MFU, MFU error, step-time error, bound; the shown
/// ones when `shown` (the mode on display, or a held-back column), else exported only.
fn prediction_cells(p: Option<&Predicted>) -> Vec<(String, String)> {
    match p {
        Some(Ok(c)) => vec![
            (shortest(c.step_time_s), format!("{} s", fixed(c.step_time_s, 2))),
            (shortest(c.mfu_pct), format!("{}%", fixed(c.mfu_pct, 1))),
            signed_num(c.error.mfu_pts, 1),
            signed_num(c.error.step_pct, 1),
            text(c.bound_text()),
        ],
        Some(Err(e)) => {
            vec![text(String::new()), text("refused"), text(String::new()), text(String::new()), text(e.clone())]
        }
        None => vec![text(String::new()); 5],
    }
}

/// The five columns of one prediction, named `<stem>_…`, labelled only when `shown`.
fn prediction_columns(stem: &str, title: &str, shown: bool) -> Vec<(String, String)> {
    let label = |l: &str| if shown { l.to_string() } else { String::new() };
    vec![
        (format!("{stem}_step_s"), label(&format!("{title}: step"))),
        (format!("{stem}_mfu_pct"), label("MFU")),
        (format!("{stem}_mfu_error_pts"), label("MFU err (pts)")),
        (format!("{stem}_step_error_pct"), label("step err %")),
        (format!("{stem}_bound"), if shown && stem != "held_back_chip_out" { "Bound".into() } else { String::new() }),
    ]
}

/// The published runs (`#validation-runs`, rows `#run-<id>`) in `mode`: every column
/// exported (both predictions and the three held-back ones), the mode's prediction and the
/// leave-one-chip-out one shown, each run linking to its scenario on the training page.
#[must_use]
pub fn runs(table: &BundledTable, rows: &[&RunRow], mode: PredictionMode) -> Table {
    let calibrated = mode == PredictionMode::Calibrated;
    let mut columns: Vec<(String, String)> = [
        ("run", "Run"),
        ("published", ""),
        ("chip", "Chip"),
        ("chips", "Chips"),
        ("slices", ""),
        ("model", "Model"),
        ("params", ""),
        ("mesh", "Mesh"),
        ("remat", "Remat"),
        ("per_device_batch", ""),
        ("seq_len", ""),
        ("split", ""),
        ("convention_then", ""),
        ("tflops_per_device_step_then", "TFLOPs then"),
        ("tflops_per_device_step_now", "TFLOPs now"),
        ("reported_tflops_per_device", ""),
        ("reported_mfu_pct", ""),
        ("measured_step_s", "Measured: step"),
        ("measured_mfu_now_pct", "MFU"),
    ]
    .iter()
    .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
    .collect();
    columns.extend(prediction_columns("ideal", "Roofline", !calibrated));
    columns.extend(prediction_columns("calibrated", "Calibrated", calibrated));
    for kind in SplitKind::ALL {
        let stem = match kind {
            SplitKind::LeaveChipOut => "held_back_chip_out",
            SplitKind::LeaveFamilyOut => "held_back_family_out",
            SplitKind::Interleaved => "held_back_interleaved",
        };
        columns.extend(prediction_columns(stem, "Held back (chip out)", calibrated && kind == SplitKind::LeaveChipOut));
    }
    columns.push(("training_link".into(), "Scenario".into()));
    let pairs: Vec<(&str, &str)> = columns.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let mut out = Table::labelled(&pairs);
    out.links.push(columns.len() - 1);
    for r in rows {
        let mut cells = vec![
            text(r.id.clone()),
            text(r.published.clone()),
            (r.chip.clone(), chip_name(&r.chip)),
            text(r.chips.to_string()),
            text(r.slices.to_string()),
            text(r.model.clone()),
            text(shortest(r.params)),
            text(mesh_text(&r.mesh)),
            text(r.remat.clone()),
            text(shortest(r.per_device_batch)),
            text(r.seq_len.to_string()),
            (r.split.id().to_string(), r.split.label().to_string()),
            text(r.convention_then.id()),
            num(r.tflops_then, 1),
            num(r.tflops_now, 1),
            text(shortest(r.reported_tflops)),
            text(r.reported_mfu_pct.map(shortest).unwrap_or_default()),
            (shortest(r.measured_step_s), format!("{} s", fixed(r.measured_step_s, 2))),
            (shortest(r.measured_mfu_pct), format!("{}%", fixed(r.measured_mfu_pct, 1))),
        ];
        cells.extend(prediction_cells(Some(&r.ideal)));
        cells.extend(prediction_cells(Some(&r.calibrated)));
        for kind in SplitKind::ALL {
            cells.extend(prediction_cells(table.split(kind).and_then(|s| s.prediction_of(&r.id))));
        }
        cells.push(
            r.scenario
                .as_ref()
                .map_or_else(|| text(String::new()), |s| (link("training.html", s, mode), "Open in Training".into())),
        );
        out.push_shown(cells);
        let err = r.prediction(mode).as_ref().ok().map_or(0.0, |c| c.error.mfu_pts);
        if err.abs() > 5.0 {
            out.mark("flag");
        }
    }
    out
}

/// The calibration's parameters (`#validation-calibration`, rows `#parameter-<id>`).
#[must_use]
pub fn calibration(f: &CalibrationFile) -> Table {
    let mut out =
        Table::labelled(&[("parameter", ""), ("label", "Parameter"), ("value", "Value"), ("meaning", "What it is")]);
    for p in &f.parameters {
        out.push_shown(vec![text(p.id.clone()), text(p.label.clone()), num(p.value, 3), text(p.meaning.clone())]);
    }
    out
}

/// The guide's design points in `mode` (`#validation-guide`), each linking to its scenario.
#[must_use]
pub fn guides(table: &BundledTable, mode: PredictionMode) -> Table {
    let mut out = Table::labelled(&[
        ("point", "Point"),
        ("chip", "Chip"),
        ("chips", "Chips"),
        ("model", "Model"),
        ("mesh", "Mesh"),
        ("guide_mfu_pct", "Guide's MFU %"),
        ("predicted_mfu_pct", "Predicted MFU %"),
        ("mfu_error_pts", "Error (pts)"),
        ("assumed", "Assumed"),
        ("training_link", "Scenario"),
    ]);
    out.links.push(9);
    for g in &table.guides {
        let (predicted, error) = match g.prediction(mode) {
            Ok(c) => (num(c.mfu_pct, 1), signed_num(c.error.mfu_pts, 1)),
            Err(e) => (text(format!("refused: {e}")), text(String::new())),
        };
        out.push_shown(vec![
            text(g.id.clone()),
            (g.chip.clone(), chip_name(&g.chip)),
            text(g.chips.to_string()),
            (g.model.clone(), format!("{} ({}B)", g.model, fixed(g.params / 1e9, 0))),
            text(mesh_text(&g.mesh)),
            num(g.published_mfu_pct, 1),
            predicted,
            error,
            text(g.assumptions.join("; ")),
            (link("training.html", &g.scenario, mode), "Open in Training".into()),
        ]);
    }
    out
}

/// The published numbers nothing here predicts, with why (`#validation-unpredicted`).
#[must_use]
pub fn unpredicted(table: &BundledTable) -> Table {
    let mut out = Table::labelled(&[
        ("point", "Point"),
        ("chips", "Chips"),
        ("what", "What"),
        ("value", "Value"),
        ("unit", ""),
        ("why_not", "Why not predicted"),
    ]);
    for p in &table.unpredicted {
        out.push_shown(vec![
            text(p.id.clone()),
            (format!("{} {}", p.chips, p.chip), format!("{} × {}", p.chips, chip_name(&p.chip))),
            text(p.what.clone()),
            (shortest(p.value), format!("{} {}", shortest(p.value), p.unit)),
            text(p.unit.clone()),
            text(p.why_not.clone()),
        ]);
    }
    out
}

/// The Ironwood guide's case studies (`#validation-case-studies`, rows `#case-<id>`): each
/// change planned before and after with the calibrated model, beside the change the guide
/// measured.
#[must_use]
pub fn case_studies(rows: &[CaseStudyRow]) -> Table {
    let mut out = Table::labelled(&[
        ("case", ""),
        ("what", "Change"),
        ("model", "Model"),
        ("before", "Before"),
        ("after", "After"),
        ("published_change_pct", "Guide: step-time change %"),
        ("predicted_change_pct", "Predicted %"),
        ("before_step_s", ""),
        ("after_step_s", ""),
        ("after_bound", "What binds after"),
        ("known_miss", "What the model misses"),
    ]);
    for r in rows {
        out.push_shown(vec![
            text(r.id.clone()),
            text(r.what.clone()),
            text(r.model.clone()),
            text(r.before.clone()),
            text(r.after.clone()),
            r.published_change_pct.map_or_else(|| text("slower"), |x| signed_num(x, 0)),
            signed_num(r.predicted_change_pct, 1),
            text(shortest(r.before_step_s)),
            text(shortest(r.after_step_s)),
            text(r.after_bound.clone()),
            text(r.known_miss.clone().unwrap_or_default()),
        ]);
    }
    out
}
