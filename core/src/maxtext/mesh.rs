//! MaxText's device mesh (`create_device_mesh` in `utils/maxtext_utils.py`,
//! `fill_unspecified_mesh_axes` in `utils/max_utils.py`) as shardcalc's logical mesh.
//!
//! MaxText gives every axis of `mesh_axes` an ICI degree (`ici_<axis>_parallelism`; they
//! multiply to the devices of one slice) and a DCN degree (`dcn_<axis>_parallelism`; they
//! multiply to the slices, and are read only with several slices); one `-1` per network
//! takes the rest (base.yml: `ici_fsdp_parallelism` and `dcn_data_parallelism`). Its axes
//! map onto shardcalc's six by what their logical axis rules shard (`logical_axis_rules`
//! in `base.yml`):
//!
//! | MaxText axis | shardcalc | why |
//! |---|---|---|
//! | `data` | `dp` | batch only |
//! | `diloco` | `dp` | a data-parallel replica (approximation: synchronised every step) |
//! | `fsdp`, `fsdp_transpose` | `fsdp` | batch and weights (`embed`, resp. `mlp`) |
//! | `context`, `context_usp_ulysses`, `context_autoregressive`, `sequence` | `cp` | the sequence |
//! | `tensor`, `tensor_transpose`, `tensor_sequence`, `autoregressive` | `tp` | heads and `mlp` |
//! | `expert` | `ep` | experts and batch |
//! | `stage` | `pp` | layers (`ici_pipeline_parallelism`) |

use super::reader::Reader;
use crate::import::ImportError;
use crate::training::mesh::{Mesh, Parallelism};

/// base.yml's `mesh_axes` (e591f30).
pub const DEFAULT_MESH_AXES: [&str; 12] = [
    "diloco",
    "data",
    "stage",
    "fsdp",
    "fsdp_transpose",
    "context",
    "context_usp_ulysses",
    "context_autoregressive",
    "tensor",
    "tensor_sequence",
    "expert",
    "autoregressive",
];

/// Each MaxText axis, its shardcalc axis, and what the mapping leaves out (`None`: exact).
const AXES: [(&str, Parallelism, Option<&str>); 14] = [
    ("diloco", Parallelism::Dp, Some("DiLoCo replicas synchronise every diloco_sync_period steps; modelled as data parallelism that synchronises every step")),
    ("data", Parallelism::Dp, None),
    ("stage", Parallelism::Pp, None),
    ("fsdp", Parallelism::Fsdp, None),
    ("fsdp_transpose", Parallelism::Fsdp, Some("shards the MLP weights' other dimension; modelled as FSDP")),
    ("sequence", Parallelism::Cp, None),
    ("context", Parallelism::Cp, None),
    ("context_usp_ulysses", Parallelism::Cp, Some("Ulysses context parallelism exchanges heads by AllToAll; modelled as shardcalc's ring (K/V passing) CP")),
    ("context_autoregressive", Parallelism::Cp, Some("an inference axis; modelled as CP")),
    ("tensor", Parallelism::Tp, None),
    ("tensor_transpose", Parallelism::Tp, Some("modelled as TP")),
    ("tensor_sequence", Parallelism::Tp, Some("tensor parallelism with sequence-sharded norms; modelled as TP (shardcalc's TP already keeps activations between blocks sharded)")),
    ("expert", Parallelism::Ep, None),
    ("autoregressive", Parallelism::Tp, Some("an inference axis that shards heads; modelled as TP")),
];

/// The `ici_`/`dcn_` key of an axis (`stage` is `pipeline`).
fn key(network: &str, axis: &str) -> String {
    let name = if axis == "stage" { "pipeline" } else { axis };
    format!("{network}_{name}_parallelism")
}

/// base.yml's default degree of an axis (`-1`: the rest).
fn default_degree(network: &str, axis: &str) -> i64 {
    if (network, axis) == ("ici", "fsdp") || (network, axis) == ("dcn", "data") {
        -1
    } else {
        1
    }
}

/// The run's mesh: its ICI and DCN degrees, in shardcalc's axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunMesh {
    /// Degrees within a slice.
    pub ici: Mesh,
    /// Degrees across slices.
    pub dcn: Mesh,
}

impl RunMesh {
    /// The whole mesh (ICI × DCN per axis).
    #[must_use]
    pub fn mesh(&self) -> Mesh {
        let (a, b) = (self.ici.degrees(), self.dcn.degrees());
        Mesh::from_degrees(std::array::from_fn(|i| a[i].saturating_mul(b[i])))
    }
}

/// MaxText's degrees of one network over `axes`, its `-1` filled so that they multiply to
/// `target`.
fn degrees(r: &mut Reader<'_>, network: &str, axes: &[String], target: u64) -> Result<Vec<(String, u64)>, ImportError> {
    let mut raw = Vec::new();
    for axis in axes {
        let k = key(network, axis);
        let v = r.int(&k, default_degree(network, axis), &format!("training.mesh ({network} {axis})"))?;
        if v == 0 || !(-1..=1 << 24).contains(&v) {
            return Err(ImportError::field(k, format!("must be a degree from 1 to 2^24, or -1 (got {v})")));
        }
        raw.push((axis.clone(), k, v));
    }
    let unset: Vec<&String> = raw.iter().filter(|(_, _, v)| *v == -1).map(|(_, k, _)| k).collect();
    if let [first, second, ..] = unset.as_slice() {
        return Err(ImportError::field(
            (*second).clone(),
            format!("at most one {network} axis may be -1 (also {first}); MaxText refuses this"),
        ));
    }
    let known = raw
        .iter()
        .filter(|(_, _, v)| *v > 0)
        .try_fold(1u64, |acc, (_, _, v)| acc.checked_mul(*v as u64))
        .ok_or_else(|| ImportError::field(format!("{network}_*_parallelism"), "the degrees overflow"))?;
    let what = if network == "dcn" { "slices" } else { "devices per slice" };
    let mut out = Vec::new();
    for (axis, k, v) in raw {
        let d = if v == -1 {
            if known == 0 || !target.is_multiple_of(known) {
                return Err(ImportError::field(
                    k,
                    format!("-1 cannot be filled: the other {network} degrees multiply to {known}, which does not divide the {target} {what}"),
                ));
            }
            target / known
        } else {
            v as u64
        };
        out.push((axis, d));
    }
    let product = out.iter().try_fold(1u64, |acc, (_, d)| acc.checked_mul(*d)).unwrap_or(u64::MAX);
    if product != target {
        return Err(ImportError::field(
            format!("{network}_*_parallelism"),
            format!("the {network} degrees multiply to {product}, not the {target} {what} (MaxText refuses this)"),
        ));
    }
    Ok(out)
}

/// Read the mesh of a run of `slices` slices of `per_slice` devices.
///
/// # Errors
/// Degrees that do not multiply to the devices, two `-1`s on one network, bad numbers.
pub(super) fn read_mesh(r: &mut Reader<'_>, per_slice: u64, slices: u64) -> Result<RunMesh, ImportError> {
    let axes = r
        .strings("mesh_axes", "which ici_/dcn_ degrees count")?
        .unwrap_or_else(|| DEFAULT_MESH_AXES.iter().map(|a| (*a).to_owned()).collect());
    for a in &axes {
        if !AXES.iter().any(|(name, _, _)| name == a) {
            return Err(ImportError::unsupported(
                "mesh_axes",
                format!("the axis `{a}` is not one MaxText's create_device_mesh knows"),
            ));
        }
    }
    // Degrees of axes outside mesh_axes are ignored by MaxText.
    for (name, _, _) in AXES {
        if axes.iter().any(|a| a == name) {
            continue;
        }
        for network in ["ici", "dcn"] {
            let k = key(network, name);
            if r.given(&k) && r.int(&k, 1, "nothing: not in mesh_axes")? != 1 {
                r.warn(&k, format!("ignored, as MaxText ignores it: `{name}` is not in mesh_axes"));
            }
        }
    }
    let ici = degrees(r, "ici", &axes, per_slice)?;
    let dcn = if slices > 1 {
        degrees(r, "dcn", &axes, slices)?
    } else {
        // One slice: MaxText does not read the DCN degrees (and refuses any above 1).
        for a in &axes {
            let k = key("dcn", a);
            if r.int(&k, default_degree("dcn", a), "nothing: one slice")? > 1 {
                return Err(ImportError::field(
                    k,
                    "DCN parallelism needs several slices (--slices or num_slices); MaxText refuses this",
                ));
            }
        }
        axes.iter().map(|a| (a.clone(), 1)).collect()
    };
    let mut out = RunMesh { ici: Mesh::default(), dcn: Mesh::default() };
    for (network, list) in [("ici", &ici), ("dcn", &dcn)] {
        let mut d = [1u64; 6];
        for (axis, degree) in list {
            let Some((_, p, note)) = AXES.iter().find(|(name, _, _)| name == axis) else { continue };
            d[*p as usize] = d[*p as usize].saturating_mul(*degree);
            if let (Some(note), true) = (note, *degree > 1) {
                r.warn(&key(network, axis), *note);
            }
        }
        let mesh = Mesh::from_degrees(d);
        if network == "ici" {
            out.ici = mesh;
        } else {
            out.dcn = mesh;
        }
    }
    Ok(out)
}
