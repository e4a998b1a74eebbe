//! The four number formats of serving, chosen independently (book 7.1.3, 8.1.1): stored
//! weights, the KV cache, activations (what collectives move) and the matmuls (which pick the
//! chip's peak). A compute format the chip has no peak for is refused at its field.

use leptos::prelude::*;
use shardcalc_core::dtype::DType;
use shardcalc_core::inference::InferenceSection;

use super::fields::{Getter, InferenceChoice, Setter};
use crate::parse::shortest;

fn dtype_options() -> Vec<(String, String)> {
    DType::ALL
        .iter()
        .map(|d| {
            let bytes = match d.bytes() {
                b if b == 1.0 => "1 byte".to_string(),
                b if b < 1.0 => "half a byte".to_string(),
                b => format!("{} bytes", shortest(b)),
            };
            (d.name().to_string(), format!("{} ({bytes})", d.name()))
        })
        .collect()
}

fn read(text: &str) -> Result<DType, String> {
    DType::parse(text).ok_or_else(|| format!("unknown format {text:?}"))
}

/// One format drop-down.
struct Format {
    path: &'static str,
    label: &'static str,
    hint: &'static str,
    get: Getter,
    set: Setter,
}

const FORMATS: [Format; 4] = [
    Format {
        path: "inference.dtypes.weights",
        label: "Weights",
        hint: "Stored and read every decode step; int8 halves the bytes (and the critical batch)",
        get: |s| s.dtypes.weights.name().into(),
        set: |t, s: &mut InferenceSection| {
            s.dtypes.weights = read(t)?;
            Ok(())
        },
    },
    Format {
        path: "inference.dtypes.kv",
        label: "KV cache",
        hint: "Cached keys and values (MLA: the latent)",
        get: |s| s.dtypes.kv.name().into(),
        set: |t, s| {
            s.dtypes.kv = read(t)?;
            Ok(())
        },
    },
    Format {
        path: "inference.dtypes.activations",
        label: "Activations",
        hint: "What the collectives move and the working memory holds",
        get: |s| s.dtypes.activations.name().into(),
        set: |t, s| {
            s.dtypes.activations = read(t)?;
            Ok(())
        },
    },
    Format {
        path: "inference.dtypes.compute",
        label: "Compute",
        hint: "The matmuls' format: picks the chip's peak FLOP/s",
        get: |s| s.dtypes.compute.name().into(),
        set: |t, s| {
            s.dtypes.compute = read(t)?;
            Ok(())
        },
    },
];

/// Weight, KV, activation and compute formats.
#[component]
pub fn DtypeInputs() -> impl IntoView {
    let selects = FORMATS
        .iter()
        .map(|f| view! { <InferenceChoice path=f.path label=f.label hint=f.hint options=dtype_options() get=f.get set=f.set /> })
        .collect_view();
    view! {
        <fieldset class="serving-dtypes">
            <legend>"Number formats"</legend>
            {selects}
        </fieldset>
    }
}
