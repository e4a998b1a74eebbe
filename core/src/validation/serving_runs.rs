//! The serving validation set (`core/data/serving-runs.csv`, described in
//! `core/data/SERVING-RUNS.md`): published serving measurements — TensorRT-LLM's
//! performance tables, MLPerf Inference results, vLLM, SGLang and JetStream numbers —
//! each with its source, engine, model, chips, parallelism, number formats, lengths, load
//! and what was measured. `build.rs` turns the CSV into JSON for the crate.

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// How the engine was loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadKind {
    /// Every request queued at once (offline / maximum throughput), or a static batch.
    Offline,
    /// Requests at a rate (open loop) or under a concurrency cap (closed loop).
    Online,
    /// One request alone: time to first token.
    Latency,
    /// The prefill phase alone (its decode servers given unlimited resources).
    Prefill,
    /// The decode phase alone (its prefill servers given unlimited resources).
    Decode,
}
crate::serde_names::deserialize_by_name!(LoadKind {
    Offline => "offline", Online => "online", Latency => "latency", Prefill => "prefill", Decode => "decode"
});

/// What `input_len` and `output_len` are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lengths {
    /// Every request has these lengths (synthetic data with zero spread).
    Fixed,
    /// A dataset: the lengths are its means.
    Mean,
    /// A dataset whose mean input length no source read gives.
    Unknown,
}
crate::serde_names::deserialize_by_name!(Lengths { Fixed => "fixed", Mean => "mean", Unknown => "unknown" });

/// One published serving measurement, a row of `serving-runs.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServingRun {
    /// Stable identifier, e.g. `trtllm-0.17-h200-llama-3-8b-tp1-128-2048`.
    pub id: String,
    /// The publication, in words.
    pub source: String,
    /// Where exactly: `owner/repo@commit path § section`.
    pub r#ref: String,
    /// Publication date (ISO, as precise as known).
    pub date: String,
    /// Serving engine (`TensorRT-LLM`, `vLLM (TPU)`, `SGLang`, ...).
    pub engine: String,
    /// Its version, as the source states it.
    pub engine_version: String,
    /// The model as the source names it.
    pub model: String,
    /// The preset with its architecture; empty when there is none.
    pub model_preset: String,
    /// Catalog chip id.
    pub chip: String,
    /// Chips of one model replica.
    pub chips_per_replica: u64,
    /// Replicas in the measured system.
    pub replicas: u64,
    /// Tensor parallelism (0 when not stated).
    pub tp: u64,
    /// Expert parallelism.
    pub ep: u64,
    /// Data parallelism (of attention, for DP-attention deployments).
    pub dp: u64,
    /// Pipeline parallelism.
    pub pp: u64,
    /// Stored weights format (`bf16`, `fp8`, `int8`, `nvfp4`, ...).
    pub weights: String,
    /// KV-cache format.
    pub kv: String,
    /// Activations (what collectives move).
    pub activations: String,
    /// Matmul format.
    pub compute: String,
    /// Input (prompt) tokens per request; `None` when unknown.
    pub input_len: Option<f64>,
    /// Output tokens per request.
    pub output_len: Option<f64>,
    /// Fixed lengths or means.
    pub lengths: Lengths,
    /// Sequences in flight per replica, when the source gives (or fixes) it.
    pub batch: Option<f64>,
    /// The engine's cap on the batch, when the batch is whatever fits.
    pub max_batch: Option<f64>,
    /// Closed-loop cap on requests in flight.
    pub concurrency: Option<f64>,
    /// Open-loop request rate the load generator aimed at, requests/s.
    pub request_rate: Option<f64>,
    /// Tokens one engine step may carry (decode tokens plus prefill chunks: vLLM's
    /// `max_num_batched_tokens`, TensorRT-LLM's `max_num_tokens`), as the source states
    /// it or the engine's default; given for the online runs.
    pub token_budget: Option<f64>,
    /// Requests the benchmark sent (online runs), when the source states it.
    pub requests: Option<f64>,
    /// How the engine was loaded.
    pub scenario: LoadKind,
    /// Output tokens/s of the whole system.
    pub out_tps_total: Option<f64>,
    /// Output tokens/s per chip (`out_tps_total / chips`).
    pub out_tps_per_chip: Option<f64>,
    /// Input (prefill) tokens/s of the whole system.
    pub in_tps_total: Option<f64>,
    /// Input tokens/s per chip.
    pub in_tps_per_chip: Option<f64>,
    /// Completed requests/s.
    pub requests_per_s: Option<f64>,
    /// Which statistic `ttft_s` is (`mean`, `p50`, `single`).
    pub ttft_stat: String,
    /// Time to first token, seconds.
    pub ttft_s: Option<f64>,
    /// Its 99th percentile, seconds.
    pub ttft_p99_s: Option<f64>,
    /// Which statistic `tpot_s` is (`mean`, `p50`).
    pub tpot_stat: String,
    /// Time per output token (inter-token latency), seconds.
    pub tpot_s: Option<f64>,
    /// Its 99th percentile, seconds.
    pub tpot_p99_s: Option<f64>,
    /// Conventions, assumptions and what was inferred.
    pub notes: String,
}

/// `data/serving-runs.csv` as JSON (see `build.rs`).
const RUNS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/serving-runs.json"));

/// Parse the bundled set.
///
/// # Errors
/// The parse error; the tests prove the bundled set parses.
pub fn parse_bundled() -> Result<Vec<ServingRun>, serde_json::Error> {
    crate::json::from_str(RUNS_JSON)
}

/// Every serving run, in the table's order (parsed once).
#[must_use]
pub fn all() -> &'static [ServingRun] {
    static CELL: OnceLock<Vec<ServingRun>> = OnceLock::new();
    CELL.get_or_init(|| parse_bundled().unwrap_or_default())
}

/// The run with this id.
#[must_use]
pub fn get(id: &str) -> Option<&'static ServingRun> {
    all().iter().find(|r| r.id == id)
}

impl ServingRun {
    /// Chips in the measured system.
    #[must_use]
    pub fn chips(&self) -> f64 {
        (self.chips_per_replica * self.replicas) as f64
    }

    /// The engine × chip group: rows of one group are near-duplicates (same software on
    /// the same hardware), so a group is fitted or held back as a whole.
    #[must_use]
    pub fn group(&self) -> String {
        format!("{} × {}", self.engine, self.chip)
    }

    /// The measured throughput per chip the validation compares: input tokens/s for a
    /// prefill-only run, output tokens/s otherwise; `None` for latency runs and for
    /// open-loop runs (whose throughput is the offered rate, not a capacity).
    #[must_use]
    pub fn throughput_per_chip(&self) -> Option<f64> {
        match self.scenario {
            LoadKind::Prefill => self.in_tps_per_chip,
            LoadKind::Offline | LoadKind::Decode => self.out_tps_per_chip,
            LoadKind::Online if self.concurrency.is_some() => self.out_tps_per_chip,
            LoadKind::Online | LoadKind::Latency => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    /// The conversion keeps every row and every value: spot checks read off the CSV.
    #[test]
    fn bundled_set_is_the_csv() {
        let runs = parse_bundled().expect("serving-runs.json parses");
        let csv = include_str!("../../data/serving-runs.csv");
        assert_eq!(runs.len(), csv.lines().filter(|l| !l.trim().is_empty()).count() - 1);
        assert!(runs.len() >= 30, "the issue asks for at least 30 rows, got {}", runs.len());
        let ids: std::collections::BTreeSet<&str> = runs.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids.len(), runs.len(), "duplicate id");
        // Values read off the sources (see SERVING-RUNS.md).
        let r = get("trtllm-0.17-h200-llama-3-70b-tp8-128-2048").unwrap();
        assert_eq!((r.out_tps_total, r.tp, r.chip.as_str()), (Some(21195.88), 8, "h200-sxm"));
        let r = get("vllm-tpu-v6e-8-llama-3.3-70b-c128-1000-1000").unwrap();
        assert_eq!((r.concurrency, r.tpot_s, r.ttft_s), (Some(128.0), Some(0.03543), Some(0.22909)));
        let r = get("sglang-h100-deepseek-v3-decode-ep72-2k").unwrap();
        assert_eq!((r.out_tps_per_chip, r.chips(), r.scenario), (Some(22282.0 / 8.0), 72.0, LoadKind::Decode));
        let r = get("mlperf-4.0-h200x8-llama-2-70b-server").unwrap();
        assert_eq!((r.tpot_s, r.ttft_p99_s, r.lengths), (Some(0.170458974), Some(0.753113481), Lengths::Unknown));
        assert!(r.notes.contains("TTFT <= 2 s"), "quoted field with commas: {}", r.notes);
    }

    /// Every chip is in the catalog and every named preset exists; the models without a
    /// preset are the ones SERVING-RUNS.md lists.
    #[test]
    fn chips_and_models_resolve() {
        let mut missing = Vec::new();
        for r in all() {
            assert!(crate::hardware::catalog::get(&r.chip).is_some(), "{}: unknown chip {}", r.id, r.chip);
            if r.model_preset.is_empty() {
                missing.push(r.model.as_str());
            } else {
                assert!(crate::presets::get(&r.model_preset).is_some(), "{}: unknown preset {}", r.id, r.model_preset);
            }
        }
        assert_eq!(missing, ["Qwen3-32B", "Qwen3-Coder-480B-A35B-Instruct-FP8"]);
    }

    /// The per-chip figures are the totals over the system's chips (to the rounding of
    /// the figure the source did not publish), and each row has what its kind compares.
    #[test]
    fn per_chip_figures_are_totals_over_chips_and_rows_are_complete() {
        for r in all() {
            for (total, per) in [(r.out_tps_total, r.out_tps_per_chip), (r.in_tps_total, r.in_tps_per_chip)] {
                assert_eq!(total.is_some(), per.is_some(), "{}: a total without its per-chip figure", r.id);
                if let (Some(t), Some(p)) = (total, per) {
                    assert!((t / r.chips() - p).abs() <= 1e-4 * p.max(1.0), "{}: {t} / {} != {p}", r.id, r.chips());
                }
            }
            assert!(r.chips_per_replica >= 1 && r.replicas >= 1, "{}", r.id);
            assert!(r.chips_per_replica >= r.tp.max(1) / 2, "{}: TP {} on {} chips", r.id, r.tp, r.chips_per_replica);
            assert!(r.date.len() >= 4 && r.r#ref.contains('@'), "{}: source needs a date and a commit", r.id);
            for f in [&r.weights, &r.kv, &r.activations, &r.compute] {
                assert!(DType::parse(f).is_some() || f == "nvfp4", "{}: unknown format {f}", r.id);
            }
            let has = |v: Option<f64>| v.is_some_and(|x| x > 0.0 && x.is_finite());
            let measured = match r.scenario {
                LoadKind::Latency => has(r.ttft_s),
                LoadKind::Online => has(r.tpot_s) || has(r.out_tps_per_chip),
                _ => has(r.throughput_per_chip()),
            };
            assert!(measured, "{}: nothing measured for a {:?} run", r.id, r.scenario);
            assert!(r.lengths == Lengths::Unknown || (has(r.input_len) && has(r.output_len)), "{}: lengths", r.id);
            match r.scenario {
                LoadKind::Online => assert!(r.concurrency.is_some() || r.request_rate.is_some(), "{}: load", r.id),
                LoadKind::Latency | LoadKind::Prefill | LoadKind::Decode => assert!(r.batch.is_some(), "{}", r.id),
                LoadKind::Offline => assert!(r.batch.is_some() || r.max_batch.is_some(), "{}: batch", r.id),
            }
            for (stat, v) in [(&r.ttft_stat, r.ttft_s), (&r.tpot_stat, r.tpot_s)] {
                assert_eq!(stat.is_empty(), v.is_none(), "{}: a statistic without its value", r.id);
            }
        }
    }
}
