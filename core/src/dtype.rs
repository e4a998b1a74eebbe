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
}
crate::serde_names::deserialize_by_name!(DType { Fp32 => "fp32", Bf16 => "bf16", Fp16 => "fp16", Fp8 => "fp8", Int8 => "int8", Int4 => "int4" });

impl DType {
    /// Every format, in the order the UI lists them.
    pub const ALL: [DType; 6] = [DType::Fp32, DType::Bf16, DType::Fp16, DType::Fp8, DType::Int8, DType::Int4];

    /// Storage bytes per element (int4 packs two elements per byte).
    #[must_use]
    pub fn bytes(self) -> f64 {
        match self {
            DType::Fp32 => 4.0,
            DType::Bf16 | DType::Fp16 => 2.0,
            DType::Fp8 | DType::Int8 => 1.0,
            DType::Int4 => 0.5,
        }
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
}
