//! The four number formats of serving, chosen independently (book 7.1.3, 8.1.1): stored
//! weights, the KV cache, activations (what collectives move) and the matmuls (which pick the
//! chip's peak). A compute format the chip has no peak for is refused at its field.

use shardcalc_core::dtype::DType;

use super::fields::{ChoiceSpec, Field, Getter, Group, Setter};

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

/// The drop-down of the format at `path` (`inference.dtypes.<field>`), offering every format.
const fn format_choice(
    path: &'static str,
    label: &'static str,
    hint: &'static str,
    get: Getter,
    set: Setter,
) -> ChoiceSpec {
    ChoiceSpec { path, label, hint, options: DTYPE_OPTIONS, get, set }
}

static WEIGHTS: ChoiceSpec = format_choice(
    "inference.dtypes.weights",
    "Weights",
    "Stored and read every decode step; int8 halves the bytes (and the critical batch)",
    |s| s.dtypes.weights.name().into(),
    |t, s| set(t, &mut s.dtypes.weights),
);

static KV: ChoiceSpec = format_choice(
    "inference.dtypes.kv",
    "KV cache",
    "Cached keys and values (MLA: the latent)",
    |s| s.dtypes.kv.name().into(),
    |t, s| set(t, &mut s.dtypes.kv),
);

static ACTIVATIONS: ChoiceSpec = format_choice(
    "inference.dtypes.activations",
    "Activations",
    "What the collectives move and the working memory holds",
    |s| s.dtypes.activations.name().into(),
    |t, s| set(t, &mut s.dtypes.activations),
);

static COMPUTE: ChoiceSpec = format_choice(
    "inference.dtypes.compute",
    "Compute",
    "The matmuls' format: picks the chip's peak FLOP/s",
    |s| s.dtypes.compute.name().into(),
    |t, s| set(t, &mut s.dtypes.compute),
);

/// Reads `text` into one of the section's formats.
fn set(text: &str, format: &mut DType) -> Result<(), String> {
    *format = read(text)?;
    Ok(())
}

/// Weight, KV, activation and compute formats.
pub static FORMATS: Group = Group {
    legend: "Number formats",
    class: "serving-dtypes",
    fields: &[Field::Choice(&WEIGHTS), Field::Choice(&KV), Field::Choice(&ACTIVATIONS), Field::Choice(&COMPUTE)],
};
