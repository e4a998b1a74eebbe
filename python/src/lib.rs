//! `shardcalc._shardcalc`: shardcalc-core for Python. Every function takes and returns JSON
//! text; `python/shardcalc/__init__.py` turns it into dicts and lists. A result is
//! `{"ok": ...}` or `{"errors": [{"field": ..., "message": ...}]}`, so that nothing crosses
//! the boundary as a panic and every problem names its field, as in the CLI.
#![forbid(unsafe_code)]

use pyo3::prelude::*;
use serde::Serialize;
use shardcalc_core::error::Invalid;
use shardcalc_core::import::ImportError;
use shardcalc_core::scenario::Scenario;

/// `{"ok": value}`.
fn ok<T: Serialize>(value: &T) -> String {
    serde_json::to_string(&serde_json::json!({ "ok": value }))
        .unwrap_or_else(|e| errors(&[(String::from("output"), e.to_string())]))
}

/// `{"errors": [...]}`.
fn errors(list: &[(String, String)]) -> String {
    let list: Vec<serde_json::Value> =
        list.iter().map(|(f, m)| serde_json::json!({ "field": f, "message": m })).collect();
    serde_json::json!({ "errors": list }).to_string()
}

fn invalid(e: &Invalid) -> String {
    errors(&e.0.iter().map(|f| (f.field.clone(), f.message.clone())).collect::<Vec<_>>())
}

fn import_error(e: &ImportError) -> String {
    match e {
        ImportError::Field(inv) => invalid(inv),
        ImportError::Unsupported { key, message } => errors(&[(key.clone(), format!("unsupported: {message}"))]),
        ImportError::Syntax { line, message } => {
            let field = line.map_or_else(|| "syntax".to_owned(), |l| format!("line {l}"));
            errors(&[(field, message.clone())])
        }
    }
}

fn scenario(text: &str) -> Result<Scenario, String> {
    Scenario::from_json(text).map_err(|e| invalid(&e))
}

fn json_arg<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| errors(&[(what.to_owned(), e.to_string())]))
}

/// The result of `f` or its errors, as JSON.
fn run(f: impl FnOnce() -> Result<String, String>) -> String {
    f().unwrap_or_else(|e| e)
}

#[pymodule]
mod _shardcalc {
    use super::*;
    use shardcalc_core::view;

    /// The crate's version.
    #[pyfunction]
    fn version() -> &'static str {
        env!("CARGO_PKG_VERSION")
    }

    /// The default scenario (Llama 3 8B, 1 × 4096 tokens per device).
    #[pyfunction]
    fn default_scenario() -> String {
        ok(&Scenario::default())
    }

    /// `shardcalc eval`'s report of a scenario, or what a page shows (`view`: model,
    /// hardware, training, serving, validation; empty: the report).
    #[pyfunction]
    fn evaluate(scenario_json: &str, view_name: &str) -> String {
        run(|| {
            let s = scenario(scenario_json)?;
            let out = match view_name {
                "" => serde_json::to_value(shardcalc_core::report::evaluate(&s).map_err(|e| invalid(&e))?),
                "model" => serde_json::to_value(view::model::evaluate(&s).map_err(|e| invalid(&e))?),
                "hardware" => serde_json::to_value(view::hardware::evaluate(&s).map_err(|e| invalid(&e))?),
                "training" => serde_json::to_value(view::training::evaluate(&s).map_err(|e| invalid(&e))?),
                "serving" => serde_json::to_value(view::serving::evaluate(&s).map_err(|e| invalid(&e))?),
                "validation" => serde_json::to_value(view::validation::evaluate(&s)),
                other => {
                    return Err(errors(&[(
                        "view".into(),
                        format!("unknown page {other:?}; use model, hardware, training, serving or validation"),
                    )]))
                }
            };
            out.map(|v| ok(&v)).map_err(|e| errors(&[("output".into(), e.to_string())]))
        })
    }

    /// Set one field of a scenario from text, exactly as the page's field reads it.
    #[pyfunction]
    fn set_field(scenario_json: &str, path: &str, text: &str) -> String {
        run(|| {
            let mut s = scenario(scenario_json)?;
            shardcalc_core::field::apply(&mut s, path, text)
                .map_err(|e| errors(&[(e.field.clone(), e.message.clone())]))?;
            Ok(ok(&s))
        })
    }

    /// Every field `set_field` takes: path, unit, label, hint.
    #[pyfunction]
    fn fields() -> String {
        let list: Vec<serde_json::Value> = shardcalc_core::field::paths()
            .into_iter()
            .filter_map(|p| shardcalc_core::field::find(&p))
            .map(|f| serde_json::json!({ "path": f.path, "unit": f.unit, "label": f.label, "hint": f.hint }))
            .collect();
        ok(&list)
    }

    /// The model presets.
    #[pyfunction]
    fn presets() -> String {
        ok(&shardcalc_core::presets::all())
    }

    /// The chip catalog, with sources.
    #[pyfunction]
    fn chips() -> String {
        ok(&shardcalc_core::hardware::catalog::all_with_provenance())
    }

    /// A Hugging Face `config.json` (text) as a model and the importer's warnings.
    #[pyfunction]
    fn import_hf_config(text: &str) -> String {
        match shardcalc_core::import::from_hf_config_json(text) {
            Ok(imported) => ok(&imported),
            Err(e) => import_error(&e),
        }
    }

    /// A MaxText model YAML (text) as a model and the importer's warnings.
    #[pyfunction]
    fn import_maxtext_yaml(text: &str) -> String {
        match shardcalc_core::import::from_maxtext_yaml(text) {
            Ok(imported) => ok(&imported),
            Err(e) => import_error(&e),
        }
    }

    /// A MaxText command line: the import (`evaluate` false) or everything `shardcalc
    /// maxtext` prints. `args_json`: the arguments; `base`: the base YAML's text, if any;
    /// `hardware_json`: `{"chip", "topology", "slices"}`; `log`: a MaxText log's text.
    #[pyfunction]
    #[pyo3(signature = (args_json, base, hardware_json, log, evaluate))]
    fn maxtext(args_json: &str, base: Option<&str>, hardware_json: &str, log: Option<&str>, evaluate: bool) -> String {
        use shardcalc_core::maxtext::{
            evaluate_run, import_run, log_file::ParsedLog, CommandLine, Configs, HardwareArgs,
        };
        run(|| {
            let args: Vec<String> = json_arg(args_json, "args")?;
            let hw: HardwareArgs = json_arg(hardware_json, "hardware")?;
            let cmd = CommandLine::parse(&args).map_err(|e| import_error(&e))?;
            let imported = import_run(&cmd, base, &hw, Configs::available()).map_err(|e| import_error(&e))?;
            if !evaluate {
                return Ok(ok(&imported));
            }
            let log = log.map(ParsedLog::parse).transpose().map_err(|e| import_error(&e))?;
            Ok(ok(&evaluate_run(&imported, log).map_err(|e| invalid(&e))?))
        })
    }

    /// A pasted MaxText command line or launch script, split into `train.py`'s arguments:
    /// `{"base_config", "overrides", "env"}`.
    #[pyfunction]
    fn parse_maxtext_command(text: &str) -> String {
        match shardcalc_core::maxtext::CommandLine::parse_text(text) {
            Ok(c) => ok(&c),
            Err(e) => import_error(&e),
        }
    }

    /// A torchtitan TOML config: the import (`evaluate` false) or its report.
    /// `hardware_json`: `{"chip", "gpus_per_node", "nodes"}`; `model_json`: a model for a
    /// config whose `[model]` is not a preset.
    #[pyfunction]
    #[pyo3(signature = (text, hardware_json, model_json, evaluate))]
    fn torchtitan(text: &str, hardware_json: &str, model_json: Option<&str>, evaluate: bool) -> String {
        use shardcalc_core::torchtitan::{evaluate as eval_run, import_toml, GpuArgs};
        run(|| {
            let hw: GpuArgs = json_arg(hardware_json, "hardware")?;
            let model = model_json.map(|m| json_arg(m, "model")).transpose()?;
            let imported = import_toml(text, &hw, model).map_err(|e| import_error(&e))?;
            if !evaluate {
                return Ok(ok(&imported));
            }
            Ok(ok(&eval_run(&imported).map_err(|e| invalid(&e))?))
        })
    }

    /// A MaxText log's steps and its steady-state step.
    #[pyfunction]
    fn parse_maxtext_log(text: &str) -> String {
        match shardcalc_core::maxtext::log_file::ParsedLog::parse(text) {
            Ok(log) => {
                let measured = log.measured();
                ok(&serde_json::json!({ "log": log, "measured": measured }))
            }
            Err(e) => import_error(&e),
        }
    }
}
