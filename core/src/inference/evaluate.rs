//! Build the report's `inference` section from a model, the resolved hardware and the
//! scenario's `inference` section.

use super::colocated::continuous_batching;
use super::curves::{curves, Curves};
use super::disaggregated::{disaggregation_report, DisaggregationInputs};
use super::disaggregation::{kv_tokens_evicted_per_step, kv_transfer, prefill_per_decode, sequences_finished_per_step};
use super::memory::{chips_needed, min_chips, min_power_of_two_chips};
use super::mla::mla_report;
use super::moe_load::moe_report;
use super::options::{InferenceSection, KvNetwork, ServingSharding};
use super::plan::{smallest_fitting, smallest_prefill_slice, Plan};
use super::price::Price;
use super::report::{
    BatchSource, CostReport, DecodeReport, DisaggregationReport, InferenceReport, KvCacheReport, MemoryReport,
    PrefillReport, ServingReport, SpeculativeReport, TopologySource, TpLimits,
};
use super::slices::slice_shapes;
use super::speculative::{speculative_step, DraftCost};
use super::throughput::{decode_latency, per_chip, queries_per_s, tokens_per_s, usd_per_million_tokens};
use super::tp_limits::{
    axis_bandwidth, axis_one_way, latency_bound_above, tp_limit_compute_bound, tp_limit_memory_bound,
};
use crate::collectives::{AxisLink, Network};
use crate::error::{Checker, Invalid};
use crate::hardware::query::{ChipSource, HardwareSection, ResolvedHardware};
use crate::hardware::Chip;
use crate::kv_cache::{is_window_capped, kv_bytes_per_batch, kv_bytes_per_token};
use crate::model::ModelConfig;
use crate::roofline::matmul::critical_batch_approx;
use crate::units::{Bytes, Seconds};

/// `2x4`, `8 x 2 domains`: the scale-up axis sizes joined by `x`, then the rest.
#[must_use]
pub fn topology_label(axes: &[AxisLink]) -> String {
    let up: Vec<String> = axes.iter().filter(|a| a.network != Network::ScaleOut).map(|a| a.size.to_string()).collect();
    let out: u64 = axes.iter().filter(|a| a.network == Network::ScaleOut).map(|a| a.size).product();
    let label = if up.is_empty() { "1".to_string() } else { up.join("x") };
    if out > 1 {
        format!("{label} x {out} domains")
    } else {
        label
    }
}

fn draft_model(section: &InferenceSection) -> Result<Option<ModelConfig>, Invalid> {
    match section.speculative.as_ref().map(|s| &s.draft) {
        Some(DraftCost::Model(src)) => {
            let m = src.resolve().map_err(|e| e.prefixed("speculative.draft"))?;
            m.validate().map_err(|e| e.prefixed("speculative.draft.model.custom"))?;
            Ok(Some(m))
        }
        _ => Ok(None),
    }
}

/// The `inference` section of the report. `topology_given` says whether the scenario's
/// `hardware` has a topology (else the smallest fitting slice is chosen).
///
/// # Errors
/// Every problem, with paths relative to the scenario (`inference.batch`, ...).
pub fn evaluate_inference(
    model: &ModelConfig,
    hw: &ResolvedHardware,
    topology_given: bool,
    section: &InferenceSection,
) -> Result<InferenceReport, Invalid> {
    let prefill_chip = prefill_chip(section).map_err(|e| e.prefixed("inference"))?;
    evaluate(model, hw, prefill_chip, topology_given, section, true).map_err(|e| e.prefixed("inference"))
}

/// [`evaluate_inference`] on hardware seen through `derate` (the calibrated mode's fitted
/// efficiencies): `hw` and the prefill servers' chip both.
///
/// # Errors
/// As [`evaluate_inference`].
pub fn evaluate_inference_derated(
    model: &ModelConfig,
    hw: &ResolvedHardware,
    topology_given: bool,
    section: &InferenceSection,
    derate: impl Fn(&ResolvedHardware) -> ResolvedHardware,
) -> Result<InferenceReport, Invalid> {
    evaluate_derated(model, hw, topology_given, section, true, derate)
}

/// [`evaluate_inference_derated`], with or without the charts' data (`curves`).
///
/// # Errors
/// As [`evaluate_inference`].
pub fn evaluate_derated(
    model: &ModelConfig,
    hw: &ResolvedHardware,
    topology_given: bool,
    section: &InferenceSection,
    with_curves: bool,
    derate: impl Fn(&ResolvedHardware) -> ResolvedHardware,
) -> Result<InferenceReport, Invalid> {
    let prefill = prefill_chip(section)
        .map_err(|e| e.prefixed("inference"))?
        .map(|chip| derate(&ResolvedHardware { chip, axes: Vec::new() }).chip);
    evaluate(model, &derate(hw), prefill, topology_given, section, with_curves).map_err(|e| e.prefixed("inference"))
}

/// The prefill servers' chip when `prefill.chip` names one (custom chips validated).
///
/// # Errors
/// An unknown or invalid chip, on `prefill.chip`.
pub fn prefill_chip(section: &InferenceSection) -> Result<Option<Chip>, Invalid> {
    let Some(src) = &section.prefill.chip else { return Ok(None) };
    let chip = src.resolve().map_err(|e| e.prefixed("prefill.chip"))?;
    if matches!(src, ChipSource::Custom(_)) {
        chip.validate().map_err(|e| e.prefixed("prefill.chip.custom"))?;
    }
    Ok(Some(chip))
}

/// `with_curves` false leaves `curves` empty ([`Curves::none`]): the charts' sweeps are most
/// of the plan's work, and a caller that shows no chart (the headline bands) need not pay it.
/// The search under targets is a stage of its own (`crate::scenario::search_report`): `search` is `None`
/// here, so that a caller that does not search (the serving page, which searches in its
/// background worker) does not link it.
fn evaluate(
    model: &ModelConfig,
    hw: &ResolvedHardware,
    prefill_chip: Option<Chip>,
    topology_given: bool,
    section: &InferenceSection,
    with_curves: bool,
) -> Result<InferenceReport, Invalid> {
    let chip = &hw.chip;
    let s = &section.sharding;
    if !topology_given && (s.model_axes.is_some() || !s.d_axes.is_empty() || !s.expert_axes.is_empty()) {
        return Err(Invalid::one("sharding", "naming mesh axes needs a `hardware.topology`"));
    }
    let draft = draft_model(section)?;
    let mut notes = Vec::new();
    // The prefill servers: their own mesh (`prefill.topology`, on `prefill.chip` when
    // given), or the smallest slice of `prefill.chip` that holds a pass, or none (prefill
    // on the decode mesh).
    let prefill_on = prefill_chip.as_ref().unwrap_or(chip);
    let prefill_axes = match (&section.prefill.topology, &prefill_chip) {
        (Some(t), _) => Some(t.resolve(prefill_on).map_err(|e| e.prefixed("prefill.topology"))?),
        (None, Some(c)) => match smallest_prefill_slice(model, c, section)? {
            Some((_, axes)) => Some(axes),
            None => {
                let largest =
                    slice_shapes(c).pop().ok_or_else(|| Invalid::one("prefill.chip", "has no slice shapes"))?;
                notes.push(format!(
                    "a prefill pass fits on no {} slice; showing the largest, {}",
                    c.name, largest.label
                ));
                Some(largest.topology(c).resolve(c).map_err(|e| e.prefixed("prefill.chip"))?)
            }
        },
        (None, None) => None,
    };
    let prefill_mesh = prefill_axes.as_deref().map(|a| (a, prefill_chip.as_ref()));
    let fit_batch = section.batch.unwrap_or(1);
    // Candidate slices have their own axes: split them the default way (every scale-up
    // axis, 1D), keeping only what the KV cache does past its heads.
    let default_split =
        InferenceSection { sharding: ServingSharding { kv: s.kv, ..ServingSharding::default() }, ..section.clone() };
    let min = smallest_fitting(model, chip, prefill_mesh, draft.as_ref(), &default_split, fit_batch)?;
    let (plan, topology, topology_source) = if topology_given {
        (
            Plan::new(model, chip, &hw.axes, prefill_mesh, draft.as_ref(), section)?,
            topology_label(&hw.axes),
            TopologySource::Scenario,
        )
    } else if let Some((shape, plan)) = &min {
        (plan.clone(), shape.label.clone(), TopologySource::SmallestFitting)
    } else {
        let largest = slice_shapes(chip).pop().ok_or_else(|| Invalid::one("hardware.chip", "has no slice shapes"))?;
        let axes = largest.topology(chip).resolve(chip).map_err(|e| e.prefixed("hardware.topology"))?;
        notes.push(format!("nothing fits on any {} slice; showing the largest, {}", chip.name, largest.label));
        (
            Plan::new(model, chip, &axes, prefill_mesh, draft.as_ref(), section)?,
            largest.label,
            TopologySource::SmallestFitting,
        )
    };

    let dt = section.dtypes;
    let context = section.decode_context();
    let max_batch = plan.max_batch(context);
    let (batch, batch_source) = match section.batch {
        Some(b) => (b, BatchSource::Scenario),
        None => (max_batch.max(1), BatchSource::LargestFitting),
    };
    let b = batch as f64;
    let (p_len, g_len) = (section.prompt_len as f64, section.output_len as f64);
    let dec = &plan.decode;
    let y = dec.model_parallel();
    let chips = y * dec.replicas;
    let point = dec.decode(b, context, 1.0)?;
    let t = point.time;
    let step = t.step_time_s;

    // KV cache.
    let per_seq = dec.kv_per_sequence(context);
    let layout = dec.mesh.kv;
    let kv_cache = KvCacheReport {
        bytes_per_sequence: per_seq,
        bytes_per_batch: kv_bytes_per_batch(model, context, b, dt.kv),
        window_capped: is_window_capped(model, context),
        layout,
        bytes_per_chip: layout.bytes_per_chip(per_seq, b),
        wasted_bytes_per_chip: layout.wasted_bytes_per_chip(per_seq, b),
    };

    // Model-parallelism limits (book 7.3.2, 8.1.1, 7.6.3).
    let w_axis = axis_bandwidth(chip);
    let alpha = (dec.peak / w_axis).get();
    let beta = dec.hbm.get() / w_axis.get();
    let n_axes = (dec.mesh.model.iter().filter(|a| a.size > 1).count() as f64).max(1.0);
    let (moe_layers, dense_layers) = model.moe_and_dense_layers();
    let f = match &model.moe {
        Some(moe) if moe_layers >= dense_layers => {
            moe.experts_per_token as f64 * moe.expert_d_ff as f64
                + moe.shared_experts as f64 * moe.shared_width() as f64
        }
        _ => model.mlp.d_ff as f64,
    };
    let (wb, ab) = (dt.weights.bytes(), dt.activations.bytes());
    let tp_limits = TpLimits {
        alpha,
        beta,
        n_axes,
        f,
        compute_bound: tp_limit_compute_bound(f, n_axes, alpha, ab),
        memory_bound: tp_limit_memory_bound(f, b, beta, n_axes, wb, ab),
        latency_bound_above: chip
            .scale_up
            .hop_latency
            .filter(|h| h.get() > 0.0)
            .map(|h| latency_bound_above(b, model.d_model as f64, ab, axis_one_way(chip), h))
            // A hop latency of a few attoseconds puts it past f64's range: no finite bound.
            .filter(|y| y.is_finite()),
        model_parallel: y,
    };

    let critical_batch = critical_batch_approx(dec.peak, dec.hbm, dt.weights);
    let tps = tokens_per_s(b, 1.0, step) * dec.replicas;
    let qps = queries_per_s(b, 1.0, step, g_len) * dec.replicas;
    let decode = DecodeReport {
        step: t,
        comms_latency_floor_s: point.comms.latency_floor_s,
        comms_bandwidth_time_s: point.comms.bandwidth_time_s,
        tokens_per_s: tps,
        tokens_per_s_per_chip: per_chip(tps, chips),
        queries_per_s: qps,
        queries_per_s_per_chip: per_chip(qps, chips),
        request_decode_time_s: decode_latency(step, g_len, 1.0),
        critical_batch,
        critical_batch_moe: model.moe.as_ref().map(|m| m.compute_bound_batch(critical_batch)),
        experts_touched_per_layer: point.experts_touched,
        weight_bytes_per_chip: point.work.weight_bytes,
        kv_bytes_per_chip: point.work.kv_bytes,
        flops_per_chip: point.work.flops,
        tp_limits,
    };

    // Prefill.
    let one_pass = plan.prefill_time(section.prompt_len, false)?;
    let chunked = match section.prefill.chunk {
        Some(_) => Some(plan.prefill_time(section.prompt_len, true)?),
        None => None,
    };
    let ttft = chunked.map_or(one_pass.time_s, |c| c.time_s);
    let y_prefill = plan.prefill_setup().model_parallel();
    let prefill = PrefillReport {
        time_s: one_pass.time_s,
        chunked_time_s: chunked.map(|c| c.time_s),
        chunk: section.prefill.chunk,
        ttft_s: ttft,
        flops_per_chip: one_pass.flops,
        mfu_assumed: section.prefill.mfu,
        mfu_effective: one_pass.mfu_effective,
        bound: one_pass.bound,
        chips: y_prefill,
    };

    // Memory.
    let per_chip_mem = plan.memory(batch, context);
    let draft_total = |batch: f64| {
        plan.draft
            .as_ref()
            .map_or(Bytes::ZERO, |d| d.weights_stored_per_chip() * y + d.kv_per_sequence(context) * batch)
    };
    let weights_total = dec.weights_stored_per_chip() * y;
    let usable = dec.hbm_capacity * (1.0 - section.reserved_hbm_fraction);
    let need = weights_total + per_seq * fit_batch as f64 + draft_total(fit_batch as f64);
    let memory = MemoryReport {
        per_chip: per_chip_mem,
        weights_total,
        kv_total: per_seq * b,
        chips_needed: chips_needed(need, usable),
        min_chips: min_chips(need, usable),
        min_power_of_two_chips: min_power_of_two_chips(need, usable),
        min_topology: min.as_ref().map(|(shape, _)| shape.clone()),
        max_batch,
    };

    // Disaggregation (book 8.1.2, 7.4).
    let price = Price::resolve(section.price_per_chip_hour_usd, chip);
    let prefill_price = match (&plan.prefill_chip, section.prefill.price_per_chip_hour_usd) {
        (_, Some(p)) => Price::resolve(Some(p), prefill_on),
        (None, None) => price,
        (Some(c), None) => Price::resolve(None, c),
    };
    let kv_request = dec.kv_per_sequence(section.prompt_len);
    let prefill_topology = prefill_axes.as_deref().map_or_else(|| topology_label(&dec.mesh.model), topology_label);
    let disaggregation = disaggregation_report(&DisaggregationInputs {
        plan: &plan,
        prefill_chip: prefill_on,
        prefill_topology,
        decode_topology: topology_label(&dec.mesh.model),
        batch: b,
        decode_fits: per_chip_mem.fits,
        ttft,
        step,
        price: &price,
        prefill_price: &prefill_price,
    })?;
    let disaggregation = DisaggregationReport {
        prefill_per_decode: prefill_per_decode(ttft, step, b, g_len),
        kv_bytes_per_request: kv_request,
        kv_transfer_ici_s: kv_transfer(
            kv_request,
            y_prefill,
            axis_one_way(chip),
            chip.scale_up.hop_latency.unwrap_or(Seconds::ZERO),
        )
        .total,
        kv_transfer_dcn_s: kv_transfer(
            kv_request,
            y_prefill,
            chip.scale_out.bandwidth_per_chip,
            chip.scale_out.hop_latency.unwrap_or(Seconds::ZERO),
        )
        .total,
        sequences_finished_per_step: sequences_finished_per_step(b, g_len),
        kv_tokens_evicted_per_step: kv_tokens_evicted_per_step(b, p_len, g_len),
        ..disaggregation
    };

    // Speculative decoding (book 7.2.1).
    let speculative = match &section.speculative {
        Some(sp) => {
            let verify = dec.decode(b, context, sp.draft_len as f64 + 1.0)?.time.step_time_s;
            let draft_step = match (&plan.draft, plan.draft_ratio()) {
                (Some(d), _) => d.decode(b, context, 1.0)?.time.step_time_s,
                (None, Some(r)) => step * r,
                (None, None) => Seconds::ZERO,
            };
            let st = speculative_step(sp.draft_len, sp.acceptance, draft_step, verify, step);
            let spec_tps = tokens_per_s(b, st.expected_tokens, st.iteration_time_s) * dec.replicas;
            Some(SpeculativeReport {
                expected_tokens_per_step: st.expected_tokens,
                draft_step_s: draft_step,
                draft_time_s: st.draft_time_s,
                verify_time_s: st.verify_time_s,
                iteration_time_s: st.iteration_time_s,
                time_per_token_s: st.time_per_token_s,
                speedup: st.speedup,
                tokens_per_s_per_chip: per_chip(spec_tps, chips),
            })
        }
        None => None,
    };

    // Cost.
    let cost = price.usd_per_chip_hour.map(|p| CostReport {
        price_per_chip_hour_usd: p,
        price_source: price.source,
        decode_usd_per_million_tokens: usd_per_million_tokens(p, 1.0, decode.tokens_per_s_per_chip),
        prefill_usd_per_million_tokens: usd_per_million_tokens(p, y_prefill, p_len / ttft.get()),
    });

    notes.extend(super::notes::notes(model, &plan, &decode, &kv_cache, &per_chip_mem, batch));
    let continuous_batching = continuous_batching(&plan, batch, &price)?;
    notes.extend(super::notes::serving_notes(&plan, &disaggregation, &continuous_batching));
    Ok(InferenceReport {
        kv_bytes_per_token: kv_bytes_per_token(model, dt.kv),
        min_chips: memory.min_chips,
        max_batch,
        binds: t.binds,
        dtypes: dt,
        serving: ServingReport {
            topology,
            topology_source,
            chips,
            model_axes: dec.mesh.model.iter().map(|a| a.name.clone()).collect(),
            model_parallel: y,
            replicas: dec.replicas,
            batch,
            batch_source,
            context,
        },
        curves: if with_curves { curves(&plan, batch)? } else { Curves::none(batch) },
        kv_cache,
        decode,
        prefill,
        memory,
        disaggregation,
        continuous_batching,
        search: None,
        mla: mla_report(model, dt.kv, dec.peak, dec.hbm),
        moe: moe_report(dec, b, &point),
        speculative,
        price,
        cost,
        notes,
    })
}

/// Check a scenario's `inference` section against its `hardware` without computing the
/// plan: paths relative to the scenario (`inference.batch`, `hardware`, ...).
///
/// # Errors
/// Every problem found.
pub fn validate_section(section: Option<&InferenceSection>, hardware: Option<&HardwareSection>) -> Result<(), Invalid> {
    let Some(section) = section else { return Ok(()) };
    let Some(hw) = hardware else { return Err(Invalid::one("hardware", "is required by `inference`")) };
    let mut c = Checker::new();
    let names: Vec<(String, bool)> = hw
        .topology
        .as_ref()
        .map(|t| t.axes.iter().map(|a| (a.name.clone(), a.network == Network::ScaleUp)).collect())
        .unwrap_or_default();
    let sh = &section.sharding;
    if hw.topology.is_none() && (sh.model_axes.is_some() || !sh.d_axes.is_empty() || !sh.expert_axes.is_empty()) {
        c.push_related("inference.sharding", &["hardware.topology"], "naming mesh axes needs a `hardware.topology`");
    } else {
        c.merge("inference", section.validate(&names));
    }
    c.merge("inference", draft_model(section).map(|_| ()));
    if let Ok(chip) = hw.chip.resolve() {
        let compute = section.dtypes.compute;
        c.ensure(chip.peak_flops.for_dtype(compute).is_some(), "inference.dtypes.compute", || {
            format!("{} has no published {} peak", chip.name, compute.name())
        });
        match prefill_chip(section) {
            Ok(prefill) => {
                let on = prefill.as_ref().unwrap_or(&chip);
                if let Some(t) = &section.prefill.topology {
                    c.merge("inference.prefill.topology", t.validate(on));
                }
                c.ensure(
                    prefill.is_none() || on.peak_flops.for_dtype(compute).is_some(),
                    "inference.prefill.chip",
                    || format!("{} has no published {} peak", on.name, compute.name()),
                );
                let network = section.kv_transfer.network;
                c.ensure(network != KvNetwork::ScaleUp || on.id == chip.id, "inference.kv_transfer.network", || {
                    format!(
                        "`scale_up` needs both pools on one chip type ({} prefills, {} decodes)",
                        on.name, chip.name
                    )
                });
            }
            Err(e) => c.merge("inference", Err(e)),
        }
    }
    c.finish()
}
