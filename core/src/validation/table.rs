//! The validation table: every published run with its FLOPs recomputed in its own
//! convention and in today's MaxText one, its measured step time and MFU, and the
//! planner's prediction for its own mesh, ideal and calibrated; the guide's design
//! points the same way; and the summary statistics per chip generation.

use super::convention::{flops_per_device_step, maxtext_flops_per_device_step, PublishedConvention};
use super::fit::Split;
use super::predict::Prepared;
use super::runs::{self, PublishedRun};
use super::scenarios::{guide_scenario, run_model, run_scenario};
use super::setups::{bundled, GuidePoint};
use super::stats::{ErrorStats, PredictionError};
use crate::efficiency::Calibration;
use crate::efficiency::PredictionMode;
use crate::flops::Workload;
use crate::params::count_params;
use crate::scenario::Scenario;
use crate::training::mesh::{Mesh, Parallelism};
use crate::training::step::Bottleneck;
use crate::training::TrainingReport;
use serde::{Deserialize, Serialize};

/// One prediction of a row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PredictionCell {
    /// Seconds per step.
    pub step_time_s: f64,
    /// MFU in today's MaxText convention, %.
    pub mfu_pct: f64,
    /// Its error against the measurement.
    pub error: PredictionError,
    /// What the planner says limits the step.
    pub bound: Bottleneck,
    /// The kind of parallelism whose communication binds, if any.
    pub bound_axis: Option<Parallelism>,
    /// The largest time the step spends not computing (`training.bound.largest_loss`).
    pub loss: Option<Bottleneck>,
    /// The kind of parallelism of that loss, when it is communication.
    pub loss_axis: Option<Parallelism>,
    /// Whether the planner's memory model fits the run in HBM.
    pub fits: bool,
}

impl PredictionCell {
    /// What binds the predicted step and, when compute binds, its largest loss:
    /// `compute; loss: communication (fsdp)`, `communication (tp)`, `memory`, ...
    #[must_use]
    pub fn bound_text(&self) -> String {
        let name = |what: Bottleneck, axis: Option<Parallelism>| match axis {
            Some(a) => format!("{} ({})", what.label(), a.id()),
            None => what.label().to_string(),
        };
        match self.loss {
            Some(loss) if self.bound == Bottleneck::Compute => {
                format!("{}; loss: {}", name(self.bound, self.bound_axis), name(loss, self.loss_axis))
            }
            _ => name(self.bound, self.bound_axis),
        }
    }

    /// A plan's prediction against a measured MFU (%) and, when known, step time.
    #[must_use]
    pub fn of(p: &TrainingReport, measured_mfu_pct: f64, measured_step_s: Option<f64>) -> Self {
        let mfu_pct = p.mfu * 100.0;
        let step = p.step_time_s.get();
        // Without a measured step time, the step's error follows from the MFUs: the
        // same FLOPs, so step time ∝ 1 / MFU.
        let step_pct = match measured_step_s {
            Some(t) => (step / t - 1.0) * 100.0,
            None => (measured_mfu_pct / mfu_pct - 1.0) * 100.0,
        };
        Self {
            step_time_s: step,
            mfu_pct,
            error: PredictionError { mfu_pts: mfu_pct - measured_mfu_pct, step_pct },
            bound: p.bound.resource,
            bound_axis: p.bound.axis,
            loss: p.bound.largest_loss.as_ref().map(|l| l.resource),
            loss_axis: p.bound.largest_loss.as_ref().and_then(|l| l.axis),
            fits: p.memory.fits,
        }
    }
}

/// A prediction, or why the planner refused it.
pub type Predicted = Result<PredictionCell, String>;

/// One published run in the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    /// Run id.
    pub id: String,
    /// Catalog chip id (the chip generation).
    pub chip: String,
    /// Chips.
    pub chips: u64,
    /// Slices (or GPU VMs) over DCN.
    pub slices: u64,
    /// The model, e.g. `MaxText 2023 base model (32.5B)`.
    pub model: String,
    /// Its parameters.
    pub params: f64,
    /// Publication date as the source gives it.
    pub published: String,
    /// Source.
    pub source: String,
    /// Side of the calibration split.
    pub split: Split,
    /// The run's mesh.
    pub mesh: Mesh,
    /// Its remat policy.
    pub remat: String,
    /// Sequences per device.
    pub per_device_batch: f64,
    /// Tokens per sequence.
    pub seq_len: u64,
    /// The convention of the published figure.
    pub convention_then: PublishedConvention,
    /// TFLOPs per device-step in that convention, recomputed here.
    pub tflops_then: f64,
    /// The same, as the table states it.
    pub tflops_then_table: f64,
    /// TFLOPs per device-step in today's MaxText convention, recomputed here.
    pub tflops_now: f64,
    /// The same, as the table states it.
    pub tflops_now_table: f64,
    /// Published TFLOP/s per device.
    pub reported_tflops: f64,
    /// Published MFU (%), if any.
    pub reported_mfu_pct: Option<f64>,
    /// Measured step time (from the published rate).
    pub measured_step_s: f64,
    /// Measured MFU in today's convention (%).
    pub measured_mfu_pct: f64,
    /// The roofline's prediction.
    pub ideal: Predicted,
    /// The calibrated prediction.
    pub calibrated: Predicted,
    /// The run as a scenario (ideal mode), for opening it on the training page; `None`
    /// if it has no setup (a test rules that out).
    pub scenario: Option<Scenario>,
}

impl RunRow {
    /// The prediction in `mode`.
    pub fn prediction(&self, mode: PredictionMode) -> &Predicted {
        match mode {
            PredictionMode::Ideal => &self.ideal,
            PredictionMode::Calibrated => &self.calibrated,
        }
    }
}

fn predicted(p: &Result<Prepared, String>, c: Option<&Calibration>, mfu: f64, step: Option<f64>) -> Predicted {
    let p = p.as_ref().map_err(Clone::clone)?;
    p.plan(c).map(|r| PredictionCell::of(&r, mfu, step)).map_err(|e| e.to_string())
}

fn tera(x: f64) -> f64 {
    x / 1e12
}

/// The row of one run on `split`'s side of the interleaved split.
#[must_use]
pub fn run_row(split: Split, run: &PublishedRun, calibration: &Calibration) -> RunRow {
    let setup = bundled().setup_of(&run.id);
    let model = run_model(run).ok();
    let params = model.as_ref().map_or(0.0, |m| count_params(m).total.get());
    let w = Workload {
        per_device_batch: run.per_device_batch,
        seq_len: run.seq_len,
        grad_accum: 1,
        remat: Default::default(),
    };
    let (then, now) = model.as_ref().map_or((0.0, 0.0), |m| {
        (tera(flops_per_device_step(m, &w, run.flops_convention_then)), tera(maxtext_flops_per_device_step(m, &w)))
    });
    let prepared = Prepared::run(run).map_err(|e| e.to_string());
    let mesh = prepared.as_ref().ok().and_then(|p| p.section.mesh).unwrap_or_default();
    let family = setup
        .and_then(|(s, _)| bundled().model(&s.model))
        .and_then(|t| t.config.as_ref().map(|c| c.name.clone()).or_else(|| t.preset.clone()));
    RunRow {
        id: run.id.clone(),
        chip: bundled().catalog_chip(&run.chip).unwrap_or(&run.chip).to_string(),
        chips: run.chips,
        slices: setup.map_or(1, |(_, n)| n),
        model: format!("{} ({:.1}B)", family.unwrap_or_default(), params / 1e9),
        params,
        published: run.published().to_string(),
        source: run.source.clone(),
        split,
        mesh,
        remat: setup.map_or_else(String::new, |(s, _)| s.remat.id().to_string()),
        per_device_batch: run.per_device_batch,
        seq_len: run.seq_len,
        convention_then: run.flops_convention_then,
        tflops_then: then,
        tflops_then_table: run.tflops_per_device_step_then,
        tflops_now: now,
        tflops_now_table: run.tflops_per_device_step_maxtext_now,
        reported_tflops: run.reported_tflops_per_device,
        reported_mfu_pct: run.reported_mfu_pct,
        measured_step_s: run.step_time_s,
        measured_mfu_pct: run.mfu_maxtext_now_pct,
        ideal: predicted(&prepared, None, run.mfu_maxtext_now_pct, Some(run.step_time_s)),
        calibrated: predicted(&prepared, Some(calibration), run.mfu_maxtext_now_pct, Some(run.step_time_s)),
        scenario: run_scenario(run, PredictionMode::Ideal).ok(),
    }
}

/// Every published run's row.
#[must_use]
pub fn run_rows(calibration: &Calibration) -> Vec<RunRow> {
    let all = runs::all();
    super::splits::interleaved_sides(all).into_iter().zip(all).map(|(s, r)| run_row(s, r, calibration)).collect()
}

/// One of the guide's design points in the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GuideRow {
    /// Point id.
    pub id: String,
    /// Catalog chip id.
    pub chip: String,
    /// Chips.
    pub chips: u64,
    /// The model's name.
    pub model: String,
    /// Its parameters.
    pub params: f64,
    /// The mesh.
    pub mesh: Mesh,
    /// MFU the guide states (%).
    pub published_mfu_pct: f64,
    /// The guide's sentence.
    pub statement: String,
    /// What is assumed.
    pub assumptions: Vec<String>,
    /// The roofline's prediction.
    pub ideal: Predicted,
    /// The calibrated prediction.
    pub calibrated: Predicted,
    /// The point as a scenario (ideal mode).
    pub scenario: Scenario,
}

impl GuideRow {
    /// The prediction in `mode`.
    pub fn prediction(&self, mode: PredictionMode) -> &Predicted {
        match mode {
            PredictionMode::Ideal => &self.ideal,
            PredictionMode::Calibrated => &self.calibrated,
        }
    }
}

/// A guide point's row.
#[must_use]
pub fn guide_row(g: &GuidePoint, calibration: &Calibration) -> GuideRow {
    let scenario = guide_scenario(g, PredictionMode::Ideal);
    let prepared = Prepared::new(&scenario).map_err(|e| e.to_string());
    GuideRow {
        id: g.id.clone(),
        chip: g.chip.clone(),
        chips: g.mesh.devices(),
        model: g.config.name.clone(),
        params: count_params(&g.config).total.get(),
        mesh: g.mesh,
        published_mfu_pct: g.published_mfu_pct,
        statement: g.statement.clone(),
        assumptions: g.assumptions.clone(),
        ideal: predicted(&prepared, None, g.published_mfu_pct, None),
        calibrated: predicted(&prepared, Some(calibration), g.published_mfu_pct, None),
        scenario,
    }
}

/// Every guide point's row.
#[must_use]
pub fn guide_rows(calibration: &Calibration) -> Vec<GuideRow> {
    bundled().guide_points.iter().map(|g| guide_row(g, calibration)).collect()
}

/// The statistics of one group of rows in one mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupStats {
    /// Chip generation (catalog id), or `None` for all of them.
    pub chip: Option<String>,
    /// Side of the split, or `None` for both.
    pub split: Option<Split>,
    /// Prediction mode.
    pub mode: PredictionMode,
    /// The statistics.
    pub stats: ErrorStats,
    /// Rows the planner refused (not in the statistics).
    pub refused: usize,
}

/// Statistics of the rows matching `chip` and `split` in `mode`.
#[must_use]
pub fn group_stats(rows: &[RunRow], chip: Option<&str>, split: Option<Split>, mode: PredictionMode) -> GroupStats {
    let chosen: Vec<&RunRow> =
        rows.iter().filter(|r| chip.is_none_or(|c| r.chip == c) && split.is_none_or(|s| r.split == s)).collect();
    let errors: Vec<PredictionError> =
        chosen.iter().filter_map(|r| r.prediction(mode).as_ref().ok().map(|c| c.error)).collect();
    GroupStats {
        chip: chip.map(str::to_string),
        split,
        mode,
        refused: chosen.len() - errors.len(),
        stats: ErrorStats::of(&errors),
    }
}

/// The chip generations of `rows`, in order of first appearance.
#[must_use]
pub fn generations(rows: &[RunRow]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in rows {
        if !out.contains(&r.chip) {
            out.push(r.chip.clone());
        }
    }
    out
}

/// Statistics per generation (then all together), per side of the split (then both),
/// per mode.
#[must_use]
pub fn summary(rows: &[RunRow]) -> Vec<GroupStats> {
    let mut chips: Vec<Option<String>> = generations(rows).into_iter().map(Some).collect();
    chips.push(None);
    let mut out = Vec::new();
    for chip in &chips {
        for split in [Some(Split::Fit), Some(Split::HeldBack), None] {
            for mode in PredictionMode::ALL {
                out.push(group_stats(rows, chip.as_deref(), split, mode));
            }
        }
    }
    out
}
