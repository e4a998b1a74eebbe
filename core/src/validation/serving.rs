//! A published serving run as a scenario, and the serving model's prediction for it.
//!
//! Each run becomes a scenario (its model preset, chip and one replica's topology, and an
//! `inference` section with its formats, lengths, batch and token budget) evaluated by
//! the public evaluator, [`inference_report_without_curves`], or, for online runs, by the
//! serving model's co-located server ([`Colocated`]); the calibration enters as a derated
//! chip and a per-pass overhead ([`ServingCalibration`]). By the kind of load:
//!
//! | load | prediction |
//! |---|---|
//! | offline (a batch `B`, or the largest that fits under the engine's cap) | output tokens/s = `B·G / (prefill(B prompts) + G·step(B))`: every request's prefill plus `G` decode steps shared by `B` sequences |
//! | online, closed loop at concurrency `C` | continuous batching with chunked prefill at `C` ([`Colocated::at_concurrency`]): TPOT = the mean step `τ̄` (decode steps and the mixed steps that carry prompt chunks), TTFT = the prefill queue (M/G/1 at the rate the loop sustains) plus the request's own wait for the step in progress and its chunks; throughput = `C·G / (TTFT + (G−1)·τ̄)` (Little's law over a client's cycle) |
//! | online, open loop at a rate λ | the same server at λ ([`Colocated::at_rate`]: Poisson arrivals, the concurrency from Little's law `C = λ·G·τ̄(C)`); when no concurrency that fits satisfies it (λ above what the server sustains), the run's own `requests` followed in time as the batch grows ([`crate::inference::finite_run`]) |
//! | latency (batch 1) | TTFT = `prefill(1)` |
//! | prefill alone / decode alone | input tokens/s = `n·P / prefill(n prompts)`; output tokens/s = `B / step(B)` |
//!
//! `prefill(n prompts)` is one pass over `n` prompts: `max(n × its FLOP time, one prompt's
//! time)` — the FLOPs add up, the weights are read once (communication is not scaled with
//! `n`). The KV context of a decode step is `P + G/2` (`kv_context: mean`: paged attention
//! reads what is written); a layer's collectives are on the critical path
//! (`comms_overlap: none`: engines do not overlap a layer's AllReduce with its own
//! matmuls). The token budget per step is the run's (`token_budget`: vLLM's
//! `max_num_batched_tokens`, TensorRT-LLM's `max_num_tokens`, stated or the engine's
//! default), the largest concurrency what fits in HBM below the engine's cap.

use super::serving_runs::{Lengths, LoadKind, ServingRun};
use crate::collectives::Network;
use crate::dtype::DType;
use crate::efficiency::serving::ServingCalibration;
use crate::error::Invalid;
use crate::hardware::chip::{ChipFamily, Fabric};
use crate::hardware::query::{ChipSource, HardwareSection};
use crate::hardware::topology::Topology;
use crate::inference::continuous::{Colocated, ColocatedPoint, Limit};
use crate::inference::decode::DecodeBound;
use crate::inference::options::{CommsOverlap, InferenceSection, KvContext, ServingDtypes, ServingSharding};
use crate::inference::plan::Plan;
use crate::inference::slices::slice_shapes;
use crate::inference::InferenceReport;
use crate::scenario::inference_report_without_curves;
use crate::scenario::{Conventions, ModelSource, Scenario};
use crate::validation::PredictionMode;
use serde::{Deserialize, Serialize};

/// One predicted quantity against its measurement.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Compared {
    /// The model's value.
    pub predicted: f64,
    /// The published value.
    pub measured: f64,
    /// `(predicted − measured) / measured`, in %: positive = the model says faster for a
    /// throughput, slower for a latency.
    pub error_pct: f64,
}

impl Compared {
    fn new(predicted: f64, measured: f64) -> Self {
        Self { predicted, measured, error_pct: (predicted / measured - 1.0) * 100.0 }
    }

    /// `|ln(predicted / measured)|`: the symmetric error the fit minimises.
    #[must_use]
    pub fn abs_log_error(&self) -> f64 {
        (self.predicted / self.measured).ln().abs()
    }
}

/// Where the batch a prediction used comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchBasis {
    /// The source states it.
    Stated,
    /// The largest that fits in HBM (below the engine's cap).
    LargestFitting,
    /// The engine's cap (more would fit).
    EngineCap,
    /// The closed loop's concurrency.
    Concurrency,
    /// Little's law at the run's request rate on the model's own time per output token,
    /// `C = λ·G·τ̄(C)`.
    LittlesLaw,
    /// The most in flight during a finite run the model's server cannot settle
    /// (`inference::finite_run`).
    FiniteRun,
}

/// The model's prediction for one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServingPrediction {
    /// Sequences in flight per replica.
    pub batch: f64,
    /// Where that comes from.
    pub batch_basis: BatchBasis,
    /// Chips per replica as the model splits it.
    pub model_parallel: f64,
    /// One decode step at that batch, seconds (overhead included).
    pub decode_step_s: f64,
    /// One prompt's prefill, seconds (overhead included).
    pub prefill_s: f64,
    /// What binds the decode step.
    pub binds: DecodeBound,
    /// Whether the model's memory fits the batch in HBM.
    pub fits: bool,
    /// Throughput per chip (output, or input for prefill runs).
    pub throughput: Option<Compared>,
    /// Time to first token.
    pub ttft: Option<Compared>,
    /// Time per output token.
    pub tpot: Option<Compared>,
}

impl ServingPrediction {
    /// Every comparison this prediction makes.
    pub fn compared(&self) -> impl Iterator<Item = &Compared> {
        [&self.throughput, &self.ttft, &self.tpot].into_iter().flatten()
    }
}

fn dtype(field: &str, name: &str) -> Result<DType, String> {
    DType::parse(name).ok_or_else(|| format!("{field} format {name:?} is not one the core models (no fp4 yet)"))
}

/// Why a run cannot be modelled, before any evaluation: no preset, a number format the
/// core lacks, lengths no source gives.
///
/// # Errors
/// The reason, in words.
pub fn check_modellable(run: &ServingRun) -> Result<(), String> {
    if run.model_preset.is_empty() {
        return Err(format!("no preset for {}", run.model));
    }
    for (field, name) in [("weights", &run.weights), ("kv", &run.kv), ("activations", &run.activations)] {
        dtype(field, name)?;
    }
    dtype("compute", &run.compute)?;
    if run.lengths == Lengths::Unknown || run.input_len.is_none() || run.output_len.is_none() {
        return Err("the mean input length is not published".into());
    }
    Ok(())
}

/// One replica's topology: a GPU node (or several, joined over the scale-out network), or
/// the TPU slice shape with that many chips.
fn replica_topology(run: &ServingRun) -> Result<Topology, String> {
    let chip = crate::hardware::catalog::get(&run.chip).ok_or_else(|| format!("unknown chip {}", run.chip))?;
    let n = run.chips_per_replica;
    match (chip.family, chip.scale_up.fabric) {
        (ChipFamily::Gpu, _) | (_, Fabric::Switch | Fabric::FullMesh) => {
            let domain = chip.scale_up.max_chips.clamp(1, 8);
            Ok(if n <= domain {
                Topology::gpu_cluster(n, 1)
            } else {
                Topology::gpu_cluster(domain, n.div_ceil(domain))
            })
        }
        (ChipFamily::Tpu, Fabric::Torus { .. }) => slice_shapes(&chip)
            .into_iter()
            .find(|s| s.chips == n)
            .map(|s| s.topology(&chip))
            .ok_or_else(|| format!("no {} slice of {n} chips", chip.name)),
    }
}

/// The run as a scenario on `chip` (the catalog's, or a calibrated copy), with `batch`
/// sequences per replica (`None`: the largest that fits).
///
/// # Errors
/// A run that cannot be modelled ([`check_modellable`]) or has no topology.
pub fn run_scenario(run: &ServingRun, chip: ChipSource, batch: Option<u64>) -> Result<Scenario, String> {
    check_modellable(run)?;
    let topology = replica_topology(run)?;
    let len = |x: Option<f64>| x.map_or(1, |v| v.round().max(1.0) as u64);
    let mut section = InferenceSection::new(len(run.input_len), len(run.output_len));
    section.dtypes = ServingDtypes {
        weights: dtype("weights", &run.weights)?,
        kv: dtype("kv", &run.kv)?,
        activations: dtype("activations", &run.activations)?,
        compute: dtype("compute", &run.compute)?,
    };
    section.batch = batch;
    section.token_budget = run.token_budget.map(|b| b.round().max(2.0) as u64);
    section.kv_context = KvContext::Mean;
    // A layer's collectives wait for its matmuls and the next layer waits for them: on the
    // critical path, not overlapped.
    section.comms_overlap = CommsOverlap::None;
    // The model spans every axis of the replica (a replica of several GPU nodes splits
    // over the scale-out network too); experts over all of them when the run uses EP.
    let all: Vec<String> = topology.axes.iter().map(|a| a.name.clone()).collect();
    let spans_scale_out = topology.axes.iter().any(|a| a.network == Network::ScaleOut);
    section.sharding = ServingSharding {
        model_axes: spans_scale_out.then(|| all.clone()),
        expert_axes: if run.ep > 1 { all } else { Vec::new() },
        ..ServingSharding::default()
    };
    // The calibration enters through the chip (`predict`): the scenario itself asks for the
    // roofline, whatever the default mode.
    let conventions = Conventions { prediction: PredictionMode::Ideal, ..Conventions::default() };
    Ok(Scenario {
        model: ModelSource::Preset(run.model_preset.clone()),
        conventions,
        hardware: Some(HardwareSection { chip, topology: Some(topology) }),
        inference: Some(section),
        ..Scenario::default()
    })
}

/// The run's report on `chip` at `batch`.
fn report(run: &ServingRun, chip: &ChipSource, batch: Option<u64>) -> Result<InferenceReport, String> {
    let s = run_scenario(run, chip.clone(), batch)?;
    let m = s.validate().map_err(|e| e.to_string())?;
    inference_report_without_curves(&m, &s)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "the scenario has no inference section".to_string())
}

/// One pass over `n` prompts: their FLOPs add up, the weights are read once.
fn prefill_pass_s(r: &InferenceReport, n: f64, overhead: f64) -> f64 {
    let one = r.prefill.time_s.get();
    (n * r.prefill.mfu_effective * one).max(one) + overhead
}

/// What the model's server gives for an online run.
#[derive(Clone, Copy, Debug)]
struct OnlinePoint {
    /// Sequences in flight (the most, for a run that does not settle).
    concurrency: f64,
    basis: BatchBasis,
    ttft_mean_s: f64,
    ttft_p50_s: f64,
    tpot_s: f64,
}

/// An online run as the serving model's co-located server ([`Colocated`]: continuous
/// batching with chunked prefill under the run's token budget, every step costing the
/// calibration's overhead `tau`): at the run's concurrency (a closed loop); at its
/// request rate (Poisson arrivals, the concurrency from Little's law) when the server
/// sustains it; otherwise the run's `requests` followed in time as the batch grows
/// ([`crate::inference::finite_run`]).
fn online_point(run: &ServingRun, chip: &ChipSource, tau: f64) -> Result<OnlinePoint, String> {
    let s = run_scenario(run, chip.clone(), None)?;
    let m = s.validate().map_err(|e| e.to_string())?;
    let hw = s.validate_hardware().map_err(|e| e.to_string())?.ok_or("the run has no hardware")?;
    let section = s.inference.as_ref().ok_or("the run has no inference section")?;
    let plan = Plan::new(&m, &hw.chip, &hw.axes, None, None, section).map_err(|e| e.to_string())?;
    let traffic = section.traffic();
    // The run's section sets no prefill utilisation: the roofline's, as `Colocated::of_plan`
    // reads it.
    let cb = Colocated::of_plan(&plan, &traffic, tau);
    let fits = plan.colocated_max_concurrency(cb.context, cb.budget) as f64;
    let max_concurrency = run.max_batch.map_or(fits, |cap| cap.min(fits));
    let settled = |p: ColocatedPoint, basis| OnlinePoint {
        concurrency: p.concurrency,
        basis,
        ttft_mean_s: p.ttft.mean_s,
        ttft_p50_s: p.ttft.p50_s,
        tpot_s: p.tpot_s.get(),
    };
    let err = |e: Invalid| e.to_string();
    match (run.concurrency, run.request_rate) {
        (Some(c), _) => match cb.at_concurrency(c.round().max(1.0)).map_err(err)? {
            Ok(p) => Ok(settled(p, BatchBasis::Concurrency)),
            Err(l) => Err(overloaded(run, l)),
        },
        (None, Some(rate)) => match cb.at_rate(rate, max_concurrency).map_err(err)? {
            Ok(p) => Ok(settled(p, BatchBasis::LittlesLaw)),
            Err(l) => {
                let n = run.requests.ok_or_else(|| overloaded(run, l))?;
                let r = cb.finite_run(rate, n, max_concurrency).map_err(err)?.ok_or_else(|| overloaded(run, l))?;
                Ok(OnlinePoint {
                    concurrency: r.peak_concurrency,
                    basis: BatchBasis::FiniteRun,
                    ttft_mean_s: r.ttft_mean_s,
                    ttft_p50_s: r.ttft_p50_s,
                    tpot_s: r.tpot_s,
                })
            }
        },
        (None, None) => Err("an online run needs its concurrency or its request rate".into()),
    }
}

/// Why an online run's load has no steady state on the model's server.
fn overloaded(run: &ServingRun, limit: Limit) -> String {
    let why = match limit {
        Limit::NoPrefillRoom => "its concurrency leaves no room for prompts in the step's token budget",
        Limit::PrefillBound => "the model's server cannot prefill prompts as fast as they arrive",
        Limit::Memory => "the concurrency the rate needs does not fit in HBM",
    };
    format!("overloaded in the model: {why} ({})", run.id)
}

fn batch_of(x: f64) -> u64 {
    x.round().clamp(1.0, crate::inference::options::MAX_BATCH as f64) as u64
}

/// The model's prediction for `run` under `calibration`.
///
/// # Errors
/// Why the run cannot be modelled or the evaluator refused it, in words.
pub fn predict(run: &ServingRun, calibration: &ServingCalibration) -> Result<ServingPrediction, String> {
    check_modellable(run)?;
    let catalog = crate::hardware::catalog::get(&run.chip).ok_or_else(|| format!("unknown chip {}", run.chip))?;
    // A custom chip carries its provenance (the catalog's), as every custom chip must.
    let derated = calibration.derate_chip(&crate::hardware::catalog::with_provenance(catalog));
    let chip = ChipSource::Custom(Box::new(derated));
    let layers = crate::presets::find(&run.model_preset).map_or(0, |p| p.config.num_layers);
    let tau = calibration.pass_overhead(layers);
    let (p, g) = (run.input_len.unwrap_or(1.0).round().max(1.0), run.output_len.unwrap_or(1.0).round().max(1.0));
    let online = match run.scenario {
        LoadKind::Online => Some(online_point(run, &chip, tau)?),
        _ => None,
    };
    let (batch, basis) = match (run.scenario, run.batch, run.concurrency, &online) {
        (_, Some(b), _, _) => (batch_of(b), BatchBasis::Stated),
        (LoadKind::Online, None, _, Some(point)) => (batch_of(point.concurrency), point.basis),
        (_, None, _, _) => {
            let fit = report(run, &chip, None)?.max_batch;
            match run.max_batch {
                Some(cap) if (fit as f64) > cap => (batch_of(cap), BatchBasis::EngineCap),
                _ if fit == 0 => return Err("the model's memory does not fit a single sequence".into()),
                _ => (fit, BatchBasis::LargestFitting),
            }
        }
    };
    let r = report(run, &chip, Some(batch))?;
    let y = r.serving.model_parallel.max(1.0);
    let b = batch as f64;
    let step = r.decode.step.step_time_s.get() + tau;
    let prefill_one = r.prefill.time_s.get() + tau;
    let cmp = |pred: f64, meas: Option<f64>| meas.filter(|m| *m > 0.0).map(|m| Compared::new(pred, m));
    let (mut throughput, mut ttft, mut tpot) = (None, None, None);
    match run.scenario {
        LoadKind::Latency => ttft = cmp(prefill_one, run.ttft_s),
        LoadKind::Offline => {
            let x = b * g / (prefill_pass_s(&r, b, tau) + g * step);
            throughput = cmp(x / y, run.throughput_per_chip());
        }
        LoadKind::Online => {
            if let Some(point) = &online {
                // The statistic the source gives: the median or the mean.
                let first = if run.ttft_stat == "p50" { point.ttft_p50_s } else { point.ttft_mean_s };
                let per_token = point.tpot_s;
                ttft = cmp(first, run.ttft_s);
                tpot = cmp(per_token, run.tpot_s);
                // Little's law over a client's cycle: C requests in flight, each taking
                // its time to first token and G − 1 more tokens.
                let x = point.concurrency * g / (point.ttft_mean_s + (g - 1.0) * per_token);
                throughput = cmp(x / y, run.throughput_per_chip());
            }
        }
        LoadKind::Prefill => {
            let x = b * p / prefill_pass_s(&r, b, tau);
            throughput = cmp(x / y, run.throughput_per_chip());
        }
        LoadKind::Decode => throughput = cmp(b / step / y, run.throughput_per_chip()),
    }
    let out = ServingPrediction {
        batch: b,
        batch_basis: basis,
        model_parallel: y,
        decode_step_s: step,
        prefill_s: prefill_one,
        binds: r.decode.step.binds,
        fits: r.memory.per_chip.fits,
        throughput,
        ttft,
        tpot,
    };
    if out.compared().all(|c| c.predicted.is_finite() && c.predicted > 0.0) {
        Ok(out)
    } else {
        Err("the prediction is not a positive finite number".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::serving_runs::{all, get};

    /// Every row either is modelled or says why not; the reasons are the expected ones.
    #[test]
    fn every_row_is_predicted_or_says_why_not() {
        for run in all() {
            match predict(run, &ServingCalibration::IDEAL) {
                Ok(p) => {
                    assert!(p.compared().count() > 0, "{}: nothing compared", run.id);
                    assert_eq!(p.model_parallel, run.chips_per_replica as f64, "{}: one replica's chips", run.id);
                }
                Err(e) => assert!(
                    e.contains("no preset") || e.contains("fp4") || e.contains("mean input length"),
                    "{}: {e}",
                    run.id
                ),
            }
        }
    }

    /// Llama 2 7B, FP8, batch 1 on one H100, 2048-token prompt: the roofline's prefill is
    /// its FLOPs at the FP8 peak (1.979e15 FLOP/s) — a first-principles count: 6.738e9
    /// weights less the input embedding (a lookup) and the output head (applied to the
    /// last token only), 32000·4096 = 0.131e9 each: 2·6.476e9·2048 = 2.653e13 FLOPs; causal
    /// attention QKᵀ and AV, 2·2·P²·D·L / 2 = 2·2048²·4096·32 = 1.100e12; the head on one
    /// token, 2.6e8. Total 2.763e13 / 1.979e15 = 13.96 ms (the HBM reads, 6.7 GB / 3.35 TB/s
    /// = 2 ms, are shorter).
    #[test]
    fn ideal_prefill_is_flops_over_peak() {
        let run = get("trtllm-0.9-h100-llama-2-7b-tp1-ttft-2048").unwrap();
        let p = predict(run, &ServingCalibration::IDEAL).unwrap();
        let expected = (2.0 * 6.476e9 * 2048.0 + 2.0 * 2048f64.powi(2) * 4096.0 * 32.0 + 2.0 * 0.131e9) / 1.979e15;
        assert!((p.prefill_s / expected - 1.0).abs() < 0.02, "{} vs {expected}", p.prefill_s);
        let c = p.ttft.unwrap();
        assert_eq!(c.measured, 0.0308);
    }

    /// The overhead adds to every pass and the derating slows the rates: a calibrated
    /// prediction of a decode-bound run is slower than the ideal one by the HBM fraction.
    #[test]
    fn calibration_slows_the_roofline() {
        let run = get("trtllm-0.14-h100-llama-3-8b-tp1-qps2-467-256").unwrap();
        let ideal = predict(run, &ServingCalibration::IDEAL).unwrap();
        assert_eq!(ideal.batch_basis, BatchBasis::LittlesLaw);
        let half = ServingCalibration { hbm: 0.5, matmul: 1.0, pass_overhead_s: 0.001, layer_overhead_s: 1e-5 };
        let slow = predict(run, &half).unwrap();
        assert_eq!(ideal.binds, DecodeBound::WeightLoading);
        let expected = 2.0 * ideal.decode_step_s + 0.001 + 32.0 * 1e-5;
        assert!((slow.decode_step_s / expected - 1.0).abs() < 0.05, "{} vs {expected}", slow.decode_step_s);
    }

    /// Open loops by hand. At 2 QPS the server settles: its concurrency is Little's law
    /// on its own time per output token, C = λ·G·τ̄ = 2 × 256 × τ̄ (rounded to a whole
    /// sequence). At 16 QPS the 70B server over four H100s cannot (it sustains about 15
    /// requests/s at the most that fits), so the 500 requests are followed in time: the
    /// batch grows past what 2 QPS needs, and every step slows.
    #[test]
    fn open_loops_settle_by_littles_law_or_run_their_requests() {
        let c = crate::efficiency::serving::bundled();
        let light = predict(get("trtllm-0.14-h100-llama-3-70b-tp4-qps2-467-256").unwrap(), &c).unwrap();
        assert_eq!(light.batch_basis, BatchBasis::LittlesLaw);
        let tpot = light.tpot.unwrap().predicted;
        assert!((light.batch - 2.0 * 256.0 * tpot).abs() <= 1.0, "{} vs {}", light.batch, 512.0 * tpot);
        let run = get("trtllm-0.14-h100-llama-3-70b-tp4-qps16-467-256").unwrap();
        assert_eq!(run.requests, Some(500.0));
        let heavy = predict(run, &c).unwrap();
        assert_eq!(heavy.batch_basis, BatchBasis::FiniteRun);
        assert!(heavy.batch > 16.0 * 256.0 * tpot, "{}", heavy.batch);
        assert!(heavy.tpot.unwrap().predicted > tpot);
        // Without the run's length there is nothing to follow: the run says why.
        let endless = ServingRun { requests: None, ..run.clone() };
        assert!(predict(&endless, &c).unwrap_err().contains("overloaded"));
    }
}
