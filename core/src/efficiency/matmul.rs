//! A matmul `[m, k] × [k, n]` on one device at the efficiency its shape allows (issue 16,
//! item 1): every dimension padded to the matrix unit's tile, then the tiled kernel's
//! roofline — its FLOPs at the sustained rate against the HBM traffic its on-chip tiles
//! imply (book 1: `T = max(T_math, T_comms)`, with the matmul's arithmetic intensity set
//! by the tile edge rather than by the whole arrays).
//!
//! - **Padding** (MaxText custom-model guide, "TPU best practices": the MXU is 128×128 on
//!   v4/v5e/v5p and 256×256 on v6e/v7x, "two 128×128 operations on Trillium will halve the
//!   efficiency"; the Ironwood guide: "efficient when the contracting dimension is ... a
//!   multiple of 256"): the contracting and output dimensions occupy whole MXU passes,
//!   the rows whole 8-row sublane groups. GPUs: the tensor-core instruction
//!   `mma.m16n8k16` (PTX ISA) pads rows to 16, outputs to 8 and the contraction to 16.
//! - **Tiling**: a kernel keeps a `b × b` output tile in on-chip memory (VMEM, SMEM) and
//!   streams both operands through it, so it reads `A` `⌈n/b⌉` times and `B` `⌈m/b⌉` times:
//!   `bytes = e·(m·k·⌈n/b⌉ + k·n·⌈m/b⌉ + m·n)`, an intensity of about `b/e` FLOPs per byte
//!   for large arrays. `b` is the largest tile multiple with an fp32 accumulator and
//!   double-buffered `b × b` operand tiles in half of the on-chip memory (the rest is the
//!   compiler's: the Ironwood guide splits VMEM "between the current scope ... and future
//!   weight prefetch"). With 128 MiB of VMEM that is 2,304, so a large matmul is
//!   compute-bound on every chip; small per-device dimensions (a few tokens, a thin
//!   expert) make it HBM-bound, which is the book's `B > C/W` rule of chapter 1 recovered
//!   from the tile.

use super::rates::{KernelRates, Tile};

/// `x` rounded up to a multiple of `tile` (at least one tile).
#[must_use]
pub fn pad(x: f64, tile: f64) -> f64 {
    if tile <= 1.0 {
        return x.max(1.0);
    }
    (x / tile).ceil().max(1.0) * tile
}

/// Executed over useful FLOPs of `[m, k] × [k, n]` on `tile`: ≥ 1.
#[must_use]
pub fn padding_factor(m: f64, k: f64, n: f64, tile: Tile) -> f64 {
    let useful = m * k * n;
    if useful <= 0.0 {
        return 1.0;
    }
    pad(m, tile.m) * pad(k, tile.k) * pad(n, tile.n) / useful
}

/// Edge of the square output tile a matmul kernel keeps in `on_chip` bytes: the largest
/// multiple of `tile` with `4·b²` (fp32 accumulator) `+ 2·2·e·b²` (two operand tiles,
/// double-buffered, `e` bytes per element) in half of it; one tile at least.
#[must_use]
pub fn block_edge(on_chip: f64, element_bytes: f64, tile: f64) -> f64 {
    let per_square = 4.0 + 4.0 * element_bytes;
    let b = (0.5 * on_chip.max(0.0) / per_square).sqrt();
    let t = tile.max(1.0);
    ((b / t).floor() * t).max(t)
}

/// HBM bytes a tiled kernel moves for `[m, k] × [k, n]` with `b × b` output tiles.
#[must_use]
pub fn tiled_bytes(m: f64, k: f64, n: f64, b: f64, element_bytes: f64) -> f64 {
    let b = b.max(1.0);
    element_bytes * (m * k * (n / b).ceil().max(1.0) + k * n * (m / b).ceil().max(1.0) + m * n)
}

/// Seconds of `count` matmuls `[m, k] × [k, n]` on one device: the padded FLOPs at the
/// sustained rate or the tiled traffic at the achieved HBM bandwidth, whichever is longer.
#[must_use]
pub fn matmul_seconds(m: f64, k: f64, n: f64, count: f64, r: &KernelRates) -> f64 {
    if m <= 0.0 || k <= 0.0 || n <= 0.0 || count <= 0.0 {
        return 0.0;
    }
    let t = r.tile;
    let (mp, kp, np) = (pad(m, t.m), pad(k, t.k), pad(n, t.n));
    let math = 2.0 * mp * kp * np / r.matmul;
    let memory = tiled_bytes(m, k, n, r.block, r.operand_bytes) / r.hbm;
    count * math.max(memory)
}

/// Seconds of a matmul's forward pass and of its two backward matmuls (the input
/// gradient `[m, n] × [n, k]` and the weight gradient `[k, m] × [m, n]`), `count` times.
#[must_use]
pub fn matmul_seconds_fwd_bwd(m: f64, k: f64, n: f64, count: f64, r: &KernelRates) -> (f64, f64) {
    let fwd = matmul_seconds(m, k, n, count, r);
    let bwd = matmul_seconds(m, n, k, count, r) + matmul_seconds(k, m, n, count, r);
    (fwd, bwd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates(tile: u64, on_chip: f64, matmul: f64, hbm: f64) -> KernelRates {
        let t = tile as f64;
        KernelRates {
            matmul,
            hbm,
            tile: Tile { m: 8.0, k: t, n: t },
            block: block_edge(on_chip, 2.0, t),
            operand_bytes: 2.0,
            element_bytes: 2.0,
            ..KernelRates::ROOFLINE
        }
    }

    #[test]
    fn padding_is_the_guide_s_halving() {
        // The custom-model guide: a 128-wide operation on a 256-wide MXU runs at half
        // efficiency; on a 128-wide MXU it is whole.
        let t256 = Tile { m: 8.0, k: 256.0, n: 256.0 };
        let t128 = Tile { m: 8.0, k: 128.0, n: 128.0 };
        assert_eq!(padding_factor(4096.0, 128.0, 4096.0, t256), 2.0);
        assert_eq!(padding_factor(4096.0, 128.0, 4096.0, t128), 1.0);
        // 64 of 128 on both MXU dimensions: a quarter of the array.
        assert_eq!(padding_factor(4096.0, 64.0, 64.0, t128), 4.0);
        // Llama 2's F = 11008 = 43·256: whole on both.
        assert_eq!(padding_factor(8192.0, 4096.0, 11008.0, t256), 1.0);
        assert_eq!(pad(1.0, 8.0), 8.0);
    }

    #[test]
    fn block_edge_from_on_chip_memory() {
        // 128 MiB of VMEM, bf16: 4b² + 2·2·2·b² = 12b² ≤ 64 MiB → b ≤ 2365: 2304 in 128s
        // and in 256s.
        assert_eq!(block_edge(134_217_728.0, 2.0, 128.0), 2304.0);
        assert_eq!(block_edge(134_217_728.0, 2.0, 256.0), 2304.0);
        // 32 MiB (v4): b ≤ 1182 → 1152.
        assert_eq!(block_edge(33_554_432.0, 2.0, 128.0), 1152.0);
        assert_eq!(block_edge(0.0, 2.0, 128.0), 128.0);
    }

    #[test]
    fn large_matmuls_are_compute_bound_small_ones_weight_bound() {
        // v5e-like: 197 TFLOP/s, 810 GB/s, 128 MiB VMEM.
        let r = rates(128, 134_217_728.0, 197e12, 810e9);
        let (m, k, n) = (8192.0, 8192.0, 28672.0);
        let t = matmul_seconds(m, k, n, 1.0, &r);
        assert!((t - 2.0 * m * k * n / 197e12).abs() < 1e-12 * t.max(1.0), "{t}");
        // Eight tokens against the same weights: the weights are read once (k·n·2 bytes),
        // which takes far longer than the FLOPs (book 1: B < 240 on a v5e is memory-bound).
        let t8 = matmul_seconds(8.0, k, n, 1.0, &r);
        let weights = k * n * 2.0 / 810e9;
        assert!(t8 >= weights && t8 < 1.01 * weights + 1e-9, "{t8} vs {weights}");
        // The crossover sits near the chip's FLOP:byte ratio (243 tokens).
        let at = |b: f64| matmul_seconds(b, k, n, 1.0, &r) / (2.0 * b * k * n / 197e12);
        assert!(at(160.0) > 1.2 && at(320.0) < 1.0001, "{} {}", at(160.0), at(320.0));
    }

    #[test]
    fn backward_is_two_matmuls_of_the_same_flops() {
        let r = rates(128, 134_217_728.0, 1e14, 1e12);
        let (f, b) = matmul_seconds_fwd_bwd(4096.0, 4096.0, 16384.0, 2.0, &r);
        assert!((b / f - 2.0).abs() < 1e-9, "{f} {b}");
    }
}
