//! Numeric formats and their storage size.

use serde::Serialize;

/// A number format for weights, activations, KV caches or optimizer state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DType {
    /// IEEE single precision, 4 bytes.
    Fp32,
    /// bfloat16, 2 bytes.
    Bf16,
    /// IEEE half precision, 2 bytes.
    Fp16,
    /// 8-bit float (e4m3 / e5m2), 1 byte.
    Fp8,
    /// 8-bit integer, 1 byte.
    Int8,
    /// 4-bit integer, half a byte (two values packed per byte).
    Int4,
    /// NVFP4 (NVIDIA Blackwell): 4-bit e2m1 values with one fp8 (e4m3) scale per block of
    /// 16 values, 4.5 bits per element (NVIDIA, "Introducing NVFP4", 2025; the per-tensor
    /// fp32 scale is negligible and not counted).
    Nvfp4,
    /// MXFP4 (OCP Microscaling Formats spec v1.0, 2023): 4-bit e2m1 values with one e8m0
    /// scale per block of 32 values, 4.25 bits per element.
    Mxfp4,
}
crate::serde_names::deserialize_by_name!(DType { Fp32 => "fp32", Bf16 => "bf16", Fp16 => "fp16", Fp8 => "fp8", Int8 => "int8", Int4 => "int4", Nvfp4 => "nvfp4", Mxfp4 => "mxfp4" });

/// A block-scaled format's layout: `block` values share one scale of `scale_bits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockScale {
    /// Values per scale.
    pub block: u64,
    /// Bits of the shared scale.
    pub scale_bits: u64,
}

impl DType {
    /// Every format, in the order the UI lists them.
    pub const ALL: [DType; 8] =
        [DType::Fp32, DType::Bf16, DType::Fp16, DType::Fp8, DType::Int8, DType::Int4, DType::Nvfp4, DType::Mxfp4];

    /// Bits of one element's value, without any shared scale.
    #[must_use]
    pub fn element_bits(self) -> u64 {
        match self {
            DType::Fp32 => 32,
            DType::Bf16 | DType::Fp16 => 16,
            DType::Fp8 | DType::Int8 => 8,
            DType::Int4 | DType::Nvfp4 | DType::Mxfp4 => 4,
        }
    }

    /// The shared scale of a block-scaled format: NVFP4 one 8-bit scale per 16 values,
    /// MXFP4 one 8-bit scale per 32; `None` for the others (their per-tensor or
    /// per-channel scales are negligible and not counted).
    #[must_use]
    pub fn block_scale(self) -> Option<BlockScale> {
        match self {
            DType::Nvfp4 => Some(BlockScale { block: 16, scale_bits: 8 }),
            DType::Mxfp4 => Some(BlockScale { block: 32, scale_bits: 8 }),
            _ => None,
        }
    }

    /// Storage bytes per element, block scales included: int4 packs two elements per byte
    /// (0.5), NVFP4 is (4 + 8/16)/8 = 0.5625 and MXFP4 (4 + 8/32)/8 = 0.53125.
    #[must_use]
    pub fn bytes(self) -> f64 {
        let scale = self.block_scale().map_or(0.0, |b| b.scale_bits as f64 / b.block as f64);
        (self.element_bits() as f64 + scale) / 8.0
    }

    /// Short lowercase name, as used in JSON and URLs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DType::Fp32 => "fp32",
            DType::Bf16 => "bf16",
            DType::Fp16 => "fp16",
            DType::Fp8 => "fp8",
            DType::Int8 => "int8",
            DType::Int4 => "int4",
            DType::Nvfp4 => "nvfp4",
            DType::Mxfp4 => "mxfp4",
        }
    }

    /// Parse the short name (also accepts common aliases such as `float32`, `bfloat16`).
    #[must_use]
    pub fn parse(s: &str) -> Option<DType> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fp32" | "f32" | "float32" => Some(DType::Fp32),
            "bf16" | "bfloat16" => Some(DType::Bf16),
            "fp16" | "f16" | "float16" | "half" => Some(DType::Fp16),
            "fp8" | "float8" | "e4m3" | "e5m2" => Some(DType::Fp8),
            "int8" | "i8" | "s8" => Some(DType::Int8),
            "int4" | "i4" | "s4" => Some(DType::Int4),
            "nvfp4" => Some(DType::Nvfp4),
            "mxfp4" | "mx_fp4" => Some(DType::Mxfp4),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DType;

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::parse(d.name()), Some(d));
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(json, format!("\"{}\"", d.name()));
        }
        assert_eq!(DType::parse("bfloat16"), Some(DType::Bf16));
        assert_eq!(DType::parse("nope"), None);
    }

    #[test]
    fn int4_is_half_a_byte() {
        assert!((DType::Int4.bytes() - 0.5).abs() < f64::EPSILON);
    }

    /// Block-scaled fp4 from first principles: 1,024 values of NVFP4 are 512 bytes of
    /// values and 64 one-byte scales (576 B); of MXFP4, 512 bytes and 32 scales (544 B).
    #[test]
    fn fp4_formats_count_their_block_scales() {
        assert_eq!(DType::Nvfp4.bytes() * 1024.0, 512.0 + 64.0);
        assert_eq!(DType::Mxfp4.bytes() * 1024.0, 512.0 + 32.0);
        assert_eq!(DType::Fp8.bytes(), 1.0);
        assert_eq!(DType::Fp32.bytes(), 4.0);
        assert_eq!(DType::Bf16.bytes(), 2.0);
    }
}
