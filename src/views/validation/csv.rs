//! The runs table as CSV: every column with its unit, numbers unrounded, both predictions.

use shardcalc_core::validation::table::{Predicted, RunRow};

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn prediction(p: &Predicted) -> [String; 5] {
    match p {
        Ok(c) => [
            c.step_time_s.to_string(),
            c.mfu_pct.to_string(),
            c.error.mfu_pts.to_string(),
            c.error.step_pct.to_string(),
            super::bound_text(c),
        ],
        Err(e) => [String::new(), String::new(), String::new(), String::new(), format!("refused: {e}")],
    }
}

/// `rows` as CSV.
#[must_use]
pub fn runs(rows: &[&RunRow]) -> String {
    let mut out = String::from(
        "run,published,chip,chips,slices,model,params,mesh,remat,per_device_batch,seq_len,split,convention_then,\
         tflops_per_device_step_then,tflops_per_device_step_now,reported_tflops_per_device,reported_mfu_pct,\
         measured_step_s,measured_mfu_now_pct,\
         ideal_step_s,ideal_mfu_pct,ideal_mfu_error_pts,ideal_step_error_pct,ideal_bound,\
         calibrated_step_s,calibrated_mfu_pct,calibrated_mfu_error_pts,calibrated_step_error_pct,calibrated_bound\n",
    );
    for r in rows {
        let mut cells = vec![
            field(&r.id),
            field(&r.published),
            field(&r.chip),
            r.chips.to_string(),
            r.slices.to_string(),
            field(&r.model),
            r.params.to_string(),
            field(&super::mesh_text(&r.mesh)),
            field(&r.remat),
            r.per_device_batch.to_string(),
            r.seq_len.to_string(),
            r.split.label().to_string(),
            r.convention_then.id().to_string(),
            r.tflops_then.to_string(),
            r.tflops_now.to_string(),
            r.reported_tflops.to_string(),
            r.reported_mfu_pct.map(|m| m.to_string()).unwrap_or_default(),
            r.measured_step_s.to_string(),
            r.measured_mfu_pct.to_string(),
        ];
        cells.extend(prediction(&r.ideal).into_iter().map(|c| field(&c)));
        cells.extend(prediction(&r.calibrated).into_iter().map(|c| field(&c)));
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}
