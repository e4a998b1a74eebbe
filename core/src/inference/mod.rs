//! Serving (book chapters 7 and 8): KV caches and their sharding, the decode step
//! (book 7.1.5 eq. 4 plus communication), prefill, memory and the smallest topology,
//! throughput and cost, disaggregated prefill and decode servers, speculative decoding.
//!
//! Closed forms on plain quantities, one concept per module; the book-vector tests call
//! these.

pub mod decode;
pub mod disaggregation;
pub mod kv_sharding;
pub mod memory;
pub mod moe;
pub mod options;
pub mod prefill;
pub mod slices;
pub mod speculative;
pub mod throughput;
pub mod tp_limits;
pub mod weight_stationary;

pub use options::InferenceSection;
