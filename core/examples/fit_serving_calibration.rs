//! Fits the serving calibration on the fitted groups and prints it with the errors per
//! side; with `--write`, also writes the values into core/data/serving-calibration.json
//! (the rest of the file, the parameters' explanations, is kept).
use shardcalc_core::efficiency::serving::{ServingCalibration, PARAMETER_IDS};
use shardcalc_core::validation::fit::Split;
use shardcalc_core::validation::serving_fit::{fit, fitted_runs, objective};
use shardcalc_core::validation::serving_runs;
use shardcalc_core::validation::serving_table::serving_validation;

fn main() {
    let runs = fitted_runs(serving_runs::all());
    let c = fit(&runs);
    for (id, v) in PARAMETER_IDS.iter().zip(c.values()) {
        println!("{id:18} {v}");
    }
    println!(
        "objective (mean |ln(pred/meas)|) on {} fitted runs: {:.4} (ideal roofline {:.4})",
        runs.len(),
        objective(&runs, &c),
        objective(&runs, &ServingCalibration::IDEAL)
    );
    let v = serving_validation(&c);
    for split in [Some(Split::Fit), Some(Split::HeldBack), None] {
        let s = v.side(split).expect("every side is summarised");
        let label = split.map_or("all", Split::label);
        for (mode, e) in [("ideal", &s.ideal), ("calibrated", &s.calibrated)] {
            println!(
                "{label:10} {mode:10} modelled {:2}: throughput median {:5.1}% (n={}), TTFT {:5.1}% (n={}), TPOT {:5.1}% (n={})",
                e.modelled,
                e.throughput.median_abs_pct,
                e.throughput.count,
                e.ttft.median_abs_pct,
                e.ttft.count,
                e.tpot.median_abs_pct,
                e.tpot.count
            );
        }
    }
    for g in &v.groups {
        let e = &g.calibrated;
        println!(
            "  {:32} {:9} runs {:2}: thr {:5.1}% ttft {:5.1}% tpot {:5.1}%",
            g.group,
            g.split.label(),
            g.runs,
            e.throughput.median_abs_pct,
            e.ttft.median_abs_pct,
            e.tpot.median_abs_pct
        );
    }
    if std::env::args().any(|a| a == "--write") {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/serving-calibration.json");
        let text = std::fs::read_to_string(path).expect("reading serving-calibration.json");
        let mut doc: serde_json::Value = serde_json::from_str(&text).expect("serving-calibration.json parses");
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
        std::fs::write(path, out).expect("writing serving-calibration.json");
        println!("wrote {path}");
    }
}
