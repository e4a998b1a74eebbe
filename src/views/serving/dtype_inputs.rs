//! The four number formats of serving, chosen independently (book 7.1.3, 8.1.1): stored
//! weights, the KV cache, activations (what collectives move) and the matmuls (which pick the
//! chip's peak). A compute format the chip has no peak for is refused at its field.

use shardcalc_core::dtype::DType;

use super::fields::{ChoiceSpec, Field, Group};

/// Every format with its size, in `DType::ALL`'s order.
pub const DTYPE_OPTIONS: &[(&str, &str)] = &[
    ("fp32", "fp32 (4 bytes)"),
    ("bf16", "bf16 (2 bytes)"),
    ("fp16", "fp16 (2 bytes)"),
    ("fp8", "fp8 (1 byte)"),
    ("int8", "int8 (1 byte)"),
    ("int4", "int4 (half a byte)"),
];

fn read(text: &str) -> Result<DType, String> {
    DType::parse(text).ok_or_else(|| format!("unknown format {text:?}"))
}

static WEIGHTS: ChoiceSpec = ChoiceSpec {
    path: "inference.dtypes.weights",
    label: "Weights",
    hint: "Stored and read every decode step; int8 halves the bytes (and the critical batch)",
    options: DTYPE_OPTIONS,
    get: |s| s.dtypes.weights.name().into(),
    set: |t, s| {
        s.dtypes.weights = read(t)?;
        Ok(())
    },
};

static KV: ChoiceSpec = ChoiceSpec {
    path: "inference.dtypes.kv",
    label: "KV cache",
    hint: "Cached keys and values (MLA: the latent)",
    options: DTYPE_OPTIONS,
    get: |s| s.dtypes.kv.name().into(),
    set: |t, s| {
        s.dtypes.kv = read(t)?;
        Ok(())
    },
};

static ACTIVATIONS: ChoiceSpec = ChoiceSpec {
    path: "inference.dtypes.activations",
    label: "Activations",
    hint: "What the collectives move and the working memory holds",
    options: DTYPE_OPTIONS,
    get: |s| s.dtypes.activations.name().into(),
    set: |t, s| {
        s.dtypes.activations = read(t)?;
        Ok(())
    },
};

static COMPUTE: ChoiceSpec = ChoiceSpec {
    path: "inference.dtypes.compute",
    label: "Compute",
    hint: "The matmuls' format: picks the chip's peak FLOP/s",
    options: DTYPE_OPTIONS,
    get: |s| s.dtypes.compute.name().into(),
    set: |t, s| {
        s.dtypes.compute = read(t)?;
        Ok(())
    },
};

/// Weight, KV, activation and compute formats.
pub static FORMATS: Group = Group {
    legend: "Number formats",
    class: "serving-dtypes",
    fields: &[Field::Choice(&WEIGHTS), Field::Choice(&KV), Field::Choice(&ACTIVATIONS), Field::Choice(&COMPUTE)],
};
