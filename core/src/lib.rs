//! shardcalc-core: the model behind shardcalc.
//!
//! Pure Rust with serde and no web dependency. Every formula lives here once, named
//! after the concept in *How to Scale Your Model* and citing its section; the page and
//! the CLI are thin shells over these functions.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod activations;
pub mod collectives;
pub mod decimal;
pub mod dtype;
pub mod error;
pub mod field;
pub mod flops;
pub mod hardware;
pub mod import;
pub mod inference;
pub mod json;
pub mod kv_cache;
pub mod model;
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
pub mod training;
pub mod units;
pub mod validation;
pub mod view;
