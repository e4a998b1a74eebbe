//! The per-device workload of a training step and its remat policy.

use crate::error::{Checker, Invalid};
use serde::{Deserialize, Serialize};

/// The shape of one training step on one device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// Sequences per device per micro-step (MaxText's `per_device_batch_size`; may be
    /// fractional, e.g. 0.5 when two devices share a sequence).
    pub per_device_batch: f64,
    /// Tokens per sequence (MaxText's `max_target_length`).
    pub seq_len: u64,
    /// Micro-steps accumulated per optimizer step.
    #[serde(default = "one")]
    pub grad_accum: u64,
    /// Activation rematerialisation, for hardware FLOPs (HFU) versus model FLOPs (MFU).
    #[serde(default)]
    pub remat: RematPolicy,
}

fn one() -> u64 {
    1
}

/// Largest accepted sequence length.
pub const MAX_SEQ_LEN: u64 = 1 << 30;

/// Smallest accepted per-device batch: a millionth of a sequence. Far below it the
/// report's TFLOPs fall into `f64`'s subnormal range and lose their precision: at a batch
/// of 5e-324 the total rounds to 0 TFLOPs and no longer equals the sum of its rows.
pub const MIN_PER_DEVICE_BATCH: f64 = 1e-6;

impl Workload {
    /// Tokens each device processes per optimizer step.
    #[must_use]
    pub fn tokens_per_device(&self) -> f64 {
        self.per_device_batch * self.seq_len as f64 * self.grad_accum as f64
    }

    /// Check every field.
    ///
    /// # Errors
    /// Returns every problem, naming the field.
    pub fn validate(&self) -> Result<(), Invalid> {
        let mut c = Checker::new();
        if self.per_device_batch.is_finite() && self.per_device_batch <= 0.0 {
            c.push(
                "per_device_batch",
                format!("must be greater than 0 (got {})", crate::decimal::shortest(self.per_device_batch)),
            );
        } else {
            c.range_f64("per_device_batch", self.per_device_batch, MIN_PER_DEVICE_BATCH, 1e7);
        }
        c.range("seq_len", self.seq_len, 1, MAX_SEQ_LEN);
        c.range("grad_accum", self.grad_accum, 1, 1 << 16);
        c.finish()
    }
}

/// Which activations the backward pass recomputes (book 4.4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RematPolicy {
    /// Save everything; no recompute.
    #[default]
    None,
    /// Save only the outputs of the weight matmuls ("big matmuls only"): the backward
    /// pass recomputes dot-product attention and elementwise ops.
    SaveMatmuls,
    /// Save only each layer's input ("block remat", MaxText `remat_policy: full`):
    /// the whole forward pass of every layer runs again, 6·N·D becomes about 8·N·D.
    Full,
}
crate::serde_names::deserialize_by_name!(RematPolicy { None => "none", SaveMatmuls => "save_matmuls", Full => "full" });
