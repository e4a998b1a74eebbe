//! MaxText runs in, MaxText's log numbers out (issue 19).
//!
//! - [`import_run`]: a MaxText command line (`[base.yml] key=value ...`, what `train.py`
//!   takes) and where it runs (`--chip`, `--topology`, `--slices`) as a [`Scenario`]: the
//!   model (`model_name` or the model keys, [`crate::import`]'s reader), the batch, the
//!   sequence, gradient accumulation, the mesh from every `ici_*` / `dcn_*` degree, the
//!   remat policy (custom placements included), number formats, optimizer, attention and
//!   MoE kernels, pipeline, and the XLA flags it models; with a [`KeyReport`] of every key:
//!   read (and what it set), unknown to MaxText, ignored, or a warning.
//! - [`log`]: what MaxText's log prints for a plan (TFLOP/s per device in MaxText's own
//!   FLOP convention, tokens/s per device, seconds per step, MFU, memory per device), a
//!   reader of MaxText's log lines, and measured against predicted, term by term.
//!
//! | concept | module |
//! |---|---|
//! | the command line and pasted scripts | [`args`] |
//! | base.yml, the model file and the overrides merged as `pyconfig.py` merges them | [`config`] |
//! | the chip, slice and slices (`compile_topology` too) | [`hardware`] |
//! | `ici_*` / `dcn_*` degrees → shardcalc's mesh | [`mesh`] |
//! | `remat_policy` and the per-tensor placements | `remat` |
//! | batch, formats, optimizer, kernels, pipeline, XLA flags | `settings` |
//! | keys not read: unknown, ignored, warnings | [`unread`] |
//! | MaxText's log: predicted ([`log`]), read and compared ([`log_file`]) | [`log`], [`log_file`] |
//! | everything `shardcalc maxtext` prints | [`report`] |
//! | MaxText's files, bundled with feature `maxtext-configs` | `bundle` |

pub mod args;
#[cfg(feature = "maxtext-configs")]
pub mod bundle;
pub mod config;
pub mod hardware;
pub mod log;
pub mod log_file;
pub mod mesh;
pub mod presets;
mod reader;
mod remat;
pub mod report;
mod settings;
pub mod unread;

pub use args::CommandLine;
pub use config::Configs;
pub use hardware::HardwareArgs;
pub use reader::{show, KeyRead};
pub use report::{evaluate_run, MaxTextReport};
pub use unread::KeyValue;

use crate::import::{from_maxtext_map, ImportError, ImportWarning};
use crate::scenario::{ModelSource, Scenario};
use crate::training::mesh::{network_index, split_mesh, Parallelism};
use reader::Reader;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What happened to every key of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KeyReport {
    /// Keys given and read, with the scenario fields each set.
    pub read: Vec<KeyRead>,
    /// What the import approximated or could not model (each names its key).
    pub warnings: Vec<ImportWarning>,
    /// Keys given that are not in MaxText's base.yml (MaxText would refuse them).
    pub unknown: Vec<KeyValue>,
    /// Keys given that cannot change the step (paths, logging, schedules, ...) or equal
    /// base.yml's default.
    pub ignored: Vec<KeyValue>,
}

/// A MaxText run as a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MaxTextRun {
    /// The scenario: its `training` section plans exactly the run's mesh, with the search
    /// beside it (`training.search`).
    pub scenario: Scenario,
    /// `model_name`, when given.
    pub model_name: Option<String>,
    /// JAX devices (chips, or TensorCore chiplets on TPU7x).
    pub devices: u64,
    /// Slices (or GPU nodes).
    pub slices: u64,
    /// Every key, sorted.
    pub keys: KeyReport,
}

/// Import a MaxText run.
///
/// `base_file` is the text of the base YAML the command line names (`None`: MaxText's
/// base.yml); `configs` are MaxText's own files ([`Configs::available`]).
///
/// # Errors
/// Keys MaxText itself would refuse (two `-1` on a network, degrees that do not multiply
/// to the devices), models or settings shardcalc cannot represent, each naming its key.
pub fn import_run(
    cmd: &CommandLine,
    base_file: Option<&str>,
    hw: &HardwareArgs,
    configs: Configs<'_>,
) -> Result<MaxTextRun, ImportError> {
    let merged = config::merge(cmd, base_file, configs)?;
    let mut r = Reader::new(&merged);
    r.warnings.extend(merged.warnings.iter().cloned());
    for key in ["model_name", "override_model_config"] {
        r.value(key, "the model file");
    }
    for (key, now) in config::LEGACY_KEYS {
        r.value(key, now);
    }
    let (mut model, model_keys) = match merged.model_preset {
        Some(id) => {
            let p = crate::presets::get(id)
                .ok_or_else(|| ImportError::unsupported("model_name", format!("preset {id} is missing")))?;
            (p.config, BTreeSet::new())
        }
        None => {
            let read = from_maxtext_map(&merged.given_values())?;
            r.warnings.extend(read.imported.warnings);
            (read.imported.config, read.used)
        }
    };
    if let Some(name) = &merged.model_name {
        model.name = crate::import::model_name(&format!("MaxText {name}"));
    }
    for key in &model_keys {
        if let Some(v) = merged.values.get(key) {
            r.read.push(KeyRead { key: key.clone(), value: show(v), sets: "model".into() });
        }
        r.used.insert(key.clone());
    }
    let hardware = hardware::resolve(&mut r, hw)?;
    let devices = hardware.per_slice.saturating_mul(hardware.slices);
    let mesh = mesh::read_mesh(&mut r, hardware.per_slice, hardware.slices)?;
    let (workload, section) = settings::read_settings(&mut r, cmd, &model, &mesh, devices)?;
    dcn_placement(&mut r, &mesh, &hardware);

    let unread = unread::sort_unread(&merged, &r.used);
    let mut warnings = r.warnings;
    warnings.extend(unread.warnings);
    let keys = KeyReport { read: r.read, warnings, unknown: unread.unknown, ignored: unread.ignored };
    let scenario = Scenario {
        model: ModelSource::Custom(Box::new(model)),
        workload,
        hardware: Some(hardware.section),
        training: Some(section),
        ..Scenario::default()
    };
    Ok(MaxTextRun { scenario, model_name: merged.model_name.clone(), devices, slices: hardware.slices, keys })
}

/// Warn when the planner would lay the mesh over the data-center network differently from
/// MaxText's `dcn_*` degrees (it puts DP there first, then PP, FSDP, EP, CP).
fn dcn_placement(r: &mut Reader<'_>, mesh: &mesh::RunMesh, hw: &hardware::Resolved) {
    if hw.slices <= 1 {
        return;
    }
    let mut capacity = [1u64; 3];
    if let Some(topology) = &hw.section.topology {
        for a in &topology.axes {
            let n = network_index(a.network);
            capacity[n] = capacity[n].saturating_mul(a.size);
        }
    }
    let Ok(split) = split_mesh(&mesh.mesh(), capacity) else { return };
    let planned = split[network_index(crate::collectives::Network::ScaleOut)];
    if planned != mesh.dcn.degrees() {
        let show = |d: [u64; 6]| {
            Parallelism::ALL
                .iter()
                .zip(d)
                .filter(|(_, v)| *v > 1)
                .map(|(p, v)| format!("{} {v}", p.label()))
                .collect::<Vec<_>>()
                .join(" × ")
        };
        r.warn(
            "dcn_*_parallelism",
            format!(
                "the planner lays {} over the data-center network, MaxText {}: the communication is timed for the planner's placement",
                show(planned),
                show(mesh.dcn.degrees())
            ),
        );
    }
}

#[cfg(test)]
mod tests;
