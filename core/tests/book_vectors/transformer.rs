//! Area `transformer`: book chapter 4 (and the transformer parts of 6 and 7).

use crate::harness::{assert_area_covered, check, input};
use shardcalc_core::activations::saved_activation_bytes;
use shardcalc_core::dtype::DType;
use shardcalc_core::flops::{
    attention_flops_per_pair, attention_projection_weights, dot_attention_intensity, forward_per_token,
    model_flops_utilization, training_flops, FlopComponent, FlopConvention, RematPolicy, Workload,
};
use shardcalc_core::kv_cache::{kv_bytes_per_sequence, kv_bytes_per_token};
use shardcalc_core::model::{
    Attention, AttentionBias, AttentionLayout, BlockLayout, Embeddings, GqaAttention, Mlp, MlpKind, ModelConfig, Moe,
    Norm, NormKind,
};
use shardcalc_core::params::{count_params, ParamComponent};
use shardcalc_core::presets;
use shardcalc_core::units::{Flops, FlopsPerSec, Params, Seconds};

const CHECKED: &[&str] = &[
    "TA-activation-memory",
    "TA-ex4.1-params-kv",
    "TA-ex4.4-attention-intensity",
    "TA-ex4.5-attn-equals-qkvo",
    "TA-ex4.7-deepseek-mfu",
    "TA-ex7.1-params",
    "TA-ex7.5-moe-derived",
    "TA-kv-cache-generic",
    "TA-layer-flops-params-llama3-70b",
    "TA-llama2-13b-memory",
    "TA-llama2-13b-params",
    "TA-llama3-70b-flops",
    "TA-llama3-70b-params",
];

#[test]
fn every_transformer_vector_is_checked() {
    assert_area_covered("transformer", CHECKED);
}

/// A dense model with the book's letters, every count explicit.
#[allow(clippy::too_many_arguments)]
fn book_model(l: f64, d: f64, f: f64, n: f64, k: f64, h: f64, v: f64, tied: bool) -> ModelConfig {
    ModelConfig {
        name: "book".into(),
        d_model: d as u64,
        num_layers: l as u64,
        vocab_size: v as u64,
        attention: Attention::Gqa(GqaAttention {
            num_heads: n as u64,
            num_kv_heads: k as u64,
            head_dim: h as u64,
            qk_norm: false,
            bias: AttentionBias::None,
            sinks: false,
        }),
        layout: AttentionLayout::default(),
        mlp: Mlp { kind: MlpKind::Gated, d_ff: f as u64, bias: false },
        moe: None,
        norm: Norm { kind: NormKind::Rms, per_layer: 0 },
        block: BlockLayout::Sequential,
        embeddings: Embeddings { tied, learned_positions: 0 },
        mtp: None,
    }
}

fn workload(b: f64, t: f64) -> Workload {
    Workload { per_device_batch: b, seq_len: t as u64, grad_accum: 1, remat: RematPolicy::None }
}

#[test]
fn ta_activation_memory() {
    let id = "TA-activation-memory";
    let (bt, l, d, bytes) = (input(id, "BT"), input(id, "L"), input(id, "D"), input(id, "bytes"));
    let saved =
        |policy: RematPolicy| saved_activation_bytes(bt, l as u64, d as u64, bytes, policy.saved_per_layer()).get();
    // Block remat repeats the forward pass of every layer: with no vocabulary to speak
    // of, hardware FLOPs / model FLOPs is (6 + 2) / 6.
    let m = book_model(l, d, 4.0 * d, 64.0, 64.0, 128.0, 1.0, true);
    let mut w = workload(1.0, 4096.0);
    w.remat = RematPolicy::Full;
    let r = training_flops(&m, &w, FlopConvention::SixNd);
    check(
        id,
        &[
            ("full_save_bytes", saved(RematPolicy::None)),
            ("block_remat_bytes", saved(RematPolicy::Full)),
            ("big_matmuls_only_bytes", saved(RematPolicy::SaveMatmuls)),
            ("flops_multiplier_block_remat", r.hardware_total.get() / r.total.get()),
        ],
    );
}

#[test]
fn ta_ex4_1_params_kv() {
    let id = "TA-ex4.1-params-kv";
    let (d, f, v, l, nh) = (input(id, "D"), input(id, "F"), input(id, "V"), input(id, "L"), input(id, "NH"));
    // MHA with N·H = D: 32 heads of 128. The book counts one D-sized norm per layer.
    let mut m = book_model(l, d, f, nh / 128.0, nh / 128.0, 128.0, v, false);
    m.norm.per_layer = 1;
    let p = count_params(&m);
    let attn = p.get(ParamComponent::Attention).total.get();
    let mlp = p.get(ParamComponent::Mlp).total.get();
    check(
        id,
        &[
            ("params", p.total.get()),
            ("attn_fraction", attn / (attn + mlp)),
            ("kv_bytes_per_token_int8", kv_bytes_per_token(&m, DType::Int8).get()),
        ],
    );
}

#[test]
fn ta_ex4_4_attention_intensity() {
    let id = "TA-ex4.4-attention-intensity";
    let (t, s, g, b_crit) = (input(id, "T"), input(id, "S"), input(id, "G"), input(id, "B_crit"));
    let bf16 = DType::Bf16.bytes();
    // MHA prefill intensity is T/2, so it is compute bound once T/2 > B_crit.
    let t_min = (1..100_000).map(f64::from).find(|t| dot_attention_intensity(*t, *t, 1.0, bf16) >= b_crit).unwrap();
    check(
        id,
        &[
            ("mha_prefill_intensity", dot_attention_intensity(t, s, 1.0, bf16)),
            ("mha_prefill_T_min", t_min),
            ("mha_generate_intensity", dot_attention_intensity(1.0, s, 1.0, bf16)),
            ("gqa_prefill_intensity", dot_attention_intensity(t, t, g, bf16)),
            ("gqa_generate_intensity", dot_attention_intensity(1.0, s, g, bf16)),
        ],
    );
}

#[test]
fn ta_ex4_5_attention_equals_qkvo() {
    // Dot-product attention per token grows as T; it equals the QKVO projections when
    // attention_flops_per_pair · T = 2 · projection weights, i.e. T = 2D for MHA.
    let id = "TA-ex4.5-attn-equals-qkvo";
    let d = input(id, "D");
    let m = book_model(1.0, d, 4.0 * d, d / 128.0, d / 128.0, 128.0, 1.0, true);
    let t_equal = 2.0 * attention_projection_weights(&m) / attention_flops_per_pair(&m);
    check(id, &[("T_equal", t_equal)]);
}

#[test]
fn ta_ex4_7_deepseek_mfu() {
    let id = "TA-ex4.7-deepseek-mfu";
    let hours = input(id, "gpu_hours");
    let peak = FlopsPerSec(input(id, "fp8_dense"));
    let used = Flops(6.0 * input(id, "active_params") * input(id, "tokens"));
    let seconds = Seconds(hours * 3600.0);
    check(
        id,
        &[
            ("available_flops", (peak * seconds).get()),
            ("used_flops", used.get()),
            ("mfu", model_flops_utilization(used, 1.0, seconds, peak)),
        ],
    );
}

#[test]
fn ta_ex7_1_params() {
    let id = "TA-ex7.1-params";
    let m = book_model(
        input(id, "L"),
        input(id, "D"),
        input(id, "F"),
        input(id, "N"),
        input(id, "K"),
        input(id, "H"),
        input(id, "V"),
        true,
    );
    check(
        id,
        &[
            ("params", count_params(&m).total.get()),
            ("kv_bytes_per_token_bf16", kv_bytes_per_token(&m, DType::Bf16).get()),
            ("kv_bytes_per_token_int8", kv_bytes_per_token(&m, DType::Int8).get()),
        ],
    );
}

#[test]
fn ta_ex7_5_moe_derived() {
    let id = "TA-ex7.5-moe-derived";
    let mut m = book_model(
        input(id, "L"),
        input(id, "D"),
        input(id, "F"),
        input(id, "N"),
        input(id, "K"),
        input(id, "H"),
        input(id, "V"),
        true,
    );
    let moe = Moe {
        num_experts: input(id, "E") as u64,
        experts_per_token: input(id, "k") as u64,
        expert_d_ff: m.mlp.d_ff,
        shared_experts: 0,
        shared_d_ff: None,
        first_dense_layers: 0,
        every: 1,
        router_bias: false,
    };
    m.moe = Some(moe.clone());
    let p = count_params(&m);
    // The book's formula leaves out the router (D·E per layer) and the final norm (D);
    // we count both, so take them out to compare like with like.
    let router = p.get(ParamComponent::Router).total.get();
    let norms = p.get(ParamComponent::Norms).total.get();
    let fpt = forward_per_token(&m);
    let fwd = fpt.attention_projections + fpt.mlp + fpt.routed + fpt.shared + fpt.unembedding;
    check(
        id,
        &[
            ("total_params", p.total.get() - router - norms),
            ("active_params", p.active.get() - router - norms),
            ("B_min_bf16_weights", moe.compute_bound_batch(input(id, "B_crit_bf16"))),
            ("B_min_int8_weights", moe.compute_bound_batch(input(id, "B_crit_int8w"))),
            ("kv_bytes_per_token_bf16", kv_bytes_per_token(&m, DType::Bf16).get()),
            ("fwd_flops_per_token", fwd),
        ],
    );
}

#[test]
fn ta_kv_cache_generic() {
    let id = "TA-kv-cache-generic";
    let (s, l, kh) = (input(id, "S"), input(id, "L"), input(id, "KH"));
    assert_eq!(input(id, "bytes"), DType::Int8.bytes());
    let m = book_model(l, kh, 4.0 * kh, kh / 128.0, kh / 128.0, 128.0, 1.0, true);
    let b = kv_bytes_per_sequence(&m, s as u64, DType::Int8);
    check(id, &[("kv_bytes", b.get()), ("kv_GiB", b.gib())]);
}

#[test]
fn ta_layer_flops_params_llama3_70b() {
    let id = "TA-layer-flops-params-llama3-70b";
    let l = input(id, "L");
    let m = book_model(
        l,
        input(id, "D"),
        input(id, "F"),
        input(id, "N"),
        input(id, "K"),
        input(id, "H"),
        input(id, "V"),
        false,
    );
    let w = workload(input(id, "B"), input(id, "T"));
    let r = training_flops(&m, &w, FlopConvention::Book);
    let per_layer = |c: FlopComponent| r.get(c).total().get() / l;
    let p = count_params(&m);
    let mlp_p = p.get(ParamComponent::Mlp).total.get() / l;
    let attn_p = p.get(ParamComponent::Attention).total.get() / l;
    let six_nt = 6.0 * w.tokens_per_device() * (mlp_p + attn_p) * l;
    check(
        id,
        &[
            ("mlp_train_flops_per_layer", per_layer(FlopComponent::Mlp)),
            ("attn_proj_train_flops_per_layer", per_layer(FlopComponent::AttentionProjections)),
            ("dot_attn_train_flops_per_layer", per_layer(FlopComponent::AttentionDot)),
            ("unembed_train_flops", r.get(FlopComponent::Unembedding).total().get()),
            ("mlp_params_per_layer", mlp_p),
            ("attn_params_per_layer", attn_p),
            (
                "ratio_to_6NT",
                (r.get(FlopComponent::Mlp).total() + r.get(FlopComponent::AttentionProjections).total()).get() / six_nt,
            ),
        ],
    );
}

#[test]
fn ta_llama2_13b_memory() {
    let id = "TA-llama2-13b-memory";
    let m = book_model(
        input(id, "L"),
        input(id, "D"),
        input(id, "F"),
        input(id, "N"),
        input(id, "K"),
        input(id, "H"),
        input(id, "V"),
        false,
    );
    let t = input(id, "T");
    check(
        id,
        &[
            ("kv_bytes_per_seq_bf16", kv_bytes_per_sequence(&m, t as u64, DType::Bf16).get()),
            ("param_bytes_bf16", Params(input(id, "params")).bytes_at(DType::Bf16.bytes()).get()),
            ("prefill_activation_bytes", t * input(id, "D") * DType::Bf16.bytes()),
        ],
    );
}

fn params_breakdown_check(id: &str, preset: &str) {
    let m = presets::get(preset).unwrap().config;
    // The preset must be the model the vector describes.
    assert_eq!(m.d_model as f64, input(id, "D"));
    assert_eq!(m.num_layers as f64, input(id, "L"));
    assert_eq!(m.mlp.d_ff as f64, input(id, "F"));
    assert_eq!(m.vocab_size as f64, input(id, "V"));
    let p = count_params(&m);
    let t = |c| p.get(c).total.get();
    check(
        id,
        &[
            ("ffw_params", t(ParamComponent::Mlp)),
            ("vocab_params", t(ParamComponent::Embedding) + t(ParamComponent::Unembedding)),
            ("attn_params", t(ParamComponent::Attention)),
            ("total_params", p.total.get()),
        ],
    );
}

#[test]
fn ta_llama2_13b_params() {
    params_breakdown_check("TA-llama2-13b-params", "llama-2-13b");
}

#[test]
fn ta_llama3_70b_params() {
    params_breakdown_check("TA-llama3-70b-params", "llama-3-70b");
}

#[test]
fn ta_llama3_70b_flops() {
    let id = "TA-llama3-70b-flops";
    let per_token = Flops(6.0 * input(id, "params"));
    let c = FlopsPerSec(input(id, "C"));
    let total = per_token * input(id, "tokens");
    check(
        id,
        &[
            ("flops_per_token", per_token.get()),
            ("t_per_token_s", (per_token / c).get()),
            ("total_flops", total.get()),
            ("single_chip_years", (total / c).get() / input(id, "seconds_per_year")),
        ],
    );
}
