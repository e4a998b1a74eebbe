//! The fields of the roofline op (book 1.1): a matmul `X[B, D] · W[D, F]` given by its
//! shape and formats, or any op given by its FLOPs and the bytes it moves on each channel.
//! A missing op is created as the book's `X[256, 8192] · W[8192, 32768]` in bf16 (the
//! hardware page's default, [`crate::view::hardware::with_defaults`]).

use super::{Field, Kind, Min, Options};
use crate::dtype::DType;
use crate::roofline::matmul::Matmul;
use crate::roofline::query::RooflineQuery;
use crate::roofline::OpCost;
use crate::scenario::Scenario;
use crate::units::{Bytes, Flops};

/// The book's matmul, the op a scenario without one starts from.
#[must_use]
pub fn default_matmul() -> Matmul {
    Matmul::bf16(256.0, 8192.0, 32768.0)
}

fn matmul(s: &Scenario) -> Matmul {
    match &s.roofline {
        Some(RooflineQuery::Matmul(m)) => m.clone(),
        _ => default_matmul(),
    }
}

fn op(s: &Scenario) -> OpCost {
    match &s.roofline {
        Some(RooflineQuery::Op(op)) => op.clone(),
        _ => matmul(s).op_cost(),
    }
}

/// Edits the scenario's matmul with `f` (the default one when it has another op or none).
fn with_matmul(s: &mut Scenario, f: impl FnOnce(&mut Matmul)) {
    let mut m = matmul(s);
    f(&mut m);
    s.roofline = Some(RooflineQuery::Matmul(m));
}

/// Edits the scenario's op given by its totals with `f` (its matmul's totals when it has
/// a matmul).
fn with_op(s: &mut Scenario, f: impl FnOnce(&mut OpCost)) {
    let mut o = op(s);
    f(&mut o);
    s.roofline = Some(RooflineQuery::Op(o));
}

fn is_matmul(s: &Scenario) -> bool {
    !matches!(s.roofline, Some(RooflineQuery::Op(_)))
}

fn is_op(s: &Scenario) -> bool {
    matches!(s.roofline, Some(RooflineQuery::Op(_)))
}

/// Switching the kind keeps the op where it is: a matmul becomes its totals; totals become
/// the default matmul in their compute format.
fn set_kind(s: &mut Scenario, kind: &str) -> Result<(), String> {
    match kind {
        "op" => with_op(s, |_| {}),
        "matmul" if is_op(s) => {
            let mut m = default_matmul();
            m.compute = op(s).dtype;
            s.roofline = Some(RooflineQuery::Matmul(m));
        }
        "matmul" => with_matmul(s, |_| {}),
        other => return Err(format!("unknown op {other:?}; use matmul or op")),
    }
    Ok(())
}

const KINDS: [(&str, &str); 2] = [("matmul", "Matmul X[B, D] · W[D, F]"), ("op", "Any op: FLOPs and bytes")];
const STORAGE: [(&str, &str); 6] =
    [("bf16", "bf16"), ("fp32", "fp32"), ("fp16", "fp16"), ("fp8", "fp8"), ("int8", "int8"), ("int4", "int4")];
const COMPUTE: [(&str, &str); 4] = [("bf16", "bf16"), ("fp8", "fp8"), ("int8", "int8"), ("int4", "int4")];

fn dtype(v: &str) -> Result<DType, String> {
    DType::parse(v).ok_or_else(|| format!("unknown format {v:?}"))
}

/// A drop-down of `options` over the format that `$get` reads and `$set` writes.
macro_rules! format_choice {
    ($path:literal, $label:literal, $options:expr, $get:expr, $set:expr, $when:expr) => {
        Field::new(
            $path,
            $label,
            Kind::Choice {
                options: Options::Fixed(&$options),
                get: |s| {
                    let get: fn(&Scenario) -> DType = $get;
                    get(s).name().into()
                },
                set: |s, v| {
                    let set: fn(&mut Scenario, DType) = $set;
                    set(s, dtype(v)?);
                    Ok(())
                },
            },
        )
        .when($when)
    };
}

/// The op's kind, then a matmul's shape and formats, or an op's totals.
pub static ROOFLINE: [Field; 15] = [
    Field::new(
        "roofline.kind",
        "Op",
        Kind::Choice {
            options: Options::Fixed(&KINDS),
            get: |s| if is_op(s) { "op" } else { "matmul" }.into(),
            set: set_kind,
        },
    ),
    Field::new(
        "roofline.matmul.b",
        "B (batch, tokens)",
        Kind::Real { min: Min::Positive, get: |s| matmul(s).b, set: |s, x| with_matmul(s, |m| m.b = x) },
    )
    .hint("Rows of the activations X")
    .when(is_matmul),
    Field::new(
        "roofline.matmul.d",
        "D (contracting)",
        Kind::Real { min: Min::Positive, get: |s| matmul(s).d, set: |s, x| with_matmul(s, |m| m.d = x) },
    )
    .hint("Model width for a projection")
    .when(is_matmul),
    Field::new(
        "roofline.matmul.f",
        "F (output)",
        Kind::Real { min: Min::Positive, get: |s| matmul(s).f, set: |s, x| with_matmul(s, |m| m.f = x) },
    )
    .hint("e.g. the MLP width, 4·D")
    .when(is_matmul),
    format_choice!(
        "roofline.matmul.lhs",
        "Activations X",
        STORAGE,
        |s| matmul(s).lhs,
        |s, d| with_matmul(s, |m| m.lhs = d),
        is_matmul
    ),
    format_choice!(
        "roofline.matmul.rhs",
        "Weights W",
        STORAGE,
        |s| matmul(s).rhs,
        |s, d| with_matmul(s, |m| m.rhs = d),
        is_matmul
    ),
    format_choice!(
        "roofline.matmul.out",
        "Output Z",
        STORAGE,
        |s| matmul(s).out,
        |s, d| with_matmul(s, |m| m.out = d),
        is_matmul
    ),
    format_choice!(
        "roofline.matmul.compute",
        "Compute (picks the peak)",
        COMPUTE,
        |s| matmul(s).compute,
        |s, d| with_matmul(s, |m| m.compute = d),
        is_matmul
    )
    .hint("int8 weights with bf16 compute: weights int8, compute bf16 (book Exercise 1.2)"),
    Field::new(
        "roofline.op.flops",
        "FLOPs",
        Kind::Real {
            min: Min::NonNegative,
            get: |s| op(s).flops.get(),
            set: |s, x| with_op(s, |o| o.flops = Flops(x)),
        },
    )
    .unit("FLOP")
    .hint("On one chip")
    .when(is_op),
    Field::new(
        "roofline.op.hbm_bytes",
        "HBM bytes",
        Kind::Real {
            min: Min::NonNegative,
            get: |s| op(s).hbm_bytes.get(),
            set: |s, x| with_op(s, |o| o.hbm_bytes = Bytes(x)),
        },
    )
    .unit("B")
    .hint("Read + written")
    .when(is_op),
    Field::new(
        "roofline.op.ici_bytes",
        "ICI / NVLink bytes",
        Kind::Real {
            min: Min::NonNegative,
            get: |s| op(s).ici_bytes.get(),
            set: |s, x| with_op(s, |o| o.ici_bytes = Bytes(x)),
        },
    )
    .unit("B")
    .hint("Sent or received by this chip")
    .when(is_op),
    Field::new(
        "roofline.op.ici_links",
        "ICI links used",
        Kind::Real { min: Min::Positive, get: |s| op(s).ici_links, set: |s, x| with_op(s, |o| o.ici_links = x) },
    )
    .hint("One-way links the ICI bytes spread over (book Solution 2.6)")
    .when(is_op),
    Field::new(
        "roofline.op.dcn_bytes",
        "DCN bytes",
        Kind::Real {
            min: Min::NonNegative,
            get: |s| op(s).dcn_bytes.get(),
            set: |s, x| with_op(s, |o| o.dcn_bytes = Bytes(x)),
        },
    )
    .unit("B")
    .when(is_op),
    Field::new(
        "roofline.op.host_bytes",
        "Host (PCIe) bytes",
        Kind::Real {
            min: Min::NonNegative,
            get: |s| op(s).host_bytes.get(),
            set: |s, x| with_op(s, |o| o.host_bytes = Bytes(x)),
        },
    )
    .unit("B")
    .when(is_op),
    format_choice!(
        "roofline.op.dtype",
        "Compute format",
        COMPUTE,
        |s| op(s).dtype,
        |s, d| with_op(s, |o| o.dtype = d),
        is_op
    ),
];

/// Every group of the section's fields.
pub static GROUPS: [&[Field]; 1] = [&ROOFLINE];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::apply;

    #[test]
    fn the_op_keeps_its_place_when_its_kind_changes() {
        let mut s = crate::view::hardware::with_defaults(&Scenario::default());
        apply(&mut s, "roofline.matmul.b", "128").unwrap();
        apply(&mut s, "roofline.matmul.rhs", "int8").unwrap();
        apply(&mut s, "roofline.kind", "op").unwrap();
        // X[128, 8192] · W[8192, 32768]: 2·B·D·F FLOPs (book 1.1).
        assert_eq!(op(&s).flops.get(), 2.0 * 128.0 * 8192.0 * 32768.0);
        apply(&mut s, "roofline.op.flops", "1e12").unwrap();
        assert!(apply(&mut s, "roofline.op.flops", "abc").unwrap_err().message.contains("not a number"));
        apply(&mut s, "roofline.kind", "matmul").unwrap();
        assert_eq!(matmul(&s), default_matmul());
        assert!(s.validate().is_ok());
    }
}
