//! Dot-product attention as its kernels run (issue 16, item 2).
//!
//! - **Flash / splash** (the score matrix never reaches HBM): the kernel walks
//!   `block × block` tiles of the score matrix and, under a causal mask, skips the tiles
//!   above the diagonal and computes the diagonal ones whole, so a global layer of `T`
//!   tokens executes `b²·n_b(n_b + 1)/2` query–key pairs (`n_b = ⌈T/b⌉`), not the `T²/2`
//!   a causal FLOP convention counts: 25% more at T = 2048 with 512-blocks. Its two
//!   matmuls contract over and produce the head dimension, so a head narrower than the
//!   matrix unit leaves part of it idle (the Ironwood guide: "for models with head_dim 128
//!   or 64, for the QK product in flash attention, we see 50% or more underutilization of
//!   MXU"); the same padding rule as every matmul ([`super::matmul::pad`]) gives it.
//! - **Materialised** (XLA's plain dot-product attention): every pair of the full `T × T`
//!   square is computed (the mask only zeroes them) and the fp32 scores cross HBM:
//!   forward, write S (4 B) and read it for the softmax (4 B), write P (2 B) and read it
//!   for `P·V` (2 B): 12 bytes per score; backward, read P for dV (2 B), write dP (4 B),
//!   read dP and P for the softmax gradient (6 B), write dS (2 B) and read it for dQ and
//!   dK (4 B): 18 bytes. The Ironwood blog: "the naive attention implementation is heavily
//!   IO-bound due to the large attention matrix".

use super::matmul::pad;
use super::rates::Tile;
use crate::model::LocalAttention;

/// Score-matrix bytes per element per head of materialised attention's forward pass.
pub const MATERIALIZED_FORWARD_BYTES: f64 = 12.0;
/// The same for its backward pass.
pub const MATERIALIZED_BACKWARD_BYTES: f64 = 18.0;

/// Query–key pairs a block-skipping kernel with `block`-edge tiles computes for one
/// causal sequence of `t` tokens: global, sliding-window or chunked.
#[must_use]
pub fn executed_pairs(t: f64, local: Option<LocalAttention>, block: f64) -> f64 {
    if t <= 0.0 {
        return 0.0;
    }
    let b = block.max(1.0).min(t);
    let triangle = |n: f64| n * (n + 1.0) / 2.0;
    let nb = (t / b).ceil();
    let blocks = match local {
        None => triangle(nb),
        // Query block q sees key blocks q − c + 1 ..= q, c = ⌈(W − 1)/b⌉ + 1 once the
        // window is full, q + 1 before.
        Some(LocalAttention::SlidingWindow { window }) => {
            let c = ((window.max(1) as f64 - 1.0) / b).ceil() + 1.0;
            if nb <= c {
                triangle(nb)
            } else {
                triangle(c) + (nb - c) * c
            }
        }
        // Causal within each chunk (blocks no larger than a chunk).
        Some(LocalAttention::Chunked { chunk }) => {
            let c = (chunk.max(1) as f64).min(t);
            let bc = b.min(c);
            let per_chunk = triangle((c / bc).ceil());
            return (t / c) * per_chunk * bc * bc;
        }
    };
    blocks * b * b
}

/// Query–key pairs materialised attention computes: the full square (the mask zeroes the
/// upper triangle after the fact).
#[must_use]
pub fn materialized_pairs(t: f64) -> f64 {
    t * t
}

/// Fraction of the matrix unit attention's matmuls use at head dimensions `qk` (QKᵀ
/// contracts over it) and `v` (P·V produces it): `(qk + v) / (pad(qk) + pad(v))`, FLOP-
/// weighted. 1 for any multiple of the tile; ½ for 128 on a 256-wide MXU.
#[must_use]
pub fn head_dim_utilization(qk: f64, v: f64, tile: Tile) -> f64 {
    let useful = qk + v;
    let used = pad(qk, tile.k) + pad(v, tile.n);
    if used > 0.0 {
        useful / used
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causal_blocks_count_the_diagonal_whole() {
        // T = 2048, b = 512: 4 blocks a side, 10 computed of 16: 10·512² pairs, 1.25× T²/2.
        let p = executed_pairs(2048.0, None, 512.0);
        assert_eq!(p, 10.0 * 512.0 * 512.0);
        assert!((p / (2048.0 * 2048.0 / 2.0) - 1.25).abs() < 1e-12);
        // One block: the whole square of a short sequence.
        assert_eq!(executed_pairs(300.0, None, 512.0), 300.0 * 300.0);
        // Tiny blocks approach the exact triangle T(T+1)/2.
        assert_eq!(executed_pairs(4.0, None, 1.0), 10.0);
    }

    #[test]
    fn windows_and_chunks() {
        // W = 1024 over T = 8192 with 512-blocks: c = ⌈1023/512⌉ + 1 = 3 key blocks per
        // query block once full: 1 + 2 + 3·14 = 45 blocks.
        let w = Some(LocalAttention::SlidingWindow { window: 1024 });
        assert_eq!(executed_pairs(8192.0, w, 512.0), 45.0 * 512.0 * 512.0);
        // A window wider than the sequence is global.
        let wide = Some(LocalAttention::SlidingWindow { window: 1 << 20 });
        assert_eq!(executed_pairs(8192.0, wide, 512.0), executed_pairs(8192.0, None, 512.0));
        // Chunks of 2048 over 8192: four causal 2048 squares of 4 blocks a side.
        let c = Some(LocalAttention::Chunked { chunk: 2048 });
        assert_eq!(executed_pairs(8192.0, c, 512.0), 4.0 * 10.0 * 512.0 * 512.0);
    }

    #[test]
    fn head_dim_on_wide_mxus() {
        let t256 = Tile { m: 8.0, k: 256.0, n: 256.0 };
        let t128 = Tile { m: 8.0, k: 128.0, n: 128.0 };
        // The Ironwood guide: head_dim 128 wastes half of a 256-wide MXU, 64 three quarters.
        assert_eq!(head_dim_utilization(128.0, 128.0, t256), 0.5);
        assert_eq!(head_dim_utilization(64.0, 64.0, t256), 0.25);
        assert_eq!(head_dim_utilization(256.0, 256.0, t256), 1.0);
        assert_eq!(head_dim_utilization(128.0, 128.0, t128), 1.0);
        // MLA: 192 for QK, 128 for V on 128: (192 + 128) / (256 + 128).
        assert!((head_dim_utilization(192.0, 128.0, t128) - 320.0 / 384.0).abs() < 1e-12);
        assert_eq!(materialized_pairs(10.0), 100.0);
    }
}
