//! The runs table as a [`Table`] (CSV, Markdown, embeds): every column with its unit,
//! numbers unrounded (`decimal::shortest`: the shortest text that reads back as the same
//! `f64`), both predictions.

use shardcalc_charts::table::Table;
use shardcalc_core::decimal::shortest;
use shardcalc_core::validation::table::{Predicted, RunRow};

fn prediction(p: &Predicted) -> [String; 5] {
    match p {
        Ok(c) => [
            shortest(c.step_time_s),
            shortest(c.mfu_pct),
            shortest(c.error.mfu_pts),
            shortest(c.error.step_pct),
            super::bound_text(c),
        ],
        Err(e) => [String::new(), String::new(), String::new(), String::new(), format!("refused: {e}")],
    }
}

/// `rows` as a table, one row per run.
#[must_use]
pub fn runs(rows: &[&RunRow]) -> Table {
    let mut out = Table::new([
        "run",
        "published",
        "chip",
        "chips",
        "slices",
        "model",
        "params",
        "mesh",
        "remat",
        "per_device_batch",
        "seq_len",
        "split",
        "convention_then",
        "tflops_per_device_step_then",
        "tflops_per_device_step_now",
        "reported_tflops_per_device",
        "reported_mfu_pct",
        "measured_step_s",
        "measured_mfu_now_pct",
        "ideal_step_s",
        "ideal_mfu_pct",
        "ideal_mfu_error_pts",
        "ideal_step_error_pct",
        "ideal_bound",
        "calibrated_step_s",
        "calibrated_mfu_pct",
        "calibrated_mfu_error_pts",
        "calibrated_step_error_pct",
        "calibrated_bound",
    ]);
    for r in rows {
        let mut cells = vec![
            r.id.clone(),
            r.published.clone(),
            r.chip.clone(),
            r.chips.to_string(),
            r.slices.to_string(),
            r.model.clone(),
            shortest(r.params),
            super::mesh_text(&r.mesh),
            r.remat.clone(),
            shortest(r.per_device_batch),
            r.seq_len.to_string(),
            r.split.label().to_string(),
            r.convention_then.id().to_string(),
            shortest(r.tflops_then),
            shortest(r.tflops_now),
            shortest(r.reported_tflops),
            r.reported_mfu_pct.map(shortest).unwrap_or_default(),
            shortest(r.measured_step_s),
            shortest(r.measured_mfu_pct),
        ];
        cells.extend(prediction(&r.ideal));
        cells.extend(prediction(&r.calibrated));
        out.push(cells);
    }
    out
}
