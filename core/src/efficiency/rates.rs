//! What one device's kernels sustain under a calibration: the rates and shapes the physical
//! step model times every kernel with. Computed once per plan from the chip's catalogue
//! numbers (peak, HBM bandwidth, MXU size, on-chip memory) and the calibration; nothing
//! here is per chip beyond what the catalogue publishes.

use super::calibration::Calibration;
use super::matmul::block_edge;
use crate::hardware::chip::{Chip, ChipFamily};

/// The granularity of the matrix unit: every dimension of a matmul occupies whole
/// multiples of these.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tile {
    /// Rows (tokens): 8 sublanes on a TPU, 16 on a GPU's `mma.m16n8k16`.
    pub m: f64,
    /// Contracting dimension: the MXU side on a TPU, 16 on a GPU.
    pub k: f64,
    /// Output dimension: the MXU side on a TPU, 8 on a GPU.
    pub n: f64,
}

impl Tile {
    /// No padding at all.
    pub const NONE: Tile = Tile { m: 1.0, k: 1.0, n: 1.0 };

    /// A chip's tile. TPUs: `mxu.size` (128 on v4/v5e/v5p, 256 on v6e/7x; 128 when the
    /// catalogue has none) on both array dimensions and the vreg's 8 sublanes for the rows
    /// (MaxText custom-model guide: "internal 8×128 vector registers"). GPUs: the bf16
    /// tensor-core instruction `mma.m16n8k16` (PTX ISA, warp-level matrix instructions).
    #[must_use]
    pub fn of(chip: &Chip) -> Tile {
        match chip.family {
            ChipFamily::Tpu => {
                let s = chip.mxu.map_or(128.0, |m| m.size.max(1) as f64);
                Tile { m: 8.0, k: s, n: s }
            }
            ChipFamily::Gpu => Tile { m: 16.0, k: 16.0, n: 8.0 },
        }
    }
}

/// How the attention kernel of a chip's kind is built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttentionKernelShape {
    /// Query and key block edge: causal masking skips whole blocks above the diagonal and
    /// computes the diagonal blocks whole.
    pub block: f64,
    /// Matmuls of the backward kernels over the forward kernel's two (QKᵀ and PV).
    pub backward_matmuls: f64,
}

impl AttentionKernelShape {
    /// TPU: MaxText's splash attention, `sa_block_q = sa_block_kv = 512` and
    /// `sa_use_fused_bwd_kernel: false` (configs/base.yml): separate dQ and dK/dV kernels,
    /// each recomputing `S = QKᵀ` and `dP = dO·Vᵀ`: 3 + 4 = 7 matmuls backward, 3.5 times
    /// the forward's 2.
    pub const TPU: AttentionKernelShape = AttentionKernelShape { block: 512.0, backward_matmuls: 3.5 };
    /// GPU: FlashAttention-2 (Dao 2023, algorithm 2; cuDNN's fused attention follows it):
    /// 128-row blocks, one backward kernel recomputing `S` and computing dV, dP, dQ, dK: 5
    /// matmuls, 2.5 times the forward's.
    pub const GPU: AttentionKernelShape = AttentionKernelShape { block: 128.0, backward_matmuls: 2.5 };

    /// The kernel of a chip's kind.
    #[must_use]
    pub fn of(family: ChipFamily) -> Self {
        match family {
            ChipFamily::Tpu => Self::TPU,
            ChipFamily::Gpu => Self::GPU,
        }
    }
}

/// One device's kernel rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelRates {
    /// Sustained matmul FLOP/s: the peak × the kind's sustained fraction × the user's
    /// `efficiency.flops`.
    pub matmul: f64,
    /// Achieved HBM bytes/s: the bandwidth × the calibrated fraction.
    pub hbm: f64,
    /// The matrix unit's tile.
    pub tile: Tile,
    /// Output tile edge of a matmul kernel ([`block_edge`]).
    pub block: f64,
    /// Bytes per element of matmul operands (the compute format: 1 for fp8).
    pub operand_bytes: f64,
    /// Bytes per element of activations (what elementwise kernels move).
    pub element_bytes: f64,
    /// The attention kernel.
    pub attention: AttentionKernelShape,
    /// The quantized weight matmuls' sustained rate and operand bytes, when the compute
    /// format is not bf16 ([`KernelRates::quantized`]).
    pub quantized: Option<QuantizedMatmuls>,
}

/// The rate and operands of the matmuls a quantized training recipe runs in a narrower
/// format (MaxText's `quantization`: fp8 or int8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantizedMatmuls {
    /// Sustained FLOP/s: the format's peak × the same sustained fraction.
    pub matmul: f64,
    /// Bytes per operand element.
    pub operand_bytes: f64,
    /// Output tile edge with operands this narrow ([`block_edge`]).
    pub block: f64,
}

impl KernelRates {
    /// Unit rates without padding or tiling: for tests of the arithmetic around them.
    pub const ROOFLINE: KernelRates = KernelRates {
        matmul: 1.0,
        hbm: f64::INFINITY,
        tile: Tile::NONE,
        block: f64::INFINITY,
        operand_bytes: 2.0,
        element_bytes: 2.0,
        attention: AttentionKernelShape { block: 1.0, backward_matmuls: 2.0 },
        quantized: None,
    };

    /// The rates of one device of `chip` (a chiplet when `devices_per_chip` > 1) computing
    /// at `peak` FLOP/s nominal (bf16's), with `flops_efficiency` the user's own fraction,
    /// matmul operands of `operand_bytes` and activations of `element_bytes`, under `c`.
    #[must_use]
    pub fn new(
        chip: &Chip,
        devices_per_chip: u64,
        peak: f64,
        flops_efficiency: f64,
        (operand_bytes, element_bytes): (f64, f64),
        c: &Calibration,
    ) -> Self {
        let per_device = devices_per_chip.max(1) as f64;
        let tile = Tile::of(chip);
        let on_chip = Self::on_chip_per_device(chip, devices_per_chip);
        Self {
            matmul: peak * c.mxu(chip.family) * flops_efficiency,
            hbm: chip.hbm.bandwidth.get() / per_device * c.hbm,
            tile,
            block: block_edge(on_chip, operand_bytes, tile.n.max(tile.k)),
            operand_bytes,
            element_bytes,
            attention: AttentionKernelShape::of(chip.family),
            quantized: None,
        }
    }

    /// These rates with the weight matmuls of a quantized recipe running at `peak` FLOP/s
    /// nominal per device (the format's) on `operand_bytes`-wide operands, at the same
    /// sustained fraction of the peak and the same on-chip memory (`on_chip` bytes per
    /// device).
    #[must_use]
    pub fn with_quantized(mut self, peak: f64, bf16_peak: f64, operand_bytes: f64, on_chip: f64) -> Self {
        let sustained = if bf16_peak > 0.0 { self.matmul / bf16_peak } else { 0.0 };
        self.quantized = Some(QuantizedMatmuls {
            matmul: peak * sustained,
            operand_bytes,
            block: block_edge(on_chip, operand_bytes, self.tile.n.max(self.tile.k)),
        });
        self
    }

    /// The rates the quantized matmuls run at: these with the quantized format's rate,
    /// operands and tile edge (these unchanged without quantization).
    #[must_use]
    pub fn quantized(&self) -> KernelRates {
        match self.quantized {
            Some(q) => KernelRates {
                matmul: q.matmul,
                operand_bytes: q.operand_bytes,
                block: q.block,
                quantized: None,
                ..*self
            },
            None => *self,
        }
    }

    /// On-chip memory of one device of `chip` (the smallest in the catalogue, 16 MiB,
    /// where unpublished).
    #[must_use]
    pub fn on_chip_per_device(chip: &Chip, devices_per_chip: u64) -> f64 {
        chip.on_chip.as_ref().map_or(16.0 * 1024.0 * 1024.0, |o| o.capacity.get()) / devices_per_chip.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::catalog::get;

    #[test]
    fn tiles_follow_the_catalogue() {
        assert_eq!(Tile::of(&get("tpu-v5p").unwrap()).k, 128.0);
        assert_eq!(Tile::of(&get("tpu-v6e").unwrap()).n, 256.0);
        assert_eq!(Tile::of(&get("tpu-v7x").unwrap()).k, 256.0);
        assert_eq!(Tile::of(&get("h100-sxm").unwrap()), Tile { m: 16.0, k: 16.0, n: 8.0 });
    }

    #[test]
    fn rates_scale_with_the_calibration() {
        let chip = get("tpu-v5e").unwrap();
        let c = Calibration { mxu_tpu: 0.5, hbm: 0.25, ..Calibration::PEAK };
        let r = KernelRates::new(&chip, 1, 197e12, 0.8, (2.0, 2.0), &c);
        assert_eq!(r.matmul, 197e12 * 0.5 * 0.8);
        assert_eq!(r.hbm, 810e9 * 0.25);
        assert_eq!(r.block, 2304.0);
        assert_eq!(r.attention, AttentionKernelShape::TPU);
    }
}
