//! Writes the seed corpora and dictionaries of the fuzz targets in `fuzz/` from the bundled
//! presets and the importer fixtures, so the seeds never go stale:
//!
//! ```sh
//! cargo run -p shardcalc-core --example fuzz_seeds -- fuzz/seeds
//! ```
//!
//! gives `fuzz/seeds/{scenario,hf_config,maxtext_yaml}/` (one input per file) and
//! `fuzz/seeds/<target>.dict` (libFuzzer dictionaries: every key and string the seeds use,
//! plus hostile values). `fuzz/run.sh` calls it before fuzzing.

use serde_json::Value;
use shardcalc_core::flops::{FlopConvention, RematPolicy, Workload};
use shardcalc_core::presets;
use shardcalc_core::scenario::{Conventions, ModelSource, Scenario};
use shardcalc_core::validation::PredictionMode;
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// Values worth splicing anywhere.
const HOSTILE: &[&str] = &[
    "0",
    "-1",
    "1.5",
    "1e400",
    "-0",
    "1e-7",
    "4294967296",
    "9007199254740993",
    "18446744073709551615",
    "18446744073709551616",
    "null",
    "true",
    "[]",
    "{}",
    "\"\"",
];

/// MaxText command lines (what `train.py` takes) and log lines, for the `maxtext_yaml` target.
const MAXTEXT_RUNS: &[&str] = &[
    "python3 -m MaxText.train MaxText/configs/base.yml run_name=r model_name=llama3-8b \\\n  \
     per_device_batch_size=2 max_target_length=8192 ici_fsdp_parallelism=-1 remat_policy=full",
    "model_name=mixtral-8x7b per_device_batch_size=4 ici_expert_parallelism=4 ici_fsdp_parallelism=-1 \
     dcn_data_parallelism=2 megablox=true sparse_matmul=true capacity_factor=1.25 quantization=fp8",
    "base_emb_dim=1024 base_num_query_heads=8 base_num_kv_heads=8 base_mlp_dim=4096 base_num_decoder_layers=4 \
     head_dim=128 vocab_size=32000 remat_policy=custom decoder_layer_input=offload mlpwo=remat \
     query_proj=device attention=dot_product opt_type=adamw weight_dtype=bfloat16 gradient_accumulation_steps=4",
    "completed step: 1, seconds: 10.112, TFLOP/s/device: 301.2, Tokens/s/device: 3240.1, total_weights: 524288, \
     loss: 10.9\ncompleted step: 2, seconds: 9.871, TFLOP/s/device: 308.6, Tokens/s/device: 3319.4, loss: 10.7",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).ok_or("usage: fuzz_seeds OUT_DIR")?;
    let out = Path::new(&out);
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");

    let scenarios = scenario_seeds();
    let fixture_texts = |prefix: &str| -> Result<Vec<(String, String)>, std::io::Error> {
        let mut texts = Vec::new();
        for entry in fs::read_dir(&fixtures)? {
            let path = entry?.path();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if name.starts_with(prefix) {
                texts.push((name, fs::read_to_string(&path)?));
            }
        }
        texts.sort();
        Ok(texts)
    };
    let hf = fixture_texts("hf-")?;
    let mut maxtext = fixture_texts("maxtext-")?;
    // The same target reads MaxText command lines and logs (issue 19).
    maxtext.extend(MAXTEXT_RUNS.iter().enumerate().map(|(i, t)| (format!("run-{i}.txt"), (*t).to_owned())));

    write_corpus(&out.join("scenario"), &scenarios)?;
    write_corpus(&out.join("hf_config"), &hf)?;
    write_corpus(&out.join("maxtext_yaml"), &maxtext)?;
    write_dict(&out.join("scenario.dict"), json_tokens(&scenarios))?;
    write_dict(&out.join("hf_config.dict"), json_tokens(&hf))?;
    write_dict(&out.join("maxtext_yaml.dict"), yaml_tokens(&maxtext))?;
    println!(
        "fuzz seeds in {}: {} scenarios, {} config.json, {} MaxText YAML, command lines and logs",
        out.display(),
        scenarios.len(),
        hf.len(),
        maxtext.len()
    );
    Ok(())
}

/// Every preset by id and as a custom model, under varied workloads and conventions.
fn scenario_seeds() -> Vec<(String, String)> {
    let batches = [1.0, 0.5, 8.0, 1e-6, 1e7];
    let seq_lens = [4096, 8192, 1, 131_072, 1 << 30];
    let remats = [RematPolicy::None, RematPolicy::SaveMatmuls, RematPolicy::Full];
    let mut seeds = Vec::new();
    for (i, p) in presets::all().iter().enumerate() {
        let workload = Workload {
            per_device_batch: batches[i % batches.len()],
            seq_len: seq_lens[i % seq_lens.len()],
            grad_accum: [1, 4, 65_536][i % 3],
            remat: remats[i % remats.len()],
        };
        let conventions = Conventions {
            flops: FlopConvention::ALL[i % FlopConvention::ALL.len()],
            prediction: PredictionMode::ALL[i % PredictionMode::ALL.len()],
        };
        for (form, model) in
            [("preset", ModelSource::Preset(p.id.clone())), ("custom", ModelSource::Custom(Box::new(p.config.clone())))]
        {
            let s =
                Scenario { model, workload: workload.clone(), conventions: conventions.clone(), ..Scenario::default() };
            if let Ok(text) = serde_json::to_string_pretty(&s) {
                seeds.push((format!("{form}-{}.json", p.id), text));
            }
        }
    }
    seeds
}

fn write_corpus(dir: &Path, files: &[(String, String)]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    for (name, text) in files {
        fs::write(dir.join(name), text)?;
    }
    Ok(())
}

/// Every key and string value of the JSON texts, quoted, plus [`HOSTILE`].
fn json_tokens(files: &[(String, String)]) -> BTreeSet<String> {
    fn walk(v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    out.insert(format!("\"{k}\""));
                    walk(x, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|x| walk(x, out)),
            Value::String(s) if s.len() <= 64 => {
                out.insert(format!("\"{s}\""));
            }
            _ => {}
        }
    }
    let mut out: BTreeSet<String> = HOSTILE.iter().map(|s| (*s).to_owned()).collect();
    for (_, text) in files {
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            walk(&v, &mut out);
        }
    }
    out
}

/// Every `key:` and value of the YAML texts, plus YAML syntax and [`HOSTILE`].
fn yaml_tokens(files: &[(String, String)]) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = HOSTILE.iter().map(|s| (*s).to_owned()).collect();
    out.extend(["\n", ": ", "- ", "# ", "[", "]", ", ", "'", "~", "&a", "*a", "!!", "|", "\t"].map(String::from));
    for (_, text) in files {
        for line in text.lines() {
            if let Some((key, value)) = line.split_once(':') {
                out.insert(format!("{}: ", key.trim()));
                let value = value.split(" #").next().unwrap_or_default().trim();
                if !value.is_empty() && value.len() <= 64 {
                    out.insert(value.to_owned());
                }
            }
        }
    }
    out
}

/// A libFuzzer dictionary: one `"token"` a line, with `\\`, `\"` and `\xNN` escapes.
fn write_dict(path: &Path, tokens: BTreeSet<String>) -> std::io::Result<()> {
    let mut text = String::new();
    for token in tokens {
        text.push('"');
        for b in token.bytes() {
            match b {
                b'"' => text.push_str("\\\""),
                b'\\' => text.push_str("\\\\"),
                b' '..=b'~' => text.push(char::from(b)),
                _ => text.push_str(&format!("\\x{b:02X}")),
            }
        }
        text.push_str("\"\n");
    }
    fs::write(path, text)
}
