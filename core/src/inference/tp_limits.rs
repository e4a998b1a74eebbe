//! How far model parallelism can go during generation (book 7.3.2, 8.1.1, 7.6.3): one
//! Megatron matmul `X[B, D] · W[D, F_Y]` costs an AllGather of the activations over
//! ICI, the load of its weight shard from HBM, and its FLOPs; model parallelism `Y`
//! stops paying when the first exceeds one of the others.

use crate::hardware::chip::{Chip, Fabric};
use crate::units::{BidiBytesPerSec, BytesPerSec, FlopsPerSec, Seconds};

/// The book's `W_ici` for one model axis, the `W` of an AllGather's `V / W` (3.2, 7.3.2):
/// both directions of one link on a torus axis (a ring gathers in `V / W_bidi`); on a
/// switch or full mesh the chip's whole egress plays that role (a gather moves
/// `(n−1)/n · V` through it).
#[must_use]
pub fn axis_bandwidth(chip: &Chip) -> BidiBytesPerSec {
    match chip.scale_up.fabric {
        Fabric::Torus { .. } => chip.scale_up.link.bidirectional,
        Fabric::Switch | Fabric::FullMesh => BidiBytesPerSec(axis_one_way(chip).get()),
    }
}

/// What a chip sends one way along one model axis: one link on a torus (book 7.6.3's
/// 4.5e10 on a v5e), its whole egress on a switch or full mesh.
#[must_use]
pub fn axis_one_way(chip: &Chip) -> BytesPerSec {
    match chip.scale_up.fabric {
        Fabric::Torus { .. } => chip.scale_up.link.one_way,
        Fabric::Switch | Fabric::FullMesh => chip.scale_up.egress_per_chip(),
    }
}

/// `T_ICI = B·D·|X| / (n_axes·W_ici)`: gathering the `[B, D]` activations over
/// `n_axes` axes of bidirectional bandwidth `W_ici` (book 7.3.2: `2BD / W_ici` in bf16).
#[must_use]
pub fn matmul_ici_time(b: f64, d: f64, activation_bytes: f64, ici: BidiBytesPerSec, n_axes: f64) -> Seconds {
    Seconds(b * d * activation_bytes / (n_axes * ici.get()))
}

/// `T_HBM = D·F·|W| / (Y·W_hbm)`: loading one chip's shard of a `[D, F]` weight
/// (book 7.3.2: `2DF / (Y·W_hbm)` in bf16).
#[must_use]
pub fn matmul_weight_load_time(d: f64, f: f64, weight_bytes: f64, y: f64, hbm: BytesPerSec) -> Seconds {
    Seconds(d * f * weight_bytes / (y * hbm.get()))
}

/// `T_math = 2·B·D·F / (Y·C)` (book 8.1.1).
#[must_use]
pub fn matmul_flops_time(b: f64, d: f64, f: f64, y: f64, peak: FlopsPerSec) -> Seconds {
    Seconds(2.0 * b * d * f / (y * peak.get()))
}

/// Model parallelism beyond which the activation gather outlasts the FLOPs, `T_ICI >
/// T_math`: `Y > 2·n_axes·F / (|X|·α)` with `α = C / W_ici` — the book's `n_axes·F/2550`
/// for bf16 activations (5.1.3, 8.1.1). Independent of the batch; the ceiling when the
/// batch is big enough to be compute-bound.
#[must_use]
pub fn tp_limit_compute_bound(f: f64, n_axes: f64, alpha: f64, activation_bytes: f64) -> f64 {
    2.0 * n_axes * f / (activation_bytes * alpha)
}

/// Model parallelism beyond which the activation gather outlasts the weight load,
/// `T_ICI > T_HBM`: `Y > n_axes·F·|W| / (B·|X|·β)` with `β = W_hbm / W_ici` — the book's
/// `F / (B·β)` for one axis and bf16 (7.3.2). The ceiling while HBM-bound (small batches):
/// past the FLOPs limit, more chips still cut latency.
#[must_use]
pub fn tp_limit_memory_bound(f: f64, b: f64, beta: f64, n_axes: f64, weight_bytes: f64, activation_bytes: f64) -> f64 {
    n_axes * f * weight_bytes / (b * activation_bytes * beta)
}

/// Model parallelism above which the activation collectives are latency-bound (book
/// 7.6.3): each shard `B·D·|X| / Y` moves in less than one hop latency,
/// `Y > B·D·|X| / (W_link·t_hop)` — `Y > B·D / 45,000` in int8 on a v5e.
#[must_use]
pub fn latency_bound_above(b: f64, d: f64, activation_bytes: f64, link: BytesPerSec, hop: Seconds) -> f64 {
    b * d * activation_bytes / (link.get() * hop.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appendix_c_latency_bound() {
        // 7.6.3: BS=16, D=8192 in int8 is 131 kB, latency-bound beyond about 2.9 chips.
        let y = latency_bound_above(16.0, 8192.0, 1.0, BytesPerSec(4.5e10), Seconds(1e-6));
        assert!((y - 2.91).abs() < 0.01, "{y}");
        // For 8-way sharding the threshold buffer is 8 × 45 kB = 360 kB.
        let b = 360e3 / 8192.0;
        assert!((latency_bound_above(b, 8192.0, 1.0, BytesPerSec(4.5e10), Seconds(1e-6)) - 8.0).abs() < 1e-9);
    }

    #[test]
    fn int8_weights_halve_the_memory_limit() {
        let bf16 = tp_limit_memory_bound(16384.0, 32.0, 8.0, 1.0, 2.0, 2.0);
        let int8 = tp_limit_memory_bound(16384.0, 32.0, 8.0, 1.0, 1.0, 2.0);
        assert_eq!(bf16, 64.0);
        assert_eq!(int8, 32.0);
    }
}
