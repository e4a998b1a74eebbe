//! `inference.mla`: multi-head latent attention at decode time, with the up-projections
//! absorbed (DeepSeek-V2, arXiv 2405.04434, §2.1 and Table 1: the cache holds the
//! `kv_lora_rank`-wide latent plus the shared `qk_rope_head_dim` key per token and layer,
//! `(d_c + d_h^R)·l` elements = 576 × 61 for DeepSeek-V3, 70,272 bytes per token in bf16).
//! The FLOPs are [`super::decode_attention`]'s; this module reports them with the
//! unabsorbed alternative and says whether the absorbed attention is compute- or HBM-bound
//! on the chip.

use super::decode_attention::{flops_per_cached_token, mla_unabsorbed_flops_per_cached_token};
use crate::dtype::DType;
use crate::kv_cache::{kv_bytes_per_token, kv_elements_per_token_per_layer};
use crate::model::{Attention, ModelConfig};
use crate::units::{Bytes, BytesPerSec, FlopsPerSec};
use serde::{Deserialize, Serialize};

/// `inference.mla`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MlaReport {
    /// `kv_lora_rank + qk_rope_head_dim`: elements cached per token and layer, for every
    /// head together.
    pub kv_elements_per_token_per_layer: f64,
    /// Every layer's, in the KV format.
    pub kv_bytes_per_token: Bytes,
    /// What MHA with the same heads would cache: keys of `N·(d_nope + ρ)` and values of
    /// `N·d_v` elements per token and layer, every layer, in the KV format.
    pub mha_equivalent_kv_bytes_per_token: Bytes,
    /// Absorbed attention FLOPs of one decode query against one cached token in one
    /// layer: `2·N·(r + ρ) + 2·N·r`.
    pub attention_flops_per_cached_token: f64,
    /// The same when each cached latent is up-projected first:
    /// `2·r·N·(d_nope + d_v) + 2·N·(d_nope + ρ) + 2·N·d_v`.
    pub unabsorbed_attention_flops_per_cached_token: f64,
    /// FLOPs per cached byte of the absorbed attention in the KV format.
    pub attention_intensity: f64,
    /// The chip's balance point, peak / HBM bandwidth (FLOP/B): above it the absorbed
    /// attention is compute-bound.
    pub chip_intensity: f64,
    /// `attention_intensity > chip_intensity`.
    pub attention_compute_bound: bool,
}

/// The report for an MLA model (`None` for MHA/GQA/MQA).
#[must_use]
pub fn mla_report(m: &ModelConfig, kv: DType, peak: FlopsPerSec, hbm: BytesPerSec) -> Option<MlaReport> {
    let Attention::Mla(a) = &m.attention else { return None };
    let per_layer = kv_elements_per_token_per_layer(m);
    let flops = flops_per_cached_token(m);
    let intensity = flops / (per_layer * kv.bytes());
    let chip_intensity = peak.get() / hbm.get();
    let mha = a.num_heads as f64 * (a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim) as f64;
    Some(MlaReport {
        kv_elements_per_token_per_layer: per_layer,
        kv_bytes_per_token: kv_bytes_per_token(m, kv),
        mha_equivalent_kv_bytes_per_token: Bytes(mha * m.num_layers as f64 * kv.bytes()),
        attention_flops_per_cached_token: flops,
        unabsorbed_attention_flops_per_cached_token: mla_unabsorbed_flops_per_cached_token(m).unwrap_or(0.0),
        attention_intensity: intensity,
        chip_intensity,
        attention_compute_bound: intensity > chip_intensity,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::catalog;
    use crate::presets;

    /// DeepSeek-V3 in bf16 from first principles: (512 + 64) × 61 × 2 = 70,272 bytes per
    /// token ("70 KB"); MHA with its 128 heads of 192-wide keys and 128-wide values would
    /// cache 128 × 320 × 61 × 2 = 4,997,120 bytes, 71× more (DeepSeek-V2 Table 1's point).
    /// Absorbed attention reads 1,152 bytes and does 278,528 FLOPs per cached token and
    /// layer: 241.8 FLOP/B, below an H100's bf16 balance point (989e12 / 3.35e12 = 295),
    /// so HBM-bound there.
    #[test]
    fn deepseek_v3_latent_cache_and_intensity() {
        let m = presets::get("deepseek-v3").unwrap().config;
        let h100 = catalog::get("h100-sxm").unwrap();
        let r = mla_report(&m, DType::Bf16, h100.peak_flops.bf16, h100.hbm.bandwidth).unwrap();
        assert_eq!(r.kv_elements_per_token_per_layer, 576.0);
        assert_eq!(r.kv_bytes_per_token.get(), 70_272.0);
        assert_eq!(r.mha_equivalent_kv_bytes_per_token.get(), 4_997_120.0);
        assert_eq!(r.attention_flops_per_cached_token, 278_528.0);
        assert!((r.attention_intensity - 241.78).abs() < 0.01);
        assert!((r.chip_intensity - 989e12 / 3.35e12).abs() < 1e-9);
        assert!(!r.attention_compute_bound);
        // In fp8 the cache halves and the intensity doubles: 483.6 FLOP/B against the fp8
        // balance point 1979e12 / 3.35e12 = 590.7, still HBM-bound.
        let fp8 = mla_report(&m, DType::Fp8, h100.peak_flops.fp8.unwrap(), h100.hbm.bandwidth).unwrap();
        assert!((fp8.attention_intensity - 483.56).abs() < 0.01);
        assert!(!fp8.attention_compute_bound);
        // A B200 computing in bf16 on an fp8 cache (2.25e15 / 8e12 = 281 FLOP/B) is
        // compute-bound.
        let b200 = catalog::get("b200").unwrap();
        let b = mla_report(&m, DType::Fp8, b200.peak_flops.bf16, b200.hbm.bandwidth).unwrap();
        assert!(b.attention_compute_bound);
        let llama = presets::get("llama-3-70b").unwrap().config;
        assert!(mla_report(&llama, DType::Bf16, h100.peak_flops.bf16, h100.hbm.bandwidth).is_none());
    }
}
