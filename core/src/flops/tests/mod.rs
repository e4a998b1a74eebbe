use super::*;
use crate::model::AttentionLayout;
use crate::presets;

/// The notebook's three default configurations (MaxText LLM-calculator notebook).
pub(crate) fn notebook_dense() -> ModelConfig {
    // Mistral-7B-shaped, no sliding window: 32 layers, 7.24e9 parameters.
    let mut m = presets::get("mistral-7b").unwrap().config;
    m.name = "Dense (notebook)".into();
    m.layout = AttentionLayout::default();
    m
}

pub(crate) fn notebook_mixtral_like() -> ModelConfig {
    let mut m = presets::get("mixtral-8x7b").unwrap().config;
    m.name = "Mixtral-like 5-layer (notebook)".into();
    m.num_layers = 5;
    m
}

pub(crate) fn notebook_deepseek_like() -> ModelConfig {
    presets::get("deepseek-v3").unwrap().config
}

fn workload(b: f64, t: u64) -> Workload {
    Workload { per_device_batch: b, seq_len: t, grad_accum: 1, remat: RematPolicy::None }
}

fn tflops(m: &ModelConfig, w: &Workload, c: FlopConvention) -> f64 {
    training_flops(m, w, c).total.tflops()
}

fn close(actual: f64, expected: f64, rel: f64) -> bool {
    (actual - expected).abs() <= rel * expected.abs()
}

/// Issue #2: MaxText convention gives 18,426 / 53.7 / 187.9 TFLOPs per device-step.
#[test]
fn maxtext_convention_matches_maxtext_logs() {
    let ds = tflops(&notebook_deepseek_like(), &workload(8.0, 8192), FlopConvention::MaxText);
    assert!(close(ds, 18_426.0, 5e-5), "{ds}");
    let mx = tflops(&notebook_mixtral_like(), &workload(1.0, 4096), FlopConvention::MaxText);
    assert!(close(mx, 53.7, 1e-3), "{mx}");
    let dn = tflops(&notebook_dense(), &workload(1.0, 4096), FlopConvention::MaxText);
    assert!(close(dn, 187.9, 3e-4), "{dn}");
}

/// Issue #2: the notebook prints 2.24e4 / 55.8 / 201 TFLOPs (attention not halved).
#[test]
fn notebook_convention_matches_notebook_tables() {
    let ds = tflops(&notebook_deepseek_like(), &workload(8.0, 8192), FlopConvention::Notebook);
    assert!(close(ds, 2.24e4, 3e-3), "{ds}");
    let mx = tflops(&notebook_mixtral_like(), &workload(1.0, 4096), FlopConvention::Notebook);
    assert!(close(mx, 55.8, 1e-3), "{mx}");
    let dn = tflops(&notebook_dense(), &workload(1.0, 4096), FlopConvention::Notebook);
    assert!(close(dn, 201.0, 3e-3), "{dn}");
}

/// MaxText's dense formula written out term by term for the 32-layer dense config.
#[test]
fn maxtext_dense_terms_by_hand() {
    let (b, s, d, f, n, k, h, v, l) = (1.0, 4096.0, 4096.0, 14336.0, 32.0, 8.0, 128.0, 32000.0, 32.0);
    let ffn = 2.0 * b * s * f * d * 2.0 + 2.0 * b * s * f * d;
    let qkv = 2.0 * b * s * d * (n + 2.0 * k) * h;
    let proj = 2.0 * b * s * d * n * h;
    let emb = 2.0 * b * s * d * v;
    let learnable = ((ffn + qkv + proj) * l + emb) * 3.0;
    let attention = 4.0 * b * s * s * n * h / 2.0 * l * 3.0;
    let r = training_flops(&notebook_dense(), &workload(1.0, 4096), FlopConvention::MaxText);
    assert!(close(r.learnable.get(), learnable, 1e-12));
    assert!(close(r.attention.get(), attention, 1e-12));
}

#[test]
fn six_nd_is_six_times_active_params_times_tokens() {
    let m = presets::get("llama-3-8b").unwrap().config;
    let w = workload(2.0, 8192);
    let r = training_flops(&m, &w, FlopConvention::SixNd);
    let n = crate::params::count_params(&m).active.get();
    assert!(close(r.total.get(), 6.0 * n * 2.0 * 8192.0, 1e-12));
    assert_eq!(r.attention.get(), 0.0);
}

#[test]
fn backward_is_twice_forward() {
    let m = presets::get("mixtral-8x7b").unwrap().config;
    for c in FlopConvention::ALL {
        let r = training_flops(&m, &workload(1.0, 4096), c);
        for row in &r.rows {
            assert!(close(row.backward.get(), 2.0 * row.forward.get(), 1e-12));
        }
        assert!(close(r.total.get(), r.learnable.get() + r.attention.get(), 1e-12));
    }
}

#[test]
fn full_remat_adds_one_forward_of_the_layers() {
    // Book 4.4.2: block remat takes 6ND to about 8ND.
    let m = presets::get("llama-3-70b").unwrap().config;
    let mut w = workload(1.0, 4096);
    w.remat = RematPolicy::Full;
    let r = training_flops(&m, &w, FlopConvention::MaxText);
    let ratio = r.hardware_total.get() / r.total.get();
    assert!((1.30..1.34).contains(&ratio), "{ratio}");
    w.remat = RematPolicy::SaveMatmuls;
    let r2 = training_flops(&m, &w, FlopConvention::MaxText);
    assert!(close(r2.remat_recompute.get(), r2.get(FlopComponent::AttentionDot).forward.get(), 1e-12));
}

/// MaxText's MTP block of `calculate_tflops_training_per_device` (maxtext_utils.py at
/// e591f30), written out for DeepSeek-V3 with one MTP layer: the module is the last
/// (MoE) layer again — gate, shared and routed experts, MLA projections — plus one causal
/// MLA attention; no `[h; emb]` projection, no output head. That is 1.6% of the step.
#[test]
fn maxtext_counts_mtp_as_one_more_decoder_layer() {
    let m = presets::get("deepseek-v3-mtp").unwrap().config;
    let (b, t) = (1.0, 4096.0);
    let (d, e, k, moe_mlp, shared) = (7168.0, 256.0, 8.0, 2048.0, 1.0);
    let (n, q_lora, kv_lora, nope, rope, v) = (128.0, 1536.0, 512.0, 128.0, 64.0, 128.0);
    let ffn = |mlp: f64| 2.0 * b * t * mlp * d * 2.0 + 2.0 * b * t * mlp * d; // SiLU-gated: 3 matrices
    let gate = 2.0 * b * t * d * e;
    let last_layer_ffn = gate + ffn(moe_mlp) * shared + ffn(moe_mlp) * k;
    let qkv = 2.0 * b * t * (d * q_lora + q_lora * n * (nope + rope))
        + 2.0 * b * t * (d * (kv_lora + rope) + kv_lora * n * (nope + v));
    let projection = 2.0 * b * t * d * n * v;
    let causal_attention = 2.0 * b * t * t * n * (nope + rope + v) / 2.0;
    let mtp = (last_layer_ffn + qkv + projection + causal_attention) * 3.0;

    let w = workload(b, 4096);
    let with = training_flops(&m, &w, FlopConvention::MaxText);
    assert!(close(with.get(FlopComponent::Mtp).total().get(), mtp, 1e-12));
    let without = training_flops(&presets::get("deepseek-v3").unwrap().config, &w, FlopConvention::MaxText);
    assert!(close(with.total.get(), without.total.get() + mtp, 1e-12));
    let share = mtp / with.total.get();
    assert!((0.015..0.017).contains(&share), "{share}");
    // The book counts the whole module (projection and output head too); the notebook none.
    assert!(training_flops(&m, &w, FlopConvention::Book).get(FlopComponent::Mtp).total().get() > mtp);
    assert_eq!(training_flops(&m, &w, FlopConvention::Notebook).get(FlopComponent::Mtp).total().get(), 0.0);
}

/// Sliding-window layers under MaxText's convention, against its formulas written out
/// (`calculate_gemma2_tflops_training_per_device` and
/// `calculate_mixed_attention_model_tflops_training_per_device`, maxtext_utils.py at
/// e591f30): global layers `2·B·T²·N·H`, local layers `4·B·(T·W − W²/2)·N·H` with
/// `W = min(window, T)`, times 3 for forward and backward. Gemma 2 has 21 of each (MaxText
/// counts its 21 local+global pairs), Gemma 3 `62 // 6` global layers, gpt-oss `36 // 2`.
#[test]
fn sliding_window_attention_matches_maxtext() {
    let cases: [(&str, f64, f64, f64, f64, f64); 3] = [
        // (preset, N, H, window, layers, pattern length)
        ("gemma-2-9b", 16.0, 256.0, 4096.0, 42.0, 2.0),
        ("gemma-3-27b", 32.0, 128.0, 1024.0, 62.0, 6.0),
        ("gpt-oss-120b", 64.0, 64.0, 128.0, 36.0, 2.0),
    ];
    for (id, n, h, window, layers, pattern) in cases {
        let m = presets::get(id).unwrap().config;
        for (b, t) in [(1.0, 8192.0), (2.0, 4096.0), (1.0, 2048.0), (1.0, 100.0)] {
            let w = f64::min(window, t);
            let global = layers.div_euclid(pattern);
            let local = layers - global;
            let expected = (global * 2.0 * b * t * t * n * h + local * 4.0 * b * (t * w - 0.5 * w * w) * n * h) * 3.0;
            let r = training_flops(&m, &workload(b, t as u64), FlopConvention::MaxText);
            assert!(close(r.attention.get(), expected, 1e-12), "{id} T={t}: {} vs {expected}", r.attention.get());
        }
    }
}

/// Llama 4 chunked layers: MaxText calculate_llama4_attention_tflops.
#[test]
fn llama4_chunked_attention_matches_maxtext() {
    let m = presets::get("llama-4-scout").unwrap().config;
    let (b, s, n, h, c) = (1.0, 20000.0, 40.0, 128.0, 8192.0);
    let chunked = (2.0 * c * c + (20000.0 - 2.0 * c) * (20000.0 - 2.0 * c)) * 4.0 * b * n * h;
    let global = 4.0 * b * s * s * n * h;
    let expected = (12.0 * global + 36.0 * chunked) / 2.0 * 3.0;
    let r = training_flops(&m, &workload(1.0, 20000), FlopConvention::MaxText);
    assert!(close(r.attention.get(), expected, 1e-12));
}

/// Book 4.3: for MHA with F = 4D and D = NH, attention per token overtakes the MLP and
/// projections together at T = 8D; against the MLP alone at T = 6D (dense counting).
#[test]
fn attention_crossover_follows_the_book() {
    let mut m = presets::get("llama-2-7b").unwrap().config;
    m.mlp.d_ff = 4 * m.d_model;
    let t = attention_crossover(&m, FlopConvention::Book).unwrap();
    // attention 4·T·D per layer per token vs MLP 6·D·F = 24·D²: crossover at T = 6·D.
    assert_eq!(t, 6 * 4096 + 1);
    let series = flops_vs_seq_len(&m, &[8 * 4096], FlopConvention::Book);
    let p = series[0];
    assert!(close(p.attention_dot, p.mlp + p.attention_projections, 1e-12));
}

/// Issue 7 (found against brute force): chunked attention per token is saw-toothed, and
/// the search over powers of two missed an early crossing: with chunks of 100 and a tiny MLP,
/// attention overtakes at T = 97 (then dips below after T = 100), and the answer was 382.
#[test]
fn attention_crossover_is_the_first_with_chunked_attention() {
    use crate::model::LocalAttention;
    let first_by_brute_force = |m: &ModelConfig, c: FlopConvention| {
        let lens: Vec<u64> = (1..=1 << 14).collect();
        flops_vs_seq_len(m, &lens, c).iter().find(|p| p.attention_dot > p.mlp).map(|p| p.seq_len)
    };
    let mut m = presets::get("llama-3-8b").unwrap().config;
    m.mlp.d_ff = 64;
    m.layout = AttentionLayout::all_local(LocalAttention::Chunked { chunk: 100 });
    assert_eq!(attention_crossover(&m, FlopConvention::Book), Some(97));
    for chunk in [3, 64, 100, 1000, 3000] {
        for locals in [0, 1, 3] {
            for d_ff in [1, 64, 256, 1024, 4096] {
                let local = LocalAttention::Chunked { chunk };
                m.mlp.d_ff = d_ff;
                m.layout = match locals {
                    0 => AttentionLayout::all_local(local),
                    n => AttentionLayout::locals_then_global(local, n),
                };
                for c in [FlopConvention::MaxText, FlopConvention::Book] {
                    if let Some(brute) = first_by_brute_force(&m, c) {
                        assert_eq!(
                            attention_crossover(&m, c),
                            Some(brute),
                            "chunk {chunk} locals {locals} d_ff {d_ff} {c:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn validation_rejects_bad_workloads() {
    let mut w = workload(0.0, 0);
    w.grad_accum = 0;
    let e = w.validate().unwrap_err();
    let fields: Vec<_> = e.0.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["per_device_batch", "seq_len", "grad_accum"]);
    let w = workload(f64::NAN, 10);
    assert_eq!(w.validate().unwrap_err().0[0].field, "per_device_batch");
}

/// Issue 7 (no-panic property test): a subnormal batch passed validation, and the
/// report's TFLOPs lost their precision (at 5e-324 the total was 0 TFLOPs).
#[test]
fn subnormal_batches_are_rejected() {
    for b in [5e-324, f64::MIN_POSITIVE, 1e-300, 9.9e-7] {
        let e = workload(b, 1).validate().unwrap_err();
        assert_eq!(e.0[0].field, "per_device_batch", "{b}");
        assert!(e.0[0].message.contains("at least"), "{}", e.0[0].message);
    }
    let smallest = workload(MIN_PER_DEVICE_BATCH, 1);
    assert_eq!(smallest.validate(), Ok(()));
    let r = training_flops(&notebook_dense(), &smallest, FlopConvention::MaxText);
    let rows: f64 = r.rows.iter().map(|row| row.total().tflops()).sum();
    assert!(r.total.tflops() > 0.0 && close(rows, r.total.tflops(), 1e-12), "{rows} vs {:?}", r.total);
}
