//! What one device's kernels sustain under a calibration: the rates and shapes the physical
//! step model times every kernel with. Computed once per plan from the chip's catalogue
//! numbers (peak, HBM bandwidth, MXU size, on-chip memory), the chip kind's measured kernel
//! rates (a large matmul's, [`super::calibration::large_matmul_fraction`]; flash
//! attention's, [`MeasuredAttention`]) and the calibration's one sustained fraction;
//! nothing here is per chip beyond what the catalogue publishes.

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

/// A flash-attention kernel's measured throughput on one chip, by sequence length: what
/// the kernel sustains on its own, as [`super::calibration::large_matmul_fraction`] is for
/// a matmul. Rates count FLOPs as the FlashAttention benchmarks do: `4·T²·d` per head and
/// sequence forward, halved under a causal mask, and 2.5 times that backward.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeasuredAttention {
    /// The measured chip's dense bf16 peak, FLOP/s (the rates' denominator).
    pub peak: f64,
    /// `(T, causal forward, full forward, full backward)`, FLOP/s, by increasing `T`.
    pub points: &'static [(f64, f64, f64, f64)],
}

impl MeasuredAttention {
    /// cuDNN's fused flash attention (what MaxText's `attention: cudnn_flash_te` runs through
    /// Transformer Engine) on an H100 SXM5, bf16, head dimension 128, as the FlashAttention-3
    /// paper measures it (Shah et al. 2024, arXiv 2407.08608, figures 5 and 6; TFLOP/s):
    /// causal forward 315 / 410 / 484 / 518 / 529 / 539, full forward 497 / 574 / 617 / 609
    /// / 600 / 595, full backward 305 / 408 / 465 / 499 / 518 / 516 at T = 512 … 16k: 52%
    /// of the peak forward at 4k against the 80% a large matmul sustains. The paper's
    /// backward is unmasked: the causal backward is taken as the full one times the
    /// forward's causal/full ratio at the same `T` (the same diagonal blocks and the same
    /// uneven work per query block cost it).
    pub const H100_CUDNN: MeasuredAttention = MeasuredAttention {
        peak: 989e12,
        points: &[
            (512.0, 315e12, 497e12, 305e12),
            (1024.0, 410e12, 574e12, 408e12),
            (2048.0, 484e12, 617e12, 465e12),
            (4096.0, 518e12, 609e12, 499e12),
            (8192.0, 529e12, 600e12, 518e12),
            (16384.0, 539e12, 595e12, 516e12),
        ],
    };

    /// The causal forward and backward rates at `t` keys per query, as fractions of the
    /// measured chip's peak, linear in log₂ `t` between the measured lengths and the nearest
    /// one's outside them.
    #[must_use]
    pub fn causal_fractions(&self, t: f64) -> (f64, f64) {
        let p = self.points;
        let (Some(first), Some(last)) = (p.first(), p.last()) else { return (1.0, 1.0) };
        let at = |x: &(f64, f64, f64, f64)| (x.1, x.3 * x.1 / x.2);
        let (f, b) = if t <= first.0 {
            at(first)
        } else if t >= last.0 {
            at(last)
        } else {
            let i = p.iter().position(|x| x.0 >= t).unwrap_or(p.len() - 1).max(1);
            let (lo, hi) = (&p[i - 1], &p[i]);
            let w = (t.log2() - lo.0.log2()) / (hi.0.log2() - lo.0.log2());
            let (lf, lb) = at(lo);
            let (hf, hb) = at(hi);
            (lf + w * (hf - lf), lb + w * (hb - lb))
        };
        (f / self.peak, b / self.peak)
    }
}

/// How the attention kernel of a chip's kind is built, and what it sustains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttentionKernelShape {
    /// Query and key block edge: causal masking skips whole blocks above the diagonal and
    /// computes the diagonal blocks whole.
    pub block: f64,
    /// Matmuls of the backward kernels over the forward kernel's two (QKᵀ and PV).
    pub backward_matmuls: f64,
    /// The flash kernel's measured throughput; `None`: it runs at the matmul rate times the
    /// head dimension's MXU utilisation (no published standalone figure).
    pub measured: Option<MeasuredAttention>,
}

impl AttentionKernelShape {
    /// TPU: MaxText's splash attention, `sa_block_q = sa_block_kv = 512` and
    /// `sa_use_fused_bwd_kernel: false` (configs/base.yml): separate dQ and dK/dV kernels,
    /// each recomputing `S = QKᵀ` and `dP = dO·Vᵀ`: 3 + 4 = 7 matmuls backward, 3.5 times
    /// the forward's 2. Its rate: the matmul's.
    pub const TPU: AttentionKernelShape = AttentionKernelShape { block: 512.0, backward_matmuls: 3.5, measured: None };
    /// GPU: FlashAttention-2 (Dao 2023, algorithm 2; cuDNN's fused attention follows it):
    /// 128-row blocks, one backward kernel recomputing `S` and computing dV, dP, dQ, dK: 5
    /// matmuls, 2.5 times the forward's; at cuDNN's measured rate on an H100
    /// ([`MeasuredAttention::H100_CUDNN`], standing for every GPU as the H100's matmul
    /// fraction does, and for every head dimension: the paper's 64-wide heads run slower,
    /// its 256-wide ones faster).
    pub const GPU: AttentionKernelShape =
        AttentionKernelShape { block: 128.0, backward_matmuls: 2.5, measured: Some(MeasuredAttention::H100_CUDNN) };

    /// The kernel of a chip's kind.
    #[must_use]
    pub fn of(family: ChipFamily) -> Self {
        match family {
            ChipFamily::Tpu => Self::TPU,
            ChipFamily::Gpu => Self::GPU,
        }
    }
}

/// Whether a chip kind's compiler overlaps the weight-gradient reductions (the DP gradient
/// sync, FSDP's gradient ReduceScatters) with the backward pass, as the book assumes (5.1.1
/// and 5.1.2: "not on the critical path"). TPUs: yes. GPUs: no — XLA's GPU latency-hiding
/// scheduler leaves them exposed: openxla/xla#1539 (NVIDIA, 2023, open): "most weight
/// gradient all-reduce latency is still exposed", the weight gradients being computed apart
/// from the data gradients and reduced in another order; openxla/xla#45929 (2026): the
/// scheduler defers each layer's weight-gradient work past the following collectives,
/// "no useful GW/collective overlap", so the reductions that consume those gradients wait
/// for the end of the pass; the MaxText GPU team sees FSDP overlap only with profile-guided
/// latency estimates (AI-Hypercomputer/maxtext#1005: "good overlap with FSDP + PGLE ...
/// turning on and off PGLE makes a big difference"). What the A3 runs show (MaxText 2024 on XLA:GPU without
/// profile-guided latency estimates): MFU falls from 48.8% on one VM to 41.9% on two and
/// 37.2% on sixteen, where an overlapped AllReduce of their gradients over the VMs' 12.5
/// GB/s per GPU would cost 2-4% of the step.
#[must_use]
pub fn gradient_reductions_overlap(family: ChipFamily) -> bool {
    match family {
        ChipFamily::Tpu => true,
        ChipFamily::Gpu => false,
    }
}

/// One device's kernel rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelRates {
    /// Sustained matmul FLOP/s: the peak × the kind's large-matmul fraction × the
    /// calibrated sustained fraction × the user's `efficiency.flops`.
    pub matmul: f64,
    /// The same without the large-matmul fraction: what a kernel measured at a fraction `f`
    /// of the peak sustains in a step is `f` times this.
    pub sustained_peak: f64,
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
    /// Whether the weight-gradient reductions (DP sync, FSDP ReduceScatters) overlap the
    /// backward pass ([`gradient_reductions_overlap`]); when not, the step waits for them.
    pub gradient_reductions_overlap: bool,
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
        sustained_peak: 1.0,
        hbm: f64::INFINITY,
        tile: Tile::NONE,
        block: f64::INFINITY,
        operand_bytes: 2.0,
        element_bytes: 2.0,
        attention: AttentionKernelShape { block: 1.0, backward_matmuls: 2.0, measured: None },
        gradient_reductions_overlap: true,
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
            matmul: peak * c.matmul_fraction(chip.family) * flops_efficiency,
            sustained_peak: peak * c.mxu * flops_efficiency,
            hbm: chip.hbm.bandwidth.get() / per_device * c.hbm,
            tile,
            block: block_edge(on_chip, operand_bytes, tile.n.max(tile.k)),
            operand_bytes,
            element_bytes,
            attention: AttentionKernelShape::of(chip.family),
            gradient_reductions_overlap: gradient_reductions_overlap(chip.family),
            quantized: None,
        }
    }

    /// FLOP/s of a flash kernel's forward and backward matmuls over the query–key pairs it
    /// executes ([`super::attention::executed_pairs`]), for queries seeing up to `t` keys:
    /// the measured kernel's causal rates, which count `t²/2` pairs where the kernel
    /// executes its diagonal blocks whole (`t²/2 · (1 + block/t)` for `t` a multiple of the
    /// block), or the matmul rate.
    #[must_use]
    pub fn flash_attention(&self, t: f64) -> (f64, f64) {
        match self.attention.measured {
            Some(m) => {
                let t = t.max(1.0);
                let (f, b) = m.causal_fractions(t);
                let executed = super::attention::executed_pairs(t, None, self.attention.block) / (t * t / 2.0);
                (self.sustained_peak * f * executed, self.sustained_peak * b * executed)
            }
            None => (self.matmul, self.matmul),
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
    fn measured_attention_by_sequence_length() {
        let m = MeasuredAttention::H100_CUDNN;
        // At a measured length: the causal forward, and the unmasked backward times the
        // forward's causal/unmasked ratio (FlashAttention-3 figures, T = 4096).
        let (f, b) = m.causal_fractions(4096.0);
        assert!((f - 518.0 / 989.0).abs() < 1e-12 && (b - 499.0 * 518.0 / 609.0 / 989.0).abs() < 1e-12);
        // Halfway between 2048 and 4096 in log₂: the mean of the two.
        let (f_mid, _) = m.causal_fractions(2048.0 * 2f64.sqrt());
        assert!((f_mid - (484.0 + 518.0) / 2.0 / 989.0).abs() < 1e-9, "{f_mid}");
        // Outside the measured lengths: the nearest one's.
        assert_eq!(m.causal_fractions(64.0), m.causal_fractions(512.0));
        assert_eq!(m.causal_fractions(1e6), m.causal_fractions(16384.0));
        assert!(m.causal_fractions(1024.0).0 < m.causal_fractions(8192.0).0);
    }

    #[test]
    fn flash_attention_rates_by_kind() {
        let c = Calibration { mxu: 0.5, ..Calibration::PEAK };
        // TPU: the matmul rate; GPU: cuDNN's causal rate over the pairs the kernel executes
        // (its 128-blocks' diagonal whole: 1 + 128/4096 of T²/2), times the sustained fraction.
        let tpu = KernelRates::new(&get("tpu-v5p").unwrap(), 1, 459e12, 1.0, (2.0, 2.0), &c);
        assert_eq!(tpu.flash_attention(4096.0), (tpu.matmul, tpu.matmul));
        let gpu = KernelRates::new(&get("h100-sxm").unwrap(), 1, 989e12, 1.0, (2.0, 2.0), &c);
        let (f, _) = gpu.flash_attention(4096.0);
        assert!((f - 0.5 * 518e12 * (1.0 + 128.0 / 4096.0)).abs() < 1.0, "{f}");
        assert!(!gpu.gradient_reductions_overlap && tpu.gradient_reductions_overlap);
    }

    #[test]
    fn rates_scale_with_the_calibration() {
        let chip = get("tpu-v5e").unwrap();
        let c = Calibration { mxu: 0.5, hbm: 0.25, ..Calibration::PEAK };
        let r = KernelRates::new(&chip, 1, 197e12, 0.8, (2.0, 2.0), &c);
        assert_eq!(r.matmul, 197e12 * 0.5 * 0.8);
        assert_eq!(r.hbm, 810e9 * 0.25);
        assert_eq!(r.block, 2304.0);
        assert_eq!(r.attention, AttentionKernelShape::TPU);
    }
}
