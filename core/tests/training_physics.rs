//! The physical step model's terms (issue 16, items 1-4), each against a count by hand or
//! a source's statement: planned with every rate at its peak (`Calibration::PEAK`), so the
//! only thing between the FLOPs or bytes and the seconds is the chip's catalogue rate.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use shardcalc_core::efficiency::Calibration;
use shardcalc_core::flops::{forward_per_token, FlopConvention};
use shardcalc_core::hardware::catalog::get;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::params::count_params;
use shardcalc_core::presets;
use shardcalc_core::training::mesh::{Mesh, Parallelism};
use shardcalc_core::training::plan;
use shardcalc_core::training::report::TrainingReport;
use shardcalc_core::training::section::{GlobalBatch, TrainingSection};
use shardcalc_core::training::setup::{AttentionKernel, MoeKernel};
use shardcalc_core::training::tensors::Remat;

fn slice(chip: &str, shape: &[u64]) -> ResolvedHardware {
    let chip = get(chip).unwrap();
    let axes = Topology::tpu_slice(shape, 1).resolve(&chip).unwrap();
    ResolvedHardware { chip, axes }
}

/// `sequences` of `seq_len` on `mesh`, one microbatch, `remat`, at peak rates.
fn section(sequences: u64, seq_len: u64, mesh: Mesh, remat: Remat) -> TrainingSection {
    let mut s = TrainingSection::new(GlobalBatch::Sequences(sequences), seq_len);
    s.mesh = Some(mesh);
    s.microbatches = Some(1);
    s.remat = remat;
    s.calibration = Some(Calibration::PEAK);
    s
}

fn run(preset: &str, hw: &ResolvedHardware, s: &TrainingSection) -> TrainingReport {
    plan(&presets::get(preset).unwrap().config, hw, s, FlopConvention::MaxText).unwrap()
}

fn close(got: f64, want: f64, rel: f64, what: &str) {
    assert!((got - want).abs() <= rel * want.abs(), "{what}: got {got}, want {want}");
}

const V5P_PEAK: f64 = 459e12;
const V5P_HBM: f64 = 2.8e12;

/// Item 1: with every dimension a multiple of the MXU and thousands of tokens per device,
/// every matmul is compute-bound and unpadded: the matmul time is exactly the weights'
/// 6·N·T FLOPs (forward and two backward matmuls; `flops::forward_per_token`'s weights,
/// logits included) at the peak. Llama 3 8B on 64 v5p, one 4096-token sequence each.
#[test]
fn aligned_matmuls_run_at_the_sustained_rate() {
    let m = presets::get("llama-3-8b").unwrap().config;
    let f = forward_per_token(&m);
    let weights = f.attention_projections + f.mlp + f.unembedding;
    let r = run(
        "llama-3-8b",
        &slice("tpu-v5p", &[4, 4, 4]),
        &section(64, 4096, Mesh { fsdp: 64, ..Mesh::default() }, Remat::None),
    );
    close(r.breakdown.matmul_s.get(), 3.0 * weights * 4096.0 / V5P_PEAK, 1e-9, "matmul seconds");
    // The roofline beside it counts the same matmuls and attention at the MaxText
    // convention: the calibrated step is slower, never faster.
    assert!(r.roofline.step_time_s < r.step_time_s);
}

/// Item 1: a width that is not a multiple of the MXU pays for the padding. Llama 2 7B's
/// SwiGLU F = 11008 (86 × 128) widened to 11072 (86.5 × 128) runs its MLP's matmuls on
/// 87 × 128 = 11136 columns wherever F is a contracting or output dimension of the
/// 128 × 128 MXU: in eight of its nine matmuls (three matrices, forward and two backward
/// each). In the ninth, W_out's weight gradient `[F, T] × [T, D]`, F is the rows, which
/// only fill 8-row sublane groups: 11072 rows, the useful FLOPs.
#[test]
fn unaligned_widths_pay_for_the_padding() {
    let mut m = presets::get("llama-2-7b").unwrap().config;
    let hw = slice("tpu-v5p", &[4, 4, 4]);
    let s = section(64, 4096, Mesh { fsdp: 64, ..Mesh::default() }, Remat::None);
    let aligned = plan(&m, &hw, &s, FlopConvention::MaxText).unwrap().breakdown.matmul_s.get();
    m.mlp.d_ff = 11072;
    let padded = plan(&m, &hw, &s, FlopConvention::MaxText).unwrap().breakdown.matmul_s.get();
    // Per matmul and unit of F: 2·T·D FLOPs in each of 32 layers.
    let unit = 2.0 * 4096.0 * 4096.0 * 32.0 / V5P_PEAK;
    close(padded - aligned, unit * (8.0 * (11136.0 - 11008.0) + (11072.0 - 11008.0)), 1e-9, "padding");
}

/// Item 2: the Ironwood guide, "for models with head_dim 128 or 64, for the QK product in
/// flash attention, we see 50% or more underutilization of MXU". The same attention on a
/// 256-wide MXU (v6e) takes twice the peak-normalised time of a 128-wide one (v5p).
#[test]
fn head_dim_128_wastes_half_a_256_wide_mxu() {
    let s = section(16, 4096, Mesh { fsdp: 16, ..Mesh::default() }, Remat::None);
    let v6e = run("llama-3-8b", &slice("tpu-v6e", &[4, 4]), &s);
    let v5p = run("llama-3-8b", &slice("tpu-v5p", &[2, 2, 4]), &s);
    let peak = |chip: &str| get(chip).unwrap().peak_flops.bf16.get();
    let ratio = v6e.breakdown.attention_s.get() * peak("tpu-v6e") / (v5p.breakdown.attention_s.get() * peak("tpu-v5p"));
    close(ratio, 2.0, 1e-9, "peak-normalised attention time, v6e over v5p");
}

/// Item 2: splash attention's 512-blocks under a causal mask compute the diagonal blocks
/// whole: at T = 2048, 10 of 16 blocks, 1.25× the T²/2 pairs the MaxText convention
/// counts; backward, the dQ and dK/dV kernels do 7 matmuls to the forward's 2. By hand,
/// Llama 3 8B (32 heads of 128) on 64 v5p, one sequence each, 32 layers:
/// 10·512² pairs × 32 heads × 2·(128 + 128) FLOPs × (1 + 3.5) × 32 layers at the peak.
#[test]
fn causal_splash_attention_by_hand() {
    let r = run(
        "llama-3-8b",
        &slice("tpu-v5p", &[4, 4, 4]),
        &section(64, 2048, Mesh { fsdp: 64, ..Mesh::default() }, Remat::None),
    );
    let want = 10.0 * 512.0 * 512.0 * 32.0 * 2.0 * 256.0 * 4.5 * 32.0 / V5P_PEAK;
    close(r.breakdown.attention_s.get(), want, 1e-9, "attention seconds");
}

/// Item 2: materialised attention computes the whole T × T square and moves 12 bytes per
/// score forward and 18 backward through HBM (efficiency/attention.rs counts them).
#[test]
fn materialized_attention_pays_for_the_score_matrix() {
    let mut s = section(64, 2048, Mesh { fsdp: 64, ..Mesh::default() }, Remat::None);
    s.attention = AttentionKernel::Materialized;
    let r = run("llama-3-8b", &slice("tpu-v5p", &[4, 4, 4]), &s);
    let scores = 2048.0 * 2048.0 * 32.0 * 32.0; // pairs × heads × layers, one sequence
    let want = scores * 2.0 * 256.0 * 4.5 / V5P_PEAK + scores * 30.0 / V5P_HBM;
    close(r.breakdown.attention_s.get(), want, 1e-9, "materialised attention seconds");
}

/// Item 3: the elementwise work per token and layer of Llama 3 8B (d = 4096, q = 4096,
/// k = 1024, SwiGLU F = 14336, two RMSNorms), counted op by op (training/shapes.rs):
/// forward 2·2d + 2(q + k) + 6d + 3F = 94,208 elements, backward 3·2d + 2(q + k) + 6d + 5F
/// = 131,072; `full` re-runs the forward. In bf16 over the v5p's 2.8 TB/s, 4096 tokens a
/// device, 32 layers.
#[test]
fn elementwise_bytes_by_hand_and_their_recompute() {
    let hw = slice("tpu-v5p", &[4, 4, 4]);
    let mesh = Mesh { fsdp: 64, ..Mesh::default() };
    let none = run("llama-3-8b", &hw, &section(64, 4096, mesh, Remat::None));
    let full = run("llama-3-8b", &hw, &section(64, 4096, mesh, Remat::Full));
    let seconds = |elements: f64| elements * 2.0 * 4096.0 * 32.0 / V5P_HBM;
    // Plus the embedding's gather (2d) and scatter-add (3d) and the final norm (2d, 3d).
    let step = (4.0 + 6.0) * 4096.0 * 4096.0 * 2.0 / V5P_HBM;
    close(none.breakdown.elementwise_s.get(), seconds(94_208.0 + 131_072.0) + step, 1e-9, "none");
    close(
        full.breakdown.elementwise_s.get() - none.breakdown.elementwise_s.get(),
        seconds(94_208.0),
        1e-9,
        "recompute",
    );
    // The loss: the logits written and read forward, read and their gradient written
    // backward: 4 × 128,256 elements a token.
    close(none.breakdown.loss_s.get(), 4.0 * 128_256.0 * 2.0 * 4096.0 / V5P_HBM, 1e-9, "loss");
}

/// Item 3: the HBM-bound term is what separates a 920-TFLOP/s, 1.6-TB/s chip (v6e) from a
/// 459-TFLOP/s, 2.8-TB/s one (v5p): the same model and tokens per device spend the same
/// bytes, 1.75× longer on the v6e, while its matmuls run at most 2× faster — so the HBM
/// share of the step is 3.5× the v5p's (the ratio of their FLOP:byte balances).
#[test]
fn hbm_bound_work_separates_v6e_from_v5p() {
    let s = section(32, 4096, Mesh { fsdp: 16, ..Mesh::default() }, Remat::Full);
    let v6e = run("llama-3-8b", &slice("tpu-v6e", &[4, 4]), &s);
    let v5p = run("llama-3-8b", &slice("tpu-v5p", &[2, 2, 4]), &s);
    let hbm = |r: &TrainingReport| r.breakdown.elementwise_s.get() + r.breakdown.loss_s.get();
    close(hbm(&v6e) / hbm(&v5p), 2.8 / 1.6, 1e-9, "HBM-bound seconds, v6e over v5p");
    let matmul = v5p.breakdown.matmul_s.get() / v6e.breakdown.matmul_s.get();
    assert!(matmul <= 920.0 / 459.0 + 1e-9, "the v6e's matmuls at most its peak's ratio faster: {matmul}");
    // The shares' ratio is the balances' (575 over 164 FLOP/B) but for the few matmuls the
    // v6e's balance makes HBM-bound (K/V projections' input gradients contract over 1024).
    let share = |r: &TrainingReport| hbm(r) / r.breakdown.matmul_s.get();
    close(share(&v6e) / share(&v5p), (920.0 / 1.6) / (459.0 / 2.8), 0.01, "HBM share, v6e over v5p");
}

/// Item 3: the optimizer update reads and writes each weight (bf16), reads the gradient
/// twice (bf16), reads and writes both Adam moments (fp32): 24 bytes a parameter of the
/// device's shard, once a step.
#[test]
fn optimizer_update_by_hand() {
    let r = run(
        "llama-3-8b",
        &slice("tpu-v5p", &[4, 4, 4]),
        &section(64, 4096, Mesh { fsdp: 64, ..Mesh::default() }, Remat::Full),
    );
    let params = count_params(&presets::get("llama-3-8b").unwrap().config).total.get();
    close(r.breakdown.optimizer_s.get(), params / 64.0 * 24.0 / V5P_HBM, 1e-9, "optimizer seconds");
}

/// Item 4: Mixtral 8x7B (8 experts, top-2, expert F = 14336) with one expert per device
/// (EP = 8): grouped matmuls compute each device's 2·T rows times the busiest device's
/// load over the mean (uniform routing over 8 devices); padded experts at capacity factor
/// 1.5 compute 1.5 × 2·T rows and two dispatch/combine einsums of 2·S·k·cf·d FLOPs per
/// token each (three times that with the backward). The rows fill 8-row sublane groups,
/// except in each weight gradient, which contracts over them: 128-wide MXU passes.
#[test]
fn grouped_versus_padded_experts() {
    let hw = slice("tpu-v5p", &[4, 4, 4]);
    let mut s = section(64, 4096, Mesh { fsdp: 8, ep: 8, ..Mesh::default() }, Remat::None);
    s.capacity_factor = 1.5;
    let grouped = run("mixtral-8x7b", &hw, &s);
    s.moe_kernel = MoeKernel::Padded;
    let padded = run("mixtral-8x7b", &hw, &s);
    let (t, k, d, fe, layers) = (4096.0, 2.0, 4096.0, 14336.0, 32.0);
    let rows = t * k;
    let imbalance = 1.0 + (2.0 * 8f64.ln() * (1.0 - 1.0 / 8.0) / rows).sqrt();
    // Forward and input gradient at the rows padded to 8, weight gradient padded to 128;
    // three matrices of D × F_e in each of 32 layers.
    let pad = |x: f64, t: f64| (x / t).ceil() * t;
    let experts = |rows: f64| (2.0 * pad(rows, 8.0) + pad(rows, 128.0)) * 2.0 * d * fe * 3.0 * layers / V5P_PEAK;
    assert_eq!((pad(rows * imbalance, 8.0), pad(rows * imbalance, 128.0)), (8368.0, 8448.0));
    close(
        padded.breakdown.matmul_s.get() - grouped.breakdown.matmul_s.get(),
        experts(1.5 * rows) - experts(rows * imbalance),
        1e-9,
        "expert matmuls",
    );
    let einsums = 3.0 * 2.0 * 2.0 * 4096.0 * k * 1.5 * d * t * layers / V5P_PEAK;
    close(padded.breakdown.moe_s.get() - grouped.breakdown.moe_s.get(), einsums, 1e-9, "dispatch einsums");
}

fn gpus(per_domain: u64, domains: u64) -> ResolvedHardware {
    let chip = get("h100-sxm").unwrap();
    let axes = Topology::gpu_cluster(per_domain, domains).resolve(&chip).unwrap();
    ResolvedHardware { chip, axes }
}

/// Item 2 on GPUs: flash attention runs at cuDNN's measured rate (the FlashAttention-3
/// paper's H100 SXM5 figures for head dimension 128 at T = 4096: 518 TFLOP/s causal
/// forward; backward 499 TFLOP/s unmasked, × 518/609 for the causal mask), counted as the
/// paper counts it: 4·T²·d per head forward, halved by the mask, 2.5 times that backward.
/// The kernel's diagonal 128-blocks are inside the measured rate: the time is the
/// convention's FLOPs over it. Llama 2 7B (32 heads of 128, 32 layers) on 8 H100, one
/// sequence each, every rate at its measured standalone value (`mxu` = 1).
#[test]
fn gpu_flash_attention_at_cudnn_s_measured_rate() {
    let r = run("llama-2-7b", &gpus(8, 1), &section(8, 4096, Mesh { fsdp: 8, ..Mesh::default() }, Remat::None));
    let forward = 4.0 * 4096.0 * 4096.0 * 128.0 / 2.0 * 32.0 * 32.0;
    let want = forward / 518e12 + 2.5 * forward / (499e12 * 518.0 / 609.0);
    close(r.breakdown.attention_s.get(), want, 1e-9, "attention seconds");
}

/// XLA's GPU scheduler leaves the weight-gradient reductions exposed (openxla/xla#1539,
/// #45929): on two 8-GPU nodes the step waits for the DP AllReduce and for FSDP's gradient
/// ReduceScatters (a third of FSDP's traffic: the forward and backward AllGathers and the
/// ReduceScatter move the same bf16 bytes), while the AllGathers hide (every rate at its
/// peak: overlap 1); the breakdown still adds up to the step. On two TPU slices the same
/// reductions hide behind the backward pass (the book's "not on the critical path").
#[test]
fn the_gpu_weight_gradient_reductions_wait_for_the_backward_pass() {
    let s = section(16, 4096, Mesh { dp: 2, fsdp: 8, ..Mesh::default() }, Remat::Full);
    let kind = |r: &TrainingReport, p: Parallelism| {
        let c = r.communication.iter().find(|c| c.parallelism == p).unwrap();
        (c.time_s.get(), c.exposed_s.get())
    };
    let gpu = run("llama-2-7b", &gpus(8, 2), &s);
    let (time, exposed) = kind(&gpu, Parallelism::Dp);
    assert!(time > 0.0);
    close(exposed, time, 1e-12, "GPU: DP exposed");
    let (time, exposed) = kind(&gpu, Parallelism::Fsdp);
    close(exposed, time / 3.0, 1e-9, "GPU: FSDP exposed");
    let b = &gpu.breakdown;
    let sum = b.compute_s.get()
        + b.optimizer_s.get()
        + b.exposed_communication_s.get()
        + b.sync_s.get()
        + b.bubble_s.get()
        + b.offload_exposed_s.get();
    close(sum, gpu.step_time_s.get(), 1e-9, "GPU: the breakdown adds up to the step");
    let hw = get("tpu-v5p").unwrap();
    let tpu = ResolvedHardware { axes: Topology::tpu_slice(&[2, 2, 2], 2).resolve(&hw).unwrap(), chip: hw };
    let tpu = run("llama-2-7b", &tpu, &s);
    for p in [Parallelism::Dp, Parallelism::Fsdp] {
        let (time, exposed) = kind(&tpu, p);
        assert!(time > 0.0 && exposed == 0.0, "TPU {p:?}: {exposed} of {time} s exposed");
    }
}
