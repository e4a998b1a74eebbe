//! The published MaxText training runs (`core/data/published-runs.csv`, a copy of the
//! shared reference table): model shape, chips, batch, the TFLOP/s per device and MFU
//! their README reported, the FLOP convention in force when they were published, and
//! the step time derived from them. `build.rs` turns the CSV into JSON for the crate.

use super::convention::PublishedConvention;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// One published run, a row of `published-runs.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PublishedRun {
    /// Stable identifier, e.g. `v5p-readme-32b-1xv5p-128`.
    pub id: String,
    /// Where the numbers are published, with the date.
    pub source: String,
    /// Chip as the table names it (`tpu-v5p`, `nvidia-h100`, ...).
    pub chip: String,
    /// Chips in the run (all slices).
    pub chips: u64,
    /// D.
    pub d_model: u64,
    /// N (= K: the 2023 base model and Llama 2 7B are MHA).
    pub heads: u64,
    /// H.
    pub head_dim: u64,
    /// F.
    pub d_ff: u64,
    /// L.
    pub layers: u64,
    /// Sequences per device (MaxText's `per_device_batch_size`).
    pub per_device_batch: f64,
    /// Tokens per sequence.
    pub seq_len: u64,
    /// TFLOP/s per device as published.
    pub reported_tflops_per_device: f64,
    /// MFU as published (%), when published.
    pub reported_mfu_pct: Option<f64>,
    /// The FLOP convention of the published figure.
    pub flops_convention_then: PublishedConvention,
    /// TFLOPs of one device-step in that convention (the table's own arithmetic).
    pub tflops_per_device_step_then: f64,
    /// The same step counted the way MaxText logs it today.
    pub tflops_per_device_step_maxtext_now: f64,
    /// Seconds per step: `tflops_per_device_step_then / reported_tflops_per_device`.
    pub step_time_s: f64,
    /// MFU in today's MaxText convention (%).
    pub mfu_maxtext_now_pct: f64,
    /// Model and mesh notes.
    pub notes: String,
}

/// `data/published-runs.csv` as JSON (see `build.rs`).
const RUNS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/published-runs.json"));

/// Parse the bundled table.
///
/// # Errors
/// The parse error; the tests prove the bundled table parses.
pub fn parse_bundled() -> Result<Vec<PublishedRun>, serde_json::Error> {
    crate::json::from_str(RUNS_JSON)
}

/// Every published run, in the table's order (parsed once).
#[must_use]
pub fn all() -> &'static [PublishedRun] {
    static CELL: OnceLock<Vec<PublishedRun>> = OnceLock::new();
    CELL.get_or_init(|| parse_bundled().unwrap_or_default())
}

/// The run with this id.
#[must_use]
pub fn get(id: &str) -> Option<&'static PublishedRun> {
    all().iter().find(|r| r.id == id)
}

impl PublishedRun {
    /// Tokens each device processes per step.
    #[must_use]
    pub fn tokens_per_device(&self) -> f64 {
        self.per_device_batch * self.seq_len as f64
    }

    /// The date in `source`, e.g. `Dec 2023` (the text in its parentheses before any comma).
    #[must_use]
    pub fn published(&self) -> &str {
        let inner = self.source.rsplit_once('(').map_or("", |(_, r)| r.trim_end_matches(')'));
        inner.split(',').next().unwrap_or("").trim()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The conversion keeps every row and every value: spot checks read off the CSV.
    #[test]
    fn bundled_table_is_the_csv() {
        let runs = parse_bundled().expect("published-runs.json parses");
        let csv = include_str!("../../data/published-runs.csv");
        assert_eq!(runs.len(), csv.lines().filter(|l| !l.trim().is_empty()).count() - 1);
        assert_eq!(runs.len(), 51);
        let last = runs.last().unwrap();
        assert_eq!(last.id, "a3-16vm-llama2-7b");
        assert_eq!((last.chips, last.seq_len, last.d_ff), (128, 4096, 11008));
        assert_eq!((last.reported_tflops_per_device, last.step_time_s, last.reported_mfu_pct), (375.0, 1.907, None));
        assert!(last.notes.contains("dcn_data=16"), "quoted field with commas: {}", last.notes);
        let r = get("v5e-readme-128b-32xv5e-256").unwrap();
        assert_eq!((r.chips, r.per_device_batch, r.reported_mfu_pct), (8192, 1.0, Some(46.25)));
        assert_eq!(r.flops_convention_then, PublishedConvention::SixNNoncausal);
        assert_eq!(r.published(), "Oct 2023");
        assert_eq!(get("v4-readme-22B-1xv4-128").unwrap().published(), "Apr 2023");
        let ids: std::collections::BTreeSet<&str> = runs.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids.len(), runs.len(), "duplicate run id");
    }

    /// The table's own arithmetic: step time = TFLOPs per device-step / TFLOP/s, and MFU
    /// now = TFLOPs now / step time / peak, within the table's rounding.
    #[test]
    fn step_times_follow_from_the_published_rates() {
        for r in all() {
            let t = r.tflops_per_device_step_then / r.reported_tflops_per_device;
            assert!((t - r.step_time_s).abs() <= 0.006 * r.step_time_s.max(1.0), "{}: {t} vs {}", r.id, r.step_time_s);
        }
    }
}
