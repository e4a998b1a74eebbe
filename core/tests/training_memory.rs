//! Issue 16, item 6: the planner's memory of a tiny model counted by hand, byte by byte,
//! under several of MaxText's remat policies (`training::tensors`), for a sequential and
//! a parallel block and an MoE layer, with the FSDP-gathered layer and the reserve.
//!
//! The model: D = 8, two layers, vocabulary 16, GQA with N = 2 query heads and K = 1 K/V
//! head of H = 4, a gated MLP of F = 16, tied embeddings, two RMS norms per layer. One
//! sequence of 4 tokens, bf16 activations (2 bytes), on one TPU v5p chip unless said.
//! Per token and layer, the tensors and whether the backward pass reads them:
//!
//! | tensor | elements | read |
//! |---|--:|---|
//! | layer input x | 8 | always |
//! | q (N·H) | 8 | yes |
//! | k, v (K·H) | 4 + 4 | yes |
//! | context (N·H) | 8 | yes |
//! | out projection (D) | 8 | in a sequential block |
//! | mlpwi_0, mlpwi_1 (F) | 16 + 16 | yes |
//! | mlpwo (D) | 8 | no (dense layer, no post-norm) |
//! | two norm outputs (D) + silu(wi_0)·wi_1 parts (2F) | 16 + 32 | only `none` keeps them |
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::catalog;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::model::{
    Attention, AttentionBias, AttentionLayout, BlockLayout, Embeddings, GqaAttention, Mlp, MlpKind, ModelConfig, Moe,
    Norm, NormKind,
};
use shardcalc_core::training::memory::Transient;
use shardcalc_core::training::mesh::Mesh;
use shardcalc_core::training::plan;
use shardcalc_core::training::report::{MemoryComponent, TrainingReport};
use shardcalc_core::training::section::{GlobalBatch, TrainingSection};
use shardcalc_core::training::tensors::{CustomRemat, Placement, Remat};

fn tiny(block: BlockLayout) -> ModelConfig {
    ModelConfig {
        name: "tiny".into(),
        d_model: 8,
        num_layers: 2,
        vocab_size: 16,
        attention: Attention::Gqa(GqaAttention {
            num_heads: 2,
            num_kv_heads: 1,
            head_dim: 4,
            qk_norm: false,
            bias: AttentionBias::None,
            sinks: false,
        }),
        layout: AttentionLayout::default(),
        mlp: Mlp { kind: MlpKind::Gated, d_ff: 16, bias: false },
        moe: None,
        norm: Norm { kind: NormKind::Rms, per_layer: 2 },
        block,
        embeddings: Embeddings { tied: true, learned_positions: 0 },
        mtp: None,
    }
}

fn v5p(shape: &[u64]) -> ResolvedHardware {
    let chip = catalog::get("tpu-v5p").unwrap();
    let axes = Topology::tpu_slice(shape, 1).resolve(&chip).unwrap();
    ResolvedHardware { chip, axes }
}

fn section(remat: Remat, mesh: Mesh, sequences: u64) -> TrainingSection {
    let mut s = TrainingSection::new(GlobalBatch::Sequences(sequences), 4);
    s.mesh = Some(mesh);
    s.remat = remat;
    s
}

fn plan_tiny(m: &ModelConfig, hw: &ResolvedHardware, s: &TrainingSection) -> TrainingReport {
    plan(m, hw, s, FlopConvention::MaxText).unwrap()
}

fn part(r: &TrainingReport, c: MemoryComponent) -> f64 {
    r.memory.breakdown.iter().find(|i| i.component == c).unwrap().bytes.get()
}

/// Saved activations: elements per token and layer × 2 layers × 4 tokens × 2 bytes;
/// rematerialised: one layer's dropped elements × 4 tokens × 2 bytes (the activation
/// function's 32 fused into the matmuls, never materialised).
#[test]
fn saved_and_rematerialised_bytes_by_hand() {
    let hw = v5p(&[1, 1, 1]);
    let m = tiny(BlockLayout::Sequential);
    // (policy, kept elements per token-layer, rematerialised elements of one layer)
    let cases = [
        // x only; the layer rematerialises q 8, k 4, v 4, ctx 8, out 8, wi 32, norms 16.
        (Remat::Full, 8.0, 80.0),
        // x, q, k, v, out, wi_0, wi_1 (mlpwo is named but never read: not saved).
        (Remat::Minimal, 64.0, 24.0),
        (Remat::MinimalWithContext, 72.0, 16.0),
        // x, q, k, v, ctx, out.
        (Remat::SaveDotWithContextExceptMlp, 40.0, 48.0),
        // x, q, k, v, out (+ mlpwo, unread).
        (Remat::SaveDotExceptMlpwi, 32.0, 56.0),
        (Remat::SaveQkvProj, 24.0, 64.0),
        (Remat::SaveOutProj, 16.0, 72.0),
        // Everything the backward reads, norms and activation outputs included.
        (Remat::None, 120.0, 0.0),
    ];
    for (remat, kept, dropped) in cases {
        let r = plan_tiny(&m, &hw, &section(remat.clone(), Mesh::default(), 1));
        assert_eq!(part(&r, MemoryComponent::Activations), kept * 2.0 * 4.0 * 2.0, "{}", remat.id());
        assert_eq!(r.memory.layer.rematerialised_bytes.get(), dropped * 4.0 * 2.0, "{}", remat.id());
        // No FSDP on one chip: nothing gathered. The logits: 4 tokens × 16 × 4 bytes.
        assert_eq!(r.memory.layer.weights_bytes.get(), 0.0);
        assert_eq!(r.memory.logits_bytes.get(), 256.0);
        let transient = (dropped * 8.0).max(256.0);
        assert_eq!(part(&r, MemoryComponent::Transient), transient, "{}", remat.id());
        let kind = if dropped * 8.0 >= 256.0 { Transient::Layer } else { Transient::Logits };
        assert_eq!(r.memory.transient, kind, "{}", remat.id());
    }
}

/// A parallel block never reads the out projection and has one norm: `minimal` keeps
/// x, q, k, v, wi_0, wi_1 (56), `full` rematerialises q, k, v, ctx, wi (56) and one
/// norm (8).
#[test]
fn a_parallel_block_never_reads_its_out_projection() {
    let hw = v5p(&[1, 1, 1]);
    let mut m = tiny(BlockLayout::Parallel);
    m.norm.per_layer = 1;
    let minimal = plan_tiny(&m, &hw, &section(Remat::Minimal, Mesh::default(), 1));
    assert_eq!(part(&minimal, MemoryComponent::Activations), 56.0 * 16.0);
    let full = plan_tiny(&m, &hw, &section(Remat::Full, Mesh::default(), 1));
    assert_eq!(full.memory.layer.rematerialised_bytes.get(), 64.0 * 8.0);
    // `save_out_proj` saves nothing more than `full` there.
    let out = plan_tiny(&m, &hw, &section(Remat::SaveOutProj, Mesh::default(), 1));
    assert_eq!(part(&out, MemoryComponent::Activations), part(&full, MemoryComponent::Activations));
}

/// A custom policy: `decoder_layer_input: remat` changes nothing (the scanned layer keeps
/// its input), `offload` moves it to the host; offloaded tensors come back for their
/// layer's backward.
#[test]
fn the_layer_input_is_kept_unless_offloaded() {
    let hw = v5p(&[1, 1, 1]);
    let m = tiny(BlockLayout::Sequential);
    let custom = |input: Placement, q: Placement| {
        Remat::Custom(CustomRemat { decoder_layer_input: input, query_proj: q, ..CustomRemat::default() })
    };
    let remat = plan_tiny(&m, &hw, &section(custom(Placement::Remat, Placement::Remat), Mesh::default(), 1));
    let full = plan_tiny(&m, &hw, &section(Remat::Full, Mesh::default(), 1));
    assert_eq!(remat.memory, full.memory);
    let off = plan_tiny(&m, &hw, &section(custom(Placement::Offload, Placement::Offload), Mesh::default(), 1));
    assert_eq!(part(&off, MemoryComponent::Activations), 0.0);
    // x 8 and q 8 per token-layer on the host: 16 × 2 layers × 4 tokens × 2 bytes.
    assert_eq!(off.memory.offloaded_host_bytes.get(), 256.0);
    // The layer brings back x on top of what `full` recomputes, and q from the host
    // instead of recomputing it: 80 + 8 = 88.
    assert_eq!(off.memory.layer.rematerialised_bytes.get(), 88.0 * 8.0);
}

/// FSDP over 8 chips: one layer's weights gathered once (in bf16 whatever the stored
/// format), plus its unreduced gradients; no prefetch on one slice.
#[test]
fn the_gathered_layer_is_counted_once() {
    let hw = v5p(&[2, 2, 2]);
    let m = tiny(BlockLayout::Sequential);
    let mut s = section(Remat::Full, Mesh { fsdp: 8, ..Mesh::default() }, 8);
    s.dtypes.weights = shardcalc_core::dtype::DType::Fp32;
    s.dtypes.gradients = shardcalc_core::dtype::DType::Fp32;
    let r = plan_tiny(&m, &hw, &s);
    // A layer: q 8·8, k and v 8·4 each, o 8·8, gate, up and down 8·16 each, two norms 8.
    let layer = (64 + 32 + 32 + 64 + 3 * 128 + 16) as f64;
    assert_eq!(r.memory.layer.weights_bytes.get(), layer * 2.0);
    assert_eq!(r.memory.layer.gradients_bytes.get(), layer * 2.0);
    assert_eq!(r.memory.layer.prefetch_bytes.get(), 0.0);
    // Stored: 2 layers + 16·8 tied embedding + the final norm, over 8 chips, fp32.
    let params = 2.0 * layer + 128.0 + 8.0;
    assert_eq!(part(&r, MemoryComponent::Weights), params / 8.0 * 4.0);
}

/// Over two slices with FSDP across DCN, the next layer's weights are prefetched.
#[test]
fn a_gather_over_dcn_prefetches_the_next_layer() {
    let chip = catalog::get("tpu-v5p").unwrap();
    let axes = Topology::tpu_slice(&[2, 2, 2], 2).resolve(&chip).unwrap();
    let hw = ResolvedHardware { chip, axes };
    let m = tiny(BlockLayout::Sequential);
    let r = plan_tiny(&m, &hw, &section(Remat::Full, Mesh { fsdp: 16, ..Mesh::default() }, 16));
    assert!(r.memory.layer.weights_bytes.get() > 0.0);
    assert_eq!(r.memory.layer.prefetch_bytes, r.memory.layer.weights_bytes);
    let dp = plan_tiny(&m, &hw, &section(Remat::Full, Mesh { dp: 2, fsdp: 8, ..Mesh::default() }, 16));
    assert_eq!(dp.memory.layer.prefetch_bytes.get(), 0.0);
}

/// An MoE layer's `mlpwo` is read (the router's gradient weighs each routed expert's
/// output): `minimal` keeps k·D = 2·8 of it per token.
#[test]
fn an_moe_layer_keeps_its_routed_outputs() {
    let hw = v5p(&[1, 1, 1]);
    let mut m = tiny(BlockLayout::Sequential);
    m.moe = Some(Moe {
        num_experts: 4,
        experts_per_token: 2,
        expert_d_ff: 8,
        shared_experts: 0,
        shared_d_ff: None,
        first_dense_layers: 0,
        every: 1,
        router_bias: false,
    });
    m.mlp.d_ff = 16;
    let minimal = plan_tiny(&m, &hw, &section(Remat::Minimal, Mesh::default(), 1));
    let except_wo = plan_tiny(&m, &hw, &section(Remat::SaveDotExceptMlp, Mesh::default(), 1));
    // minimal − save_dot_except_mlp = wi_0 + wi_1 (k·F = 16 each) + mlpwo (k·D = 16).
    let diff = part(&minimal, MemoryComponent::Activations) - part(&except_wo, MemoryComponent::Activations);
    assert_eq!(diff, 48.0 * 2.0 * 4.0 * 2.0);
}

/// The reserve: a configuration that fills more than HBM × (1 − reserve) does not fit.
#[test]
fn the_reserve_refuses_what_fills_it() {
    let hw = v5p(&[2, 2, 2]);
    let m = shardcalc_core::presets::get("llama-3-8b").unwrap().config;
    let mut s = TrainingSection::new(GlobalBatch::Sequences(16), 4096);
    s.mesh = Some(Mesh { fsdp: 8, ..Mesh::default() });
    s.remat = Remat::Minimal;
    let r = plan_tiny(&m, &hw, &s);
    let used = r.memory.per_device_bytes.get() / r.memory.capacity_bytes.get();
    assert!(r.memory.fits && used > 0.1 && used < 0.9, "{used}");
    assert_eq!(r.memory.reserved_bytes.get(), 0.05 * 96e9);
    s.reserved_hbm_fraction = 1.0 - used * 1.001;
    assert!(plan_tiny(&m, &hw, &s).memory.fits);
    s.reserved_hbm_fraction = 1.0 - used * 0.999;
    let refused = plan_tiny(&m, &hw, &s);
    assert!(!refused.memory.fits && refused.memory.headroom_bytes.get() < 0.0);
    s.reserved_hbm_fraction = 1.5;
    let e = plan(&m, &hw, &s, FlopConvention::MaxText).unwrap_err();
    assert_eq!(e.0[0].field, "training.reserved_hbm_fraction");
}
