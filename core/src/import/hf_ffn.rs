//! Hugging Face MLP, mixture-of-experts and multi-token-prediction keys, per family.

use super::hf_family::Family;
use super::keys::Keys;
use super::ImportError;
use crate::model::{Mlp, MlpKind, Moe, Mtp};

/// The dense MLP and the MoE block, if any.
pub(crate) fn feed_forward(
    k: &mut Keys<'_>,
    family: Family,
    num_layers: u64,
) -> Result<(Mlp, Option<Moe>), ImportError> {
    // Every supported family uses a gated (SwiGLU / GeGLU) MLP.
    let gated = |d_ff: u64, bias: bool| Mlp { kind: MlpKind::Gated, d_ff, bias };
    match family {
        Family::Llama => {
            let d_ff = dense_width(k, "intermediate_size")?;
            let bias = k.bool("mlp_bias")?.unwrap_or(false);
            Ok((gated(d_ff, bias), None))
        }
        Family::Mistral | Family::Qwen2 | Family::Qwen3 | Family::Gemma2 | Family::Gemma3 => {
            Ok((gated(dense_width(k, "intermediate_size")?, false), None))
        }
        Family::Mixtral => {
            let d_ff = dense_width(k, "intermediate_size")?;
            let mut moe = routed(k, "num_local_experts", "num_experts_per_tok")?;
            moe.expert_d_ff = d_ff;
            k.origin("moe.expert_d_ff", "intermediate_size");
            Ok((gated(d_ff, false), Some(moe)))
        }
        Family::Qwen3Moe => qwen3_moe(k, num_layers).map(|(d_ff, moe)| (gated(d_ff, false), moe)),
        Family::DeepseekV3 => deepseek_v3(k).map(|(d_ff, moe)| (gated(d_ff, false), Some(moe))),
        Family::GptOss => {
            let mut moe = routed(k, "num_local_experts", "experts_per_token")?;
            if let Some(alias) = k.u64("num_experts_per_tok")? {
                if alias != moe.experts_per_token {
                    return Err(ImportError::field(
                        k.name("num_experts_per_tok"),
                        format!("disagrees with experts_per_token ({alias} vs {})", moe.experts_per_token),
                    ));
                }
            }
            moe.expert_d_ff = k.req_u64("intermediate_size")?;
            k.origin("moe.expert_d_ff", "intermediate_size");
            // gpt-oss's experts and router carry biases; there is no dense MLP.
            moe.router_bias = true;
            Ok((gated(0, true), Some(moe)))
        }
        Family::Llama4 => llama4(k, num_layers).map(|(d_ff, moe)| (gated(d_ff, false), Some(moe))),
    }
}

fn dense_width(k: &mut Keys<'_>, key: &str) -> Result<u64, ImportError> {
    let d_ff = k.req_u64(key)?;
    k.origin("mlp.d_ff", key);
    Ok(d_ff)
}

/// A routed-expert block with `experts_key` experts and `top_k_key` active per token;
/// the caller sets widths and layer placement.
fn routed(k: &mut Keys<'_>, experts_key: &str, top_k_key: &str) -> Result<Moe, ImportError> {
    let num_experts = k.req_u64(experts_key)?;
    k.origin("moe.num_experts", experts_key);
    let experts_per_token = match k.u64(top_k_key)? {
        Some(v) => v,
        // gpt-oss spells it `experts_per_token`; accept the common spelling alone too.
        None if top_k_key != "num_experts_per_tok" => k.req_u64("num_experts_per_tok")?,
        None => return Err(k.missing(top_k_key)),
    };
    k.origin("moe.experts_per_token", top_k_key);
    Ok(Moe {
        num_experts,
        experts_per_token,
        expert_d_ff: 0,
        shared_experts: 0,
        shared_d_ff: None,
        first_dense_layers: 0,
        every: 1,
        router_bias: false,
    })
}

/// Qwen3-MoE: layer i is sparse when i is not in `mlp_only_layers` and
/// (i + 1) % `decoder_sparse_step` == 0 — the model's `every` rule, with
/// `mlp_only_layers` expressible only as a leading run 0..k.
fn qwen3_moe(k: &mut Keys<'_>, num_layers: u64) -> Result<(u64, Option<Moe>), ImportError> {
    let d_ff = dense_width(k, "intermediate_size")?;
    if k.req_u64("num_experts")? == 0 {
        // transformers builds dense MLPs everywhere when there are no experts.
        for key in ["num_experts_per_tok", "moe_intermediate_size", "decoder_sparse_step", "mlp_only_layers"] {
            k.touch(key);
        }
        return Ok((d_ff, None));
    }
    let mut moe = routed(k, "num_experts", "num_experts_per_tok")?;
    moe.expert_d_ff = k.req_u64("moe_intermediate_size")?;
    k.origin("moe.expert_d_ff", "moe_intermediate_size");
    moe.every = k.u64_or("decoder_sparse_step", 1)?;
    k.origin("moe.every", "decoder_sparse_step");
    let dense = k.u64_list("mlp_only_layers")?.unwrap_or_default();
    let is_leading_run = dense.iter().enumerate().all(|(i, &layer)| layer == i as u64);
    if !is_leading_run {
        return Err(ImportError::unsupported(
            k.name("mlp_only_layers"),
            "dense layers other than a leading run 0, 1, ..., k-1 cannot be represented \
             (the model has first_dense_layers and an every-n-th rule only)",
        ));
    }
    moe.first_dense_layers = (dense.len() as u64).min(num_layers);
    k.origin("moe.first_dense_layers", "mlp_only_layers");
    Ok((d_ff, Some(moe)))
}

/// DeepSeek-V3: `first_k_dense_replace` dense layers, then MoE with shared experts.
fn deepseek_v3(k: &mut Keys<'_>) -> Result<(u64, Moe), ImportError> {
    let d_ff = dense_width(k, "intermediate_size")?;
    let mut moe = routed(k, "n_routed_experts", "num_experts_per_tok")?;
    moe.expert_d_ff = k.req_u64("moe_intermediate_size")?;
    k.origin("moe.expert_d_ff", "moe_intermediate_size");
    // One shared MLP of width n_shared × moe_intermediate_size: the same parameters
    // and FLOPs as n_shared experts of the routed width.
    moe.shared_experts = k.req_u64("n_shared_experts")?;
    k.origin("moe.shared_experts", "n_shared_experts");
    moe.first_dense_layers = k.req_u64("first_k_dense_replace")?;
    k.origin("moe.first_dense_layers", "first_k_dense_replace");
    let freq = k.u64_or("moe_layer_freq", 1)?;
    if freq != 1 {
        return Err(ImportError::unsupported(
            k.name("moe_layer_freq"),
            format!(
                "DeepSeek places MoE on layers i % {freq} == 0, which the model's \
                 (i + 1) % every == 0 rule cannot express; only 1 is supported"
            ),
        ));
    }
    // `noaux_tc` routing stores a score-correction bias per expert; transformers' native
    // DeepSeek-V3 always has it, so an absent `topk_method` counts it too.
    moe.router_bias = k.str("topk_method")?.is_none_or(|m| m == "noaux_tc");
    Ok((d_ff, moe))
}

/// Llama 4: routed experts of width `intermediate_size` plus one shared expert of the
/// same width on every `interleave_moe_layer_step`-th layer, dense MLPs of width
/// `intermediate_size_mlp` elsewhere.
fn llama4(k: &mut Keys<'_>, num_layers: u64) -> Result<(u64, Moe), ImportError> {
    let d_ff = dense_width(k, "intermediate_size_mlp")?;
    let mut moe = routed(k, "num_local_experts", "num_experts_per_tok")?;
    moe.expert_d_ff = k.req_u64("intermediate_size")?;
    k.origin("moe.expert_d_ff", "intermediate_size");
    moe.shared_experts = 1;
    moe.every = k.u64_or("interleave_moe_layer_step", 1)?;
    k.origin("moe.every", "interleave_moe_layer_step");
    if let Some(listed) = k.u64_list("moe_layers")? {
        let every = moe.every.max(1);
        let expected: Vec<u64> = (0..num_layers.min(1 << 20)).filter(|i| (i + 1) % every == 0).collect();
        if listed != expected {
            return Err(ImportError::unsupported(
                k.name("moe_layers"),
                format!("MoE layers other than every {every}-th layer are not supported"),
            ));
        }
    }
    Ok((d_ff, moe))
}

/// DeepSeek-V3's `num_nextn_predict_layers`; the checkpoint stores each module's own copy
/// of the embedding and output head.
pub(crate) fn multi_token_prediction(k: &mut Keys<'_>, family: Family) -> Result<Option<Mtp>, ImportError> {
    if family != Family::DeepseekV3 {
        return Ok(None);
    }
    let depth = k.u64_or("num_nextn_predict_layers", 0)?;
    k.origin("mtp.depth", "num_nextn_predict_layers");
    Ok((depth > 0).then_some(Mtp { depth, stores_embedding_copies: true }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::object;
    use serde_json::json;

    #[test]
    fn qwen3_moe_leading_dense_layers() {
        let m = object(json!({
            "intermediate_size": 6144, "num_experts": 128, "num_experts_per_tok": 8,
            "moe_intermediate_size": 768, "decoder_sparse_step": 1, "mlp_only_layers": [0, 1]
        }));
        let mut k = Keys::new(&m, "");
        let (_, moe) = feed_forward(&mut k, Family::Qwen3Moe, 48).unwrap();
        assert_eq!(moe.unwrap().first_dense_layers, 2);
    }

    #[test]
    fn qwen3_moe_scattered_dense_layers_are_unsupported() {
        let m = object(json!({
            "intermediate_size": 6144, "num_experts": 128, "num_experts_per_tok": 8,
            "moe_intermediate_size": 768, "mlp_only_layers": [3, 7]
        }));
        let mut k = Keys::new(&m, "");
        let e = feed_forward(&mut k, Family::Qwen3Moe, 48).unwrap_err();
        assert!(matches!(e, ImportError::Unsupported { ref key, .. } if key == "mlp_only_layers"), "{e}");
    }

    #[test]
    fn deepseek_moe_layer_freq_above_one_is_unsupported() {
        let m = object(json!({
            "intermediate_size": 1, "n_routed_experts": 8, "num_experts_per_tok": 2,
            "moe_intermediate_size": 1, "n_shared_experts": 1, "first_k_dense_replace": 1,
            "moe_layer_freq": 2
        }));
        let mut k = Keys::new(&m, "");
        let e = feed_forward(&mut k, Family::DeepseekV3, 4).unwrap_err();
        assert!(matches!(e, ImportError::Unsupported { ref key, .. } if key == "moe_layer_freq"), "{e}");
    }

    #[test]
    fn deepseek_router_bias_follows_topk_method() {
        for (method, bias) in [(json!("noaux_tc"), true), (json!(null), true), (json!("greedy"), false)] {
            let m = object(json!({
                "intermediate_size": 1, "n_routed_experts": 8, "num_experts_per_tok": 2,
                "moe_intermediate_size": 1, "n_shared_experts": 1, "first_k_dense_replace": 1,
                "topk_method": method
            }));
            let mut k = Keys::new(&m, "");
            let (_, moe) = feed_forward(&mut k, Family::DeepseekV3, 4).unwrap();
            assert_eq!(moe.unwrap().router_bias, bias);
        }
    }

    #[test]
    fn llama4_moe_layers_must_follow_the_step() {
        let base = json!({
            "intermediate_size": 8192, "intermediate_size_mlp": 16384, "num_local_experts": 128,
            "num_experts_per_tok": 1, "interleave_moe_layer_step": 2
        });
        let mut ok = object(base.clone());
        ok.insert("moe_layers".into(), json!([1, 3, 5, 7]));
        let mut k = Keys::new(&ok, "");
        let (mlp, moe) = feed_forward(&mut k, Family::Llama4, 8).unwrap();
        assert_eq!((mlp.d_ff, moe.unwrap().every), (16384, 2));
        let mut bad = object(base);
        bad.insert("moe_layers".into(), json!([0, 2, 4, 6]));
        let mut k = Keys::new(&bad, "");
        assert!(matches!(feed_forward(&mut k, Family::Llama4, 8), Err(ImportError::Unsupported { .. })));
    }

    #[test]
    fn gpt_oss_top_k_spellings_must_agree() {
        let m = object(json!({
            "num_local_experts": 32, "experts_per_token": 4, "num_experts_per_tok": 2,
            "intermediate_size": 2880
        }));
        let mut k = Keys::new(&m, "");
        let e = feed_forward(&mut k, Family::GptOss, 24).unwrap_err();
        assert!(e.to_string().starts_with("num_experts_per_tok:"), "{e}");
    }
}
