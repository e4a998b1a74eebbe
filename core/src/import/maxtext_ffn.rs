//! MaxText MLP and mixture-of-experts keys, per `decoder_block`.

use super::keys::Keys;
use super::maxtext::{defaulted, dim, required_dim};
use super::maxtext_block::Block;
use super::{ImportError, ImportWarning};
use crate::model::{Mlp, MlpKind, Moe};

/// `mlp_activations` of length 2 is a gated MLP, of length 1 a plain one.
fn mlp_kind(k: &mut Keys<'_>, warnings: &mut Vec<ImportWarning>) -> Result<MlpKind, ImportError> {
    match k.array("mlp_activations")?.map(<[_]>::len) {
        None => {
            warnings.push(ImportWarning::new(
                "mlp_activations",
                "not given; using MaxText's base.yml default [\"silu\", \"linear\"] (gated)",
            ));
            Ok(MlpKind::Gated)
        }
        Some(2) => Ok(MlpKind::Gated),
        Some(1) => Ok(MlpKind::Plain),
        Some(n) => Err(ImportError::field(
            "mlp_activations",
            format!("must list 1 (plain) or 2 (gated) activations (got {n})"),
        )),
    }
}

/// The dense MLP and, for MoE blocks, the routed (and shared) experts: DeepSeek after
/// `first_num_dense_layers`, Llama 4 on every `interleave_moe_layer_step`-th layer, the
/// others on every layer.
pub(super) fn feed_forward(
    k: &mut Keys<'_>,
    block: Block,
    warnings: &mut Vec<ImportWarning>,
) -> Result<(Mlp, Option<Moe>), ImportError> {
    let kind = mlp_kind(k, warnings)?;
    let d_ff = required_dim(k, "mlp_dim", "mlp.d_ff")?;
    // gpt3.py builds its MlpBlock with use_bias=True.
    let mlp = Mlp { kind, d_ff, bias: k.bool("mlp_bias")?.unwrap_or(false) || block.is_gpt3() };
    if block != Block::Deepseek {
        ignored_unless(k, "first_num_dense_layers", 0, warnings)?;
    }
    if block != Block::Llama4 {
        ignored_unless(k, "interleave_moe_layer_step", 1, warnings)?;
    }
    if !block.has_shared_experts() {
        ignored_unless(k, "shared_experts", 0, warnings)?;
    }
    if !block.is_moe() {
        if k.u64("num_experts")?.is_some_and(|e| e > 1) {
            return Err(ImportError::unsupported(
                "num_experts",
                "this decoder_block builds dense MLPs only; use mixtral, qwen3_moe, deepseek, gpt_oss or llama4",
            ));
        }
        for key in ["num_experts_per_tok", "base_moe_mlp_dim", "moe_mlp_dim", "routed_bias"] {
            k.touch(key);
        }
        return Ok((mlp, None));
    }

    let num_experts = k.req_u64("num_experts")?;
    k.origin("moe.num_experts", "num_experts");
    let experts_per_token = defaulted(k, "num_experts_per_tok", 1, warnings)?;
    k.origin("moe.experts_per_token", "num_experts_per_tok");
    let expert_d_ff = match (block, dim(k, "moe_mlp_dim", "moe.expert_d_ff")?) {
        (_, Some(w)) => {
            if !block.has_shared_experts() && w != d_ff {
                warnings.push(ImportWarning::new(
                    "base_moe_mlp_dim",
                    format!("differs from base_mlp_dim ({w} vs {d_ff}); MaxText's FLOP calculator uses base_mlp_dim for this block, the experts here use base_moe_mlp_dim"),
                ));
            }
            w
        }
        (Block::Deepseek | Block::Llama4, None) => {
            k.origin("moe.expert_d_ff", "base_moe_mlp_dim");
            warnings.push(ImportWarning::new("base_moe_mlp_dim", "not given; using MaxText's base.yml default 7168"));
            7168
        }
        (_, None) => {
            k.origin("moe.expert_d_ff", "base_mlp_dim");
            d_ff
        }
    };
    let shared_experts = if block.has_shared_experts() {
        let s = defaulted(k, "shared_experts", 1, warnings)?;
        k.origin("moe.shared_experts", "shared_experts");
        s
    } else {
        0
    };
    let first_dense_layers = if block == Block::Deepseek {
        k.origin("moe.first_dense_layers", "first_num_dense_layers");
        k.u64_or("first_num_dense_layers", 0)?
    } else {
        0
    };
    let every = if block == Block::Llama4 {
        k.origin("moe.every", "interleave_moe_layer_step");
        k.u64_or("interleave_moe_layer_step", 1)?
    } else {
        1
    };
    let moe = Moe {
        num_experts,
        experts_per_token,
        expert_d_ff,
        shared_experts,
        shared_d_ff: None,
        first_dense_layers,
        every,
        router_bias: k.bool("routed_bias")?.unwrap_or(false),
    };
    Ok((mlp, Some(moe)))
}

/// Warn when `key`, which this block does not read, is set to anything but `neutral`.
fn ignored_unless(
    k: &mut Keys<'_>,
    key: &str,
    neutral: u64,
    warnings: &mut Vec<ImportWarning>,
) -> Result<(), ImportError> {
    if k.u64(key)?.is_some_and(|v| v != neutral) {
        warnings.push(ImportWarning::new(key, "ignored by this decoder_block in MaxText"));
    }
    Ok(())
}
