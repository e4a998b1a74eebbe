//! Prints one line per criterion benchmark: its median time and the median's 95%
//! confidence interval, read from criterion's `<id>/new/estimates.json`.
//!
//! ```sh
//! cargo run -p shardcalc-bench -- [CRITERION_DIR] [--since UNIX_SECONDS]
//! ```
//!
//! `CRITERION_DIR` defaults to `target/criterion`; `--since` skips results older than that
//! time (benchmarks that were renamed or not run this time).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

fn main() {
    let mut dir = PathBuf::from("target/criterion");
    let mut since = SystemTime::UNIX_EPOCH;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--since" {
            let secs = args.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            since = SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
        } else {
            dir = PathBuf::from(arg);
        }
    }
    let mut rows = Vec::new();
    collect(&dir, since, &mut rows);
    if rows.is_empty() {
        eprintln!("bench-summary: no criterion results in {}", dir.display());
        std::process::exit(1);
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    println!("{:width$}  {:>10}  median's 95% CI", "benchmark", "median");
    for (id, median, lo, hi) in rows {
        println!("{id:width$}  {:>10}  [{}, {}]", time(median), time(lo), time(hi));
    }
}

/// Every `<benchmark>/new/` under `dir` written after `since`: (id, median, CI low, high).
fn collect(dir: &Path, since: SystemTime, rows: &mut Vec<(String, f64, f64, f64)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        if path.file_name().is_some_and(|n| n == "new") {
            if let Some(row) = read(&path, since) {
                rows.push(row);
            }
        } else {
            collect(&path, since, rows);
        }
    }
}

fn read(new: &Path, since: SystemTime) -> Option<(String, f64, f64, f64)> {
    let estimates = new.join("estimates.json");
    if std::fs::metadata(&estimates).and_then(|m| m.modified()).ok()? < since {
        return None;
    }
    let json =
        |name: &str| -> Option<Value> { serde_json::from_str(&std::fs::read_to_string(new.join(name)).ok()?).ok() };
    let id = json("benchmark.json")?.get("full_id")?.as_str()?.to_owned();
    let median = json("estimates.json")?.get("median")?.clone();
    let ci = median.get("confidence_interval")?;
    Some((
        id,
        median.get("point_estimate")?.as_f64()?,
        ci.get("lower_bound")?.as_f64()?,
        ci.get("upper_bound")?.as_f64()?,
    ))
}

/// Nanoseconds in the most readable unit.
fn time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}
