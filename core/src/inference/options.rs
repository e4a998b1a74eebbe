//! The `inference` section of a scenario: everything a user sets to plan serving
//! (book chapters 7 and 8). Chip and topology come from the scenario's `hardware`
//! section; every convention that tools disagree on is a named option whose default is
//! stated here.

use super::search::SearchOptions;
use super::speculative::{DraftCost, Speculative};
use super::targets::ServingTargets;
use super::traffic::{Traffic, TrafficMix};
use crate::dtype::DType;
use crate::error::{Checker, Invalid};
use crate::flops::{AttentionCounting, MAX_SEQ_LEN};
use crate::hardware::query::ChipSource;
use crate::hardware::topology::Topology;
use crate::units::{BytesPerSec, Seconds};
use serde::{Deserialize, Serialize};

fn bf16() -> DType {
    DType::Bf16
}

/// The four number formats of serving, chosen independently (book 7.1.3, 8.1.1: int8
/// weights with bf16 FLOPs halve the critical batch, 240 → 120 on a v5e).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ServingDtypes {
    /// Stored weights (default bf16).
    #[serde(default = "bf16")]
    pub weights: DType,
    /// KV cache (default bf16).
    #[serde(default = "bf16")]
    pub kv: DType,
    /// Activations, i.e. what collectives move (default bf16).
    #[serde(default = "bf16")]
    pub activations: DType,
    /// Matmul format, which picks the chip's peak (default bf16; must have a peak).
    #[serde(default = "bf16")]
    pub compute: DType,
}

impl Default for ServingDtypes {
    fn default() -> Self {
        Self { weights: DType::Bf16, kv: DType::Bf16, activations: DType::Bf16, compute: DType::Bf16 }
    }
}

/// How the weights are split over the model-parallel axes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum WeightSharding {
    /// 1D weight-stationary (pure Megatron, book 7.3.2): activations replicated, the
    /// MLP hidden F and the attention heads sharded over every model axis; one
    /// AllReduce of `[B, D]` after each block. The default.
    #[default]
    #[serde(rename = "weight_stationary_1d")]
    WeightStationary1d,
    /// 2D weight-stationary (book Exercise 7.7, Appendix B): weights sharded over D on
    /// `d_axes` (the book's X) and over F (or heads) on the other model axes (YZ).
    #[serde(rename = "weight_stationary_2d")]
    WeightStationary2d,
}
crate::serde_names::deserialize_by_name!(WeightSharding { WeightStationary1d => "weight_stationary_1d", WeightStationary2d => "weight_stationary_2d" });

/// How the weights outside the routed experts (attention, dense MLPs, shared experts)
/// are laid out when a MoE model uses expert parallelism.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DenseSharding {
    /// Sharded over every model axis like the experts (tensor parallelism): every chip
    /// sees every token of the batch. The default.
    #[default]
    Tensor,
    /// Data-parallel attention (DeepSeek-V3's decode deployment, arXiv 2412.19437 §3.4.2;
    /// SGLang's `--enable-dp-attention`): replicated over the expert axes and sharded only
    /// over the other model axes; each expert-axis shard decodes its own slice of the
    /// batch and holds its KV caches, and the tokens meet the experts through the
    /// dispatch and combine AllToAlls.
    Data,
}
crate::serde_names::deserialize_by_name!(DenseSharding { Tensor => "tensor", Data => "data" });

/// What happens to the KV cache when the model-parallel degree exceeds the KV heads
/// (book 7.3.3: shard heads first, then something else).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum KvSharding {
    /// `KV[2, B_Z, S, K_Y, H]`: shard the batch over the rest, at the cost of two
    /// AllToAlls of the attention activations per layer. The book's choice; the default.
    #[default]
    Batch,
    /// Shard the sequence over the rest: an AllGather of Q and an AllReduce of the
    /// partial attention outputs per layer.
    Sequence,
    /// Replicate the cache over the rest (pure Megatron): no extra collective, but every
    /// copy costs memory and each chip still reads its whole copy.
    Replicate,
}
crate::serde_names::deserialize_by_name!(KvSharding { Batch => "batch", Sequence => "sequence", Replicate => "replicate" });

/// Which context length the decode step reads from the KV cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum KvContext {
    /// prompt + output: every cache allocated at its final length, as the book's
    /// "8k context" numbers do (7.2: "we allocated 8k of context for each KV cache").
    /// The default.
    #[default]
    Full,
    /// prompt + output / 2: the average over a request's decode steps, what a ragged
    /// or paged attention kernel reads (book 7.2, Paged Attention).
    Mean,
}
crate::serde_names::deserialize_by_name!(KvContext { Full => "full", Mean => "mean" });

/// Whether collectives overlap the step's HBM traffic and FLOPs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CommsOverlap {
    /// Perfect overlap, the roofline lower bound (book 1.1, 7.3.2 "ICI bound when
    /// T_ici > T_hbm"): step = max(memory and FLOPs, communication). The default.
    #[default]
    Full,
    /// No overlap, the upper bound: step = memory and FLOPs + communication.
    None,
}
crate::serde_names::deserialize_by_name!(CommsOverlap { Full => "full", None => "none" });

/// Whether per-chip memory counts the forward pass's activations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum WorkingMemory {
    /// Count the activations of the largest pass in flight (see
    /// `inference::memory::working_bytes_per_chip`). The default.
    #[default]
    Activations,
    /// Ignore them, as the book's tables do (8.1.1: "this is rather optimistic").
    Ignored,
}
crate::serde_names::deserialize_by_name!(WorkingMemory { Activations => "activations", Ignored => "ignored" });

/// `inference.sharding`: how one serving replica splits the model over its chips.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ServingSharding {
    /// Topology axes the model is split over (model parallelism); absent = every
    /// scale-up axis. The remaining axes hold independent replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_axes: Option<Vec<String>>,
    /// 1D (default) or 2D weight-stationary.
    #[serde(default)]
    pub weights: WeightSharding,
    /// For 2D weight-stationary: the model axes that shard D (the book's X); the other
    /// model axes shard F and the heads (YZ).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub d_axes: Vec<String>,
    /// For MoE models: the model axes the experts are split over (expert parallelism).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expert_axes: Vec<String>,
    /// With expert axes: the other weights tensor-parallel over every model axis
    /// (`tensor`, the default) or data-parallel over the expert axes (`data`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub dense: DenseSharding,
    /// What the KV cache does beyond head sharding (default `batch`).
    #[serde(default)]
    pub kv: KvSharding,
}

fn causal_half() -> AttentionCounting {
    AttentionCounting::CausalHalf
}

/// `inference.prefill`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PrefillOptions {
    /// Assumed model FLOPs utilisation, in (0, 1] (book 8.1.2 uses 0.4); absent = the
    /// roofline: peak FLOP/s when compute-bound, else HBM or communication time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mfu: Option<f64>,
    /// Chunked prefill: tokens per forward pass; absent = the whole prompt at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk: Option<u64>,
    /// The prefill servers' mesh (disaggregated serving); absent = the decode mesh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<Topology>,
    /// Dot-product attention FLOPs: `causal_half` (default: a causal kernel skips the
    /// masked half), `dense` (book 4.3) or `ignored` (book 8.1.2's 2·N·T).
    #[serde(default = "causal_half")]
    pub attention: AttentionCounting,
    /// The prefill servers' chip (disaggregated serving); absent = `hardware.chip`.
    /// Without `topology`, the smallest slice of it that holds a prefill pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chip: Option<ChipSource>,
    /// Prompts per prefill pass on a prefill server (default 1, the book's batch-1
    /// prefill).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<u64>,
    /// US dollars per chip-hour of the prefill servers; absent = the decode servers'
    /// price when they share a chip, else the prefill chip's catalog price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_chip_hour_usd: Option<f64>,
}

impl Default for PrefillOptions {
    fn default() -> Self {
        Self {
            mfu: None,
            chunk: None,
            topology: None,
            attention: AttentionCounting::CausalHalf,
            chip: None,
            batch: None,
            price_per_chip_hour_usd: None,
        }
    }
}

/// The network that carries a prompt's KV cache from a prefill server to a decode server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum KvNetwork {
    /// DCN / InfiniBand / RoCE: the chips' scale-out bandwidth (`scale_out`), what
    /// disaggregated deployments across nodes use (Mooncake, DeepSeek, Dynamo). The default.
    #[default]
    ScaleOut,
    /// ICI / NVLink: both pools in one scale-up domain (one TPU slice, one NVL72 rack);
    /// one link per chip on a torus, the whole egress on a switch. Needs one chip type.
    ScaleUp,
}
crate::serde_names::deserialize_by_name!(KvNetwork { ScaleOut => "scale_out", ScaleUp => "scale_up" });

/// Whether the transfer waits for the prefill pass or streams layer by layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum KvOverlap {
    /// The cache leaves after the pass: time to first token adds the whole transfer.
    /// The default.
    #[default]
    None,
    /// Each layer's cache leaves when the layer is done (Mooncake, NIXL in Dynamo):
    /// the pass and the transfer overlap but for one layer.
    Layerwise,
}
crate::serde_names::deserialize_by_name!(KvOverlap { None => "none", Layerwise => "layerwise" });

/// `inference.kv_transfer`: the link between the prefill and decode pools.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct KvTransfer {
    /// Which network (default `scale_out`).
    #[serde(default)]
    pub network: KvNetwork,
    /// One-way bytes per second each chip sends or receives at; absent = the chips'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_per_chip: Option<BytesPerSec>,
    /// Fixed cost of one transfer; absent = the network's published hop latency, else 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<Seconds>,
    /// `none` (default) or `layerwise`.
    #[serde(default)]
    pub overlap: KvOverlap,
}

/// `inference`: the serving workload and how it is served.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct InferenceSection {
    /// Formats of weights, KV cache, activations and compute.
    #[serde(default)]
    pub dtypes: ServingDtypes,
    /// P: prompt (prefill) tokens per request.
    pub prompt_len: u64,
    /// G: generated (decode) tokens per request.
    pub output_len: u64,
    /// B: sequences decoded together per replica; absent = the largest that fits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<u64>,
    /// Requests per second to serve, for the number of prefill and decode servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_rate: Option<f64>,
    /// How the model is split.
    #[serde(default)]
    pub sharding: ServingSharding,
    /// Prefill assumptions.
    #[serde(default)]
    pub prefill: PrefillOptions,
    /// Context the decode step reads (default `full`).
    #[serde(default)]
    pub kv_context: KvContext,
    /// Collective overlap (default `full`).
    #[serde(default)]
    pub comms_overlap: CommsOverlap,
    /// Working memory (default `activations`).
    #[serde(default)]
    pub working_memory: WorkingMemory,
    /// Fraction of each chip's HBM kept free for the runtime, in [0, 0.99] (default 0).
    #[serde(default)]
    pub reserved_hbm_fraction: f64,
    /// US dollars per chip-hour; overrides the chip catalog's price. Without either, no
    /// cost is reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_chip_hour_usd: Option<f64>,
    /// Speculative decoding, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speculative: Option<Speculative>,
    /// Continuous batching: tokens per step (decode tokens plus a prefill chunk) of a
    /// server doing both; absent = [`DEFAULT_TOKEN_BUDGET`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u64>,
    /// Prompt and output length distributions for everything rate-based (queueing,
    /// servers, the search); absent = the fixed `prompt_len` and `output_len`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<TrafficMix>,
    /// Latency targets for the server counts and the search.
    #[serde(default, skip_serializing_if = "ServingTargets::is_empty")]
    pub targets: ServingTargets,
    /// The link between prefill and decode servers.
    #[serde(default, skip_serializing_if = "is_default")]
    pub kv_transfer: KvTransfer,
    /// Search for the cheapest deployment meeting `targets` at `request_rate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchOptions>,
}

/// Tokens per step of continuous batching when the scenario gives none: TensorRT-LLM's
/// default `max_num_tokens` (vLLM and SGLang choose 2,048 to 16,384 by GPU and mode).
pub const DEFAULT_TOKEN_BUDGET: u64 = 8192;

/// Largest batch accepted.
pub const MAX_BATCH: u64 = 1 << 24;

/// Most prompts one prefill pass may batch.
pub const MAX_PREFILL_BATCH: u64 = 1 << 16;

pub use crate::efficiency::MIN_FRACTION;

impl InferenceSection {
    /// A section with every default: bf16 throughout, the largest batch that fits.
    #[must_use]
    pub fn new(prompt_len: u64, output_len: u64) -> Self {
        Self {
            dtypes: ServingDtypes::default(),
            prompt_len,
            output_len,
            batch: None,
            request_rate: None,
            sharding: ServingSharding::default(),
            prefill: PrefillOptions::default(),
            kv_context: KvContext::default(),
            comms_overlap: CommsOverlap::default(),
            working_memory: WorkingMemory::default(),
            reserved_hbm_fraction: 0.0,
            price_per_chip_hour_usd: None,
            speculative: None,
            token_budget: None,
            traffic: None,
            targets: ServingTargets::default(),
            kv_transfer: KvTransfer::default(),
            search: None,
        }
    }

    /// Check every field that does not need the chip; `axes` are the topology's axis
    /// names and which of them are scale-up. Paths are relative to `inference`.
    ///
    /// # Errors
    /// Every problem found.
    pub fn validate(&self, axes: &[(String, bool)]) -> Result<(), Invalid> {
        let mut c = Checker::new();
        c.range("prompt_len", self.prompt_len, 1, MAX_SEQ_LEN);
        c.range("output_len", self.output_len, 1, MAX_SEQ_LEN);
        if let Some(b) = self.batch {
            c.range("batch", b, 1, MAX_BATCH);
        }
        if let Some(r) = self.request_rate {
            positive(&mut c, "request_rate", r, 1e9);
        }
        c.range_f64("reserved_hbm_fraction", self.reserved_hbm_fraction, 0.0, 0.99);
        if let Some(p) = self.price_per_chip_hour_usd {
            c.range_f64("price_per_chip_hour_usd", p, 0.0, 1e6);
        }
        if let Some(m) = self.prefill.mfu {
            c.range_f64("prefill.mfu", m, MIN_FRACTION, 1.0);
        }
        if let Some(k) = self.prefill.chunk {
            c.range("prefill.chunk", k, 1, MAX_SEQ_LEN);
        }
        if let Some(b) = self.prefill.batch {
            c.range("prefill.batch", b, 1, MAX_PREFILL_BATCH);
        }
        if let Some(p) = self.prefill.price_per_chip_hour_usd {
            c.range_f64("prefill.price_per_chip_hour_usd", p, 0.0, 1e6);
        }
        if let Some(w) = self.kv_transfer.bandwidth_per_chip {
            positive(&mut c, "kv_transfer.bandwidth_per_chip", w.get(), crate::hardware::MAX_QUANTITY);
            if w.get() > 0.0 && w.get() < 1.0 {
                c.push("kv_transfer.bandwidth_per_chip", "must be at least 1 byte per second");
            }
        }
        if let Some(l) = self.kv_transfer.latency {
            c.range_f64("kv_transfer.latency", l.get(), 0.0, 1e6);
        }
        if let Some(s) = &self.speculative {
            c.range("speculative.draft_len", s.draft_len, 1, 64);
            c.range_f64("speculative.acceptance", s.acceptance, 0.0, 1.0);
            if let DraftCost::CostRatio(r) = s.draft {
                c.range_f64("speculative.draft.cost_ratio", r, 0.0, 1e3);
            }
        }
        if let Some(b) = self.token_budget {
            c.range("token_budget", b, 2, MAX_BATCH);
        }
        if let Some(t) = &self.traffic {
            c.merge("traffic", t.validate());
        }
        c.merge("targets", self.targets.validate());
        if let Some(o) = &self.search {
            c.merge("search", o.validate());
            c.ensure(self.request_rate.is_some(), "search", || {
                "needs `request_rate`: the search sizes deployments for a rate".into()
            });
        }
        self.validate_axes(&mut c, axes);
        c.finish()
    }

    fn validate_axes(&self, c: &mut Checker, axes: &[(String, bool)]) {
        let s = &self.sharding;
        let known = |name: &String| axes.iter().any(|(a, _)| a == name);
        let model = self.model_axes(axes);
        if let Some(list) = &s.model_axes {
            for (i, name) in list.iter().enumerate() {
                let field = format!("sharding.model_axes[{i}]");
                c.ensure(known(name), &field, || format!("no topology axis is named {name:?}"));
                c.ensure(!list[..i].contains(name), &field, || format!("axis {name:?} is listed twice"));
            }
        }
        for (what, list) in [("d_axes", &s.d_axes), ("expert_axes", &s.expert_axes)] {
            for (i, name) in list.iter().enumerate() {
                let field = format!("sharding.{what}[{i}]");
                c.ensure(model.contains(name), &field, || format!("{name:?} is not one of the model axes {model:?}"));
                c.ensure(!list[..i].contains(name), &field, || format!("axis {name:?} is listed twice"));
            }
        }
        if s.dense == DenseSharding::Data {
            c.ensure(!s.expert_axes.is_empty(), "sharding.dense", || {
                "`data` (data-parallel attention) needs `sharding.expert_axes`".into()
            });
            c.ensure(s.weights == WeightSharding::WeightStationary1d, "sharding.dense", || {
                "`data` combines with 1D weight-stationary only".into()
            });
        }
        if s.weights == WeightSharding::WeightStationary2d {
            c.ensure(!s.d_axes.is_empty() && s.d_axes.len() < model.len(), "sharding.d_axes", || {
                format!("2D weight-stationary needs some but not all of the model axes {model:?} to shard D")
            });
        } else {
            c.ensure(s.d_axes.is_empty(), "sharding.d_axes", || {
                "only applies to `weights: weight_stationary_2d`".into()
            });
        }
    }

    /// The model-parallel axes: `sharding.model_axes`, or every scale-up axis.
    #[must_use]
    pub fn model_axes(&self, axes: &[(String, bool)]) -> Vec<String> {
        match &self.sharding.model_axes {
            Some(list) => list.clone(),
            None => axes.iter().filter(|(_, up)| *up).map(|(n, _)| n.clone()).collect(),
        }
    }

    /// Tokens of context the decode step reads (see [`KvContext`]).
    #[must_use]
    pub fn decode_context(&self) -> u64 {
        self.context_for(self.prompt_len, self.output_len)
    }

    /// Tokens per step of continuous batching.
    #[must_use]
    pub fn token_budget(&self) -> u64 {
        self.token_budget.unwrap_or(DEFAULT_TOKEN_BUDGET)
    }

    /// The traffic: the mix, or the fixed lengths.
    #[must_use]
    pub fn traffic(&self) -> Traffic {
        Traffic::new(self.traffic.as_ref(), self.prompt_len, self.output_len)
    }

    /// The same for another prompt and output length.
    #[must_use]
    pub fn context_for(&self, prompt_len: u64, output_len: u64) -> u64 {
        match self.kv_context {
            KvContext::Full => prompt_len.saturating_add(output_len),
            KvContext::Mean => prompt_len.saturating_add(output_len / 2),
        }
    }
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

fn positive(c: &mut Checker, field: &str, v: f64, hi: f64) {
    if v.is_finite() && v <= 0.0 {
        c.push(field, format!("must be greater than 0 (got {})", crate::error::number_text(v)));
    } else {
        c.range_f64(field, v, 0.0, hi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axes() -> Vec<(String, bool)> {
        vec![("x".into(), true), ("y".into(), true), ("dcn".into(), false)]
    }

    fn section() -> InferenceSection {
        let s: InferenceSection = serde_json::from_str(r#"{"prompt_len": 8192, "output_len": 512}"#).unwrap();
        assert_eq!(s, InferenceSection::new(8192, 512));
        s
    }

    #[test]
    fn defaults_are_bf16_full_context_and_every_scale_up_axis() {
        let s = section();
        assert_eq!(s.dtypes, ServingDtypes::default());
        assert_eq!(s.decode_context(), 8704);
        assert_eq!(s.model_axes(&axes()), ["x", "y"]);
        assert_eq!(s.validate(&axes()), Ok(()));
    }

    #[test]
    fn errors_name_the_field() {
        let mut s = section();
        s.prompt_len = 0;
        s.batch = Some(0);
        s.prefill.mfu = Some(f64::NAN);
        s.sharding.model_axes = Some(vec!["x".into(), "q".into()]);
        s.sharding.expert_axes = vec!["dcn".into()];
        let e = s.validate(&axes()).unwrap_err();
        let fields: Vec<&str> = e.0.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["prompt_len", "batch", "prefill.mfu", "sharding.model_axes[1]", "sharding.expert_axes[0]"]);
    }

    #[test]
    fn two_d_needs_a_proper_subset_of_d_axes() {
        let mut s = section();
        s.sharding.weights = WeightSharding::WeightStationary2d;
        assert_eq!(s.validate(&axes()).unwrap_err().0[0].field, "sharding.d_axes");
        s.sharding.d_axes = vec!["x".into()];
        assert_eq!(s.validate(&axes()), Ok(()));
    }
}
