//! Command-line parsing (std only): `shardcalc <command> [options]`.

use std::fmt;

/// What the user asked for.
// Parsed once per run: the size of `Eval` does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, PartialEq)]
pub enum Command {
    /// Print the JSON report of a scenario.
    Eval(EvalArgs),
    /// List the model presets.
    Presets,
    /// List the hardware catalog.
    Chips,
    /// Print a JSON Schema (`scenario` or `report`).
    Schema(String),
    /// Print the calibration and the grouped validation splits.
    Validation,
    /// List every field `--set` takes.
    Fields,
    /// Draw one chart of the catalog as SVG.
    Chart(ChartArgs),
    /// List the charts of the catalog.
    ChartList,
    /// Print a validation (`serving`) as JSON.
    Validate(String),
    /// Import a MaxText command line and print its report and MaxText's log numbers.
    MaxText(MaxTextArgs),
    /// Import a torchtitan TOML config and print its report.
    Torchtitan(TorchtitanArgs),
    /// Print usage.
    Help,
}

/// Options of `shardcalc eval`.
#[derive(Debug, Default, PartialEq)]
pub struct EvalArgs {
    /// A scenario JSON file.
    pub scenario: Option<String>,
    /// `--preset ID`.
    pub preset: Option<String>,
    /// `--hf-config FILE`.
    pub hf_config: Option<String>,
    /// `--maxtext-config FILE`.
    pub maxtext_config: Option<String>,
    /// `--per-device-batch B`.
    pub per_device_batch: Option<f64>,
    /// `--seq-len S`.
    pub seq_len: Option<u64>,
    /// `--grad-accum N`.
    pub grad_accum: Option<u64>,
    /// `--remat none|save_matmuls|full`.
    pub remat: Option<String>,
    /// `--convention maxtext|notebook|six_nd|book`.
    pub convention: Option<String>,
    /// `--chip ID`: set `hardware.chip` to a bundled chip.
    pub chip: Option<String>,
    /// `--prompt-len P`, `--output-len G`, `--batch B`, `--weights-dtype D`,
    /// `--kv-dtype D`: set fields of the scenario's `inference` section.
    pub serving: Box<ServingArgs>,
    /// `--mesh dp=..,fsdp=..,tp=..,ep=..,cp=..,pp=..`: set `training.mesh`.
    pub mesh: Option<String>,
    /// `--set PATH=VALUE`, in order: any field of the scenario, read as the page reads it.
    pub set: Vec<(String, String)>,
    /// `--view NAME`: print what that page shows instead of the report.
    pub view: Option<View>,
}

/// A page whose evaluation `shardcalc eval --view` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The model page.
    Model,
    /// The hardware & collectives page.
    Hardware,
    /// The training page.
    Training,
    /// The serving page.
    Serving,
    /// The validation page.
    Validation,
}

impl View {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "model" => View::Model,
            "hardware" => View::Hardware,
            "training" => View::Training,
            "serving" => View::Serving,
            "validation" => View::Validation,
            _ => return None,
        })
    }
}

/// Options of `shardcalc maxtext`.
#[derive(Debug, Default, PartialEq)]
pub struct MaxTextArgs {
    /// `--chip ID`.
    pub chip: Option<String>,
    /// `--topology AxBxC`: one slice's shape in chips.
    pub topology: Option<String>,
    /// `--slices N`.
    pub slices: Option<u64>,
    /// `--log FILE`: a MaxText log to compare with the prediction.
    pub log: Option<String>,
    /// MaxText's own arguments: `[BASE.yml] key=value ...`.
    pub args: Vec<String>,
}

/// Options of `shardcalc torchtitan`.
#[derive(Debug, Default, PartialEq)]
pub struct TorchtitanArgs {
    /// The TOML config.
    pub file: String,
    /// `--chip ID` (default h100-sxm).
    pub chip: Option<String>,
    /// `--gpus-per-node N`.
    pub gpus_per_node: Option<u64>,
    /// `--nodes N`.
    pub nodes: Option<u64>,
    /// `--hf-config FILE`: the model, when `[model]` names no preset.
    pub hf_config: Option<String>,
}

/// Options of `shardcalc chart`.
#[derive(Debug, Default, PartialEq)]
pub struct ChartArgs {
    /// A scenario JSON file (the default scenario without one).
    pub scenario: Option<String>,
    /// `--chart NAME`: a name from `shardcalc chart --list`.
    pub chart: String,
    /// `-o FILE`: where the SVG goes (standard output without it).
    pub out: Option<String>,
}

/// Options that set the scenario's `inference` section.
#[derive(Debug, Default, PartialEq)]
pub struct ServingArgs {
    /// `--prompt-len P`.
    pub prompt_len: Option<u64>,
    /// `--output-len G`.
    pub output_len: Option<u64>,
    /// `--batch B`.
    pub batch: Option<u64>,
    /// `--weights-dtype D`.
    pub weights_dtype: Option<String>,
    /// `--kv-dtype D`.
    pub kv_dtype: Option<String>,
    /// `--request-rate R` (requests per second).
    pub request_rate: Option<f64>,
    /// `--ttft-p50 S`, seconds.
    pub ttft_p50: Option<f64>,
    /// `--ttft-p99 S`, seconds.
    pub ttft_p99: Option<f64>,
    /// `--tpot S`, seconds.
    pub tpot: Option<f64>,
    /// `--search`: add `inference.search` (every catalog chip).
    pub search: bool,
}

/// A usage error, naming the option.
#[derive(Debug, PartialEq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Usage text.
pub const USAGE: &str = "\
shardcalc — transformer accounting, hardware and collectives after 'How to Scale Your Model'

USAGE:
  shardcalc eval [SCENARIO.json] [--preset ID | --hf-config FILE | --maxtext-config FILE]
                 [--per-device-batch B] [--seq-len S] [--grad-accum N]
                 [--remat none|save_matmuls|full] [--convention maxtext|notebook|six_nd|book]
                 [--chip ID] [--mesh dp=N,fsdp=N,tp=N,ep=N,cp=N,pp=N]
                 [--prompt-len P --output-len G] [--batch B]
                 [--weights-dtype D] [--kv-dtype D] [--set PATH=VALUE]...
                 [--request-rate R] [--ttft-p50 S] [--ttft-p99 S] [--tpot S] [--search]
                 [--view model|hardware|training|serving|validation]
      Print one JSON report (keys documented in docs/report.md). Options override the
      scenario file; without a scenario the default is llama-3-8b, batch 1 x 4096.
      --set reads VALUE into the field at PATH exactly as the page's field reads it
      (e.g. --set training.global_batch=1024 --set hardware.topology=8x8x8); it is
      applied after every other option, in order. `shardcalc fields` lists the paths.
      --view prints what that page shows instead (its defaults filled in where the
      scenario has no section for it): e.g. training adds the explored mesh, the bands
      and the planning problems to the search's best plan.
      --chip sets the scenario's hardware chip (keeping its topology), which adds the
      `hardware` section; `collectives` and `roofline` come from the scenario file.
      --prompt-len and --output-len add an `inference` section (serving: decode step,
      prefill, memory, disaggregation; needs a chip); --batch (default: the largest that
      fits), --weights-dtype and --kv-dtype (bf16, fp8, int8, int4, nvfp4, mxfp4) set its
      fields; --request-rate (requests per second) sizes co-located and disaggregated
      servers, --ttft-p50, --ttft-p99 and --tpot (seconds) are their latency targets, and
      --search finds the cheapest deployment under them (`inference.search`).
      --mesh evaluates that mesh in the scenario's `training` section instead of the
      search's best (axes not named are 1).
  shardcalc maxtext [--chip ID] [--topology AxBxC] [--slices N] [--log FILE] -- [BASE.yml] KEY=VALUE...
      Read a MaxText training command line as train.py reads it (an optional base YAML,
      then key=value overrides; model_name=NAME loads MaxText's bundled model YAML;
      upper-case NAME=VALUE (LIBTPU_INIT_ARGS=FLAGS, M_<KEY>=...) is the run's environment) and
      print eval's JSON report for that exact mesh (the search's best beside it, under
      training.search), the import (`maxtext`: the scenario, and every key read, unknown,
      ignored or warned about) and `maxtext_log`: what MaxText's log would print (TFLOP/s
      and tokens/s per device, seconds per step, MFU, memory per device). Without
      --chip/--topology the run's compile_topology names the slice; --slices (else
      num_slices) joins slices over DCN. --log FILE compares a MaxText log's steps with
      the prediction, term by term (`maxtext_measured`).
  shardcalc torchtitan [--chip ID] [--gpus-per-node N] [--nodes N] [--hf-config FILE] CONFIG.toml
      Read a torchtitan TOML training config ([parallelism] degrees, [training] batch and
      seq_len, [activation_checkpoint], float8 converters; the model from [model] name and
      flavor, or --hf-config) on N nodes of GPUs (default one node of h100-sxm) and print
      eval's JSON report for its mesh, with the import under `torchtitan`.
  shardcalc chart [SCENARIO.json] --chart NAME [-o OUT.svg]
      Draw one chart as SVG, with the page's plotting code (the same chart the page's
      `#chart-NAME` canvas shows for that scenario); without -o the SVG goes to standard
      output. For documentation builds: no browser needed.
  shardcalc chart --list     List the chart names (and the page each is on).
  shardcalc fields           List every field --set takes (path, unit, label).
  shardcalc validate serving Print the serving validation as JSON: every published serving
                             run of core/data/serving-runs.csv with the serving model's ideal
                             and calibrated predictions and errors, the engine x chip split and
                             the statistics per group (docs/serving-validation.md shows it).
  shardcalc presets          List model presets (id, name, parameters).
  shardcalc chips            List the hardware catalog (id, name, bf16 FLOP/s, HBM, links,
                             scale-out bandwidth, per-hop latencies; n/a: none published).
  shardcalc schema scenario|report
                             Print the JSON Schema of the scenario or the report.
  shardcalc validation       Print the calibration (core/data/calibration.json) and the
                             held-back errors of the grouped validation splits, per split
                             and fold, as JSON (docs/validation.md has every run).
  shardcalc help             This text.

Exit status: 0 on success, 2 on invalid input (the message names the field), 1 on I/O errors.
";

fn value<'a>(flag: &str, it: &mut impl Iterator<Item = &'a String>) -> Result<&'a String, UsageError> {
    it.next().ok_or_else(|| UsageError(format!("{flag} needs a value")))
}

fn number<T: std::str::FromStr>(flag: &str, s: &str) -> Result<T, UsageError> {
    s.trim().parse().map_err(|_| UsageError(format!("{flag}: {s:?} is not a valid number")))
}

/// Parse `args` (without the program name).
///
/// # Errors
/// Unknown commands or options, missing values and malformed numbers.
pub fn parse(args: &[String]) -> Result<Command, UsageError> {
    let mut it = args.iter();
    let Some(cmd) = it.next() else {
        return Ok(Command::Help);
    };
    match cmd.as_str() {
        "help" | "--help" | "-h" => Ok(Command::Help),
        "presets" => Ok(Command::Presets),
        "fields" => Ok(Command::Fields),
        "chips" => Ok(Command::Chips),
        "validation" => Ok(Command::Validation),
        "schema" => {
            let which = value("schema", &mut it)?;
            match which.as_str() {
                "scenario" | "report" => Ok(Command::Schema(which.clone())),
                other => Err(UsageError(format!("schema: unknown schema {other:?}; use `scenario` or `report`"))),
            }
        }
        "eval" => {
            let mut a = EvalArgs::default();
            while let Some(arg) = it.next() {
                match arg.as_str() {
                    "--preset" => a.preset = Some(value(arg, &mut it)?.clone()),
                    "--hf-config" => a.hf_config = Some(value(arg, &mut it)?.clone()),
                    "--maxtext-config" => a.maxtext_config = Some(value(arg, &mut it)?.clone()),
                    "--per-device-batch" => {
                        a.per_device_batch = Some(number(arg, value(arg, &mut it)?)?);
                    }
                    "--seq-len" => a.seq_len = Some(number(arg, value(arg, &mut it)?)?),
                    "--grad-accum" => a.grad_accum = Some(number(arg, value(arg, &mut it)?)?),
                    "--remat" => a.remat = Some(value(arg, &mut it)?.clone()),
                    "--convention" => a.convention = Some(value(arg, &mut it)?.clone()),
                    "--chip" => a.chip = Some(value(arg, &mut it)?.clone()),
                    "--prompt-len" => a.serving.prompt_len = Some(number(arg, value(arg, &mut it)?)?),
                    "--output-len" => a.serving.output_len = Some(number(arg, value(arg, &mut it)?)?),
                    "--batch" => a.serving.batch = Some(number(arg, value(arg, &mut it)?)?),
                    "--weights-dtype" => a.serving.weights_dtype = Some(value(arg, &mut it)?.clone()),
                    "--kv-dtype" => a.serving.kv_dtype = Some(value(arg, &mut it)?.clone()),
                    "--request-rate" => a.serving.request_rate = Some(number(arg, value(arg, &mut it)?)?),
                    "--ttft-p50" => a.serving.ttft_p50 = Some(number(arg, value(arg, &mut it)?)?),
                    "--ttft-p99" => a.serving.ttft_p99 = Some(number(arg, value(arg, &mut it)?)?),
                    "--tpot" => a.serving.tpot = Some(number(arg, value(arg, &mut it)?)?),
                    "--search" => a.serving.search = true,
                    "--mesh" => a.mesh = Some(value(arg, &mut it)?.clone()),
                    "--set" => {
                        let pair = value(arg, &mut it)?;
                        let (path, text) = pair
                            .split_once('=')
                            .ok_or_else(|| UsageError(format!("--set: {pair:?} is not PATH=VALUE")))?;
                        a.set.push((path.trim().to_string(), text.to_string()));
                    }
                    "--view" => {
                        let name = value(arg, &mut it)?;
                        a.view = Some(View::parse(name).ok_or_else(|| {
                            UsageError(format!(
                                "--view: unknown page {name:?}; use model, hardware, training, serving or validation"
                            ))
                        })?);
                    }
                    flag if flag.starts_with('-') => {
                        return Err(UsageError(format!("eval: unknown option {flag}")));
                    }
                    path => {
                        if a.scenario.is_some() {
                            return Err(UsageError(format!(
                                "eval: only one scenario file may be given (extra: {path})"
                            )));
                        }
                        a.scenario = Some(path.to_string());
                    }
                }
            }
            let sources = [&a.preset, &a.hf_config, &a.maxtext_config].iter().filter(|s| s.is_some()).count();
            if sources > 1 {
                return Err(UsageError("eval: give at most one of --preset, --hf-config, --maxtext-config".into()));
            }
            Ok(Command::Eval(a))
        }
        "chart" => parse_chart(&mut it),
        "maxtext" => parse_maxtext(&mut it),
        "torchtitan" => {
            let mut a = TorchtitanArgs::default();
            while let Some(arg) = it.next() {
                match arg.as_str() {
                    "--chip" => a.chip = Some(value(arg, &mut it)?.clone()),
                    "--gpus-per-node" => a.gpus_per_node = Some(number(arg, value(arg, &mut it)?)?),
                    "--nodes" => a.nodes = Some(number(arg, value(arg, &mut it)?)?),
                    "--hf-config" => a.hf_config = Some(value(arg, &mut it)?.clone()),
                    flag if flag.starts_with('-') => {
                        return Err(UsageError(format!("torchtitan: unknown option {flag}")))
                    }
                    path if a.file.is_empty() => a.file = path.to_string(),
                    extra => return Err(UsageError(format!("torchtitan: one config file only (extra: {extra})"))),
                }
            }
            if a.file.is_empty() {
                return Err(UsageError("torchtitan: a TOML config file is needed".into()));
            }
            Ok(Command::Torchtitan(a))
        }
        "validate" => {
            let which = value("validate", &mut it)?;
            match which.as_str() {
                "serving" => Ok(Command::Validate(which.clone())),
                other => Err(UsageError(format!("validate: unknown validation {other:?}; use `serving`"))),
            }
        }
        other => Err(UsageError(format!("unknown command {other:?}; try `shardcalc help`"))),
    }
}

/// `maxtext [--chip ID] [--topology S] [--slices N] [--log FILE] [--] ARGS...`: options
/// first; everything after `--` (or from the first argument that is not an option) is
/// MaxText's.
fn parse_maxtext<'a>(it: &mut impl Iterator<Item = &'a String>) -> Result<Command, UsageError> {
    let mut a = MaxTextArgs::default();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--" => break,
            "--chip" => a.chip = Some(value(arg, it)?.clone()),
            "--topology" => a.topology = Some(value(arg, it)?.clone()),
            "--slices" => a.slices = Some(number(arg, value(arg, it)?)?),
            "--log" => a.log = Some(value(arg, it)?.clone()),
            flag if flag.starts_with("--") => return Err(UsageError(format!("maxtext: unknown option {flag}"))),
            first => {
                a.args.push(first.to_string());
                break;
            }
        }
    }
    a.args.extend(it.cloned());
    if a.args.is_empty() && a.log.is_none() {
        return Err(UsageError(
            "maxtext: MaxText's arguments are needed after `--` (e.g. -- model_name=llama3-8b per_device_batch_size=4)"
                .into(),
        ));
    }
    Ok(Command::MaxText(a))
}

/// `chart [SCENARIO.json] --chart NAME [-o FILE]` or `chart --list`.
fn parse_chart<'a>(it: &mut impl Iterator<Item = &'a String>) -> Result<Command, UsageError> {
    let (mut a, mut chart, mut list) = (ChartArgs::default(), None, false);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--list" => list = true,
            "--chart" => chart = Some(value(arg, it)?.clone()),
            "-o" | "--output" => a.out = Some(value(arg, it)?.clone()),
            flag if flag.starts_with('-') && flag != "-" => {
                return Err(UsageError(format!("chart: unknown option {flag}")));
            }
            path => {
                if a.scenario.is_some() {
                    return Err(UsageError(format!("chart: only one scenario file may be given (extra: {path})")));
                }
                a.scenario = Some(path.to_string());
            }
        }
    }
    match (list, chart) {
        (true, None) if a.scenario.is_none() && a.out.is_none() => Ok(Command::ChartList),
        (true, _) => Err(UsageError("chart: --list takes no other argument".into())),
        (false, Some(name)) => {
            a.chart = name;
            Ok(Command::Chart(a))
        }
        (false, None) => Err(UsageError("chart: --chart NAME is needed (see `shardcalc chart --list`)".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_eval_options() {
        let c = parse(&args("eval s.json --preset llama-3-8b --per-device-batch 2 --seq-len 8192")).unwrap();
        assert_eq!(
            c,
            Command::Eval(EvalArgs {
                scenario: Some("s.json".into()),
                preset: Some("llama-3-8b".into()),
                per_device_batch: Some(2.0),
                seq_len: Some(8192),
                ..EvalArgs::default()
            })
        );
    }

    #[test]
    fn parses_set_and_view() {
        let c = parse(&args("eval --set training.global_batch=1024 --set hardware.topology= --view training")).unwrap();
        let Command::Eval(a) = c else { panic!("not eval") };
        assert_eq!(
            a.set,
            [("training.global_batch".to_string(), "1024".to_string()), ("hardware.topology".into(), String::new())]
        );
        assert_eq!(a.view, Some(View::Training));
        assert!(parse(&args("eval --set seq_len")).unwrap_err().0.contains("PATH=VALUE"));
        assert!(parse(&args("eval --view nope")).unwrap_err().0.contains("--view"));
    }

    #[test]
    fn errors_name_the_option() {
        assert_eq!(parse(&args("eval --seq-len abc")).unwrap_err().0, "--seq-len: \"abc\" is not a valid number");
        assert!(parse(&args("eval --seq-len")).unwrap_err().0.contains("--seq-len"));
        assert!(parse(&args("eval --bogus 1")).unwrap_err().0.contains("--bogus"));
        assert!(parse(&args("eval --preset a --hf-config b")).is_err());
        assert!(parse(&args("frobnicate")).is_err());
    }

    #[test]
    fn parses_chart_options() {
        assert_eq!(
            parse(&args("chart s.json --chart seq-len -o out.svg")).unwrap(),
            Command::Chart(ChartArgs {
                scenario: Some("s.json".into()),
                chart: "seq-len".into(),
                out: Some("out.svg".into())
            })
        );
        assert_eq!(parse(&args("chart --list")).unwrap(), Command::ChartList);
        assert!(parse(&args("chart s.json")).unwrap_err().0.contains("--chart"));
        assert!(parse(&args("chart --list --chart x")).unwrap_err().0.contains("--list"));
        assert!(parse(&args("chart --chart")).unwrap_err().0.contains("--chart needs a value"));
        assert!(parse(&args("chart --chart x -q")).unwrap_err().0.contains("-q"));
        assert!(parse(&args("chart a.json b.json --chart x")).unwrap_err().0.contains("b.json"));
    }

    #[test]
    fn parses_validate() {
        assert_eq!(parse(&args("validate serving")).unwrap(), Command::Validate("serving".into()));
        assert!(parse(&args("validate training")).unwrap_err().0.contains("serving"));
        assert!(parse(&args("validate")).unwrap_err().0.contains("needs a value"));
    }

    #[test]
    fn parses_maxtext() {
        let c = parse(&args("maxtext --chip tpu-v5p --topology 4x4x8 --slices 2 -- base.yml ici_fsdp_parallelism=-1"))
            .unwrap();
        assert_eq!(
            c,
            Command::MaxText(MaxTextArgs {
                chip: Some("tpu-v5p".into()),
                topology: Some("4x4x8".into()),
                slices: Some(2),
                log: None,
                args: vec!["base.yml".into(), "ici_fsdp_parallelism=-1".into()],
            })
        );
        let Command::MaxText(a) = parse(&args("maxtext model_name=x --chip y")).unwrap() else { panic!() };
        assert_eq!(a.args, ["model_name=x", "--chip", "y"], "after the first argument everything is MaxText's");
        assert!(parse(&args("maxtext --chip")).is_err());
        assert!(parse(&args("maxtext --chip x")).unwrap_err().0.contains("after `--`"));
        assert!(parse(&args("maxtext --bogus")).unwrap_err().0.contains("--bogus"));
    }

    #[test]
    fn no_arguments_is_help() {
        assert_eq!(parse(&[]).unwrap(), Command::Help);
    }
}
