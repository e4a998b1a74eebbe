//! Fits the calibration on every published run and prints it, each run's prediction
//! against its measurement (with the breakdown of the calibrated step), and the grouped
//! splits' held-back statistics. With `--write`, also writes the values and the
//! leave-one-chip-out residuals into core/data/calibration.json (the rest of the file, the
//! parameters' explanations, is kept). `--quick` skips the splits.
use shardcalc_core::efficiency::calibration::PARAMETER_IDS;
use shardcalc_core::validation::fit::{fit, mean_abs_mfu_error, prepared_runs, FitRun};
use shardcalc_core::validation::splits::{evaluate, residuals, SplitKind};

fn main() {
    let all = prepared_runs().expect("every run resolves");
    let refs: Vec<&FitRun> = all.iter().collect();
    let c = fit(&refs);
    for (id, v) in PARAMETER_IDS.iter().zip(c.values()) {
        println!("{id:10} {v:.3}");
    }
    println!("mean |MFU error| over every run: {:.2} points", mean_abs_mfu_error(&refs, &c));
    println!(
        "{:32} {:>7} {:>7} {:>7} {:>7} | {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "run", "meas%", "pred%", "err", "roof%", "mm", "attn", "elem", "loss", "opt", "comm", "step"
    );
    for (run, p) in &all {
        let (Ok(r), Ok(ideal)) = (p.plan(Some(&c)), p.plan(None)) else {
            println!("{:32} refused", run.id);
            continue;
        };
        let b = &r.breakdown;
        let s = r.step_time_s.get();
        let pct = |x: f64| 100.0 * x / s;
        println!(
            "{:32} {:7.1} {:7.1} {:+7.1} {:7.1} | {:6.1} {:6.1} {:6.1} {:6.1} {:6.1} {:6.1} {:6.2}",
            run.id,
            run.mfu_maxtext_now_pct,
            r.mfu * 100.0,
            r.mfu * 100.0 - run.mfu_maxtext_now_pct,
            ideal.mfu * 100.0,
            pct(b.matmul_s.get()),
            pct(b.attention_s.get()),
            pct(b.elementwise_s.get()),
            pct(b.loss_s.get()),
            pct(b.optimizer_s.get()),
            pct(b.exposed_communication_s.get()),
            s
        );
    }
    let mut chip_residuals = None;
    if !std::env::args().any(|a| a == "--quick") {
        for kind in SplitKind::ALL {
            let s = evaluate(kind, &all);
            println!(
                "{:32} median |MFU err| {:5.2} pts, p90 {:5.2}; median |step err| {:5.2}%, p90 {:5.2}% ({} runs)",
                kind.label(),
                s.stats.median_abs_mfu_pts,
                s.stats.p90_abs_mfu_pts,
                s.stats.median_abs_step_pct,
                s.stats.p90_abs_step_pct,
                s.stats.count
            );
            for f in &s.folds {
                let fs = s.fold_stats(&f.name);
                println!(
                    "    {:20} held {:2}: median {:5.2} pts, p90 {:5.2}, mean signed {:+5.2}; step median {:5.2}%, p90 {:5.2}%; fit {:?}",
                    f.name,
                    f.held_back.len(),
                    fs.median_abs_mfu_pts,
                    fs.p90_abs_mfu_pts,
                    fs.mean_mfu_pts,
                    fs.median_abs_step_pct,
                    fs.p90_abs_step_pct,
                    f.calibration
                );
            }
            if std::env::var("SHOW").is_ok_and(|v| v == kind.id()) {
                for p in &s.predictions {
                    if let Ok(c) = &p.prediction {
                        println!(
                            "      {:30} {:>10} {:+6.1} pts {:+6.1}%",
                            p.run, p.fold, c.error.mfu_pts, c.error.step_pct
                        );
                    }
                }
            }
            if kind == SplitKind::LeaveChipOut {
                chip_residuals = Some(residuals(&s));
            }
        }
    }
    if std::env::args().any(|a| a == "--write") {
        let r = chip_residuals.expect("--write needs the splits (drop --quick)");
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/calibration.json");
        let text = std::fs::read_to_string(path).expect("reading calibration.json");
        let mut doc: serde_json::Value = serde_json::from_str(&text).expect("calibration.json parses");
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
