//! torchtitan's TOML training configs (`torchtitan/models/*/train_configs/*.toml`, the
//! `JobConfig` of `torchtitan/config/job_config.py` at 9810191bb^, the last version with TOML
//! files, 2026-02) as a scenario, the way [`crate::maxtext`] reads MaxText's command lines:
//!
//! - `[model]` `name` and `flavor` → a preset (llama3 8B/70B/405B, llama4 17bx16e,
//!   deepseek_v3 671B, qwen3 8B/30B-A3B/235B-A22B, gpt_oss 120b), or the caller's model;
//!   `converters` with `float8` (or `quantize.linear.float8`, `quantize.grouped_mm.float8`,
//!   `mx`) → fp8 matmuls;
//! - `[parallelism]`: `data_parallel_replicate_degree` → dp, `data_parallel_shard_degree`
//!   (−1: the rest of the GPUs) → fsdp, `tensor_parallel_degree` → tp (with
//!   `enable_async_tensor_parallel`: TP's collectives overlap the matmuls),
//!   `context_parallel_degree` → cp, `pipeline_parallel_degree` → pp (schedule, microbatch
//!   size), `expert_parallel_degree` → ep (torchtitan borrows it from the data-shard ranks);
//! - `[training]`: `local_batch_size` per data-parallel rank, `global_batch_size` (−1: local ×
//!   the data-parallel degree; above it, gradient accumulation), `seq_len`, `steps`,
//!   `mixed_precision_param` / `mixed_precision_reduce`;
//! - `[activation_checkpoint]`: `none`, `full`, `selective` by op (torchtitan's op policy saves
//!   every other matmul of a block and the attention output: q, v, context, the gate
//!   projection and the down projection, exactly a custom remat policy) or every n-th layer;
//! - `[optimizer]` `name`.
//!
//! Every other key is listed, as for MaxText: ignored (jobs, logging, checkpoints, data,
//! schedules, validation) or a warning.

use crate::dtype::DType;
use crate::flops::Workload;
use crate::hardware::catalog;
use crate::hardware::query::{ChipSource, HardwareSection};
use crate::hardware::shape::topology_for;
use crate::import::{ImportError, ImportWarning};
use crate::maxtext::{KeyRead, KeyReport, KeyValue};
use crate::model::ModelConfig;
use crate::scenario::{ModelSource, Scenario};
use crate::training::mesh::Mesh;
use crate::training::optimizer::{Optimizer, TrainingDtypes};
use crate::training::pipeline::{Pipeline, Schedule};
use crate::training::section::{GlobalBatch, SearchOptions, TrainingSection};
use crate::training::tensors::{CustomRemat, Placement, Remat};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// torchtitan `(model.name, model.flavor)` → shardcalc preset.
pub const PRESET_FLAVORS: &[(&str, &str, &str)] = &[
    ("llama3", "8B", "llama-3-8b"),
    ("llama3", "70B", "llama-3-70b"),
    ("llama3", "405B", "llama-3.1-405b"),
    ("llama4", "17bx16e", "llama-4-scout"),
    ("deepseek_v3", "671B", "deepseek-v3"),
    ("qwen3", "8B", "qwen3-8b"),
    ("qwen3", "30B-A3B", "qwen3-30b-a3b"),
    ("qwen3", "235B-A22B", "qwen3-235b-a22b"),
    ("gpt_oss", "120b", "gpt-oss-120b"),
];

/// Sections and keys that cannot change a training step.
const INERT: &[&str] = &[
    "job.",
    "profiling.",
    "metrics.",
    "checkpoint.",
    "lr_scheduler.",
    "validation.",
    "comm.",
    "experimental.",
    "fault_tolerance.",
    "debug.",
    "memory_estimation.",
    "optimizer.lr",
    "optimizer.eps",
    "optimizer.weight_decay",
    "optimizer.beta",
    "model.hf_assets_path",
    "model.tokenizer_path",
    "model.print_after_conversion",
    "training.dataset",
    "training.max_norm",
    "training.gc_",
    "training.dataloader.",
    "compile.",
    "quantize.linear.float8.filter_fqns",
    "quantize.linear.float8.recipe_name",
    "quantize.linear.float8.emulate",
    "quantize.linear.float8.precompute_float8_dynamic_scale_for_fsdp",
    "parallelism.context_parallel_load_balancer",
    "parallelism.fsdp_reshard_after_forward",
    "parallelism.disable_loss_parallel",
];

/// Where the run runs: a chip, GPUs per node and nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuArgs {
    /// A catalog chip id (default `h100-sxm`).
    pub chip: Option<String>,
    /// GPUs per node (default the chip's NVLink domain).
    pub gpus_per_node: Option<u64>,
    /// Nodes (default 1).
    pub nodes: Option<u64>,
}

/// A torchtitan config as a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TorchtitanRun {
    /// The scenario: its `training` section is the config's mesh, with the search beside it.
    pub scenario: Scenario,
    /// GPUs.
    pub devices: u64,
    /// Every key, sorted.
    pub keys: KeyReport,
}

/// The config's keys, flattened to `section.key`.
fn flatten(prefix: &str, table: &toml::Table, out: &mut BTreeMap<String, Value>) {
    for (k, v) in table {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            toml::Value::Table(t) => flatten(&key, t, out),
            other => {
                out.insert(key, serde_json::to_value(other).unwrap_or(Value::Null));
            }
        }
    }
}

struct Keys {
    values: BTreeMap<String, Value>,
    used: BTreeSet<String>,
    read: Vec<KeyRead>,
    warnings: Vec<ImportWarning>,
}

impl Keys {
    fn get(&mut self, key: &str, sets: &str) -> Option<Value> {
        self.used.insert(key.to_owned());
        let v = self.values.get(key)?.clone();
        self.read.push(KeyRead { key: key.into(), value: crate::maxtext::show(&v), sets: sets.into() });
        Some(v)
    }
    fn int(&mut self, key: &str, default: i64, sets: &str) -> Result<i64, ImportError> {
        match self.get(key, sets) {
            None => Ok(default),
            Some(v) => v.as_i64().ok_or_else(|| ImportError::field(key, format!("must be a whole number (got {v})"))),
        }
    }
    fn degree(&mut self, key: &str, sets: &str) -> Result<u64, ImportError> {
        let v = self.int(key, 1, sets)?;
        u64::try_from(v)
            .ok()
            .filter(|v| (1..=1 << 24).contains(v))
            .ok_or_else(|| ImportError::field(key, format!("must be from 1 to 2^24 (got {v})")))
    }
    fn string(&mut self, key: &str, default: &str, sets: &str) -> Result<String, ImportError> {
        match self.get(key, sets) {
            None => Ok(default.into()),
            Some(Value::String(s)) => Ok(s),
            Some(v) => Ok(v.to_string()),
        }
    }
    fn bool(&mut self, key: &str, sets: &str) -> Result<bool, ImportError> {
        match self.get(key, sets) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(b),
            Some(v) => Err(ImportError::field(key, format!("must be true or false (got {v})"))),
        }
    }
}

/// torchtitan's selective op policy (`_apply_op_sac`, `distributed/activation_checkpoint.py`):
/// every matmul output but each block's 2nd, 4th, 6th (wk, wo, w3) and the attention output
/// are saved.
#[must_use]
pub fn selective_op_remat() -> Remat {
    Remat::Custom(CustomRemat {
        query_proj: Placement::Device,
        value_proj: Placement::Device,
        context: Placement::Device,
        mlpwi_0: Placement::Device,
        mlpwo: Placement::Device,
        ..CustomRemat::default()
    })
}

/// Import a torchtitan TOML config (`model`: the architecture, when `[model]` names no preset).
///
/// # Errors
/// TOML syntax, an unknown model without `model`, degrees that do not fit the GPUs, each
/// naming its key.
pub fn import_toml(text: &str, hw: &GpuArgs, model: Option<ModelConfig>) -> Result<TorchtitanRun, ImportError> {
    let table: toml::Table =
        text.parse().map_err(|e: toml::de::Error| ImportError::Syntax { line: None, message: e.to_string() })?;
    let mut values = BTreeMap::new();
    flatten("", &table, &mut values);
    let mut k = Keys { values, used: BTreeSet::new(), read: Vec::new(), warnings: Vec::new() };

    let name = k.string("model.name", "llama3", "model")?;
    let flavor = k.string("model.flavor", "debugmodel", "model")?;
    let model = match model {
        Some(m) => m,
        None => {
            let id =
                PRESET_FLAVORS.iter().find(|(n, f, _)| *n == name && *f == flavor).map(|(_, _, id)| *id).ok_or_else(
                    || {
                        let known: Vec<String> = PRESET_FLAVORS.iter().map(|(n, f, _)| format!("{n} {f}")).collect();
                        ImportError::unsupported(
                            "model.flavor",
                            format!(
                                "{name} {flavor} is not a preset ({}); give the model's config.json (--hf-config)",
                                known.join(", ")
                            ),
                        )
                    },
                )?;
            crate::presets::get(id)
                .map(|p| p.config)
                .ok_or_else(|| ImportError::unsupported("model.flavor", format!("preset {id} is missing")))?
        }
    };

    let chip_id = hw.chip.clone().unwrap_or_else(|| "h100-sxm".into());
    let chip =
        catalog::get(&chip_id).ok_or_else(|| ImportError::field("--chip", format!("unknown chip {chip_id:?}")))?;
    let per_node = hw.gpus_per_node.unwrap_or(chip.scale_up.max_chips.clamp(1, 8));
    let nodes = hw.nodes.unwrap_or(1).max(1);
    let world = per_node.saturating_mul(nodes);

    let p = "training.mesh";
    let replicate = k.degree("parallelism.data_parallel_replicate_degree", &format!("{p}.dp"))?;
    let tp = k.degree("parallelism.tensor_parallel_degree", &format!("{p}.tp"))?;
    let cp = k.degree("parallelism.context_parallel_degree", &format!("{p}.cp"))?;
    let pp = k.degree("parallelism.pipeline_parallel_degree", &format!("{p}.pp"))?;
    let ep = k.degree("parallelism.expert_parallel_degree", &format!("{p}.ep"))?;
    let others = replicate.saturating_mul(tp).saturating_mul(cp).saturating_mul(pp);
    let shard = match k.int("parallelism.data_parallel_shard_degree", -1, &format!("{p}.fsdp"))? {
        -1 if others > 0 && world.is_multiple_of(others) => world / others,
        -1 => {
            return Err(ImportError::field(
                "parallelism.data_parallel_shard_degree",
                format!("-1 cannot fill {world} GPUs: the other degrees multiply to {others}"),
            ))
        }
        n => u64::try_from(n).ok().filter(|n| *n >= 1).ok_or_else(|| {
            ImportError::field("parallelism.data_parallel_shard_degree", "must be -1 or a positive degree")
        })?,
    };
    if shard.saturating_mul(others) != world {
        return Err(ImportError::field(
            "parallelism.data_parallel_shard_degree",
            format!(
                "the degrees multiply to {}, not the {world} GPUs ({nodes} nodes of {per_node})",
                shard.saturating_mul(others)
            ),
        ));
    }
    // Expert parallelism borrows the data-shard ranks (torchtitan's `ep` divides dp_shard × cp).
    if ep > 1 && !shard.is_multiple_of(ep) {
        return Err(ImportError::field(
            "parallelism.expert_parallel_degree",
            format!("{ep} must divide data_parallel_shard_degree ({shard}) here"),
        ));
    }
    let mesh = Mesh { dp: replicate, fsdp: shard / ep.max(1), tp, ep, cp, pp };
    if k.degree("parallelism.expert_tensor_parallel_degree", "nothing (experts are not tensor-split here)")? > 1 {
        k.warnings.push(ImportWarning::new(
            "parallelism.expert_tensor_parallel_degree",
            "experts split by TP are modelled as EP alone",
        ));
    }

    let dp_degree = replicate.saturating_mul(shard);
    let local = u64::try_from(k.int("training.local_batch_size", 8, "training.global_batch")?)
        .ok()
        .filter(|b| *b >= 1)
        .ok_or_else(|| ImportError::field("training.local_batch_size", "must be at least 1"))?;
    let global = match k.int("training.global_batch_size", -1, "training.global_batch, training.microbatches")? {
        n if n <= 0 => local.saturating_mul(dp_degree),
        n => n as u64,
    };
    let per_step = local.saturating_mul(dp_degree);
    if !global.is_multiple_of(per_step.max(1)) {
        return Err(ImportError::field(
            "training.global_batch_size",
            format!("{global} is not a multiple of local_batch_size × the data-parallel degree ({per_step})"),
        ));
    }
    let accumulation = global / per_step.max(1);
    let seq_len = u64::try_from(k.int("training.seq_len", 2048, "training.seq_len, workload.seq_len")?)
        .ok()
        .filter(|s| *s >= 1)
        .ok_or_else(|| ImportError::field("training.seq_len", "must be at least 1"))?;

    let mut t = TrainingSection::new(GlobalBatch::Sequences(global), seq_len);
    t.mesh = Some(mesh);
    t.search = Some(SearchOptions::default());
    t.overlap.tensor = k.bool("parallelism.enable_async_tensor_parallel", "training.overlap.tensor")?;
    let microbatch =
        u64::try_from(k.int("parallelism.pipeline_parallel_microbatch_size", 1, "training.microbatches")?)
            .unwrap_or(1)
            .max(1);
    let schedule = k.string("parallelism.pipeline_parallel_schedule", "1F1B", "training.pipeline")?;
    if pp > 1 {
        t.pipeline = match schedule.as_str() {
            "1F1B" => Pipeline { schedule: Schedule::OneFOneB, virtual_stages: 1 },
            "GPipe" => Pipeline { schedule: Schedule::Gpipe, virtual_stages: 1 },
            other => {
                let stages =
                    k.int("parallelism.pipeline_parallel_layers_per_stage", 0, "training.pipeline.virtual_stages")?;
                let v = if stages > 0 { (model.num_layers / (pp * stages as u64).max(1)).max(2) } else { 2 };
                if other != "Interleaved1F1B" {
                    k.warnings.push(ImportWarning::new(
                        "parallelism.pipeline_parallel_schedule",
                        format!("{other}: modelled as interleaved 1F1B with {v} stages per rank"),
                    ));
                }
                Pipeline { schedule: Schedule::Interleaved, virtual_stages: v }
            }
        };
        t.microbatches = Some((local / microbatch).max(1).saturating_mul(accumulation));
    } else {
        t.microbatches = (accumulation > 1).then_some(accumulation);
    }

    t.remat = match k.string("activation_checkpoint.mode", "selective", "training.remat")?.as_str() {
        "none" => Remat::None,
        "full" => Remat::Full,
        "selective" => match k.string("activation_checkpoint.selective_ac_option", "2", "training.remat")?.as_str() {
            "op" => selective_op_remat(),
            "1" => Remat::Full,
            n => {
                k.warnings.push(ImportWarning::new("activation_checkpoint.selective_ac_option", format!("{n}: every {n}th block fully checkpointed, the others not; modelled as `minimal` (matmul outputs kept), in between")));
                Remat::Minimal
            }
        },
        other => {
            k.warnings.push(ImportWarning::new(
                "activation_checkpoint.mode",
                format!("{other}: modelled as the selective op policy"),
            ));
            selective_op_remat()
        }
    };
    let param = k.string("training.mixed_precision_param", "bfloat16", "training.dtypes.activations, compute")?;
    let reduce = k.string("training.mixed_precision_reduce", "float32", "training.dtypes.gradients")?;
    let stored = k.string("training.dtype", "float32", "training.dtypes.weights, optimizer")?;
    let fmt =
        |key: &str, s: &str| DType::parse(s).ok_or_else(|| ImportError::field(key, format!("unknown format {s:?}")));
    let activations = fmt("training.mixed_precision_param", &param)?;
    let converters: Vec<String> = match k.get("model.converters", "training.dtypes.compute") {
        Some(Value::Array(items)) => items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect(),
        Some(Value::String(s)) => s.split(',').map(|c| c.trim().to_owned()).collect(),
        _ => Vec::new(),
    };
    let fp8 = converters.iter().any(|c| c.contains("float8") || c.contains(".mx"))
        || k.bool("float8.enable_float8_linear", "training.dtypes.compute")?;
    if converters.iter().any(|c| c.contains(".mx") || c == "mx") {
        k.warnings
            .push(ImportWarning::new("model.converters", "MX (block-scaled fp8) matmuls modelled at the fp8 peak"));
    }
    if k.bool("quantize.linear.float8.enable_fsdp_float8_all_gather", "nothing (FSDP gathers in bf16 here)")? {
        k.warnings.push(ImportWarning::new(
            "quantize.linear.float8.enable_fsdp_float8_all_gather",
            "FSDP's fp8 all-gather is not modelled: the weights are gathered in bf16",
        ));
    }
    t.dtypes = TrainingDtypes {
        weights: fmt("training.dtype", &stored)?,
        gradients: fmt("training.mixed_precision_reduce", &reduce)?,
        optimizer: fmt("training.dtype", &stored)?,
        activations,
        compute: if fp8 { DType::Fp8 } else { activations },
    };
    if t.dtypes.compute == DType::Fp32 {
        return Err(ImportError::unsupported("training.mixed_precision_param", "float32 matmuls are not modelled"));
    }
    t.optimizer = match k.string("optimizer.name", "AdamW", "training.optimizer")?.as_str() {
        "AdamW" | "Adam" => Optimizer::Adam { master_weights: false },
        other => {
            k.warnings.push(ImportWarning::new("optimizer.name", format!("{other}: modelled as AdamW's state")));
            Optimizer::Adam { master_weights: false }
        }
    };
    if let Some(steps) = k.get("training.steps", "training.token_budget").and_then(|v| v.as_u64()) {
        t.token_budget = Some(steps as f64 * global as f64 * seq_len as f64);
    }
    if k.bool("training.enable_cpu_offload", "nothing (not modelled)")? {
        k.warnings.push(ImportWarning::new(
            "training.enable_cpu_offload",
            "parameters and optimizer state offloaded to the CPU: not modelled",
        ));
    }

    let topology = topology_for(&chip, &[per_node], nodes, None);
    let per_device_batch = global as f64 / world.max(1) as f64 / accumulation.max(1) as f64;
    let workload = Workload { per_device_batch, seq_len, grad_accum: accumulation, remat: t.remat.flops_policy() };
    let mut keys = KeyReport { read: k.read, warnings: k.warnings, unknown: Vec::new(), ignored: Vec::new() };
    for (key, v) in &k.values {
        if k.used.contains(key) {
            continue;
        }
        let kv = KeyValue { key: key.clone(), value: crate::maxtext::show(v) };
        if INERT.iter().any(|p| key.starts_with(p)) {
            keys.ignored.push(kv);
        } else {
            keys.warnings.push(ImportWarning::new(
                key.clone(),
                format!("= {}: not modelled; if it changes performance, the prediction does not show it", kv.value),
            ));
        }
    }
    let scenario = Scenario {
        model: ModelSource::Custom(Box::new(model)),
        workload,
        hardware: Some(HardwareSection { chip: ChipSource::Preset(chip.id.clone()), topology: Some(topology) }),
        training: Some(t),
        ..Scenario::default()
    };
    Ok(TorchtitanRun { scenario, devices: world, keys })
}

/// What `shardcalc torchtitan` prints: `shardcalc eval`'s report for the run's scenario, and
/// the import.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TorchtitanReport {
    /// The keys of `shardcalc eval`'s report (its `training` is the config's own mesh, the
    /// search's best under `training.search`).
    #[serde(flatten)]
    pub report: crate::report::Report,
    /// The import: the scenario, GPUs, and every key.
    pub torchtitan: TorchtitanRun,
}

/// Evaluate an imported config.
///
/// # Errors
/// The scenario's problems, each naming its field.
pub fn evaluate(run: &TorchtitanRun) -> Result<TorchtitanReport, crate::error::Invalid> {
    Ok(TorchtitanReport { report: crate::report::evaluate(&run.scenario)?, torchtitan: run.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LLAMA3_8B: &str = r#"
# torchtitan/models/llama3/train_configs/llama3_8b.toml at 9810191bb^ (a preset for 64 A100s)
[job]
dump_folder = "./outputs"
[model]
name = "llama3"
flavor = "8B"
hf_assets_path = "./assets/hf/Llama-3.1-8B"
[optimizer]
name = "AdamW"
lr = 3e-4
[training]
local_batch_size = 1
seq_len = 8192
steps = 1000
dataset = "c4"
[parallelism]
data_parallel_replicate_degree = 1
data_parallel_shard_degree = -1
tensor_parallel_degree = 1
pipeline_parallel_degree = 1
context_parallel_degree = 1
[activation_checkpoint]
mode = "selective"
selective_ac_option = "op"
[compile]
enable = false
"#;

    #[test]
    fn llama3_8b_on_64_gpus() {
        let hw = GpuArgs { chip: Some("h100-sxm".into()), gpus_per_node: Some(8), nodes: Some(8) };
        let run = import_toml(LLAMA3_8B, &hw, None).unwrap();
        let t = run.scenario.training.as_ref().unwrap();
        assert_eq!(t.mesh, Some(Mesh { fsdp: 64, ..Mesh::default() }));
        assert_eq!((t.sequences(), t.seq_len, t.microbatches), (64, 8192, None));
        assert_eq!(t.remat, selective_op_remat());
        assert_eq!(t.token_budget, Some(1000.0 * 64.0 * 8192.0));
        assert_eq!(run.devices, 64);
        assert!(run.keys.ignored.iter().any(|k| k.key == "job.dump_folder"));
        assert!(run.keys.warnings.is_empty(), "{:?}", run.keys.warnings);
        assert!(crate::report::evaluate(&run.scenario).is_ok());
    }

    #[test]
    fn tensor_parallel_fp8_and_accumulation() {
        let text = LLAMA3_8B
            .replace("tensor_parallel_degree = 1", "tensor_parallel_degree = 8\nenable_async_tensor_parallel = true")
            .replace("flavor = \"8B\"", "flavor = \"8B\"\nconverters = [\"float8\"]")
            .replace("local_batch_size = 1", "local_batch_size = 2\nglobal_batch_size = 64");
        let run = import_toml(&text, &GpuArgs { nodes: Some(8), ..GpuArgs::default() }, None).unwrap();
        let t = run.scenario.training.unwrap();
        assert_eq!(t.mesh, Some(Mesh { fsdp: 8, tp: 8, ..Mesh::default() }));
        // 2 per data-parallel rank × 8 ranks = 16 per microbatch; 64 = 4 accumulation steps.
        assert_eq!((t.sequences(), t.microbatches), (64, Some(4)));
        assert_eq!(t.dtypes.compute, DType::Fp8);
        assert!(t.overlap.tensor);
        let e =
            import_toml(&LLAMA3_8B.replace("flavor = \"8B\"", "flavor = \"debugmodel\""), &GpuArgs::default(), None)
                .unwrap_err();
        assert!(e.to_string().starts_with("model.flavor"), "{e}");
        let e = import_toml("[parallelism\n", &GpuArgs::default(), None).unwrap_err();
        assert!(matches!(e, ImportError::Syntax { .. }));
    }
}
