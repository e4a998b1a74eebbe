//! MXU padding (book 2.3 "weight matrices need to be padded to at least size 128 (256
//! on TPU v6)", MaxText custom-model guide, Ironwood guide): a dimension that is not a
//! multiple of the tile is padded up, and the padding is wasted work.

use super::matmul::Matmul;
use serde::{Deserialize, Serialize};

/// Rows the MXU takes from the activations per pass (book 2.1: `bf16[8,128] @
/// bf16[128,128]` every 8 cycles); the batch is padded to a multiple of this.
pub const SUBLANES: f64 = 8.0;

/// `n` rounded up to a multiple of `tile` (book 9.2.2 tiling); `tile <= 0` leaves `n`.
#[must_use]
pub fn pad_to_multiple(n: f64, tile: f64) -> f64 {
    if tile > 0.0 && n.is_finite() && tile.is_finite() {
        (n / tile).ceil() * tile
    } else {
        n
    }
}

/// Padded size over real size of an array whose dims are tiled by `tiles` (book 9.2.2:
/// a `[3, 5]` array in `2×2` tiles takes `[4, 6]`, 1.6×). Missing tiles are 1.
#[must_use]
pub fn padding_expansion(dims: &[f64], tiles: &[f64]) -> f64 {
    let real: f64 = dims.iter().product();
    let padded: f64 =
        dims.iter().enumerate().map(|(i, &n)| pad_to_multiple(n, tiles.get(i).copied().unwrap_or(1.0))).product();
    if real > 0.0 {
        padded / real
    } else {
        1.0
    }
}

/// A matmul as the MXU runs it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MxuPadding {
    /// MXU side used (128 or 256).
    pub mxu_size: f64,
    /// Batch padded to a multiple of 8.
    pub padded_b: f64,
    /// Contracting dimension padded to the MXU side.
    pub padded_d: f64,
    /// Output dimension padded to the MXU side.
    pub padded_f: f64,
    /// Useful FLOPs over FLOPs the MXU performs (1 = no waste).
    pub utilization: f64,
}

/// Padding waste of `m` on a `mxu_size × mxu_size` systolic array: `D` and `F` pad to
/// the array side, `B` to 8 rows. A head_dim of 128 on Ironwood's 256 array is 50%.
#[must_use]
pub fn mxu_padding(m: &Matmul, mxu_size: f64) -> MxuPadding {
    let padded_b = pad_to_multiple(m.b, SUBLANES);
    let padded_d = pad_to_multiple(m.d, mxu_size);
    let padded_f = pad_to_multiple(m.f, mxu_size);
    let padded = padded_b * padded_d * padded_f;
    let utilization = if padded > 0.0 { m.b * m.d * m.f / padded } else { 1.0 };
    MxuPadding { mxu_size, padded_b, padded_d, padded_f, utilization }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_dim_128_on_a_256_mxu_wastes_half() {
        // Ironwood guide: head_dim 128 in the QK product underuses the 256x256 MXU by 50%.
        let qk = Matmul::bf16(1024.0, 128.0, 1024.0);
        assert!((mxu_padding(&qk, 256.0).utilization - 0.5).abs() < 1e-12);
        assert!((mxu_padding(&qk, 128.0).utilization - 1.0).abs() < 1e-12);
    }
}
