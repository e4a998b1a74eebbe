//! Opening a deployment of the search: the scenario takes its chip, mesh, sharding, formats,
//! batch and price, and for a disaggregated one its prefill pool (chip, mesh, prompts per
//! pass, price), so that the page's plan shows that deployment and its server counts at the
//! request rate.
//!
//! The scenario describes one matmul format and prefill servers split tensor-parallel over
//! their scale-up axes; a row whose pools compute in different formats, or whose prefill
//! pool is expert-parallel or spans several domains, opens as the nearest scenario, and
//! [`open`] says what differs.

use crate::collectives::query::keep_collectives_on;
use crate::dtype::DType;
use crate::error::Invalid;
use crate::hardware::chip::Fabric;
use crate::hardware::query::{ChipSource, HardwareSection};
use crate::hardware::topology::Topology;
use crate::hardware::{catalog, Chip};
use crate::inference::evaluate::topology_label;
use crate::inference::options::{DenseSharding, InferenceSection, ServingSharding};
use crate::inference::search::report::{Deployment, ServerChoice};
use crate::inference::search::space::ShardingChoice;
use crate::inference::slices::slice_shapes;
use crate::scenario::Scenario;

use super::with_defaults;

/// The error of a row that cannot be opened (never from a row of the scenario's own search).
fn refused(message: String) -> Invalid {
    Invalid::one("inference.search", message)
}

/// The chip `id`: the scenario's own (a custom chip answers to its id), else the catalog's.
fn chip_source(id: &str, own: &ChipSource, own_chip: &Chip) -> Result<(ChipSource, Chip), Invalid> {
    if id == own_chip.id {
        return Ok((own.clone(), own_chip.clone()));
    }
    let chip = catalog::get(id).ok_or_else(|| refused(format!("unknown chip {id:?}")))?;
    Ok((ChipSource::Preset(id.to_string()), chip))
}

/// The mesh the search labelled `label` on `chip`: one of its slice shapes, or for a switched
/// GPU 2 or 4 of its largest domains (as `inference::search::space` builds them).
fn mesh(chip: &Chip, label: &str) -> Result<Topology, Invalid> {
    let mut candidates: Vec<Topology> = slice_shapes(chip).iter().map(|s| s.topology(chip)).collect();
    if matches!(chip.scale_up.fabric, Fabric::Switch | Fabric::FullMesh) {
        let per = chip.scale_up.max_chips.max(1);
        candidates.extend([2, 4].map(|n| Topology::gpu_cluster(per, n)));
    }
    candidates
        .into_iter()
        .find(|t| t.resolve(chip).is_ok_and(|axes| topology_label(&axes) == label))
        .ok_or_else(|| refused(format!("{} has no mesh {label:?}", chip.name)))
}

/// The price to type for `chip` so that it costs `usd`: none when the catalog's is `usd`.
fn typed_price(chip: &Chip, usd: f64) -> Option<f64> {
    (chip.price_per_chip_hour_usd != Some(usd)).then_some(usd)
}

/// How a server of the search splits the model, over every axis of `names`.
fn sharding_of(choice: ShardingChoice, names: &[String], section: &InferenceSection) -> ServingSharding {
    let experts = choice != ShardingChoice::Tensor;
    ServingSharding {
        model_axes: Some(names.to_vec()),
        expert_axes: if experts { names.to_vec() } else { Vec::new() },
        dense: if choice == ShardingChoice::ExpertDataAttention { DenseSharding::Data } else { DenseSharding::Tensor },
        kv: section.sharding.kv,
        ..ServingSharding::default()
    }
}

/// One matmul format for both pools: the decode pool's when the prefill chip has its peak,
/// else the prefill pool's when the decode chip has it, else bf16.
fn one_compute(decode: &ServerChoice, decode_chip: &Chip, prefill: Option<(&ServerChoice, &Chip)>) -> DType {
    let Some((p, p_chip)) = prefill else { return decode.compute };
    if p.compute == decode.compute || p_chip.peak_flops.for_dtype(decode.compute).is_some() {
        decode.compute
    } else if decode_chip.peak_flops.for_dtype(p.compute).is_some() {
        p.compute
    } else {
        DType::Bf16
    }
}

/// Applies deployment `d` (a row of `s`'s search) to `s` (with the page's defaults): the
/// chip and its mesh, the model split over every axis as the row's sharding says, the
/// formats, the batch (the decode batch, or the co-located concurrency rounded up), the
/// price when it is not the catalog's, and the prefill pool (or none for a co-located row).
/// The request rate, traffic, targets and search stay. Returns what the scenario cannot
/// say exactly about the row, one sentence each (see the module docs).
///
/// # Errors
/// A chip or mesh the catalog does not have (on `inference.search`), or the scenario's
/// problems with the row; `s` is unchanged then.
pub fn open(s: &mut Scenario, d: &Deployment) -> Result<Vec<String>, Invalid> {
    let mut next = with_defaults(s);
    let own = next.hardware.as_ref().map(|h| h.chip.clone()).ok_or_else(|| Invalid::one("hardware", "is required"))?;
    let own_chip = own.resolve().map_err(|e| e.prefixed("hardware.chip"))?;
    let (decode_source, decode_chip) = chip_source(&d.decode.chip, &own, &own_chip)?;
    let topology = mesh(&decode_chip, &d.decode.topology)?;
    let names: Vec<String> = topology.axes.iter().map(|a| a.name.clone()).collect();
    let prefill = match &d.prefill {
        Some(p) => {
            let (source, chip) = chip_source(&p.chip, &own, &own_chip)?;
            let topology = mesh(&chip, &p.topology)?;
            Some((p, source, chip, topology))
        }
        None => None,
    };
    let compute = one_compute(&d.decode, &decode_chip, prefill.as_ref().map(|(p, _, c, _)| (*p, c)));
    let mut caveats = Vec::new();
    if let Some((p, _, _, t)) = &prefill {
        if compute != p.compute || compute != d.decode.compute {
            caveats.push(format!(
                "the pools compute in {} and {}; the scenario has one matmul format: {}",
                d.decode.compute.name(),
                p.compute.name(),
                compute.name()
            ));
        }
        if p.sharding != ShardingChoice::Tensor {
            caveats.push("the scenario's prefill servers are tensor-parallel; the row's split the experts".into());
        }
        if t.axes.iter().any(|a| a.network == crate::collectives::Network::ScaleOut) {
            caveats
                .push("the scenario's prefill servers split the model over one domain; the row's span several".into());
        }
    }
    keep_collectives_on(&mut next.collectives, Some(&topology));
    let section = next.inference.as_mut().ok_or_else(|| Invalid::one("inference", "is required"))?;
    section.sharding = sharding_of(d.decode.sharding, &names, section);
    section.dtypes.weights = d.decode.weights;
    section.dtypes.kv = d.decode.kv;
    section.dtypes.compute = compute;
    section.batch = Some(match d.decode.batch {
        Some(b) => b.max(1),
        // proof: a concurrency is finite, at least 0 and at most the largest batch that fits.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        None => (d.concurrency.ceil().max(1.0).min(crate::inference::options::MAX_BATCH as f64)) as u64,
    });
    section.price_per_chip_hour_usd = typed_price(&decode_chip, d.decode.usd_per_chip_hour);
    let pre = &mut section.prefill;
    match prefill {
        Some((p, source, chip, t)) => {
            pre.chip = (chip.id != decode_chip.id).then_some(source);
            pre.topology = Some(t);
            pre.batch = p.batch;
            pre.price_per_chip_hour_usd = typed_price(&chip, p.usd_per_chip_hour);
        }
        None => {
            pre.chip = None;
            pre.topology = None;
            pre.batch = None;
            pre.price_per_chip_hour_usd = None;
        }
    }
    next.hardware = Some(HardwareSection { chip: decode_source, topology: Some(topology) });
    next.validate()?;
    *s = next;
    Ok(caveats)
}
