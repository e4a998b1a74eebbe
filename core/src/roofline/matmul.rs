//! The matmul roofline (book 1.1.2, Exercises 1.1, 1.2, 2.4): FLOPs, bytes, arithmetic
//! intensity, and the batch at which it becomes compute-bound.

use super::OpCost;
use crate::dtype::DType;
use crate::error::{Checker, Invalid};
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Intensity};
use serde::{Deserialize, Serialize};

fn bf16() -> DType {
    DType::Bf16
}

/// `X[B, D] · W[D, F] → Z[B, F]`, with the storage format of each array.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Matmul {
    /// Batch (tokens): rows of the activations.
    pub b: f64,
    /// Contracting dimension.
    pub d: f64,
    /// Output dimension.
    pub f: f64,
    /// Activations `X` (default bf16).
    #[serde(default = "bf16")]
    pub lhs: DType,
    /// Weights `W` (default bf16; int8 for weight-only quantization).
    #[serde(default = "bf16")]
    pub rhs: DType,
    /// Output `Z` (default bf16).
    #[serde(default = "bf16")]
    pub out: DType,
    /// Compute format, which picks the peak (default bf16: int8 weights with bf16
    /// compute are upcast, book Exercise 1.2).
    #[serde(default = "bf16")]
    pub compute: DType,
}

/// Largest dimension accepted.
pub const MAX_DIM: f64 = 1e12;

impl Matmul {
    /// A bf16 matmul.
    #[must_use]
    pub fn bf16(b: f64, d: f64, f: f64) -> Self {
        Self { b, d, f, lhs: DType::Bf16, rhs: DType::Bf16, out: DType::Bf16, compute: DType::Bf16 }
    }

    /// Check the dimensions.
    ///
    /// # Errors
    /// `b`, `d` or `f` not in `[1, 1e12]`.
    pub fn validate(&self) -> Result<(), Invalid> {
        let mut c = Checker::new();
        c.range_f64("b", self.b, 1.0, MAX_DIM);
        c.range_f64("d", self.d, 1.0, MAX_DIM);
        c.range_f64("f", self.f, 1.0, MAX_DIM);
        c.finish()
    }

    /// `2·B·D·F` (book 1.1.2).
    #[must_use]
    pub fn flops(&self) -> Flops {
        Flops(2.0 * self.b * self.d * self.f)
    }

    /// Bytes loaded and stored: `B·D·|X| + D·F·|W| + B·F·|Z|` (book 1.1.2).
    #[must_use]
    pub fn hbm_bytes(&self) -> Bytes {
        Bytes(
            self.b * self.d * self.lhs.bytes()
                + self.d * self.f * self.rhs.bytes()
                + self.b * self.f * self.out.bytes(),
        )
    }

    /// FLOPs per byte moved: `BDF / (BD + DF + BF)` in bf16, about `B` when `B ≪ D, F`.
    #[must_use]
    pub fn intensity(&self) -> Intensity {
        self.flops() / self.hbm_bytes()
    }

    /// The op as the roofline sees it (everything from HBM).
    #[must_use]
    pub fn op_cost(&self) -> OpCost {
        OpCost { flops: self.flops(), hbm_bytes: self.hbm_bytes(), dtype: self.compute, ..OpCost::default() }
    }
}

/// The batch above which the matmul is compute-bound, exactly (book Solution 2.4):
/// `B = (D·F·|W| / W_mem) / (2·D·F / C − (D·|X| + F·|Z|) / W_mem)`. `None` when no
/// batch is compute-bound (activation traffic alone outruns compute), and when the rates
/// are so extreme that the answer is not a positive finite number (a peak of 5e-324
/// FLOP/s makes the compute time infinite and `B` round to 0). `m.b` is ignored.
#[must_use]
pub fn critical_batch(m: &Matmul, peak: FlopsPerSec, bandwidth: BytesPerSec) -> Option<f64> {
    let (d, f, w) = (m.d, m.f, bandwidth.get());
    let per_token = 2.0 * d * f / peak.get() - (d * m.lhs.bytes() + f * m.out.bytes()) / w;
    let weights = d * f * m.rhs.bytes() / w;
    let b = weights / per_token;
    (per_token > 0.0 && b.is_finite() && b > 0.0).then_some(b)
}

/// The same when `B ≪ D, F` (book 1.1.2 and Solutions 1.1, 1.2): the weights dominate
/// the bytes, so `2·B·D·F / C > D·F·|W| / W_mem`, i.e. `B > C·|W| / (2·W_mem)` — 240 for
/// bf16 on v5e, 120 with int8 weights and bf16 compute.
#[must_use]
pub fn critical_batch_approx(peak: FlopsPerSec, bandwidth: BytesPerSec, weights: DType) -> f64 {
    peak.get() * weights.bytes() / (2.0 * bandwidth.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_matmul_intensity_is_about_the_batch() {
        let m = Matmul::bf16(128.0, 8192.0, 32768.0);
        assert!((m.intensity().get() - 128.0).abs() / 128.0 < 0.02);
        // Book 1.1.2: compute-bound above 240 tokens on a v5e.
        let b = critical_batch_approx(FlopsPerSec(1.97e14), BytesPerSec(8.2e11), DType::Bf16);
        assert!((b - 240.0).abs() < 1.0);
    }

    #[test]
    fn never_compute_bound_is_none() {
        let m = Matmul::bf16(1.0, 1.0, 1.0);
        assert_eq!(critical_batch(&m, FlopsPerSec(1e15), BytesPerSec(1.0)), None);
        // Found by the property test once its random stream moved: a subnormal peak made
        // the compute time per token infinite and returned a critical batch of 0.
        let huge = Matmul::bf16(1.0, 1.27e6, 7.8e8);
        assert_eq!(critical_batch(&huge, FlopsPerSec(5e-324), BytesPerSec(5.3e12)), None);
    }
}
