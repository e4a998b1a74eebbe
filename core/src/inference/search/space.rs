//! The servers the search may build: every chip (priced), every slice shape of it up to
//! `max_chips_per_server` (one scale-up domain; for switched GPUs 2 and 4 domains too when
//! one cannot hold the weights), the model split 1D over all of it (for MoE models also
//! with the experts over every axis, the rest tensor- or data-parallel), every weights
//! and KV format asked for. Whatever cannot hold its weights is left out.

use super::options::SearchOptions;
use crate::dtype::DType;
use crate::error::Invalid;
use crate::hardware::catalog;
use crate::hardware::chip::Fabric;
use crate::hardware::topology::Topology;
use crate::hardware::Chip;
use crate::inference::evaluate::topology_label;
use crate::inference::options::{DenseSharding, InferenceSection, ServingDtypes, ServingSharding};
use crate::inference::setup::ServingSetup;
use crate::inference::slices::slice_shapes;
use crate::model::ModelConfig;
use serde::{Deserialize, Serialize};

/// How a server splits the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ShardingChoice {
    /// 1D weight-stationary over every chip (TP; experts tensor-parallel too).
    Tensor,
    /// Experts over every chip (EP), the rest tensor-parallel.
    Expert,
    /// Experts over every chip, attention and dense weights data-parallel (DeepSeek-V3's
    /// decode layout).
    ExpertDataAttention,
}
crate::serde_names::deserialize_by_name!(ShardingChoice {
    Tensor => "tensor",
    Expert => "expert",
    ExpertDataAttention => "expert_data_attention",
});

/// One server the search may deploy.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The chip.
    pub chip: Chip,
    /// US dollars per chip-hour.
    pub price: f64,
    /// The mesh's label (`2x4`, `8 x 2 domains`).
    pub topology: String,
    /// How the model is split.
    pub sharding: ShardingChoice,
    /// Formats.
    pub dtypes: ServingDtypes,
    /// The server resolved.
    pub setup: ServingSetup,
    /// Chips per server.
    pub chips: f64,
}

/// A chip the search could not use, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Excluded {
    /// Chip id.
    pub chip: String,
    /// Why.
    pub reason: String,
}

/// The chips asked for: `options.chips` by id (the scenario's own chip answers to its id),
/// else the catalog and the scenario's chip when it is a custom one.
///
/// # Errors
/// `search.chips[i]`: an unknown id.
pub fn chips(options: &SearchOptions, own: &Chip) -> Result<Vec<Chip>, Invalid> {
    if options.chips.is_empty() {
        let mut all: Vec<Chip> = catalog::all().to_vec();
        if !all.iter().any(|c| c.id == own.id) {
            all.push(own.clone());
        }
        return Ok(all);
    }
    options
        .chips
        .iter()
        .enumerate()
        .map(|(i, id)| {
            if *id == own.id {
                return Ok(own.clone());
            }
            catalog::get(id).ok_or_else(|| Invalid::one(format!("search.chips[{i}]"), format!("unknown chip {id:?}")))
        })
        .collect()
}

/// The price of `chip`: typed in `search.prices`, else the scenario's price for its own
/// chip, else the catalog's.
#[must_use]
pub fn price(chip: &Chip, options: &SearchOptions, section: &InferenceSection, own: &Chip) -> Option<f64> {
    options
        .prices
        .iter()
        .find(|p| p.chip == chip.id)
        .map(|p| p.usd_per_chip_hour)
        .or_else(|| (chip.id == own.id).then_some(section.price_per_chip_hour_usd).flatten())
        .or(chip.price_per_chip_hour_usd)
}

/// The meshes of `chip` up to `max_chips`: its slice shapes (one scale-up domain), or
/// with `more_domains` 2 and 4 of its largest domains over the scale-out network
/// (switched GPUs only).
fn meshes(chip: &Chip, max_chips: u64, more_domains: bool) -> Vec<Topology> {
    if !more_domains {
        return slice_shapes(chip).into_iter().filter(|s| s.chips <= max_chips).map(|s| s.topology(chip)).collect();
    }
    if !matches!(chip.scale_up.fabric, Fabric::Switch | Fabric::FullMesh) {
        return Vec::new();
    }
    let per = chip.scale_up.max_chips.max(1);
    [2, 4].into_iter().filter(|n| per.saturating_mul(*n) <= max_chips).map(|n| Topology::gpu_cluster(per, n)).collect()
}

/// Every server of the search for `model`, and the chips left out with their reason;
/// `derate` maps a catalog chip to the hardware the prediction mode sees (the scenario's
/// own chip is already seen that way).
///
/// # Errors
/// An unknown chip id in `search.chips`.
pub fn server_configs(
    model: &ModelConfig,
    section: &InferenceSection,
    own: &Chip,
    options: &SearchOptions,
    derate: &dyn Fn(&Chip) -> Chip,
) -> Result<(Vec<ServerConfig>, Vec<Excluded>), Invalid> {
    let weights: Vec<DType> =
        if options.weights.is_empty() { vec![section.dtypes.weights] } else { options.weights.clone() };
    let kvs: Vec<DType> = if options.kv.is_empty() { vec![section.dtypes.kv] } else { options.kv.clone() };
    let shardings: &[ShardingChoice] = if model.moe.is_some() {
        &[ShardingChoice::Tensor, ShardingChoice::Expert, ShardingChoice::ExpertDataAttention]
    } else {
        &[ShardingChoice::Tensor]
    };
    let (mut out, mut excluded) = (Vec::new(), Vec::new());
    for chip in chips(options, own)? {
        let chip = if chip.id == own.id { chip } else { derate(&chip) };
        let Some(price) = price(&chip, options, section, own) else {
            excluded.push(Excluded {
                chip: chip.id.clone(),
                reason: "no public price: add one to `search.prices` to include it".into(),
            });
            continue;
        };
        let usable = chip.hbm.capacity * (1.0 - section.reserved_hbm_fraction);
        let before = out.len();
        for &w in &weights {
            let compute = if chip.peak_flops.for_dtype(w).is_some() { w } else { DType::Bf16 };
            for &kv in &kvs {
                let dtypes = ServingDtypes { weights: w, kv, compute, activations: section.dtypes.activations };
                let mut fits_one_domain = false;
                for more in [false, true] {
                    if more && fits_one_domain {
                        break;
                    }
                    for topology in meshes(&chip, options.max_chips_per_server, more) {
                        let Ok(axes) = topology.resolve(&chip) else { continue };
                        let names: Vec<String> = axes.iter().map(|a| a.name.clone()).collect();
                        for &sharding in shardings {
                            let s = ServingSharding {
                                model_axes: Some(names.clone()),
                                expert_axes: if sharding == ShardingChoice::Tensor {
                                    Vec::new()
                                } else {
                                    names.clone()
                                },
                                dense: if sharding == ShardingChoice::ExpertDataAttention {
                                    DenseSharding::Data
                                } else {
                                    DenseSharding::Tensor
                                },
                                kv: section.sharding.kv,
                                ..ServingSharding::default()
                            };
                            let setup =
                                ServingSetup::new(model, &chip, &axes, &names, &s, dtypes, section.comms_overlap)?;
                            if setup.weights_stored_per_chip() > usable {
                                continue;
                            }
                            fits_one_domain |= !more;
                            out.push(ServerConfig {
                                chip: chip.clone(),
                                price,
                                topology: topology_label(&axes),
                                sharding,
                                dtypes,
                                chips: setup.model_parallel(),
                                setup,
                            });
                        }
                    }
                }
            }
        }
        if out.len() == before {
            excluded.push(Excluded {
                chip: chip.id.clone(),
                reason: format!("the weights fit on no server of up to {} chips", options.max_chips_per_server),
            });
        }
    }
    Ok((out, excluded))
}
