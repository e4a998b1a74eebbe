//! End-to-end tests of the `shardcalc` binary.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

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
    let (code, out, _) =
        shardcalc(&["eval", "--preset", "llama-3-70b", "--per-device-batch", "2", "--seq-len", "8192"]);
    assert_eq!(code, 0);
    let v = json(&out);
    assert_eq!(v["params"]["total"], 70_553_706_496_u64);
    assert_eq!(v["params"]["active"], 70_553_706_496_u64);
    for key in ["total_tflops_per_device_step", "learnable_tflops_per_device_step", "attention_tflops_per_device_step"]
    {
        assert!(v["flops"]["maxtext"][key].as_f64().unwrap() > 0.0, "{key}");
    }
}

/// Issue #2: the DeepSeek-V3 notebook configuration gives 18,426 TFLOPs per device-step
/// in MaxText's convention at batch 8 × 8192.
#[test]
fn eval_deepseek_matches_maxtext() {
    let (code, out, _) =
        shardcalc(&["eval", "--preset", "deepseek-v3", "--per-device-batch", "8", "--seq-len", "8192"]);
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

#[test]
fn chips_lists_the_catalog() {
    let (code, out, _) = shardcalc(&["chips"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), shardcalc_core::hardware::catalog::all().len());
    assert!(out.contains("tpu-v7x") && out.contains("mi300x"));
    // Per-hop latencies (core/data/CHIPS.md): NCCL's for NVLink and InfiniBand, none for DCN.
    let h100 = out.lines().find(|l| l.starts_with("h100-sxm")).unwrap();
    assert!(h100.contains("NVLink (0.6 us/hop)") && h100.contains("InfiniBand 50.0 GB/s (2.7 us/hop)"), "{h100}");
    let v5e = out.lines().find(|l| l.starts_with("tpu-v5e")).unwrap();
    assert!(v5e.contains("ICI (1.0 us/hop)") && v5e.contains("DCN 3.1 GB/s (latency n/a)"), "{v5e}");
}

fn scenario_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("shardcalc-cli-hw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Book Pop Quiz 2 and Exercise 3.3 through the CLI: an AllGather over a v5e axis of 4
/// without wraparound (about 560 µs), a latency-bound one on a v4 4x4x4 (2 µs), and a
/// roofline of an int8-weight matmul.
#[test]
fn eval_reports_collectives_and_roofline() {
    let path = scenario_file(
        "hw.json",
        r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":4096},
            "hardware":{"chip":{"preset":"tpu-v5e"},
                        "topology":{"axes":[{"name":"x","size":8},{"name":"y","size":4}]}},
            "collectives":[{"kind":"all_gather","array_bytes":33554432,"axes":["y"]},
                           {"kind":"all_reduce","array_bytes":1e9,"axes":["x","y"]}],
            "roofline":{"matmul":{"b":64,"d":8192,"f":32768,"rhs":"int8"}}}"#,
    );
    let (code, out, err) = shardcalc(&["eval", &path]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let t = v["collectives"][0]["time_s"].as_f64().unwrap();
    assert!((t - 559.2e-6).abs() < 1e-6, "{t}");
    assert_eq!(v["collectives"][0]["regime"], "bandwidth");
    assert!(v["collectives"][0]["bytes_per_link"].as_f64().unwrap() > 0.0);
    assert_eq!(v["roofline"]["bound"], "hbm");
    // int8 weights, bf16 compute: compute-bound above about 120 tokens (Solution 1.2).
    let b = v["roofline"]["matmul"]["critical_batch_approx"].as_f64().unwrap();
    assert!((b - 121.6).abs() < 0.5, "{b}");
    assert_eq!(v["hardware"]["chip"]["id"], "tpu-v5e");
    assert!(v["params"]["total"].as_u64().is_some(), "existing keys stay");

    // --chip swaps the chip and keeps the topology: a v4 4x4x4 has wraparound.
    let path = scenario_file(
        "hw2.json",
        r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":4096},
            "hardware":{"chip":{"preset":"tpu-v5e"},
                        "topology":{"axes":[{"name":"x","size":4},{"name":"y","size":4},{"name":"z","size":4}]}},
            "collectives":[{"kind":"all_gather","array_bytes":256,"axes":["x"]}]}"#,
    );
    let (code, out, err) = shardcalc(&["eval", &path, "--chip", "tpu-v4"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["collectives"][0]["regime"], "latency");
    assert!((v["collectives"][0]["time_s"].as_f64().unwrap() - 2e-6).abs() < 1e-12);
}

#[test]
fn eval_chip_option_adds_the_hardware_section() {
    let (code, out, _) = shardcalc(&["eval", "--chip", "tpu-v6e"]);
    assert_eq!(code, 0);
    let v = json(&out);
    let rows = v["hardware"]["critical_intensities"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["channel"] == "scale_up" && r["links"] == 2 && r["dtype"] == "bf16"));
    let (code, _, err) = shardcalc(&["eval", "--chip", "tpu-v9"]);
    assert_eq!(code, 2);
    assert!(err.contains("hardware.chip.preset"), "{err}");
}

#[test]
fn bad_hardware_sections_name_the_field() {
    let path = scenario_file(
        "bad.json",
        r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":4096},
            "hardware":{"chip":{"preset":"tpu-v5e"},"topology":{"axes":[{"name":"x","size":16},{"name":"y","size":32}]}},
            "collectives":[{"kind":"all_to_all","array_bytes":-1,"axes":["z"]}]}"#,
    );
    let (code, _, err) = shardcalc(&["eval", &path]);
    assert_eq!(code, 2);
    for field in ["hardware.topology.axes", "collectives[0].array_bytes", "collectives[0].axes[0]"] {
        assert!(err.contains(field), "{field}: {err}");
    }
}

/// Issue #5: `shardcalc eval` with an `inference` section reports the serving keys. Book
/// 8.1: LLaMA 3-70B in int8 at batch 32 × 8k on a v5e 4x2 takes about 17 ms a step (the book's
/// roofline, so the ideal prediction).
#[test]
fn eval_reports_the_serving_keys() {
    let path = scenario_file(
        "serve.json",
        r#"{"model":{"preset":"llama-3-70b"},"workload":{"per_device_batch":1,"seq_len":8192},
            "hardware":{"chip":{"preset":"tpu-v5e"},"topology":{"axes":[{"name":"x","size":4},{"name":"y","size":2}]}},
            "inference":{"prompt_len":7680,"output_len":512,"batch":32,"dtypes":{"weights":"int8","kv":"int8"},
                         "prefill":{"mfu":0.4},"request_rate":10},
            "conventions":{"prediction":"ideal"}}"#,
    );
    let (code, out, err) = shardcalc(&["eval", &path]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let i = &v["inference"];
    assert_eq!(i["kv_bytes_per_token"], 163_840.0);
    let step = i["decode"]["step_time_s"].as_f64().unwrap();
    assert!((step - 0.017).abs() < 0.0005, "{step}");
    assert!(i["decode"]["tokens_per_s_per_chip"].as_f64().unwrap() > 200.0);
    assert!(i["prefill"]["time_s"].as_f64().unwrap() > 1.0);
    assert_eq!(i["min_chips"], 8);
    assert!(i["max_batch"].as_u64().unwrap() >= 32);
    assert!(i["disaggregation"]["prefill_per_decode"].as_f64().unwrap() > 1.0);
    assert_eq!(i["binds"], "weight_loading");
    assert!(!i["curves"]["pareto"].as_array().unwrap().is_empty());
    assert!(v["params"]["total"].as_u64().is_some(), "existing keys stay");
}

#[test]
fn serving_options_add_the_inference_section() {
    let (code, out, err) = shardcalc(&[
        "eval",
        "--preset",
        "llama-3-70b",
        "--chip",
        "tpu-v5e",
        "--prompt-len",
        "7680",
        "--output-len",
        "512",
        "--weights-dtype",
        "int8",
        "--kv-dtype",
        "int8",
    ]);
    assert_eq!(code, 0, "{err}");
    let i = &json(&out)["inference"];
    // No topology: the smallest v5e slice that holds the weights and one sequence.
    assert_eq!(i["serving"]["topology"], "2x4");
    assert_eq!(i["serving"]["batch_source"], "largest_fitting");
    assert_eq!(i["dtypes"]["weights"], "int8");
    let (code, _, err) = shardcalc(&["eval", "--chip", "tpu-v5e", "--batch", "8"]);
    assert_eq!(code, 2);
    assert!(err.contains("--prompt-len"), "{err}");
    let (code, _, err) = shardcalc(&["eval", "--prompt-len", "8", "--output-len", "8"]);
    assert_eq!(code, 2);
    assert!(err.contains("hardware"), "{err}");
    let (code, _, err) =
        shardcalc(&["eval", "--chip", "tpu-v5e", "--prompt-len", "8", "--output-len", "8", "--kv-dtype", "int3"]);
    assert_eq!(code, 2);
    assert!(err.contains("--kv-dtype"), "{err}");
    let (code, _, err) = shardcalc(&["eval", "--chip", "tpu-v5e", "--prompt-len", "0", "--output-len", "8"]);
    assert_eq!(code, 2);
    assert!(err.contains("inference.prompt_len"), "{err}");
}

/// Issue 17 through the CLI: a request rate, latency targets and the search add the
/// rate-based keys the docs promise (`inference.disaggregation.kv_transfer_s`,
/// `.prefill_servers`, `.decode_servers`, `inference.search.best`, `.pareto`).
#[test]
fn eval_serving_rate_targets_and_search() {
    let (code, out, err) = shardcalc(&[
        "eval",
        "--preset",
        "llama-3-70b",
        "--chip",
        "tpu-v5e",
        "--prompt-len",
        "2048",
        "--output-len",
        "512",
        "--weights-dtype",
        "int8",
        "--kv-dtype",
        "int8",
        "--request-rate",
        "10",
        "--ttft-p99",
        "2",
        "--tpot",
        "0.05",
        "--search",
    ]);
    assert_eq!(code, 0, "{err}");
    let i = &json(&out)["inference"];
    let d = &i["disaggregation"];
    assert!(d["kv_transfer_s"].as_f64().unwrap() > 0.0);
    assert!(d["prefill_servers"].as_u64().unwrap() >= 1 && d["decode_servers"].as_u64().unwrap() >= 1);
    let best = &i["search"]["best"];
    assert!(best["usd_per_hour"].as_f64().unwrap() > 0.0);
    assert!(best["ttft_p99_s"].as_f64().unwrap() <= 2.0 && best["tpot_s"].as_f64().unwrap() <= 0.05);
    assert!(!i["search"]["pareto"].as_array().unwrap().is_empty());
    assert_eq!(i["search"]["targets"]["tpot_s"], 0.05);
    let (code, _, err) =
        shardcalc(&["eval", "--chip", "tpu-v5e", "--prompt-len", "8", "--output-len", "8", "--search"]);
    assert_eq!(code, 2);
    assert!(err.contains("inference.search") && err.contains("request_rate"), "{err}");
}

/// A training scenario: LLaMA-3-70B, 4M tokens per step on a full v5p pod, 15T tokens.
fn training_scenario(name: &str, extra: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shardcalc-cli-training-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            r#"{{"model":{{"preset":"llama-3-70b"}},"workload":{{"per_device_batch":1,"seq_len":4096}},
                "hardware":{{"chip":{{"preset":"tpu-v5p"}},"topology":{{"axes":[{{"name":"x","size":16}},{{"name":"y","size":20}},{{"name":"z","size":28}}]}}}},
                "training":{{"global_batch":{{"tokens":4194304}},"seq_len":4096,"token_budget":15e12{extra}}}}}"#
        ),
    )
    .unwrap();
    path
}

#[test]
fn eval_training_reports_the_plan_thresholds_and_search() {
    let path = training_scenario("search.json", "");
    let (code, out, err) = shardcalc(&["eval", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let t = &json(&out)["training"];
    assert_eq!(t["source"], "search");
    for key in ["step_time_s", "mfu", "hfu", "days", "tokens_per_s"] {
        assert!(t[key].as_f64().unwrap() > 0.0, "{key}");
    }
    assert!(t["memory"]["per_device_bytes"].as_f64().unwrap() > 0.0);
    assert!(t["memory"]["breakdown"].as_array().unwrap().len() >= 5);
    for axis in ["dp", "fsdp", "tp", "ep", "cp", "pp"] {
        assert!(t["mesh"][axis].as_u64().unwrap() >= 1, "{axis}");
    }
    assert!(t["bound"]["resource"].is_string() && t["bound"]["explanation"].is_string());
    assert_eq!(t["thresholds"]["alpha"], 2550.0);
    assert_eq!(t["thresholds"]["fsdp_critical_batch_all_axes"], 850.0);
    assert_eq!(t["thresholds"]["binding"], "mixed_fsdp_tp");
    assert!(t["search"]["evaluated"].as_u64().unwrap() > 10_000);
    assert!(!t["search"]["best"].as_array().unwrap().is_empty());
    assert!(!t["search"]["pareto"].as_array().unwrap().is_empty());
}

#[test]
fn eval_training_mesh_option_evaluates_that_mesh() {
    let path = training_scenario("mesh.json", "");
    let (code, out, err) = shardcalc(&["eval", path.to_str().unwrap(), "--mesh", "fsdp=560,cp=4,tp=4"]);
    assert_eq!(code, 0, "{err}");
    let t = &json(&out)["training"];
    assert_eq!(t["source"], "explicit");
    assert_eq!(
        (t["mesh"]["fsdp"].as_u64(), t["mesh"]["tp"].as_u64(), t["mesh"]["cp"].as_u64()),
        (Some(560), Some(4), Some(4))
    );
    assert!(t.get("search").is_none());
    // A mesh that does not multiply to the pod, and one TP does not divide.
    let (code, _, err) = shardcalc(&["eval", path.to_str().unwrap(), "--mesh", "fsdp=64"]);
    assert_eq!(code, 2);
    assert!(err.contains("training.mesh"), "{err}");
    let (code, _, err) = shardcalc(&["eval", path.to_str().unwrap(), "--mesh", "fsdp=320,tp=28"]);
    assert_eq!(code, 2);
    assert!(err.contains("training.mesh.tp"), "{err}");
    let (code, _, err) = shardcalc(&["eval", "--mesh", "tp=2"]);
    assert_eq!(code, 2);
    assert!(err.contains("--mesh"), "{err}");
}

#[test]
fn eval_training_errors_name_the_field() {
    let path = training_scenario("bad.json", r#","efficiency":{"ici":0},"zero_stage":5"#);
    let (code, _, err) = shardcalc(&["eval", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("training.efficiency.ici") && err.contains("training.zero_stage"), "{err}");
}

/// Issue 16: the grouped validation splits as the core evaluates them, with the issue's goal.
#[test]
fn validation_prints_the_grouped_splits() {
    let (code, out, _) = shardcalc(&["validation"]);
    assert_eq!(code, 0);
    let v = json(&out);
    assert!(v["calibration"]["mxu"].as_f64().unwrap() > 0.0);
    let splits = v["splits"].as_array().unwrap();
    let ids: Vec<&str> = splits.iter().map(|s| s["split"].as_str().unwrap()).collect();
    assert_eq!(ids, ["interleaved", "leave_chip_out", "leave_family_out"]);
    let chips = &splits[1];
    assert_eq!(chips["folds"].as_array().unwrap().len(), 4);
    assert_eq!(chips["stats"]["count"], 51);
    let median = chips["stats"]["median_abs_mfu_pts"].as_f64().unwrap();
    assert_eq!(chips["meets_goal"], median <= 5.0);
}

/// `--set` reads a value into any field as the page's field reads it; a bad value names the
/// field and changes nothing.
#[test]
fn set_writes_any_field_as_the_page_reads_it() {
    let (code, out, err) = shardcalc(&[
        "eval",
        "--set",
        "training.global_batch.unit=sequences",
        "--set",
        "training.global_batch=1,024",
        "--set",
        "hardware.chip=tpu-v5p",
        "--set",
        "hardware.topology=4x4x4",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["training"]["global_batch_sequences"], 1024, "{}", v["training"]);
    assert_eq!(v["hardware"]["topology"]["devices"], 64.0);
    let (code, _, err) = shardcalc(&["eval", "--set", "training.seq_len=abc"]);
    assert_eq!(code, 2);
    assert!(err.contains("--set training.seq_len: is not a number"), "{err}");
    let (code, _, err) = shardcalc(&["eval", "--set", "training.nope=1"]);
    assert_eq!(code, 2);
    assert!(err.contains("training.nope") && err.contains("shardcalc fields"), "{err}");
    let (code, out, _) = shardcalc(&["fields"]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l.starts_with("inference.prompt_len ")), "{out}");
}

/// `--view` prints what a page shows: its defaults where the scenario has no section, and
/// what the page adds to the report (the explored mesh, bands, FLOPs per dollar).
#[test]
fn view_prints_what_each_page_shows() {
    let (code, out, err) = shardcalc(&["eval", "--view", "training", "--set", "training.mesh.tp=4"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["devices"], 64, "the training page's v5p 4x4x4");
    assert!(v["bands"]["step_time_s"]["value"].is_f64());
    assert!(v["conflicts"][0]["message"].as_str().unwrap_or("").contains("hardware.topology"), "{v}");
    let (_, out, _) = shardcalc(&["eval", "--view", "serving"]);
    let v = json(&out);
    assert!(v["decode"]["step_time_s"].is_f64() && v["bands"]["ttft_s"]["ideal"].is_f64());
    let (_, out, _) = shardcalc(&["eval", "--view", "hardware"]);
    assert!(json(&out)["hardware"]["flops_per_dollar"].is_f64());
    let (_, out, _) = shardcalc(&["eval", "--view", "model"]);
    let v = json(&out);
    assert!(v["params"]["total"].is_u64() && v["attention_crossover_tokens"].is_u64(), "{v}");
    let (_, out, _) = shardcalc(&["eval", "--view", "validation", "--set", "conventions.prediction=calibrated"]);
    let v = json(&out);
    assert_eq!(v["mode"], "calibrated");
    assert!(v["held_back"]["stats"]["count"].as_u64().unwrap_or(0) > 0);
}

/// `--set` reaches the hardware page's fields too: a custom chip's number (in the unit the
/// page shows it in) and a field of one collective query (book Pop Quiz 2's AllGather of
/// the v5e 8x4, sized to 1 GB).
#[test]
fn set_edits_the_hardware_page_s_fields() {
    let (code, out, err) = shardcalc(&[
        "eval",
        "--view",
        "hardware",
        "--set",
        "hardware.chip.custom.hbm.bandwidth=1620",
        "--set",
        "collectives[0].array_bytes=1GB",
        "--set",
        "roofline.matmul.b=128",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["hardware"]["chip"]["hbm"]["bandwidth"], 1.62e12);
    assert_eq!(v["hardware"]["chip"]["name"], "TPU v5e (edited)");
    assert_eq!(v["collectives"][0]["array_bytes"], 1e9);
    // X[128, 8192] · W[8192, 32768] in bf16: 2·B·D·F FLOPs over 2·(B·D + D·F + B·F) bytes
    // = 125.5 FLOP/B, below the v5e's critical 243.2 (HBM-bound, book 1.1) but above the
    // 121.6 of the chip with twice its HBM bandwidth: compute-bound.
    let i = 128.0 * 8192.0 * 32768.0 / (128.0 * 8192.0 + 8192.0 * 32768.0 + 128.0 * 32768.0);
    assert!((v["roofline"]["intensity"].as_f64().unwrap() - i).abs() < 1e-9);
    assert_eq!(v["roofline"]["bound"], "compute");
    let (code, _, err) = shardcalc(&["eval", "--view", "hardware", "--set", "collectives[5].kind=all_reduce"]);
    assert!(code != 0 && err.contains("collectives[5].kind") && err.contains("no element 5"), "{err}");
}

#[test]
fn validate_serving_prints_rows_groups_and_sides() {
    let (code, out, err) = shardcalc(&["validate", "serving"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.len() >= 30, "{}", rows.len());
    assert!(rows.iter().any(|r| r["calibrated"]["Ok"]["throughput"]["error_pct"].is_number()), "{}", rows[0]);
    assert!(rows.iter().any(|r| r["calibrated"]["Err"].as_str().is_some_and(|e| e.contains("no preset"))));
    assert_eq!(v["sides"].as_array().unwrap().len(), 3);
    assert!(v["groups"][0]["calibrated"]["throughput"]["median_abs_pct"].is_number());
    assert!(v["calibration"]["layer_overhead_s"].is_number());
}
