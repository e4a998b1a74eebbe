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

#[test]
fn book_counts_mtp_and_maxtext_does_not() {
    let m = presets::get("deepseek-v3-mtp").unwrap().config;
    let w = workload(1.0, 4096);
    assert_eq!(training_flops(&m, &w, FlopConvention::MaxText).get(FlopComponent::Mtp).forward.get(), 0.0);
    assert!(training_flops(&m, &w, FlopConvention::Book).get(FlopComponent::Mtp).forward.get() > 0.0);
}

/// Gemma 3 sliding-window layers count t·min(w, t) pairs (MaxText
/// calculate_mixed_attention_model_tflops_training_per_device).
#[test]
fn gemma3_attention_matches_maxtext_mixed_formula() {
    let m = presets::get("gemma-3-27b").unwrap().config;
    let (b, s, n, h) = (1.0, 8192.0, 32.0, 128.0);
    let global = 62.0_f64.div_euclid(6.0);
    let local = 62.0 - global;
    let expected = (global * 4.0 * b * s * s * n * h + local * 4.0 * b * s * 1024.0 * n * h) / 2.0 * 3.0;
    let r = training_flops(&m, &workload(1.0, 8192), FlopConvention::MaxText);
    assert!(close(r.attention.get(), expected, 1e-12));
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
