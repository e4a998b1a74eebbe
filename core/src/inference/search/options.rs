//! `inference.search`: what the search under targets may choose from.

use crate::dtype::DType;
use crate::error::{Checker, Invalid};
use serde::{Deserialize, Serialize};

/// A price the user types for a chip (one without a public price, or to override it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ChipPrice {
    /// Chip id (`shardcalc chips`).
    pub chip: String,
    /// US dollars per chip-hour.
    pub usd_per_chip_hour: f64,
}

/// How a deployment serves prefill and decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DeploymentMode {
    /// Every server does both with continuous batching and chunked prefill.
    Colocated,
    /// A prefill pool sends KV caches to a decode pool.
    Disaggregated,
}
crate::serde_names::deserialize_by_name!(DeploymentMode { Colocated => "colocated", Disaggregated => "disaggregated" });

fn default_top() -> u64 {
    10
}

fn default_max_chips() -> u64 {
    512
}

/// `inference.search`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SearchOptions {
    /// Chip ids to consider; empty = every catalog chip (and the scenario's custom chip).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chips: Vec<String>,
    /// Prices for chips without a public one, or overriding it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prices: Vec<ChipPrice>,
    /// Weight formats to consider; empty = the scenario's `dtypes.weights`. Each server
    /// computes in the weights' format where its chip has that peak, else in bf16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weights: Vec<DType>,
    /// KV-cache formats to consider; empty = the scenario's `dtypes.kv`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kv: Vec<DType>,
    /// `colocated`, `disaggregated`; empty = both.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<DeploymentMode>,
    /// Rows of the ranked table (default 10).
    #[serde(default = "default_top")]
    pub top: u64,
    /// Largest server considered, in chips (default 512).
    #[serde(default = "default_max_chips")]
    pub max_chips_per_server: u64,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            chips: Vec::new(),
            prices: Vec::new(),
            weights: Vec::new(),
            kv: Vec::new(),
            modes: Vec::new(),
            top: default_top(),
            max_chips_per_server: default_max_chips(),
        }
    }
}

/// Most entries of each list.
pub const MAX_LIST: usize = 64;

impl SearchOptions {
    /// Check the lists (paths relative to `search`); chip ids are checked by the search.
    ///
    /// # Errors
    /// Lists too long, prices that are not positive, `top` or the server size out of range.
    pub fn validate(&self) -> Result<(), Invalid> {
        let mut c = Checker::new();
        for (name, len) in [
            ("chips", self.chips.len()),
            ("prices", self.prices.len()),
            ("weights", self.weights.len()),
            ("kv", self.kv.len()),
            ("modes", self.modes.len()),
        ] {
            c.ensure(len <= MAX_LIST, name, || format!("lists {len} entries; at most {MAX_LIST} are accepted"));
        }
        for (i, p) in self.prices.iter().enumerate() {
            let field = format!("prices[{i}].usd_per_chip_hour");
            if p.usd_per_chip_hour.is_finite() && p.usd_per_chip_hour <= 0.0 {
                c.push(field, "must be greater than 0");
            } else {
                c.range_f64(&field, p.usd_per_chip_hour, 0.0, 1e6);
            }
        }
        for (i, d) in self.weights.iter().chain(&self.kv).enumerate() {
            let what = if i < self.weights.len() { "weights" } else { "kv" };
            let i = if i < self.weights.len() { i } else { i - self.weights.len() };
            c.ensure(*d != DType::Fp32, &format!("{what}[{i}]"), || "fp32 is not a serving format".into());
        }
        c.range("top", self.top, 1, 1000);
        c.range("max_chips_per_server", self.max_chips_per_server, 1, 1 << 20);
        c.finish()
    }
}
