//! Planning a run end to end: resolve the `training` section, evaluate the explicit
//! mesh and/or search, and build the report. What the page and `shardcalc eval` call.

use super::budget::apply_budget;
use super::explain::{bound_sentence, thresholds};
use super::front::Candidate;
use super::mesh::{split_mesh, Mesh, NetworkSplit, Parallelism, NETWORKS};
use super::placement::{group_links, piece_link, scaled_axes, CostCache};
use super::report::{
    AxisPlacement, BoundReport, CommunicationReport, LayerWorkReport, LossReport, MemoryComponent, MemoryItem,
    MemoryReport, MeshReport, NetworkDegrees, PieceReport, PlanSource, RooflineReport, SearchReport, SearchRow,
    StepBreakdown, TrainingReport,
};
use super::search::{search, Limits, SearchResult};
use super::section::TrainingSection;
use super::setup::{zero3_axes, MeshContext, Setup};
use super::space::{constraints, space, Variant};
use super::step::{compute_time, evaluate_config, largest_loss, StepParts};
use super::tensors::{Remat, RematCost};
use crate::efficiency::PredictionMode;
use crate::error::{FieldError, Invalid};
use crate::flops::FlopConvention;
use crate::hardware::query::ResolvedHardware;
use crate::model::ModelConfig;
use crate::units::{Bytes, Flops, Seconds};

fn under(prefix: &str, e: Invalid) -> Invalid {
    Invalid(e.0.into_iter().map(|f| f.prefixed(prefix)).collect())
}

/// Up to eight degrees from 1 to `devices` that divide it and pass `ok`, as `1, 2, 4`.
fn degrees_that(devices: u64, ok: impl Fn(u64) -> bool) -> String {
    let out: Vec<String> =
        super::search::divisors(devices).into_iter().filter(|d| ok(*d)).take(8).map(|d| d.to_string()).collect();
    if out.is_empty() {
        "none".into()
    } else {
        out.join(", ")
    }
}

/// Why an explicit mesh does not divide the model, the sequence or the batch (fields
/// under `training.mesh`): each message names the other field it conflicts with and how
/// to fix it.
fn check_mesh(setup: &Setup, mesh: &Mesh) -> Result<(), Invalid> {
    let p = &setup.profile;
    let n = setup.devices;
    let mut c = crate::error::Checker::new();
    c.ensure_related(p.tp_divides(mesh.tp), "training.mesh.tp", &["model.attention.num_heads", "model.mlp.d_ff"], || {
        let widths = match p.expert {
            Some(e) if e.shared_d_ff > 0 => format!("the MLP widths (F = {}, expert F = {}, shared F = {})", p.d_ff, e.d_ff, e.shared_d_ff),
            Some(e) => format!("the MLP widths (F = {}, expert F = {})", p.d_ff, e.d_ff),
            None => format!("the MLP width (F = {}, model.mlp.d_ff)", p.d_ff),
        };
        format!(
            "{} conflicts with the model: TP must divide the {} query heads (model.attention.num_heads) and {widths}, and divide or be a multiple of the {} K/V heads; tp = {} would",
            mesh.tp,
            p.heads,
            p.kv_heads,
            degrees_that(n, |d| p.tp_divides(d))
        )
    });
    match p.expert {
        Some(e) => c.ensure_related(
            e.experts.is_multiple_of(mesh.ep.max(1)),
            "training.mesh.ep",
            &["model.moe.num_experts"],
            || {
                format!(
                "{} conflicts with the model's {} experts (model.moe.num_experts): EP must divide them; ep = {} would",
                mesh.ep,
                e.experts,
                degrees_that(n, |d| e.experts.is_multiple_of(d))
            )
            },
        ),
        None => c.ensure(mesh.ep == 1, "training.mesh.ep", || {
            "must be 1: the model has no experts (model.moe); use fsdp or dp for those ways".into()
        }),
    }
    let v = setup.options.pipeline.chunks();
    c.ensure_related(mesh.pp.saturating_mul(v).max(1) <= p.layers, "training.mesh.pp", &["training.pipeline.virtual_stages", "model.num_layers"], || {
        format!(
            "{} stages × {v} virtual stages (training.pipeline.virtual_stages) exceed the {} layers (model.num_layers): every chunk needs a layer (uneven stages are allowed); pp = {} would",
            mesh.pp,
            p.layers,
            degrees_that(n, |d| d.saturating_mul(v).max(1) <= p.layers)
        )
    });
    c.ensure_related(setup.seq_len.is_multiple_of(mesh.cp.max(1)), "training.mesh.cp", &["training.seq_len"], || {
        format!(
            "{} must divide the sequence length {} (training.seq_len); cp = {} would",
            mesh.cp,
            setup.seq_len,
            degrees_that(n, |d| setup.seq_len.is_multiple_of(d))
        )
    });
    c.ensure_related(mesh.data_shards() <= setup.sequences, "training.mesh", &["training.global_batch"], || {
        format!(
            "dp·fsdp·ep = {} exceeds the batch's {} sequences (training.global_batch): every data shard needs a whole sequence; raise the batch to at least {} sequences, or move ways from dp, fsdp and ep to tp, cp or pp",
            mesh.data_shards(),
            setup.sequences,
            mesh.data_shards()
        )
    });
    c.finish()
}

/// Plan a training run: the explicit mesh if `section.mesh` is set, otherwise the
/// search's fastest configuration (or, when nothing fits, its smallest).
///
/// # Errors
/// Invalid fields (named under `training.` or `hardware.`), and a batch/topology no
/// mesh divides (field `training`).
pub fn plan(
    m: &ModelConfig,
    hw: &ResolvedHardware,
    section: &TrainingSection,
    convention: FlopConvention,
) -> Result<TrainingReport, Invalid> {
    let setup = section.setup(m, hw, convention)?;
    let eff = setup.options.efficiency;
    let mut cache = CostCache::new(scaled_axes(&hw.axes, eff.ici, eff.dcn));
    let space = space(&setup, section);
    let searched = &space.policies;
    let searching = section.mesh.is_none() || section.search.is_some();
    if searching && searched.is_empty() {
        return Err(Invalid::one(
            "training.search.remat",
            format!("every policy listed offloads to the host, but {} has no published PCIe bandwidth", hw.chip.name),
        ));
    }
    let mut explicit = None;
    if let Some(mesh) = &section.mesh {
        let (split, m, cost) = explicit_config(&setup, section, mesh, &mut cache)?;
        explicit = Some((setup.clone(), split, m, section.remat.id().to_string(), cost));
    }
    let search_result = searching.then(|| {
        let opts = section.search.clone().unwrap_or_default();
        let costs: Vec<RematCost> = searched.iter().map(|(_, c)| *c).collect();
        let limits = Limits {
            top: usize::try_from(opts.top).unwrap_or(10),
            microbatches: section.microbatches,
            max_microbatches: opts.max_microbatches,
        };
        search(&setup, &mut cache, &costs, &space.choices, &limits)
    });
    let (source, (chosen, split, microbatches, remat, cost)) = match (explicit, &search_result) {
        (Some(e), _) => (PlanSource::Explicit, e),
        (None, Some(r)) => {
            let pick = r.top.first().or(r.smallest.as_ref()).ok_or_else(|| no_mesh(&setup))?;
            let (policy, cost) = searched.get(pick.policy).cloned().ok_or_else(|| no_mesh(&setup))?;
            let split = r.split(pick).ok_or_else(|| no_mesh(&setup))?;
            let variant = r.variant(pick).ok_or_else(|| no_mesh(&setup))?;
            let chosen = with_variant(&setup, variant);
            (PlanSource::Search, (chosen, split, pick.microbatches, policy.id().to_string(), cost))
        }
        (None, None) => return Err(no_mesh(&setup)),
    };
    let mc = MeshContext::new(&chosen, &mut cache, &split).ok_or_else(|| no_mesh(&setup))?;
    let parts = evaluate_config(&chosen, &cache, &mc, microbatches, &cost);
    let roofline = roofline_of(m, hw, section, convention, &split, microbatches, &cost, &chosen, &parts)?;
    let search = search_result.map(|r| SearchReport {
        meshes: r.meshes,
        evaluated: r.evaluated,
        feasible: r.feasible,
        skipped: r.skipped,
        constraints: constraints(&setup, section, &space),
        best: rows(&setup, &mut cache, searched, &r, &r.top),
        pareto: rows(&setup, &mut cache, searched, &r, &r.pareto),
    });
    Ok(report(&chosen, section, hw, &cache, &mc, &parts, &roofline, source, remat, search))
}

/// The ideal roofline of one configuration (`split`, `microbatches`, `cost`): `parts` itself
/// when `setup` is the roofline, otherwise the configuration planned again without the
/// calibration.
///
/// # Errors
/// As [`TrainingSection::setup`] (never, once `setup` was made from the same section).
#[allow(clippy::too_many_arguments)]
pub(super) fn roofline_of(
    m: &ModelConfig,
    hw: &ResolvedHardware,
    section: &TrainingSection,
    convention: FlopConvention,
    split: &NetworkSplit,
    microbatches: u64,
    cost: &RematCost,
    setup: &Setup,
    parts: &StepParts,
) -> Result<RooflineReport, Invalid> {
    let of = |s: &StepParts| RooflineReport {
        step_time_s: Seconds(s.step_time),
        mfu: s.mfu,
        hfu: s.hfu,
        tokens_per_s: setup.tokens() / s.step_time,
    };
    if setup.rates.is_none() {
        return Ok(of(parts));
    }
    let mut bare = section.clone();
    bare.calibration = None;
    let mut roof = bare.setup(m, hw, convention)?;
    // The search's ZeRO stage and schedule, when it chose them.
    roof.options.zero = setup.options.zero;
    roof.options.pipeline = setup.options.pipeline;
    let eff = roof.options.efficiency;
    let mut cache = CostCache::new(scaled_axes(&hw.axes, eff.ici, eff.dcn));
    let mc = MeshContext::new(&roof, &mut cache, split).ok_or_else(|| no_mesh(&roof))?;
    Ok(of(&evaluate_config(&roof, &cache, &mc, microbatches, cost)))
}

/// The explicit mesh's configuration: its split over the networks, microbatches and remat
/// cost, checked against the model and topology.
fn explicit_config(
    setup: &Setup,
    section: &TrainingSection,
    mesh: &Mesh,
    cache: &mut CostCache,
) -> Result<(NetworkSplit, u64, RematCost), Invalid> {
    mesh.validate(setup.devices).map_err(|e| under("training.mesh", e))?;
    check_mesh(setup, mesh)?;
    let split = split_mesh(mesh, setup.capacity).map_err(|e| under("training.mesh", e))?;
    let mc = MeshContext::new(setup, cache, &split).ok_or_else(|| {
        Invalid::one("training.mesh", "cannot be laid out on the topology's axes (a degree does not factor into them)")
    })?;
    let m = section.microbatches.unwrap_or(1);
    if !setup.options.pipeline.takes_microbatches(mesh.pp, m) {
        return Err(Invalid(vec![FieldError::new(
            "training.microbatches",
            format!(
                "{m} with {} pipeline stages: the interleaved schedule (training.pipeline.schedule) needs a multiple of the stages (Megatron-LM; MaxText's num_pipeline_microbatches); microbatches = {} would",
                mesh.pp,
                (1..=4).map(|k| (k * mesh.pp).to_string()).collect::<Vec<_>>().join(", ")
            ),
        )
        .related_to(&["training.pipeline.schedule", "training.mesh.pp"])]));
    }
    if mc.sequences_per_shard % m != 0 {
        return Err(Invalid(vec![FieldError::new(
            "training.microbatches",
            format!(
                "{m} must divide the {} sequences each data shard processes (training.global_batch over dp·fsdp·ep = {}); microbatches = {} would",
                mc.sequences_per_shard,
                mc.mesh.data_shards(),
                super::search::divisors(mc.sequences_per_shard).iter().take(8).map(u64::to_string).collect::<Vec<_>>().join(", ")
            ),
        )
        .related_to(&["training.global_batch"])]));
    }
    Ok((split, m, RematCost::of(&section.remat.placements(), &setup.profile)))
}

/// The step of the explicit mesh alone, without the search, the report or the roofline
/// beside it: what a calibration fit evaluates thousands of times.
///
/// # Errors
/// As [`plan`]; `training.mesh` without an explicit mesh.
pub fn explicit_step(
    m: &ModelConfig,
    hw: &ResolvedHardware,
    section: &TrainingSection,
    convention: FlopConvention,
) -> Result<StepParts, Invalid> {
    let setup = section.setup(m, hw, convention)?;
    let eff = setup.options.efficiency;
    let mut cache = CostCache::new(scaled_axes(&hw.axes, eff.ici, eff.dcn));
    let mesh = section.mesh.as_ref().ok_or_else(|| Invalid::one("training.mesh", "is required"))?;
    let (split, microbatches, cost) = explicit_config(&setup, section, mesh, &mut cache)?;
    let mc = MeshContext::new(&setup, &mut cache, &split).ok_or_else(|| no_mesh(&setup))?;
    Ok(evaluate_config(&setup, &cache, &mc, microbatches, &cost))
}

/// `setup` with a ZeRO stage and schedule of the search.
fn with_variant(setup: &Setup, v: Variant) -> Setup {
    let mut s = setup.clone();
    s.options.zero = v.zero;
    s.options.pipeline = v.pipeline;
    s
}

fn no_mesh(setup: &Setup) -> Invalid {
    Invalid(vec![FieldError::new(
        "training",
        format!(
            "no mesh of the topology's {} devices divides the model, the {} sequences of {} tokens and the topology's axes: change the chip count (hardware.topology), the batch (training.global_batch) or the sequence length (training.seq_len)",
            setup.devices, setup.sequences, setup.seq_len
        ),
    )
    .related_to(&["hardware.topology", "training.global_batch", "training.seq_len"])])
}

fn rows(
    setup: &Setup,
    cache: &mut CostCache,
    policies: &[(Remat, RematCost)],
    r: &SearchResult,
    list: &[Candidate],
) -> Vec<SearchRow> {
    list.iter()
        .filter_map(|c| {
            let (policy, cost) = policies.get(c.policy)?;
            let split = r.split(c)?;
            let variant = r.variant(c)?;
            let setup = &with_variant(setup, variant);
            let mc = MeshContext::new(setup, cache, &split)?;
            let s = evaluate_config(setup, cache, &mc, c.microbatches, cost);
            Some(SearchRow {
                mesh: mc.mesh,
                networks: NETWORKS
                    .iter()
                    .zip(split)
                    .zip(setup.capacity)
                    .filter(|(_, cap)| *cap > 1)
                    .map(|((n, d), _)| NetworkDegrees { network: *n, degrees: Mesh::from_degrees(d) })
                    .collect(),
                microbatches: c.microbatches,
                remat: policy.id().to_string(),
                zero_stage: variant.zero,
                pipeline: variant.pipeline,
                step_time_s: Seconds(s.step_time),
                memory_bytes: Bytes(s.memory.total()),
                mfu: s.mfu,
                hfu: s.hfu,
                bound: s.bound,
            })
        })
        .collect()
}

fn mesh_report(cache: &CostCache, mc: &MeshContext) -> MeshReport {
    let placement = Parallelism::ALL
        .iter()
        .filter(|p| mc.mesh.degree(**p) > 1)
        .map(|p| AxisPlacement {
            axis: *p,
            degree: mc.mesh.degree(*p),
            pieces: mc
                .placement
                .pieces(*p)
                .iter()
                .filter_map(|piece| {
                    let phys = cache.axes().get(usize::from(piece.axis))?;
                    let l = piece_link(phys, *piece);
                    Some(PieceReport {
                        physical: phys.name.clone(),
                        network: phys.network,
                        size: u64::from(piece.size),
                        stride: u64::from(piece.stride),
                        shape: l.shape,
                        link: l.link,
                    })
                })
                .collect(),
        })
        .collect();
    MeshReport { degrees: mc.mesh, placement }
}

fn sharded(mc: &MeshContext, axes: &[Parallelism]) -> Vec<Parallelism> {
    let mut out: Vec<Parallelism> = Vec::new();
    for a in axes {
        if mc.mesh.degree(*a) > 1 && !out.contains(a) {
            out.push(*a);
        }
    }
    out
}

fn memory_report(setup: &Setup, mc: &MeshContext, s: &StepParts) -> MemoryReport {
    let o = &setup.options;
    let mut state: Vec<Parallelism> = vec![Parallelism::Tp, Parallelism::Pp, Parallelism::Ep];
    state.extend_from_slice(zero3_axes(o.zero, false));
    let mut grads = state.clone();
    if o.zero.shards_gradients() {
        grads.push(Parallelism::Dp);
    }
    let mut opt = state.clone();
    if o.zero.shards_optimizer() {
        opt.push(Parallelism::Dp);
    }
    let m = &s.memory;
    let item = |component, bytes: f64, dtype, over: &[Parallelism]| MemoryItem {
        component,
        bytes: Bytes(bytes),
        dtype,
        sharded_over: sharded(mc, over),
    };
    let total = m.total();
    let l = &m.layer;
    MemoryReport {
        per_device_bytes: Bytes(total),
        capacity_bytes: Bytes(setup.hbm),
        reserved_bytes: Bytes(setup.hbm - setup.usable_hbm()),
        fits: s.fits,
        headroom_bytes: Bytes(setup.usable_hbm() - total),
        breakdown: vec![
            item(MemoryComponent::Weights, m.weights, Some(o.dtypes.weights), &state),
            item(MemoryComponent::Gradients, m.gradients, Some(o.dtypes.gradients), &grads),
            item(MemoryComponent::Optimizer, m.optimizer, Some(o.dtypes.optimizer), &opt),
            item(MemoryComponent::MasterWeights, m.master_weights, Some(crate::dtype::DType::Fp32), &opt),
            item(MemoryComponent::Activations, m.activations, Some(o.dtypes.activations), &Parallelism::ALL),
            item(MemoryComponent::Transient, m.transient, None, &[]),
        ],
        transient: m.transient_kind,
        layer: LayerWorkReport {
            weights_bytes: Bytes(l.weights),
            prefetch_bytes: Bytes(l.prefetch),
            gradients_bytes: Bytes(l.gradients),
            rematerialised_bytes: Bytes(l.rematerialised),
            attention_bytes: Bytes(l.attention),
        },
        logits_bytes: Bytes(m.logits),
        in_flight_microbatches: m.in_flight,
        offloaded_host_bytes: Bytes(m.offloaded),
    }
}

fn communication(setup: &Setup, cache: &CostCache, mc: &MeshContext, s: &StepParts) -> Vec<CommunicationReport> {
    Parallelism::ALL
        .iter()
        .filter(|p| s.comm[**p as usize].time > 0.0)
        .map(|p| {
            let group: &[Parallelism] = match p {
                Parallelism::Fsdp => zero3_axes(setup.options.zero, false),
                other => std::slice::from_ref(other),
            };
            let c = s.comm[*p as usize];
            CommunicationReport {
                parallelism: *p,
                axes: group_links(cache.axes(), &mc.placement, group).into_iter().map(|a| a.name).collect(),
                bytes_per_step: Bytes(c.bytes),
                time_s: Seconds(c.time),
                exposed_s: Seconds(c.exposed),
                critical_path: c.critical,
                sparse_core: c.sparse_core,
            }
        })
        .collect()
}

/// The report of one evaluated configuration (also [`super::replan`]'s).
#[allow(clippy::too_many_arguments)]
pub(super) fn report(
    setup: &Setup,
    section: &TrainingSection,
    hw: &ResolvedHardware,
    cache: &CostCache,
    mc: &MeshContext,
    s: &StepParts,
    roofline: &RooflineReport,
    source: PlanSource,
    remat: String,
    search: Option<SearchReport>,
) -> TrainingReport {
    let chips = setup.devices as f64 / setup.devices_per_chip.max(1) as f64;
    let tokens = setup.tokens();
    let price = section.price(&hw.chip);
    let exposed: f64 = s.comm.iter().map(|c| c.exposed).sum();
    let mut r = TrainingReport {
        chips,
        devices: setup.devices,
        global_batch_sequences: setup.sequences,
        global_batch_tokens: tokens,
        seq_len: setup.seq_len,
        flops_convention: setup.options.convention,
        source,
        mesh: mesh_report(cache, mc),
        microbatches: s.microbatches,
        remat,
        pipeline: setup.options.pipeline,
        zero_stage: setup.options.zero,
        sparse_core: setup.options.sparse_core,
        memory: memory_report(setup, mc, s),
        prediction: if setup.rates.is_some() { PredictionMode::Calibrated } else { PredictionMode::Ideal },
        roofline: *roofline,
        step_time_s: Seconds(s.step_time),
        breakdown: StepBreakdown {
            compute_s: Seconds(s.compute),
            matmul_s: Seconds(s.terms.matmul),
            attention_s: Seconds(s.terms.attention),
            elementwise_s: Seconds(s.terms.elementwise),
            loss_s: Seconds(s.terms.loss),
            moe_s: Seconds(s.terms.moe),
            optimizer_s: Seconds(s.terms.optimizer),
            sync_s: Seconds(s.sync),
            exposed_communication_s: Seconds(exposed),
            bubble_s: Seconds(s.bubble),
            offload_exposed_s: Seconds(s.offload_exposed),
            model_compute_s: Seconds(compute_time(
                setup.model_flops,
                setup.devices as f64,
                setup.peak * setup.options.efficiency.flops,
            )),
            offload_s: Seconds(s.offload),
        },
        communication: communication(setup, cache, mc, s),
        tokens_per_s: tokens / s.step_time,
        mfu: s.mfu,
        hfu: s.hfu,
        model_flops_per_step: Flops(s.model_flops),
        hardware_flops_per_step: Flops(s.hardware_flops),
        batch_utilization: 1.0 / mc.padding,
        bound: BoundReport {
            resource: s.bound,
            axis: s.bound_axis,
            largest_loss: largest_loss(s).map(|(resource, axis, t)| LossReport { resource, axis, seconds: Seconds(t) }),
            explanation: bound_sentence(s, setup.usable_hbm(), mc.mesh.pp),
        },
        token_budget: None,
        steps: None,
        days: None,
        chip_hours: None,
        price_per_chip_hour_usd: None,
        cost_usd: None,
        thresholds: thresholds(setup, &hw.chip, &hw.axes),
        search,
    };
    apply_budget(&mut r, section.token_budget, price, section.chip_peak(&hw.chip));
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::catalog::get;
    use crate::hardware::topology::Topology;
    use crate::training::section::GlobalBatch;

    #[test]
    fn the_report_round_trips_through_json() {
        let chip = get("tpu-v5p").unwrap();
        let axes = Topology::tpu_slice(&[4, 4, 4], 2).resolve(&chip).unwrap();
        let hw = ResolvedHardware { chip, axes };
        let m = crate::presets::get("llama-3-8b").unwrap().config;
        let mut s = TrainingSection::new(GlobalBatch::Sequences(256), 4096);
        s.token_budget = Some(1e12);
        let r = plan(&m, &hw, &s, FlopConvention::MaxText).unwrap();
        let json = serde_json::to_string(&r).unwrap();
        let back: TrainingReport = serde_json::from_str(&json).unwrap();
        assert_eq!(
            (back.mesh, back.source, back.search.map(|s| s.evaluated)),
            (r.mesh.clone(), r.source, r.search.map(|s| s.evaluated))
        );
        assert!(r.thresholds.dcn.is_some());
    }

    #[test]
    fn offloading_without_pcie_names_the_field() {
        let chip = get("tpu-v7x").unwrap();
        let axes = Topology::tpu_slice(&[2, 2, 2], 1).resolve(&chip).unwrap();
        let hw = ResolvedHardware { chip, axes };
        let m = crate::presets::get("llama-3-8b").unwrap().config;
        let mut s = TrainingSection::new(GlobalBatch::Sequences(16), 4096);
        s.search = Some(crate::training::section::SearchOptions {
            remat: Some(vec![Remat::MinimalOffloaded]),
            ..Default::default()
        });
        assert_eq!(plan(&m, &hw, &s, FlopConvention::MaxText).unwrap_err().0[0].field, "training.search.remat");
        s.search = None;
        s.mesh = Some(Mesh { fsdp: 8, ..Mesh::default() });
        s.remat = Remat::QkvProjOffloaded;
        assert_eq!(plan(&m, &hw, &s, FlopConvention::MaxText).unwrap_err().0[0].field, "training.remat");
    }
}
