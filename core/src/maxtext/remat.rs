//! `remat_policy` and, for `custom`, the per-tensor `device` / `remat` / `offload` keys
//! (`configs/types.py`, `RematPolicy` and `RematLocation`; `layers/decoders.py`,
//! `get_remat_policy`), as [`crate::training::tensors::Remat`].

use super::reader::Reader;
use crate::import::ImportError;
use crate::training::tensors::{CustomRemat, Placement, Remat};

/// Per-tensor keys of layers shardcalc does not model (MLA's low-rank projections, the
/// DeepSeek sparse-attention indexer, Engram): a placement other than `remat` is a warning.
const UNMODELLED: [&str; 7] =
    ["query_wa_proj", "kv_wa_proj", "mla_q", "mla_kv", "attention_out", "indexer_cutoff_threshold", "engram"];

fn placement(r: &mut Reader<'_>, key: &str, default: Placement) -> Result<Placement, ImportError> {
    let text =
        r.string(key, if default == Placement::Device { "device" } else { "remat" }, &format!("training.remat.{key}"))?;
    match text.as_str() {
        "device" => Ok(Placement::Device),
        "remat" => Ok(Placement::Remat),
        "offload" => Ok(Placement::Offload),
        other => Err(ImportError::field(key, format!("must be device, remat or offload (got {other:?})"))),
    }
}

/// The policy of `remat_policy` (default `full`), with its custom placements.
///
/// # Errors
/// An unknown policy or placement.
pub(super) fn read_remat(r: &mut Reader<'_>, moe: bool) -> Result<Remat, ImportError> {
    let name = r.string("remat_policy", "full", "training.remat")?;
    let base = name.strip_suffix("_with_quantization").or_else(|| name.strip_suffix("_and_quantization"));
    if let Some(base) = base {
        r.warn(
            "remat_policy",
            format!(
                "{name}: the quantized matmuls' saved values are modelled as {base}'s (their int8 residuals are not)"
            ),
        );
    }
    let id = base.unwrap_or(&name);
    if id != "custom" {
        return Remat::preset(id).ok_or_else(|| {
            let known: Vec<&str> = Remat::PRESETS.iter().map(Remat::id).collect();
            ImportError::field(
                "remat_policy",
                format!("unknown policy {name:?}; MaxText's: {}, custom", known.join(", ")),
            )
        });
    }
    let d = CustomRemat::default();
    let mut c = CustomRemat {
        decoder_layer_input: placement(r, "decoder_layer_input", d.decoder_layer_input)?,
        query_proj: placement(r, "query_proj", d.query_proj)?,
        key_proj: placement(r, "key_proj", d.key_proj)?,
        value_proj: placement(r, "value_proj", d.value_proj)?,
        qkv_proj: None,
        context: placement(r, "context", d.context)?,
        out_proj: placement(r, "out_proj", d.out_proj)?,
        mlpwi_0: placement(r, "mlpwi_0", d.mlpwi_0)?,
        mlpwi_1: placement(r, "mlpwi_1", d.mlpwi_1)?,
        mlpwi: None,
        mlpwo: placement(r, "mlpwo", d.mlpwo)?,
    };
    // The fused names override the parts when set to anything but MaxText's default.
    let qkv = placement(r, "qkv_proj", Placement::Remat)?;
    if r.given("qkv_proj") && qkv != Placement::Remat {
        c.qkv_proj = Some(qkv);
    }
    let wi = placement(r, "mlpwi", Placement::Remat)?;
    if r.given("mlpwi") && wi != Placement::Remat {
        c.mlpwi = Some(wi);
    }
    let kv = placement(r, "kv_proj", Placement::Remat)?;
    if kv != Placement::Remat {
        r.warn(
            "kv_proj",
            "names the fused key-value projection; modelled as key_proj and value_proj where those are remat",
        );
        for p in [&mut c.key_proj, &mut c.value_proj] {
            if *p == Placement::Remat {
                *p = kv;
            }
        }
    }
    for (moe_key, dense) in [("moe_mlpwi_0", c.mlpwi_0), ("moe_mlpwi_1", c.mlpwi_1), ("moe_mlpwo", c.mlpwo)] {
        let p = placement(r, moe_key, Placement::Remat)?;
        if moe && r.given(moe_key) && p != dense {
            r.warn(
                moe_key,
                format!("the routed experts' tensors are modelled with the dense MLP's placement ({dense:?})"),
            );
        }
    }
    for key in UNMODELLED {
        if placement(r, key, Placement::Remat)? != Placement::Remat {
            r.warn(key, "names a tensor of a layer shardcalc does not model (MLA, the sparse-attention indexer, Engram); its placement is not counted");
        }
    }
    Ok(Remat::Custom(c))
}
