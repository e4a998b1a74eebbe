//! The book's thresholds for training parallelism (book 5.1–5.2, Appendix C), each a
//! function of the ICI arithmetic intensity α = C / W_ici (peak FLOP/s over one
//! axis's bidirectional bandwidth: 2550 for a TPU v5p in bf16).
//!
//! The book derives them for bf16 weights and activations; here the byte sizes are
//! parameters (`u` = weight bytes / 2, `s` = activation bytes / 2), which reproduce
//! the book at `u = s = 1` and its remark that int8 leaves the TP limit unchanged.

/// α: peak FLOP/s over the bidirectional bandwidth of one ICI axis (book 5.1.1).
#[must_use]
pub fn ici_intensity(peak_flops: f64, axis_bidirectional: f64) -> f64 {
    peak_flops / axis_bidirectional
}

/// Per-device batch (tokens) above which DP and FSDP are compute-bound over
/// `n_axes` ICI axes (book 5.1.1–5.1.2 takeaway: `B/X > α/n_axes`; 2550 on one v5p
/// axis, 850 on three).
#[must_use]
pub fn fsdp_critical_batch(alpha: f64, n_axes: f64, weight_bytes: f64) -> f64 {
    alpha / n_axes.max(1.0) * weight_bytes / 2.0
}

/// Largest tensor-parallel degree that stays compute-bound (book 5.1.3:
/// `Y < n_axes · F / α`; about 11 for F ≈ 30k on a v5p axis).
#[must_use]
pub fn tp_max_degree(alpha: f64, n_axes: f64, d_ff: f64, activation_bytes: f64) -> f64 {
    n_axes.max(1.0) * d_ff / alpha * 2.0 / activation_bytes
}

/// Mixed FSDP (X ways over `M_X` axes) + TP (Y ways over `M_Y` axes), book 5.1.4.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MixedSharding {
    /// α.
    pub alpha: f64,
    /// Axes FSDP runs over.
    pub m_x: f64,
    /// Axes TP runs over.
    pub m_y: f64,
    /// F.
    pub d_ff: f64,
    /// Bytes per weight (2 in the book).
    pub weight_bytes: f64,
    /// Bytes per activation (2 in the book).
    pub activation_bytes: f64,
}

impl MixedSharding {
    fn u_s(&self) -> (f64, f64) {
        (self.weight_bytes / 2.0, self.activation_bytes / 2.0)
    }

    /// The per-device batch below which no split into FSDP × TP is compute-bound
    /// (book 5.1.4, Appendix C: `B/N > 4α² / (M_X · M_Y · F)`; 2α²/F on a 3D torus).
    #[must_use]
    pub fn critical_batch(&self) -> f64 {
        let (u, s) = self.u_s();
        4.0 * self.alpha * self.alpha * u * s / (self.m_x * self.m_y * self.d_ff)
    }

    /// The FSDP degree that minimises communication for `b` tokens on `n` devices
    /// (book 5.1.4: `X_opt = sqrt(B · M_X · N / (F · M_Y))`).
    #[must_use]
    pub fn optimal_fsdp(&self, b: f64, n: f64) -> f64 {
        let (u, s) = self.u_s();
        (s * b * self.m_x * n / (u * self.d_ff * self.m_y)).sqrt()
    }

    /// The FSDP degrees at which communication exactly equals compute: the roots of
    /// Appendix C's quadratic as `(centre, half_width)` (book 6.3: with `M_X = 2,
    /// M_Y = 1`, `X = B/α ± sqrt(B²F² − 2α²FBN)/(αF)`). Between the roots the step is
    /// compute-bound; `None` below [`Self::critical_batch`].
    #[must_use]
    pub fn fsdp_range(&self, b: f64, n: f64) -> Option<(f64, f64)> {
        let (u, _) = self.u_s();
        let discriminant = 1.0 - self.critical_batch() * n / b;
        if discriminant.is_nan() || discriminant < 0.0 {
            return None;
        }
        let centre = b * self.m_x / (2.0 * self.alpha * u);
        Some((centre, centre * discriminant.sqrt()))
    }
}

/// Per-slice batch (tokens) above which data parallelism over DCN is compute-bound
/// (book 5.1.6: `C_pod / W_DCN`, about 76,000 for a v5p pod): per chip, peak over
/// its one-way DCN egress, for gradients of `grad_bytes`.
#[must_use]
pub fn dcn_critical_batch(peak_flops: f64, dcn_per_chip: f64, grad_bytes: f64) -> f64 {
    peak_flops / dcn_per_chip * grad_bytes / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v5p_numbers() {
        let alpha = ici_intensity(4.59e14, 1.8e11);
        assert!((alpha - 2550.0).abs() < 1e-9);
        assert!((fsdp_critical_batch(alpha, 3.0, 2.0) - 850.0).abs() < 1e-9);
        assert!((tp_max_degree(alpha, 1.0, 30_000.0, 2.0) - 11.76).abs() < 0.01);
        // int8: twice the FLOP/s, half the bytes: the same limit.
        assert!((tp_max_degree(2.0 * alpha, 1.0, 30_000.0, 1.0) - 11.76).abs() < 0.01);
        let mixed =
            MixedSharding { alpha, m_x: 2.0, m_y: 1.0, d_ff: 28_672.0, weight_bytes: 2.0, activation_bytes: 2.0 };
        assert!((mixed.critical_batch() - 453.58).abs() < 0.01);
        let (c, h) = mixed.fsdp_range(4.19e6, 8960.0).unwrap();
        assert!((c - 1643.1).abs() < 0.1 && (h - 284.9).abs() < 0.1, "{c} {h}");
        assert!(mixed.fsdp_range(1e6, 8960.0).is_none());
        assert!((dcn_critical_batch(4.59e14, 6.25e9, 2.0) - 73_440.0).abs() < 1e-6);
    }
}
