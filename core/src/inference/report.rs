//! The `inference` section of the report (docs/report.md, "Inference keys"): plain data
//! for `shardcalc eval` and the page. Built by [`super::evaluate::evaluate_inference`].

use super::curves::Curves;
use super::decode::{DecodeBound, StepTime};
use super::kv_sharding::KvLayout;
use super::memory::MemoryPerChip;
use super::options::ServingDtypes;
use super::prefill::PrefillBound;
use super::slices::SliceShape;
use crate::units::{Bytes, Flops, Seconds};
use serde::{Deserialize, Serialize};

/// `inference`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InferenceReport {
    /// KV-cache bytes per token of context in the KV format, no window cap (book 8.1).
    pub kv_bytes_per_token: Bytes,
    /// Whole chips whose HBM holds the weights, KV caches and working memory of the
    /// serving batch (of one sequence when the batch is the largest that fits).
    pub min_chips: u64,
    /// Largest batch whose KV caches fit on the serving topology.
    pub max_batch: u64,
    /// The term that sets the decode step time.
    pub binds: DecodeBound,
    /// The formats used.
    pub dtypes: ServingDtypes,
    /// Where and how the model is served.
    pub serving: ServingReport,
    /// KV cache sizes and layout.
    pub kv_cache: KvCacheReport,
    /// One decode step.
    pub decode: DecodeReport,
    /// One prefill.
    pub prefill: PrefillReport,
    /// HBM per chip and the smallest topology.
    pub memory: MemoryReport,
    /// Prefill and decode servers.
    pub disaggregation: DisaggregationReport,
    /// Prefill and decode on the same servers with continuous batching and chunked
    /// prefill.
    pub continuous_batching: super::colocated::ContinuousBatchingReport,
    /// The search under targets, when the scenario asks for it (`inference.search`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<super::search::SearchReport>,
    /// MLA decode with absorbed projections (MLA models only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mla: Option<super::mla::MlaReport>,
    /// Per-expert load and expert parallelism of a decode step (MoE models only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moe: Option<super::moe_load::MoeReport>,
    /// Speculative decoding, when the scenario asks for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speculative: Option<SpeculativeReport>,
    /// The price per chip-hour and where it comes from ("no public price" included).
    pub price: super::price::Price,
    /// Cost, when a price is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<CostReport>,
    /// Data for the charts.
    pub curves: Curves,
    /// Caveats about this configuration.
    pub notes: Vec<String>,
}

/// Where the batch comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum BatchSource {
    /// `inference.batch`.
    Scenario,
    /// The largest that fits (the scenario gives none).
    LargestFitting,
}

/// Where the topology comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TopologySource {
    /// `hardware.topology`.
    Scenario,
    /// The smallest slice that fits (the scenario gives none).
    SmallestFitting,
}

/// `inference.serving`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ServingReport {
    /// Axis sizes joined by `x`, e.g. `2x4`.
    pub topology: String,
    /// Scenario or chosen.
    pub topology_source: TopologySource,
    /// Chips in the topology.
    pub chips: f64,
    /// Model axes.
    pub model_axes: Vec<String>,
    /// Y: chips per replica.
    pub model_parallel: f64,
    /// Replicas (the other axes).
    pub replicas: f64,
    /// B: sequences per replica.
    pub batch: u64,
    /// Scenario or largest fitting.
    pub batch_source: BatchSource,
    /// Context the decode step reads (see `kv_context`).
    pub context: u64,
}

/// `inference.kv_cache`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KvCacheReport {
    /// One sequence at the decode context (local layers capped at their window).
    pub bytes_per_sequence: Bytes,
    /// The whole batch.
    pub bytes_per_batch: Bytes,
    /// Some local layer caches less than the context.
    pub window_capped: bool,
    /// Heads, batch, sequence, replication.
    pub layout: KvLayout,
    /// On the busiest chip.
    pub bytes_per_chip: Bytes,
    /// Of which beyond a fair share (replicas, padding).
    pub wasted_bytes_per_chip: Bytes,
}

/// `inference.decode.tp_limits`: the book's rules of thumb for model parallelism.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TpLimits {
    /// α = peak / W_ici (FLOP/B), W_ici = both directions of one link on a torus, the
    /// chip's egress on a switch.
    pub alpha: f64,
    /// β = HBM bandwidth / W_ici.
    pub beta: f64,
    /// Model axes with more than one chip.
    pub n_axes: f64,
    /// F used: the dense MLP width, or for mostly-MoE models the width a token
    /// activates (k routed plus the shared experts).
    pub f: f64,
    /// `2·n_axes·F / (|X|·α)`: beyond it collectives outlast the FLOPs.
    pub compute_bound: f64,
    /// `n_axes·F·|W| / (B·|X|·β)`: beyond it collectives outlast the weight loads.
    pub memory_bound: f64,
    /// `B·D·|X| / (W_link·t_hop)`: beyond it collectives are latency-bound; absent
    /// without a published hop latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_bound_above: Option<f64>,
    /// Y, to compare.
    pub model_parallel: f64,
}

/// `inference.decode`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DecodeReport {
    /// The step and its terms: `step_time_s`, `step_time_upper_s`, `weight_load_s`,
    /// `kv_load_s`, `flops_s`, `comms_s`, `binds`.
    #[serde(flatten)]
    pub step: StepTime,
    /// Hops × per-hop latency of those collectives.
    pub comms_latency_floor_s: Seconds,
    /// Their bytes / bandwidth.
    pub comms_bandwidth_time_s: Seconds,
    /// Tokens per second, every replica.
    pub tokens_per_s: f64,
    /// Per chip.
    pub tokens_per_s_per_chip: f64,
    /// Requests finished per second, every replica.
    pub queries_per_s: f64,
    /// Per chip.
    pub queries_per_s_per_chip: f64,
    /// Time to generate `output_len` tokens.
    pub request_decode_time_s: Seconds,
    /// Batch above which the matmuls are compute-bound: peak·|W| / (2·W_hbm).
    pub critical_batch: f64,
    /// For MoE: × E/k (book Solution 4.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_batch_moe: Option<f64>,
    /// For MoE: expected distinct experts read per MoE layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experts_touched_per_layer: Option<f64>,
    /// Weight bytes the busiest chip reads.
    pub weight_bytes_per_chip: Bytes,
    /// KV bytes it reads.
    pub kv_bytes_per_chip: Bytes,
    /// Its FLOPs.
    pub flops_per_chip: Flops,
    /// Model-parallelism limits.
    pub tp_limits: TpLimits,
}

/// `inference.prefill`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PrefillReport {
    /// The prompt in one pass.
    pub time_s: Seconds,
    /// In chunks of `chunk` tokens, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunked_time_s: Option<Seconds>,
    /// Chunk size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk: Option<u64>,
    /// Time to first token: the prefill (chunked when set); the first token is sampled
    /// from its logits.
    pub ttft_s: Seconds,
    /// FLOPs per chip of the one-pass prefill.
    pub flops_per_chip: Flops,
    /// The assumed utilisation, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mfu_assumed: Option<f64>,
    /// FLOPs at peak / time.
    pub mfu_effective: f64,
    /// What bounds it.
    pub bound: PrefillBound,
    /// Chips per prefill server.
    pub chips: f64,
}

/// `inference.memory`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MemoryReport {
    /// HBM of the busiest chip, by use.
    pub per_chip: MemoryPerChip,
    /// Every stored weight, all chips of a replica.
    pub weights_total: Bytes,
    /// Every KV cache of a replica.
    pub kv_total: Bytes,
    /// (weights + KV + working) / usable HBM, fractional (book 8.1: 7).
    pub chips_needed: f64,
    /// Rounded up.
    pub min_chips: u64,
    /// The next power of two (book 8.2's `min_topology`).
    pub min_power_of_two_chips: u64,
    /// The smallest rentable slice that fits; absent when none does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_topology: Option<SliceShape>,
    /// Largest batch that fits on the serving topology.
    pub max_batch: u64,
}

/// One pool of servers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PoolReport {
    /// Chip id.
    pub chip: String,
    /// A server's mesh, e.g. `2x4`.
    pub topology: String,
    /// Chips per server.
    pub chips_per_server: f64,
    /// The price its chips cost.
    pub price: super::price::Price,
    /// A server's memory fits (prefill: weights, `prefill.batch` caches and a pass's
    /// activations; decode: the serving batch).
    pub fits: bool,
}

/// `inference.disaggregation`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DisaggregationReport {
    /// One prefill (TTFT without transfer or queueing) on a prefill server.
    pub prefill_s: Seconds,
    /// One decode step on a decode server.
    pub decode_step_s: Seconds,
    /// Prefill servers per decode server: `t_prefill·B / (t_step·G)` (book 8.1.2).
    pub prefill_per_decode: f64,
    /// b: prompts per prefill pass (`prefill.batch`).
    pub prefill_batch: u64,
    /// One pass of b prompts of `prompt_len` tokens.
    pub prefill_pass_s: Seconds,
    /// KV cache of one prompt, moved from prefill to decode.
    pub kv_bytes_per_request: Bytes,
    /// The link between the pools (`kv_transfer`).
    pub kv_link: super::disaggregated::KvLink,
    /// A pass's b caches over that link: latency + b·KV / bandwidth.
    pub kv_transfer_s: Seconds,
    /// What the transfer adds to the time to first token (all of it, or with `layerwise`
    /// streaming the part that does not overlap the pass).
    pub kv_transfer_added_s: Seconds,
    /// Time to first token without queueing: pass + what the transfer adds.
    pub ttft_unloaded_s: Seconds,
    /// For comparison, one prompt's cache over the scale-up network (one ICI link per
    /// prefill chip; a GPU's whole NVLink egress).
    pub kv_transfer_ici_s: Seconds,
    /// Over the scale-out network (DCN), every prefill chip sending.
    pub kv_transfer_dcn_s: Seconds,
    /// The prefill servers.
    pub prefill_pool: PoolReport,
    /// The decode servers.
    pub decode_pool: PoolReport,
    /// For `request_rate`: prefill servers (whole, meeting `targets`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill_servers: Option<u64>,
    /// For `request_rate`: decode servers (whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_servers: Option<u64>,
    /// Both pools' chips.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chips_total: Option<f64>,
    /// For `request_rate`: the deployment (ratio, TTFT with queueing, TPOT, loads, cost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment: Option<super::disaggregated::DisaggregatedDeployment>,
    /// For `request_rate`, when the targets cannot be met: which and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impossible: Option<super::targets::Unmet>,
    /// B / G.
    pub sequences_finished_per_step: f64,
    /// B·(P + G) / G.
    pub kv_tokens_evicted_per_step: f64,
}

/// `inference.speculative`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SpeculativeReport {
    /// `(1 − α^(γ+1)) / (1 − α)`.
    pub expected_tokens_per_step: f64,
    /// One draft step.
    pub draft_step_s: Seconds,
    /// γ draft steps.
    pub draft_time_s: Seconds,
    /// The target scoring γ + 1 tokens per sequence.
    pub verify_time_s: Seconds,
    /// Draft + verify.
    pub iteration_time_s: Seconds,
    /// Per generated token.
    pub time_per_token_s: Seconds,
    /// Plain step / time per token.
    pub speedup: f64,
    /// Tokens per second per chip with speculation.
    pub tokens_per_s_per_chip: f64,
}

/// Where the price comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PriceSource {
    /// `inference.price_per_chip_hour_usd`.
    Scenario,
    /// The chip catalog (a sourced, dated public on-demand price).
    Catalog,
    /// Neither: no public price is known for the chip; costs are left out until one is
    /// typed in `inference.price_per_chip_hour_usd`.
    NoPublicPrice,
}

/// `inference.cost`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CostReport {
    /// USD per chip-hour.
    pub price_per_chip_hour_usd: f64,
    /// Scenario or catalog.
    pub price_source: PriceSource,
    /// Per million generated tokens (decode, without speculation).
    pub decode_usd_per_million_tokens: f64,
    /// Per million prompt tokens (prefill).
    pub prefill_usd_per_million_tokens: f64,
}
