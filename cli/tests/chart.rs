//! `shardcalc chart`: the catalog's charts as SVG files, for documentation builds.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use std::path::PathBuf;
use std::process::Command;

use shardcalc_charts::catalog::{self, CHARTS};
use shardcalc_core::scenario::{ModelSource, Scenario};

fn shardcalc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shardcalc")).args(args).output().expect("run shardcalc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shardcalc-cli-chart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(name: &str, text: &str) -> String {
    let path = temp_dir().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn seventy_at_8k() -> Scenario {
    let mut s = Scenario { model: ModelSource::Preset("llama-3-70b".into()), ..Scenario::default() };
    s.workload.seq_len = 8192;
    s
}

#[test]
fn list_names_every_chart_of_the_catalog() {
    let (code, out, _) = shardcalc(&["chart", "--list"]);
    assert_eq!(code, 0);
    let names: Vec<&str> = out.lines().filter_map(|l| l.split_whitespace().next()).collect();
    let expected: Vec<&str> = CHARTS.iter().map(|c| c.name).collect();
    assert_eq!(names, expected);
}

/// Every chart of the catalog, drawn for a scenario file, is the SVG the shared plotting
/// code draws for that scenario (the page's "Download SVG" goes through the same function).
#[test]
fn every_chart_is_written_as_the_shared_svg() {
    let scenario = seventy_at_8k();
    let file = write("70b.json", &serde_json::to_string_pretty(&scenario).unwrap());
    for entry in CHARTS {
        let out = temp_dir().join(format!("{}.svg", entry.name));
        let out_arg = out.display().to_string();
        let (code, stdout, err) = shardcalc(&["chart", &file, "--chart", entry.name, "-o", &out_arg]);
        assert_eq!(code, 0, "{}: {err}", entry.name);
        assert!(stdout.is_empty(), "{stdout}");
        let svg = std::fs::read_to_string(&out).unwrap();
        let chart = catalog::build(entry.name, &scenario).unwrap();
        assert_eq!(svg, shardcalc_charts::svg::to_svg(&chart).unwrap(), "{}", entry.name);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{}", entry.name);
        // Charts of one model name it (the training charts compare meshes; the roofline, collectives
        // and published runs are not about a model).
        if matches!(entry.view, "model" | "serving") {
            assert!(svg.contains("Llama 3 70B"), "{}: the title names the model", entry.name);
        }
    }
}

#[test]
fn without_output_the_svg_goes_to_stdout() {
    let (code, out, _) = shardcalc(&["chart", "--chart", "params"]);
    assert_eq!(code, 0);
    let chart = catalog::build("params", &Scenario::default()).unwrap();
    assert_eq!(out.trim_end(), shardcalc_charts::svg::to_svg(&chart).unwrap().trim_end());
}

#[test]
fn errors_name_the_field() {
    let (code, _, err) = shardcalc(&["chart", "--chart", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("error: chart: unknown chart \"nope\"") && err.contains("seq-len"), "{err}");

    let mut bad = seventy_at_8k();
    bad.workload.seq_len = 0;
    let file = write("bad.json", &serde_json::to_string(&bad).unwrap());
    let (code, _, err) = shardcalc(&["chart", &file, "--chart", "flops"]);
    assert_eq!(code, 2);
    assert!(err.contains("error: workload.seq_len:"), "{err}");

    let file = write(
        "typo.json",
        r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":8},"hardwre":{}}"#,
    );
    let (code, _, err) = shardcalc(&["chart", &file, "--chart", "params"]);
    assert_eq!(code, 2);
    assert!(err.contains("error: scenario: unknown field `hardwre`"), "{err}");

    let (code, _, err) = shardcalc(&["chart", "/nonexistent/s.json", "--chart", "params"]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/s.json"), "{err}");

    let (code, _, err) = shardcalc(&["chart", "--chart", "params", "-o", "/nonexistent/dir/x.svg"]);
    assert_eq!(code, 1);
    assert!(err.contains("-o /nonexistent/dir/x.svg"), "{err}");

    let (code, _, err) = shardcalc(&["chart", "s.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("--chart NAME is needed"), "{err}");
}
