//! Fits the calibration on the fitted side of the split and prints it; with `--write`,
//! also writes the values into core/data/calibration.json (the rest of the file, the
//! parameters' explanations, is kept).
use shardcalc_core::validation::calibration::{Calibration, PARAMETER_IDS};
use shardcalc_core::validation::fit::{fit, mean_abs_mfu_error, prepared_runs, side, Split};

fn main() {
    let all = prepared_runs().expect("every run resolves");
    let (fitted, held) = (side(&all, Split::Fit), side(&all, Split::HeldBack));
    let c = fit(&fitted);
    for (id, v) in PARAMETER_IDS.iter().zip(c.values()) {
        println!("{id:12} {v:.3}");
    }
    println!(
        "mean |MFU error|: fitted {:.2}, held back {:.2} points (ideal roofline: {:.2} / {:.2})",
        mean_abs_mfu_error(&fitted, &c),
        mean_abs_mfu_error(&held, &c),
        mean_abs_mfu_error(&fitted, &Calibration::IDEAL),
        mean_abs_mfu_error(&held, &Calibration::IDEAL)
    );
    let rows = shardcalc_core::validation::table::run_rows(&c);
    for split in [Split::Fit, Split::HeldBack] {
        let g = shardcalc_core::validation::table::group_stats(
            &rows,
            None,
            Some(split),
            shardcalc_core::validation::PredictionMode::Calibrated,
        );
        println!(
            "{}: median |MFU error| {:.3} points, p90 {:.3}",
            split.label(),
            g.stats.median_abs_mfu_pts,
            g.stats.p90_abs_mfu_pts
        );
    }
    if std::env::args().any(|a| a == "--write") {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/calibration.json");
        let text = std::fs::read_to_string(path).expect("reading calibration.json");
        let mut doc: serde_json::Value = serde_json::from_str(&text).expect("calibration.json parses");
        let r = shardcalc_core::validation::table::held_back_residuals(&rows);
        doc["residuals"] =
            serde_json::json!({"runs": r.runs, "step_pct_p10": r.step_pct_p10, "step_pct_p90": r.step_pct_p90});
        if let Some(params) = doc.get_mut("parameters").and_then(|p| p.as_array_mut()) {
            for p in params {
                let id = p.get("id").and_then(|i| i.as_str()).unwrap_or("").to_string();
                if let Some(v) = PARAMETER_IDS.iter().position(|x| *x == id).and_then(|i| c.values().get(i).copied()) {
                    p["value"] = serde_json::json!(v);
                }
            }
        }
        let mut out = Vec::new();
        let mut ser =
            serde_json::Serializer::with_formatter(&mut out, serde_json::ser::PrettyFormatter::with_indent(b" "));
        serde::Serialize::serialize(&doc, &mut ser).expect("serialises");
        out.push(b'\n');
        std::fs::write(path, out).expect("writing calibration.json");
        println!("wrote {path}");
    }
}
