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

/// A dimension of the matmul (`b`, `d`, `f`): greater than 0.
macro_rules! matmul_dim {
    ($path:literal, $label:literal, $dim:ident) => {
        Field::new(
            $path,
            $label,
            Kind::Real { min: Min::Positive, get: |s| matmul(s).$dim, set: |s, x| with_matmul(s, |m| m.$dim = x) },
        )
        .when(is_matmul)
    };
}

/// A number format of the matmul (`lhs`, `rhs`, `out`, `compute`), one of `options`.
macro_rules! matmul_format {
    ($path:literal, $label:literal, $options:expr, $format:ident) => {
        Field::new(
            $path,
            $label,
            Kind::Choice {
                options: Options::Fixed(&$options),
                get: |s| matmul(s).$format.name().into(),
                set: |s, v| {
                    let d = dtype(v)?;
                    with_matmul(s, |m| m.$format = d);
                    Ok(())
                },
            },
        )
        .when(is_matmul)
    };
}

/// One of the op's totals (FLOPs or bytes on a channel), 0 or more, in its unit type.
macro_rules! op_total {
    ($path:literal, $label:literal, $total:ident, $unit:ident) => {
        Field::new(
            $path,
            $label,
            Kind::Real {
                min: Min::NonNegative,
                get: |s| op(s).$total.get(),
                set: |s, x| with_op(s, |o| o.$total = $unit(x)),
            },
        )
        .when(is_op)
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
    matmul_dim!("roofline.matmul.b", "B (batch, tokens)", b).hint("Rows of the activations X"),
    matmul_dim!("roofline.matmul.d", "D (contracting)", d).hint("Model width for a projection"),
    matmul_dim!("roofline.matmul.f", "F (output)", f).hint("e.g. the MLP width, 4·D"),
    matmul_format!("roofline.matmul.lhs", "Activations X", STORAGE, lhs),
    matmul_format!("roofline.matmul.rhs", "Weights W", STORAGE, rhs),
    matmul_format!("roofline.matmul.out", "Output Z", STORAGE, out),
    matmul_format!("roofline.matmul.compute", "Compute (picks the peak)", COMPUTE, compute)
        .hint("int8 weights with bf16 compute: weights int8, compute bf16 (book Exercise 1.2)"),
    op_total!("roofline.op.flops", "FLOPs", flops, Flops).unit("FLOP").hint("On one chip"),
    op_total!("roofline.op.hbm_bytes", "HBM bytes", hbm_bytes, Bytes).unit("B").hint("Read + written"),
    op_total!("roofline.op.ici_bytes", "ICI / NVLink bytes", ici_bytes, Bytes)
        .unit("B")
        .hint("Sent or received by this chip"),
    Field::new(
        "roofline.op.ici_links",
        "ICI links used",
        Kind::Real { min: Min::Positive, get: |s| op(s).ici_links, set: |s, x| with_op(s, |o| o.ici_links = x) },
    )
    .hint("One-way links the ICI bytes spread over (book Solution 2.6)")
    .when(is_op),
    op_total!("roofline.op.dcn_bytes", "DCN bytes", dcn_bytes, Bytes).unit("B"),
    op_total!("roofline.op.host_bytes", "Host (PCIe) bytes", host_bytes, Bytes).unit("B"),
    Field::new(
        "roofline.op.dtype",
        "Compute format",
        Kind::Choice {
            options: Options::Fixed(&COMPUTE),
            get: |s| op(s).dtype.name().into(),
            set: |s, v| {
                let d = dtype(v)?;
                with_op(s, |o| o.dtype = d);
                Ok(())
            },
        },
    )
    .when(is_op),
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
