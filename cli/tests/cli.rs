//! End-to-end tests of the `shardcalc` binary.

use std::path::PathBuf;
use std::process::Command;

fn shardcalc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shardcalc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run shardcalc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

fn repo(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(path).display().to_string()
}

#[test]
fn eval_preset_reports_the_required_keys() {
    let (code, out, _) = shardcalc(&["eval", "--preset", "llama-3-70b", "--per-device-batch", "2", "--seq-len", "8192"]);
    assert_eq!(code, 0);
    let v = json(&out);
    assert_eq!(v["params"]["total"], 70_553_706_496_u64);
    assert_eq!(v["params"]["active"], 70_553_706_496_u64);
    for key in ["total_tflops_per_device_step", "learnable_tflops_per_device_step", "attention_tflops_per_device_step"] {
        assert!(v["flops"]["maxtext"][key].as_f64().unwrap() > 0.0, "{key}");
    }
}

/// Issue #2: the DeepSeek-V3 notebook configuration gives 18,426 TFLOPs per device-step
/// in MaxText's convention at batch 8 × 8192.
#[test]
fn eval_deepseek_matches_maxtext() {
    let (code, out, _) = shardcalc(&["eval", "--preset", "deepseek-v3", "--per-device-batch", "8", "--seq-len", "8192"]);
    assert_eq!(code, 0);
    let t = json(&out)["flops"]["maxtext"]["total_tflops_per_device_step"].as_f64().unwrap();
    assert!((t - 18_426.0).abs() < 1.0, "{t}");
}

#[test]
fn eval_hf_config_imports_llama3_8b_exactly() {
    let (code, out, _) = shardcalc(&["eval", "--hf-config", &repo("core/tests/fixtures/hf-llama-3-8b.json")]);
    assert_eq!(code, 0);
    assert_eq!(json(&out)["params"]["total"], 8_030_261_248_u64);
}

#[test]
fn eval_maxtext_config() {
    let (code, out, _) = shardcalc(&["eval", "--maxtext-config", &repo("core/tests/fixtures/maxtext-llama2-7b.yml")]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(json(&out)["params"]["total"], 6_738_415_616_u64);
}

#[test]
fn eval_scenario_file_with_overrides() {
    let dir = std::env::temp_dir().join(format!("shardcalc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.json");
    std::fs::write(
        &path,
        r#"{"model":{"preset":"mixtral-8x7b"},"workload":{"per_device_batch":1,"seq_len":4096},"conventions":{"flops":"book"}}"#,
    )
    .unwrap();
    let (code, out, _) = shardcalc(&["eval", path.to_str().unwrap(), "--seq-len", "2048"]);
    assert_eq!(code, 0);
    let v = json(&out);
    assert_eq!(v["workload"]["seq_len"], 2048);
    assert_eq!(v["flops"]["headline"], "book");
    assert_eq!(v["params"]["total"], 46_702_792_704_u64);
}

#[test]
fn invalid_input_exits_nonzero_and_names_the_field() {
    let (code, _, err) = shardcalc(&["eval", "--seq-len", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("workload.seq_len"), "{err}");
    let (code, _, err) = shardcalc(&["eval", "--per-device-batch", "NaN"]);
    assert_eq!(code, 2);
    assert!(err.contains("workload.per_device_batch"), "{err}");
    let (code, _, err) = shardcalc(&["eval", "--preset", "gpt-5"]);
    assert_eq!(code, 2);
    assert!(err.contains("model.preset"), "{err}");
    let (code, _, err) = shardcalc(&["eval", "--remat", "sometimes"]);
    assert_eq!(code, 2);
    assert!(err.contains("--remat"), "{err}");
    let (code, _, err) = shardcalc(&["eval", "/nonexistent/scenario.json"]);
    assert_eq!(code, 1);
    assert!(err.contains("scenario"), "{err}");
}

#[test]
fn bad_config_names_the_key() {
    let dir = std::env::temp_dir().join(format!("shardcalc-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.json");
    let text = std::fs::read_to_string(repo("core/tests/fixtures/hf-llama-3-8b.json"))
        .unwrap()
        .replace("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 5");
    std::fs::write(&path, text).unwrap();
    let (code, _, err) = shardcalc(&["eval", "--hf-config", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("num_key_value_heads"), "{err}");
}

#[test]
fn presets_lists_every_preset() {
    let (code, out, _) = shardcalc(&["presets"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), shardcalc_core::presets::all().len());
    assert!(out.contains("llama-3.1-405b"));
}

/// The published JSON Schemas in docs/schema are generated from the types; regenerate
/// with `cargo run -p shardcalc-cli -- schema scenario > docs/schema/scenario.schema.json`
/// (and `report`).
#[test]
fn published_schemas_are_current() {
    for which in ["scenario", "report"] {
        let (code, out, _) = shardcalc(&["schema", which]);
        assert_eq!(code, 0);
        let published = std::fs::read_to_string(repo(&format!("docs/schema/{which}.schema.json"))).unwrap();
        assert_eq!(
            json(&out),
            json(&published),
            "docs/schema/{which}.schema.json is stale: run `cargo run -p shardcalc-cli -- schema {which} > docs/schema/{which}.schema.json`"
        );
    }
}
