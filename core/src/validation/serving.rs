//! A published serving run as a scenario, and the serving model's prediction for it.
//!
//! Each run becomes a scenario (its model preset, chip and one replica's topology, and an
//! `inference` section with its formats, lengths and batch) evaluated by the public
//! evaluator, [`inference_report_without_curves`]; the calibration enters as a derated
//! chip and a per-pass overhead ([`ServingCalibration`]). What the report gives per
//! request — one decode step at the run's batch, one prompt's prefill — is combined into
//! what the run measured, by the kind of load:
//!
//! | load | prediction |
//! |---|---|
//! | offline (a batch `B`, or the largest that fits under the engine's cap) | output tokens/s = `B·G / (prefill(B prompts) + G·step(B))`: every request's prefill plus `G` decode steps shared by `B` sequences |
//! | online, closed loop at concurrency `C` | TPOT = `step(C)`, TTFT = `prefill(1)`, throughput = `C·G / (TTFT + (G−1)·TPOT)` |
//! | online, open loop at a rate | TPOT = `step(B)` with `B` from Little's law on the measured latencies (requests/s × request latency); TTFT = `prefill(1)` |
//! | latency (batch 1) | TTFT = `prefill(1)` |
//! | prefill alone / decode alone | input tokens/s = `n·P / prefill(n prompts)`; output tokens/s = `B / step(B)` |
//!
//! `prefill(n prompts)` is one pass over `n` prompts: `max(n × its FLOP time, one prompt's
//! time)` — the FLOPs add up, the weights are read once (communication is not scaled with
//! `n`). The KV context of a decode step is `P + G/2` (`kv_context: mean`: paged attention
//! reads what is written); a layer's collectives are on the critical path
//! (`comms_overlap: none`: engines do not overlap a layer's AllReduce with its own
//! matmuls). Queueing is not modelled: a TTFT under load is predicted as an
//! idle server's. When the serving model gains continuous batching and batched prefill
//! (issue 17), these compositions should give way to its own figures.

use super::serving_runs::{Lengths, LoadKind, ServingRun};
use crate::collectives::Network;
use crate::dtype::DType;
use crate::efficiency::serving::ServingCalibration;
use crate::hardware::chip::{ChipFamily, Fabric};
use crate::hardware::query::{ChipSource, HardwareSection};
use crate::hardware::topology::Topology;
use crate::inference::decode::DecodeBound;
use crate::inference::options::{CommsOverlap, InferenceSection, KvContext, ServingDtypes, ServingSharding};
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
    /// Little's law on the measured rate and latencies.
    LittlesLaw,
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
    let measured_rate = || -> Result<f64, String> {
        let (rps, ttft, tpot) = run
            .requests_per_s
            .zip(run.ttft_s)
            .zip(run.tpot_s)
            .map(|((a, b), c)| (a, b, c))
            .ok_or("an open-loop run needs its measured rate, TTFT and TPOT for Little's law")?;
        Ok(rps * (ttft + (g - 1.0) * tpot))
    };
    let (batch, basis) = match (run.scenario, run.batch, run.concurrency) {
        (_, Some(b), _) => (batch_of(b), BatchBasis::Stated),
        (LoadKind::Online, None, Some(c)) => (batch_of(c), BatchBasis::Concurrency),
        (LoadKind::Online, None, None) => (batch_of(measured_rate()?), BatchBasis::LittlesLaw),
        (_, None, _) => {
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
            ttft = cmp(prefill_one, run.ttft_s);
            tpot = cmp(step, run.tpot_s);
            let x = b * g / (prefill_one + (g - 1.0) * step);
            throughput = cmp(x / y, run.throughput_per_chip());
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
}
