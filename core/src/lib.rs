//! shardcalc-core: the model behind shardcalc.
//!
//! Pure Rust with serde and no web dependency. Every formula lives here once, named
//! after the concept in *How to Scale Your Model* and citing its section; the page and
//! the CLI are thin shells over these functions.
//!
//! # Where a concept lives
//!
//! From the bottom layer up: a module uses those above it in this list, never those below
//! (there is no import circle between the modules; docs/architecture.md, "Layering").
//!
//! | concept | module |
//! |---|---|
//! | typed quantities (FLOPs, bytes, seconds, rates), number formats | [`units`], [`dtype`] |
//! | errors that name their field (and the fields they involve) | [`error`] |
//! | reading typed text: counts, reals, sizes, layer patterns | [`text`] |
//! | the architecture: dimensions, attention, layout, MoE, MTP; presets; a preset or a custom model | [`model`], [`presets`], [`model_source`] |
//! | parameters (book 4.3), training FLOPs under four conventions (4.2–4.4) | [`params`], [`flops`] |
//! | activations (4.4.2), KV cache (7.1.6), sharded arrays (3.1) | [`activations`], [`kv_cache`], [`sharding`] |
//! | chips, their catalog and sources, topologies and their axes, shapes (chapter 2) | [`hardware`] |
//! | collectives over torus / switch axes, and the collectives a scenario asks about (chapter 3) | [`collectives`] |
//! | rooflines, critical batch, MXU padding, and the op a scenario asks about (chapter 1) | [`roofline`] |
//! | kernel efficiencies and the calibration (training, serving), the prediction mode | [`efficiency`] |
//! | training: memory, mesh search, step time, MFU, thresholds (chapters 5–6) | [`training`] |
//! | serving: prefill, decode, KV sharding, disaggregation, speculative (7–8) | [`inference`] |
//! | predicted vs published runs, calibration, uncertainty bands | [`validation`] |
//! | the scenario document and what needs all of it; links; saved entries; JSON helpers | [`scenario`], [`permalink`], [`saved`], [`json`], [`pretty_json`] |
//! | every input described once, and `apply(scenario, path, text)` | [`field`] |
//! | the report `shardcalc eval` prints (hardware sections: [`report_hardware`]) | [`report`] |
//! | one evaluator per page (what a page shows = `shardcalc eval --view`) | [`view`] |
//! | MaxText's notebook as printed, Hugging Face / MaxText config import | [`notebook`], [`import`] |
//! | MaxText command lines in, MaxText's log numbers out; torchtitan TOML configs in | [`maxtext`], `torchtitan` |
//!
//! Code that exists only to keep the web pages small says so at its top and in
//! docs/size.md: [`decimal`] (float printing), [`json`] (structs read from objects only),
//! `serde_names` (enums by name), [`pretty_json`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod activations;
pub mod collectives;
pub mod decimal;
pub mod dtype;
pub mod efficiency;
pub mod error;
pub mod field;
pub mod flops;
pub mod hardware;
pub mod import;
pub mod inference;
pub mod json;
pub mod kv_cache;
pub mod maxtext;
pub mod model;
pub mod model_source;
pub mod notebook;
pub mod params;
pub mod permalink;
pub mod presets;
pub mod pretty_json;
pub mod report;
pub mod report_hardware;
pub mod roofline;
pub mod saved;
pub mod scenario;
mod serde_names;
pub mod sharding;
mod small_sort;
pub mod text;
#[cfg(feature = "torchtitan")]
pub mod torchtitan;
pub mod training;
pub mod units;
pub mod validation;
pub mod view;
