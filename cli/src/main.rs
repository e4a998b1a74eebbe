//! `shardcalc`: the native command-line shell over shardcalc-core.
//!
//! Everything computed here is computed by `shardcalc_core`; this file only reads
//! files, parses options and prints JSON.
#![forbid(unsafe_code)]

mod args;

use args::{ChartArgs, Command, EvalArgs, MaxTextArgs, ServingArgs, TorchtitanArgs, View, USAGE};
use shardcalc_core::dtype::DType;
use shardcalc_core::error::Invalid;
use shardcalc_core::flops::{FlopConvention, RematPolicy};
use shardcalc_core::hardware::catalog;
use shardcalc_core::hardware::query::{ChipSource, HardwareSection};
use shardcalc_core::import::{from_hf_config_json, from_maxtext_yaml};
use shardcalc_core::inference::InferenceSection;
use shardcalc_core::params::count_params;
use shardcalc_core::presets;
use shardcalc_core::report::evaluate;
use shardcalc_core::scenario::{ModelSource, Scenario, MAX_SCENARIO_BYTES};
use shardcalc_core::training::mesh::Mesh;
use shardcalc_core::units::Seconds;
use shardcalc_core::view;
use std::process::ExitCode;

/// A failure with its exit status.
struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn invalid(message: impl Into<String>) -> Self {
        Self { code: 2, message: message.into() }
    }
    fn io(message: impl Into<String>) -> Self {
        Self { code: 1, message: message.into() }
    }
}

impl From<Invalid> for Failure {
    fn from(e: Invalid) -> Self {
        let lines: Vec<String> = e.0.iter().map(|e| format!("{}: {}", e.field, e.message)).collect();
        Failure::invalid(lines.join("\n"))
    }
}

fn read_file(path: &str, what: &str) -> Result<String, Failure> {
    let meta = std::fs::metadata(path).map_err(|e| Failure::io(format!("{what} {path}: {e}")))?;
    if meta.len() > MAX_SCENARIO_BYTES as u64 * 4 {
        return Err(Failure::invalid(format!(
            "{what} {path}: {} bytes is larger than the {} byte limit",
            meta.len(),
            MAX_SCENARIO_BYTES * 4
        )));
    }
    std::fs::read_to_string(path).map_err(|e| Failure::io(format!("{what} {path}: {e}")))
}

fn scenario_from_args(a: &EvalArgs, warnings: &mut Vec<String>) -> Result<Scenario, Failure> {
    let mut s = match &a.scenario {
        Some(path) => Scenario::from_json(&read_file(path, "scenario")?)?,
        None => Scenario::default(),
    };
    if let Some(id) = &a.preset {
        s.model = ModelSource::Preset(id.clone());
    }
    let imported = match (&a.hf_config, &a.maxtext_config) {
        (Some(path), _) => Some(
            from_hf_config_json(&read_file(path, "--hf-config")?)
                .map_err(|e| Failure::invalid(format!("--hf-config {path}: {e}")))?,
        ),
        (_, Some(path)) => Some(
            from_maxtext_yaml(&read_file(path, "--maxtext-config")?)
                .map_err(|e| Failure::invalid(format!("--maxtext-config {path}: {e}")))?,
        ),
        _ => None,
    };
    if let Some(imp) = imported {
        warnings.extend(imp.warnings.iter().map(|w| format!("{}: {}", w.key, w.message)));
        s.model = ModelSource::Custom(Box::new(imp.config));
    }
    if let Some(b) = a.per_device_batch {
        s.workload.per_device_batch = b;
    }
    if let Some(t) = a.seq_len {
        s.workload.seq_len = t;
    }
    if let Some(g) = a.grad_accum {
        s.workload.grad_accum = g;
    }
    if let Some(r) = &a.remat {
        s.workload.remat = match r.as_str() {
            "none" => RematPolicy::None,
            "save_matmuls" => RematPolicy::SaveMatmuls,
            "full" => RematPolicy::Full,
            other => {
                return Err(Failure::invalid(format!(
                    "--remat: unknown policy {other:?}; use none, save_matmuls or full"
                )))
            }
        };
    }
    if let Some(id) = &a.chip {
        let topology = s.hardware.take().and_then(|h| h.topology);
        s.hardware = Some(HardwareSection { chip: ChipSource::Preset(id.clone()), topology });
    }
    apply_serving_args(&a.serving, &mut s)?;
    if let Some(spec) = &a.mesh {
        let mesh = Mesh::parse(spec).map_err(|e| Failure::invalid(format!("--mesh: {e}")))?;
        let training =
            s.training.as_mut().ok_or_else(|| Failure::invalid("--mesh: the scenario has no `training` section"))?;
        training.mesh = Some(mesh);
    }
    // `--set` edits the scenario as the page of `--view` shows it (with its defaults), as the
    // page's own fields do.
    if !a.set.is_empty() {
        s = match a.view {
            Some(View::Hardware) => view::hardware::with_defaults(&s),
            Some(View::Training) => view::training::with_defaults(&s),
            Some(View::Serving) => view::serving::with_defaults(&s),
            _ => s,
        };
    }
    for (path, text) in &a.set {
        shardcalc_core::field::apply(&mut s, path, text).map_err(|e| Failure::invalid(format!("--set {e}")))?;
    }
    if let Some(c) = &a.convention {
        s.conventions.flops = FlopConvention::parse(c).ok_or_else(|| {
            Failure::invalid(format!("--convention: unknown convention {c:?}; use maxtext, notebook, six_nd or book"))
        })?;
    }
    Ok(s)
}

/// `--prompt-len`, `--output-len`, `--batch`, `--weights-dtype`, `--kv-dtype`: set the
/// `inference` section's fields, creating it from the first two when the scenario has none.
fn apply_serving_args(a: &ServingArgs, s: &mut Scenario) -> Result<(), Failure> {
    if *a == ServingArgs::default() {
        return Ok(());
    }
    let mut section = match (s.inference.take(), a.prompt_len, a.output_len) {
        (Some(i), _, _) => i,
        (None, Some(p), Some(g)) => InferenceSection::new(p, g),
        (None, _, _) => {
            return Err(Failure::invalid("--prompt-len and --output-len are both needed to add an `inference` section"))
        }
    };
    let dtype = |flag: &str, v: &Option<String>| -> Result<Option<DType>, Failure> {
        v.as_deref()
            .map(|d| {
                DType::parse(d).ok_or_else(|| {
                    Failure::invalid(format!(
                        "{flag}: unknown format {d:?}; use bf16, fp16, fp8, int8, int4, nvfp4 or mxfp4"
                    ))
                })
            })
            .transpose()
    };
    section.prompt_len = a.prompt_len.unwrap_or(section.prompt_len);
    section.output_len = a.output_len.unwrap_or(section.output_len);
    section.batch = a.batch.or(section.batch);
    section.dtypes.weights = dtype("--weights-dtype", &a.weights_dtype)?.unwrap_or(section.dtypes.weights);
    section.dtypes.kv = dtype("--kv-dtype", &a.kv_dtype)?.unwrap_or(section.dtypes.kv);
    section.request_rate = a.request_rate.or(section.request_rate);
    let t = &mut section.targets;
    t.ttft_p50_s = a.ttft_p50.or(t.ttft_p50_s);
    t.ttft_p99_s = a.ttft_p99.or(t.ttft_p99_s);
    t.tpot_s = a.tpot.or(t.tpot_s);
    if a.search && section.search.is_none() {
        section.search = Some(shardcalc_core::inference::search::SearchOptions::default());
    }
    s.inference = Some(section);
    Ok(())
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, Failure> {
    serde_json::to_string_pretty(v).map_err(|e| Failure::io(format!("serialising output: {e}")))
}

/// `shardcalc chart`: the catalog's chart drawn by `shardcalc_charts::svg::to_svg`, to the
/// `-o` file (then a line saying where it went) or to standard output.
fn chart(a: &ChartArgs) -> Result<String, Failure> {
    let scenario = match &a.scenario {
        Some(path) => Scenario::from_json(&read_file(path, "scenario")?)?,
        None => Scenario::default(),
    };
    let chart = shardcalc_charts::catalog::build(&a.chart, &scenario)?;
    let svg = shardcalc_charts::svg::to_svg(&chart).map_err(|e| Failure::io(format!("drawing {}: {e}", a.chart)))?;
    match &a.out {
        Some(path) => {
            std::fs::write(path, &svg).map_err(|e| Failure::io(format!("-o {path}: {e}")))?;
            Ok(String::new())
        }
        None => Ok(svg),
    }
}

/// `shardcalc maxtext`: the base YAML read from disk (MaxText's bundled base.yml when the
/// path is a `base.yml` that is not there, as in a MaxText checkout's command line run
/// elsewhere), the run imported and evaluated, and a log compared.
fn maxtext(a: &MaxTextArgs, warnings: &mut Vec<String>) -> Result<String, Failure> {
    use shardcalc_core::maxtext::{evaluate_run, import_run, log_file::ParsedLog, CommandLine, Configs, HardwareArgs};
    let cmd = CommandLine::parse(&a.args).map_err(|e| Failure::invalid(format!("maxtext: {e}")))?;
    let base = match &cmd.base_config {
        Some(path) if std::path::Path::new(path).exists() => Some(read_file(path, "base config")?),
        Some(path) if path.ends_with("base.yml") => {
            warnings.push(format!("{path} not found here: using MaxText's base.yml (bundled, e591f30)"));
            None
        }
        Some(path) => return Err(Failure::io(format!("base config {path}: no such file"))),
        None => None,
    };
    let hw = HardwareArgs { chip: a.chip.clone(), topology: a.topology.clone(), slices: a.slices };
    let run = import_run(&cmd, base.as_deref(), &hw, Configs::available())
        .map_err(|e| Failure::invalid(format!("maxtext: {e}")))?;
    let log = match &a.log {
        Some(path) => Some(
            ParsedLog::parse(&read_file(path, "--log")?).map_err(|e| Failure::invalid(format!("--log {path}: {e}")))?,
        ),
        None => None,
    };
    for w in &run.keys.warnings {
        warnings.push(format!("{}: {}", w.key, w.message));
    }
    for k in &run.keys.unknown {
        warnings.push(format!("{}={}: not a MaxText key (not in base.yml); ignored", k.key, k.value));
    }
    to_json(&evaluate_run(&run, log)?)
}

/// `shardcalc torchtitan`: a TOML config (and, for a model that is not a preset, its
/// `config.json`) imported and evaluated.
fn torchtitan(a: &TorchtitanArgs, warnings: &mut Vec<String>) -> Result<String, Failure> {
    use shardcalc_core::torchtitan::{evaluate, import_toml, GpuArgs};
    let model = match &a.hf_config {
        Some(path) => {
            let imp = from_hf_config_json(&read_file(path, "--hf-config")?)
                .map_err(|e| Failure::invalid(format!("--hf-config {path}: {e}")))?;
            warnings.extend(imp.warnings.iter().map(|w| format!("{}: {}", w.key, w.message)));
            Some(imp.config)
        }
        None => None,
    };
    let hw = GpuArgs { chip: a.chip.clone(), gpus_per_node: a.gpus_per_node, nodes: a.nodes };
    let run = import_toml(&read_file(&a.file, "config")?, &hw, model)
        .map_err(|e| Failure::invalid(format!("torchtitan {}: {e}", a.file)))?;
    warnings.extend(run.keys.warnings.iter().map(|w| format!("{}: {}", w.key, w.message)));
    to_json(&evaluate(&run)?)
}

fn run(argv: &[String]) -> Result<(String, Vec<String>), Failure> {
    let cmd = args::parse(argv).map_err(|e| Failure::invalid(format!("{e}\n\n{USAGE}")))?;
    let mut warnings = Vec::new();
    let out = match cmd {
        Command::Help => USAGE.to_string(),
        Command::Presets => {
            let mut out = String::new();
            for p in presets::all() {
                let c = count_params(&p.config);
                out.push_str(&format!(
                    "{:<18} {:<32} {:>9.2}B total {:>8.2}B active\n",
                    p.id,
                    p.config.name,
                    c.total.get() / 1e9,
                    c.active.get() / 1e9
                ));
            }
            out
        }
        Command::Chips => {
            // Per-hop latencies in µs; "latency n/a" where no figure is published (CHIPS.md).
            let latency = |l: Option<Seconds>| {
                l.map_or_else(|| "latency n/a".to_string(), |l| format!("{:.1} us/hop", l.get() * 1e6))
            };
            let mut out = String::new();
            for c in catalog::all() {
                out.push_str(&format!(
                    "{:<12} {:<40} {:>8.1} TFLOP/s bf16 {:>6.0} GB HBM {:>7.0} GB/s {:>4} x {:>5.1} GB/s one-way {} ({}) | {} {:.1} GB/s ({})\n",
                    c.id,
                    c.name,
                    c.peak_flops.bf16.get() / 1e12,
                    c.hbm.capacity.gb(),
                    c.hbm.bandwidth.get() / 1e9,
                    c.scale_up.links_per_chip,
                    c.scale_up.link.one_way.get() / 1e9,
                    c.scale_up.name,
                    latency(c.scale_up.hop_latency),
                    c.scale_out.name,
                    c.scale_out.bandwidth_per_chip.get() / 1e9,
                    latency(c.scale_out.hop_latency),
                ));
            }
            out
        }
        Command::Schema(which) => {
            let schema = if which == "scenario" {
                schemars::schema_for!(Scenario)
            } else {
                schemars::schema_for!(shardcalc_core::report::Report)
            };
            to_json(&schema)?
        }
        Command::Validation => {
            use shardcalc_core::validation::{bundled_table, calibration, splits};
            let c = calibration::bundled();
            let out = serde_json::json!({
                "calibration": calibration::PARAMETER_IDS.iter().zip(c.values()).map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
                "splits": splits::summaries(&bundled_table::bundled().splits),
            });
            to_json(&out)?
        }
        Command::ChartList => {
            let mut out = String::new();
            for c in shardcalc_charts::catalog::CHARTS {
                out.push_str(&format!("{:<24} {:<11} {}\n", c.name, c.view, c.about));
            }
            out
        }
        Command::Chart(a) => chart(&a)?,
        Command::MaxText(a) => maxtext(&a, &mut warnings)?,
        Command::Torchtitan(a) => torchtitan(&a, &mut warnings)?,
        Command::Fields => {
            let mut out = String::new();
            for (path, unit, label) in shardcalc_core::field::listing() {
                out.push_str(&format!("{path:<44} {unit:<12} {label}\n"));
            }
            out
        }
        Command::Validate(_) => {
            let c = shardcalc_core::efficiency::serving::bundled();
            to_json(&shardcalc_core::validation::serving_table::serving_validation(&c))?
        }
        Command::Eval(a) => {
            let s = scenario_from_args(&a, &mut warnings)?;
            match a.view {
                None => to_json(&evaluate(&s)?)?,
                Some(View::Model) => to_json(&view::model::evaluate(&s)?)?,
                Some(View::Hardware) => to_json(&view::hardware::evaluate(&s)?)?,
                Some(View::Training) => to_json(&view::training::evaluate(&s)?)?,
                Some(View::Serving) => to_json(&view::serving::evaluate(&s)?)?,
                Some(View::Validation) => to_json(&view::validation::evaluate(&s))?,
            }
        }
    };
    Ok((out, warnings))
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match run(&argv) {
        Ok((out, warnings)) => {
            for w in warnings {
                eprintln!("warning: {w}");
            }
            if !out.is_empty() {
                println!("{}", out.trim_end());
            }
            ExitCode::SUCCESS
        }
        Err(f) => {
            for line in f.message.lines() {
                eprintln!("error: {line}");
            }
            ExitCode::from(f.code)
        }
    }
}
