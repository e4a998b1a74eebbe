//! 1D versus 2D weight-stationary sharding of the MLP (book Exercise 7.7 and Appendix B,
//! after the ESTI paper): the closed forms for the bandwidth-bound communication time of
//! one MLP block in bf16 with `W` the bidirectional ICI bandwidth of one axis.
//!
//! 2D shards `W_in[D_X, F_YZ]`: `In[B, D_X] = AllGather_YZ(In[B, D_XYZ])`, the first matmul,
//! `AllReduce_X` of `Tmp[B, F_YZ]`, the second matmul, `ReduceScatter_YZ` of `Out[B, D_X]`.
//! The step-time model computes the same collectives on the real axes with
//! `collectives::collective_cost`; these formulas are the book's idealisation (every
//! axis a full ring, the YZ collectives over two axes).

/// 1D weight-stationary over `n_axes` axes: an AllGather and a ReduceScatter of the
/// bf16 `[B, D]` activations, `2·(2BD) / (n_axes·W)` — `4BD/(3W)` on a 3D mesh.
#[must_use]
pub fn ws1d_comms_time(b: f64, d: f64, n_axes: f64, w: f64) -> f64 {
    4.0 * b * d / (n_axes * w)
}

/// 2D weight-stationary with `x` chips sharding D and `yz` sharding F:
/// `2BD/(X·W) + 4BF/(YZ·W)` (the YZ gathers use two axes, the X AllReduce one).
#[must_use]
pub fn ws2d_comms_time(b: f64, d: f64, f: f64, x: f64, yz: f64, w: f64) -> f64 {
    2.0 * b * d / (x * w) + 4.0 * b * f / (yz * w)
}

/// The X that minimises [`ws2d_comms_time`] on `n = X·YZ` chips: `X = √(n·D / (2F))`,
/// i.e. `√(n/8)` for F = 4D.
#[must_use]
pub fn ws2d_optimal_x(n: f64, d: f64, f: f64) -> f64 {
    (n * d / (2.0 * f)).sqrt()
}

/// At the optimal X the 2D time is `c·B·D / (√n·W)` with `c = 4·√(2F/D)`: √128 ≈ 11.3
/// for F = 4D.
#[must_use]
pub fn ws2d_coefficient(f_over_d: f64) -> f64 {
    4.0 * (2.0 * f_over_d).sqrt()
}

/// Chips above which 2D beats 1D on a 3D mesh: `c/√n < 4/3` gives `n > 18·F/D`, which
/// is 72 for F = 4D (the book prints 81; its own general form `32·(F/D)·(3/4)²` gives 72).
#[must_use]
pub fn ws2d_crossover_chips(f_over_d: f64) -> f64 {
    let ratio = ws2d_coefficient(f_over_d) / (4.0 / 3.0);
    ratio * ratio
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_optimum_is_the_closed_form_and_the_crossover_is_where_1d_equals_2d() {
        let (b, d, w) = (64.0, 8192.0, 9e10);
        let f = 4.0 * d;
        let n = ws2d_crossover_chips(4.0);
        let x = ws2d_optimal_x(n, d, f);
        let best = ws2d_comms_time(b, d, f, x, n / x, w);
        // A coarse scan never beats the closed-form optimum.
        for i in 1..400 {
            let xi = f64::from(i) * 0.05;
            assert!(ws2d_comms_time(b, d, f, xi, n / xi, w) >= best * (1.0 - 1e-12));
        }
        assert!((best - ws2d_coefficient(4.0) * b * d / (n.sqrt() * w)).abs() < 1e-12 * best);
        assert!((best - ws1d_comms_time(b, d, 3.0, w)).abs() < 1e-9 * best);
    }
}
