//! `shardcalc maxtext`, end to end: its prediction is `shardcalc eval`'s for the scenario it
//! prints, every key it is given is accounted for, and a log is compared term by term.
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

fn temp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("shardcalc-maxtext-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

const LLAMA: &[&str] = &[
    "maxtext",
    "--chip",
    "tpu-v5p",
    "--topology",
    "4x4x4",
    "--",
    "MaxText/configs/base.yml",
    "model_name=llama3-8b",
    "per_device_batch_size=2",
    "max_target_length=8192",
    "remat_policy=custom",
    "query_proj=offload",
    "mlpwo=device",
    "ici_fsdp_parallelism=-1",
    "ici_tensor_parallelism=2",
    "gradient_accumulation_steps=2",
    "run_name=test",
    "sa_block_q=1024",
    "no_such_key=1",
];

#[test]
fn the_prediction_is_eval_s_for_the_printed_scenario() {
    let (code, out, err) = shardcalc(LLAMA);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let t = &v["training"];
    assert_eq!(t["source"], "explicit");
    assert_eq!((t["mesh"]["fsdp"].as_u64(), t["mesh"]["tp"].as_u64()), (Some(32), Some(2)));
    assert_eq!(t["microbatches"], 2, "gradient accumulation");
    assert!(t["search"]["best"].as_array().is_some_and(|b| !b.is_empty()), "the search's best beside it");
    // The scenario it prints, evaluated by `eval`, is the same report.
    let scenario = temp("llama.json", &serde_json::to_string(&v["maxtext"]["scenario"]).unwrap());
    let (code, evaluated, err) = shardcalc(&["eval", &scenario]);
    assert_eq!(code, 0, "{err}");
    let e = json(&evaluated);
    for key in ["training", "flops", "params", "workload", "hardware"] {
        assert_eq!(e[key], v[key], "{key}");
    }
    // MaxText's log: its FLOPs, the prediction's step time.
    let log = &v["maxtext_log"];
    let tflops = v["flops"]["maxtext"]["total_tflops_per_device_step"].as_f64().unwrap();
    let step = t["step_time_s"].as_f64().unwrap();
    assert_eq!(log["tflops_per_device_step"].as_f64(), Some(tflops));
    assert!((log["predicted"]["tflops_per_s_per_device"].as_f64().unwrap() - tflops / step).abs() < 1e-9);
    assert_eq!(log["tokens_per_device_step"].as_f64(), Some(8192.0 * 2.0 * 2.0));
    assert!(log["lines"][2].as_str().unwrap().starts_with("completed step: 1, seconds: "));
}

#[test]
fn every_key_is_read_ignored_warned_or_unknown() {
    let (code, out, err) = shardcalc(LLAMA);
    assert_eq!(code, 0, "{err}");
    let keys = &json(&out)["maxtext"]["keys"];
    let names = |list: &str| -> Vec<String> {
        keys[list].as_array().unwrap().iter().map(|k| k["key"].as_str().unwrap().to_string()).collect()
    };
    for key in
        ["per_device_batch_size", "remat_policy", "query_proj", "mlpwo", "ici_tensor_parallelism", "base_emb_dim"]
    {
        assert!(names("read").contains(&key.to_string()), "{key} read");
    }
    assert_eq!(names("unknown"), ["no_such_key"]);
    assert!(names("ignored").contains(&"run_name".to_string()));
    assert!(names("warnings").contains(&"sa_block_q".to_string()));
    // Warnings and unknown keys are on standard error too.
    assert!(err.contains("sa_block_q") && err.contains("no_such_key"), "{err}");
    assert_eq!(json(&out)["maxtext"]["scenario"]["training"]["remat"]["custom"]["query_proj"], "offload");
}

#[test]
fn a_log_is_compared_term_by_term() {
    let log = temp(
        "run.log",
        "Total estimated memory size: 40.0 GB, estimated output size: 1.0 GB\n\
         completed step: 0, seconds: 90.000, TFLOP/s/device: 10.000, Tokens/s/device: 100.000, total_weights: 1, loss: 11.0\n\
         completed step: 1, seconds: 4.000, TFLOP/s/device: 200.000, Tokens/s/device: 8192.000, total_weights: 1, loss: 9.0\n\
         completed step: 2, seconds: 4.200, TFLOP/s/device: 190.476, Tokens/s/device: 7801.905, total_weights: 1, loss: 8.0\n",
    );
    let mut args: Vec<&str> = vec!["maxtext", "--log", &log];
    args.extend(LLAMA.iter().skip(1));
    let (code, out, err) = shardcalc(&args);
    assert_eq!(code, 0, "{err}");
    let m = &json(&out)["maxtext_measured"];
    assert_eq!(m["measured"]["seconds"], 4.1, "the median after the compiling step");
    let terms: Vec<&str> = m["terms"].as_array().unwrap().iter().map(|t| t["quantity"].as_str().unwrap()).collect();
    for q in ["seconds per step", "TFLOP/s per device", "tokens/s per device", "MFU", "memory per device"] {
        assert!(terms.contains(&q), "{q} in {terms:?}");
    }
    assert!(m["breakdown"].as_array().unwrap().iter().any(|b| b["term"] == "matmul_s"));
}

#[test]
fn compile_topology_names_the_hardware() {
    let (code, out, err) = shardcalc(&[
        "maxtext",
        "model_name=llama2-7b",
        "compile_topology=v5p-256",
        "compile_topology_num_slices=2",
        "per_device_batch_size=1",
        "ici_fsdp_parallelism=-1",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["maxtext"]["devices"], 256, "2 slices of v5p-256 (128 chips each)");
    assert_eq!(v["training"]["mesh"]["dp"], 2);
    assert_eq!(v["hardware"]["chip"]["id"], "tpu-v5p");
}

#[test]
fn errors_name_the_key() {
    let (code, _, err) = shardcalc(&[
        "maxtext",
        "--chip",
        "tpu-v5p",
        "--topology",
        "4x4x4",
        "--",
        "model_name=llama3-8b",
        "ici_fsdp_parallelism=-1",
        "ici_data_parallelism=-1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("ici_data_parallelism") || err.contains("ici_fsdp_parallelism"), "{err}");
    let (code, _, err) = shardcalc(&["maxtext", "--", "model_name=llama3-8b"]);
    assert_eq!(code, 2);
    assert!(err.contains("--chip"), "{err}");
    let (code, _, err) = shardcalc(&[
        "maxtext",
        "--chip",
        "tpu-v5p",
        "--topology",
        "4x4x4",
        "--",
        "model_name=llama3-8b",
        "base_emb_dim=1024",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("override_model_config"), "{err}");
}

#[test]
fn a_base_yaml_path_is_read() {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/maxtext/base-2023-12.yml");
    let (code, out, err) = shardcalc(&[
        "maxtext",
        "--chip",
        "tpu-v5e",
        "--topology",
        "16x16",
        "--",
        &base.display().to_string(),
        "global_parameter_scale=16",
        "per_device_batch_size=6",
        "remat_policy=full",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    // v5e-readme-16b: 1239.4 TFLOPs per device and step in today's convention.
    let tflops = v["maxtext_log"]["tflops_per_device_step"].as_f64().unwrap();
    assert!((tflops - 1239.4).abs() < 0.05, "{tflops}");
}

#[test]
fn a_torchtitan_config_is_planned_as_eval_plans_it() {
    let (code, out, err) = shardcalc(&["torchtitan", "--nodes", "8", "tests/fixtures/torchtitan/llama3_8b.toml"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    // The config's comment: "a preset for 64 A100 GPUs"; FSDP takes every GPU (-1).
    assert_eq!(v["training"]["mesh"]["fsdp"], 64);
    assert_eq!(v["training"]["global_batch_sequences"], 64, "local_batch_size 1 × 64 data-parallel ranks");
    assert_eq!(v["torchtitan"]["scenario"]["training"]["remat"]["custom"]["value_proj"], "device", "selective op AC");
    let scenario = temp("torchtitan.json", &serde_json::to_string(&v["torchtitan"]["scenario"]).unwrap());
    let (code, evaluated, err) = shardcalc(&["eval", &scenario]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&evaluated)["training"], v["training"]);
    let (code, _, err) =
        shardcalc(&["torchtitan", "--nodes", "3", "tests/fixtures/torchtitan/llama3_8b.toml", "extra.toml"]);
    assert_eq!(code, 2, "{err}");
}
