//! Serving (book chapters 7 and 8): KV caches and their sharding, the decode step
//! (book 7.1.5 eq. 4 plus communication), prefill, memory and the smallest topology,
//! throughput and cost, disaggregated prefill and decode servers, continuous batching,
//! queueing at a request rate, speculative decoding, the search under latency targets,
//! and the data behind the serving charts.
//!
//! Layers, from the book's formulas up:
//! - closed forms on plain quantities, one concept per module ([`decode`], [`prefill`],
//!   [`memory`], [`throughput`], [`disaggregation`], [`speculative`], [`tp_limits`],
//!   [`weight_stationary`], [`moe`], [`kv_sharding`], [`decode_attention`] (absorbed MLA),
//!   [`queueing`] (M/G/1 time to first token), [`capacity`] (fewest servers)); the
//!   book-vector tests call these;
//! - a real model on a real mesh ([`setup::ServingSetup`], [`comms`]) and a scenario's plan
//!   ([`plan::Plan`]: decode replica, prefill server, draft model, what fits);
//! - rate-based serving on top of them: [`traffic`] (length mixes), [`targets`],
//!   [`continuous`] (co-located continuous batching with chunked prefill),
//!   [`disaggregated`] (prefill and decode pools, the KV link), [`price`];
//! - the report section ([`evaluate::evaluate_inference`] → [`report::InferenceReport`],
//!   with [`curves`], [`colocated`], [`mla`], [`moe_load`], [`notes`] and [`search`]).
//!
//! Assumptions (each also stated where it is used): every chip of a replica holds an
//! equal share of the weights; the attention of a decode step costs the larger of its KV
//! reads and its FLOPs; weight, KV, activation and compute formats are independent;
//! collectives are costed by `collectives::collective_cost` on the real axes, latency floor
//! included; requests arrive as a Poisson stream split at random over the servers.

pub mod capacity;
pub mod colocated;
pub mod comms;
pub mod continuous;
pub mod curves;
pub mod decode;
pub mod decode_attention;
pub mod defaults;
pub mod disaggregated;
pub mod disaggregation;
pub mod evaluate;
pub mod finite_run;
pub mod kv_sharding;
pub mod memory;
pub mod mla;
pub mod moe;
pub mod moe_load;
pub mod notes;
pub mod options;
pub mod plan;
pub mod prefill;
pub mod price;
pub mod queueing;
pub mod report;
pub mod search;
pub mod setup;
pub mod slices;
pub mod speculative;
pub mod targets;
pub mod throughput;
pub mod tp_limits;
pub mod traffic;
pub mod weight_stationary;

pub use evaluate::evaluate_inference;
pub use options::InferenceSection;
pub use report::InferenceReport;
