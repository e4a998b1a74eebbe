//! What the Ironwood training guide (seeds/ironwood-training-optimization.txt and its
//! MaxText review) and MaxText's custom-model guide (seeds/maxtext-custom-model-configs.txt)
//! assert, checked against the training planner. Each test quotes its claim.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use shardcalc_core::collectives::Network;
use shardcalc_core::dtype::DType;
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::catalog::get;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::hardware::topology::{AxisSpec, Topology};
use shardcalc_core::presets;
use shardcalc_core::training::mesh::{Mesh, Parallelism};
use shardcalc_core::training::placement::{piece_link, Piece};
use shardcalc_core::training::plan;
use shardcalc_core::training::report::{MemoryComponent, TrainingReport};
use shardcalc_core::training::section::{GlobalBatch, TrainingSection};
use shardcalc_core::training::step::Bottleneck;
use shardcalc_core::training::tensors::Remat;
use shardcalc_core::training::thresholds::{ici_intensity, tp_max_degree};

fn slice(chip: &str, shape: &[u64]) -> ResolvedHardware {
    let chip = get(chip).unwrap();
    let axes = Topology::tpu_slice(shape, 1).resolve(&chip).unwrap();
    ResolvedHardware { chip, axes }
}

fn run(preset: &str, hw: &ResolvedHardware, s: &TrainingSection) -> TrainingReport {
    plan(&presets::get(preset).unwrap().config, hw, s, FlopConvention::MaxText).unwrap()
}

fn comm_time(r: &TrainingReport, p: Parallelism) -> f64 {
    r.communication.iter().find(|c| c.parallelism == p).map_or(0.0, |c| c.time_s.get())
}

/// MaxText's defaults: fp32 weights (`weight_dtype`), so fp32 gradients too.
fn maxtext_dtypes(s: &mut TrainingSection) {
    s.dtypes.weights = DType::Fp32;
    s.dtypes.gradients = DType::Fp32;
}

/// "For Ironwood, the One Dimensional AI is very high, approximately 11,500."
#[test]
fn ironwood_one_dimensional_intensity_is_about_11500() {
    let r = run("llama-3-70b", &slice("tpu-v7x", &[4, 4, 4]), &TrainingSection::new(GlobalBatch::Sequences(64), 8192));
    assert!((r.thresholds.alpha / 11_500.0 - 1.0).abs() < 0.01, "{}", r.thresholds.alpha);
}

/// "Ironwood's high AI (11.5k) requires an MLP dimension greater than 46k (for TP
/// degree 4) to be viable over ICI. Most open source models like Llama3 70B (MLP
/// dimension 28,672) and Qwen 2.5 7B (MLP dimension 18,944) fall short, and using TP
/// here would result in the system becoming communication-bound."
#[test]
fn ironwood_tp4_needs_an_mlp_above_46k() {
    let v7x = get("tpu-v7x").unwrap();
    let alpha = ici_intensity(v7x.peak_flops.bf16.get(), v7x.scale_up.link.bidirectional.get());
    let f_for_tp4 = 4.0 / tp_max_degree(alpha, 1.0, 1.0, 2.0);
    assert!((45_000.0..47_000.0).contains(&f_for_tp4), "{f_for_tp4}");
    for f in [28_672.0, 18_944.0] {
        assert!(tp_max_degree(alpha, 1.0, f, 2.0) < 4.0, "F = {f}");
    }
    // In the planner: TP = 4 on a 4×4×4 Ironwood slice moves more bytes over ICI
    // than it has matmuls to hide them behind; on a v5p (α = 2550) it does not.
    let mut s = TrainingSection::new(GlobalBatch::Sequences(64), 8192);
    s.mesh = Some(Mesh { fsdp: 16, tp: 4, ..Mesh::default() });
    s.remat = Remat::Minimal;
    let ironwood = run("llama-3-70b", &slice("tpu-v7x", &[4, 4, 4]), &s);
    assert!(ironwood.thresholds.tp_max_one_axis < 4.0);
    assert!(comm_time(&ironwood, Parallelism::Tp) > ironwood.breakdown.compute_s.get());
    assert_eq!((ironwood.bound.resource, ironwood.bound.axis), (Bottleneck::Communication, Some(Parallelism::Tp)));
    let v5p = run("llama-3-70b", &slice("tpu-v5p", &[4, 4, 4]), &s);
    assert!(v5p.thresholds.tp_max_one_axis > 4.0);
    assert!(comm_time(&v5p, Parallelism::Tp) < v5p.breakdown.compute_s.get());
}

/// "Case study: Dense LLM (< 20B parameters) – short context (8k) ... The model was
/// large enough that the weights, gradients and optimizer states would not fit into
/// memory, making sharding necessary. FSDP gave us the best performance." (4×4×4)
#[test]
fn ironwood_dense_under_20b_short_context_prefers_fsdp() {
    let hw = slice("tpu-v7x", &[4, 4, 4]);
    let mut s = TrainingSection::new(GlobalBatch::Sequences(128), 8192);
    maxtext_dtypes(&mut s);
    let best = run("llama-2-13b", &hw, &s);
    let m = best.mesh.degrees;
    assert_eq!((m.tp, m.ep, m.cp, m.pp), (1, 1, 1, 1), "{m:?}");
    assert!(m.fsdp > 1);
    // Pure data parallelism would not fit: 13B × 16 bytes of state on every chip.
    s.mesh = Some(Mesh { dp: 64, ..Mesh::default() });
    assert!(!run("llama-2-13b", &hw, &s).memory.fits);
}

/// "Context Parallelism (CP) ... Because CP introduces more communication than FSDP,
/// the rule of thumb is to use the minimum degree of CP necessary."
#[test]
fn context_parallelism_only_when_needed() {
    let hw = slice("tpu-v7x", &[4, 4, 4]);
    // Short context: enough sequences for every device; no CP.
    let short = run("qwen3-8b", &hw, &TrainingSection::new(GlobalBatch::Sequences(256), 8192));
    assert_eq!(short.mesh.degrees.cp, 1, "{:?}", short.mesh.degrees);
    // Long context, 16 sequences on 64 devices: the sequence must be split, by no more
    // than the search needs.
    let long = run("llama-3-8b", &hw, &TrainingSection::new(GlobalBatch::Sequences(16), 131_072));
    let m = long.mesh.degrees;
    assert!(m.cp * m.tp >= 4, "{m:?}");
    let best = &long.search.as_ref().unwrap().best;
    let fastest = best.first().unwrap().step_time_s.get();
    let min_cp = best.iter().filter(|r| r.step_time_s.get() <= fastest * (1.0 + 1e-9)).map(|r| r.mesh.cp).min();
    assert_eq!(Some(m.cp), min_cp);
    // And CP moves more bytes than the FSDP it replaces.
    let mut s = TrainingSection::new(GlobalBatch::Sequences(256), 8192);
    s.mesh = Some(Mesh { fsdp: 64, ..Mesh::default() });
    let fsdp = run("qwen3-8b", &hw, &s);
    s.mesh = Some(Mesh { fsdp: 32, cp: 2, ..Mesh::default() });
    let with_cp = run("qwen3-8b", &hw, &s);
    let bytes = |r: &TrainingReport| r.communication.iter().map(|c| c.bytes_per_step.get()).sum::<f64>();
    assert!(bytes(&with_cp) > bytes(&fsdp));
}

/// "Rematerialization ... While it saves significant amounts of memory, it incurs
/// ~25-30% additional FLOPs." (full remat on a dense model)
#[test]
fn full_remat_costs_about_a_quarter_more_flops() {
    let mut s = TrainingSection::new(GlobalBatch::Sequences(128), 8192);
    s.mesh = Some(Mesh { fsdp: 64, ..Mesh::default() });
    s.remat = Remat::Full;
    let r = run("llama-3-8b", &slice("tpu-v7x", &[4, 4, 4]), &s);
    let extra = r.hardware_flops_per_step.get() / r.model_flops_per_step.get() - 1.0;
    assert!((0.2..0.35).contains(&extra), "{extra}");
    s.remat = Remat::None;
    let none = run("llama-3-8b", &slice("tpu-v7x", &[4, 4, 4]), &s);
    let act = |r: &TrainingReport| {
        r.memory.breakdown.iter().find(|i| i.component == MemoryComponent::Activations).unwrap().bytes.get()
    };
    assert!(act(&none) > 15.0 * act(&r), "remat saves significant memory");
}

/// "Case study: MoE 110B – short context (8k) ... We started to experiment with a
/// hybrid approach of EP and FSDP. However we saw that the All-to-All collective used
/// in Expert Parallelism caused a large bottleneck ... We got the best performance
/// using FSDP for this model."
#[test]
fn large_moe_short_context_prefers_fsdp_to_expert_parallelism() {
    let hw = slice("tpu-v7x", &[4, 4, 4]);
    let s = TrainingSection::new(GlobalBatch::Sequences(128), 8192);
    let best = run("mixtral-8x22b", &hw, &s);
    assert_eq!(best.mesh.degrees.ep, 1, "{:?}", best.mesh.degrees);
    let mut with_ep = s.clone();
    with_ep.mesh = Some(Mesh { fsdp: 8, ep: 8, ..Mesh::default() });
    with_ep.remat = Remat::preset(&best.remat).unwrap_or_default();
    let ep = run("mixtral-8x22b", &hw, &with_ep);
    let all_to_all = ep.communication.iter().find(|c| c.parallelism == Parallelism::Ep).unwrap();
    assert!(all_to_all.critical_path && all_to_all.exposed_s.get() > 0.0);
    assert!(ep.step_time_s.get() > best.step_time_s.get());
}

/// "We chose TP2 specifically to align the workload with Ironwood's dual-chiplet
/// architecture. This allows the frequent communications to occur over the internal
/// die-to-die (D2D) interface — which is 6x faster than the standard ICI."
#[test]
fn tp2_over_die_to_die_is_six_times_faster_than_over_ici() {
    let chip = get("tpu-v7x").unwrap();
    let mut chiplets = Topology::tpu_slice(&[4, 4, 4], 1);
    chiplets.axes.push(AxisSpec::new("core", 2, Network::DieToDie));
    let d2d = ResolvedHardware { chip: chip.clone(), axes: chiplets.resolve(&chip).unwrap() };
    let ici = slice("tpu-v7x", &[4, 4, 8]);
    let mut s = TrainingSection::new(GlobalBatch::Sequences(128), 8192);
    s.mesh = Some(Mesh { fsdp: 64, tp: 2, ..Mesh::default() });
    let on_d2d = run("llama-3-8b", &d2d, &s);
    let tp = on_d2d.mesh.placement.iter().find(|a| a.axis == Parallelism::Tp).unwrap();
    assert_eq!(tp.pieces[0].network, Network::DieToDie);
    let on_ici = run("llama-3-8b", &ici, &s);
    let ratio = comm_time(&on_ici, Parallelism::Tp) / comm_time(&on_d2d, Parallelism::Tp);
    assert!((5.5..6.5).contains(&ratio), "{ratio}");
}

/// MaxText custom-model guide, Trillium (AI 5100 over 2 ICI links): "Example with
/// TP=4: M > 20400", "To use TP=16, we need M > 80k".
#[test]
fn trillium_tp_needs_wide_mlps() {
    let v6e = get("tpu-v6e").unwrap();
    let alpha = ici_intensity(v6e.peak_flops.bf16.get(), v6e.scale_up.link.bidirectional.get());
    let f_for = |tp: f64| tp / tp_max_degree(alpha, 1.0, 1.0, 2.0);
    assert!((f_for(4.0) / 20_400.0 - 1.0).abs() < 0.01, "{}", f_for(4.0));
    assert!((80_000.0..85_000.0).contains(&f_for(16.0)), "{}", f_for(16.0));
}

/// MaxText custom-model guide: a TP=4 "8x8 ring of 2x2 subrings" on a 16×16 Trillium
/// slice: "the 8x8 rings perform poorly (0.5 x 1 axis)" — every other chip of a
/// 16-ring shares each link with the other half.
#[test]
fn strided_sub_rings_see_half_a_link() {
    let hw = slice("tpu-v6e", &[16, 16]);
    let x = &hw.axes[0];
    let eight = piece_link(x, Piece { axis: 0, size: 8, stride: 2 });
    assert_eq!(eight.link.get(), 0.5 * x.link.get());
    assert_eq!(eight.shape, x.shape);
}

/// MaxText custom-model guide: "FSPD AI: `global batch / sparsity` (`sparsity =
/// num_experts / num_experts_per_tok`) ... Example with a sparsity of 16: global batch
/// / 16 > 2500 (16x16 with wraparound)". FSDP gathers every expert for the FLOPs of k.
#[test]
fn fsdp_threshold_grows_with_moe_sparsity() {
    let hw = slice("tpu-v6e", &[16, 16]);
    let s = TrainingSection::new(GlobalBatch::Sequences(256), 4096);
    let dense = run("mistral-7b", &hw, &s).thresholds;
    let moe = run("mixtral-8x7b", &hw, &s).thresholds;
    assert_eq!(dense.sparsity, 1.0);
    // Mixtral: 8 experts, 2 per token; attention and embeddings are shared, so the
    // stored/active ratio is below E/k = 4.
    assert!((3.0..4.0).contains(&moe.sparsity), "{}", moe.sparsity);
    assert!((dense.fsdp_critical_batch_all_axes / (dense.alpha / 2.0) - 1.0).abs() < 1e-12);
    assert!((moe.fsdp_critical_batch_all_axes / (moe.alpha / 2.0 * moe.sparsity) - 1.0).abs() < 1e-12);
}
