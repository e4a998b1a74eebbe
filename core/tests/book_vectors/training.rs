//! Area `training`: book chapters 5 (DP, FSDP, TP, mixed, between pods, worked
//! problems, Appendix C) and 6 (LLaMA-3-70B), recomputed with
//! `shardcalc_core::training` — its formulas, and where the vector is about a whole
//! run, the planner end to end.

use crate::harness::{assert_area_covered, check, input};
use shardcalc_core::collectives::collective_cost;
use shardcalc_core::flops::{training_flops, FlopConvention, RematPolicy, Workload};
use shardcalc_core::hardware::catalog::get;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::hardware::Chip;
use shardcalc_core::presets;
use shardcalc_core::training::budget::days_to_train;
use shardcalc_core::training::comms::data_parallel_traffic;
use shardcalc_core::training::memory::max_params_pure_dp;
use shardcalc_core::training::mesh::{Mesh, Parallelism};
use shardcalc_core::training::optimizer::{state_bytes_per_param, Optimizer, TrainingDtypes, ZeroStage};
use shardcalc_core::training::plan;
use shardcalc_core::training::report::{Binding, MemoryComponent, TrainingReport};
use shardcalc_core::training::section::{GlobalBatch, TrainingSection};
use shardcalc_core::training::step::{compute_time, Bottleneck};
use shardcalc_core::training::tensors::{CustomRemat, Placement, Remat};
use shardcalc_core::training::thresholds::{fsdp_critical_batch, ici_intensity, tp_max_degree, MixedSharding};
use shardcalc_core::units::Bytes;

const CHECKED: &[&str] = &[
    "TR-10-pods-llama3",
    "TR-dp-layer-times",
    "TR-dp-max-model",
    "TR-ex5.2-memory",
    "TR-ex5.3-5.4-derived",
    "TR-ex5.3-v5p-4096",
    "TR-fig16-threshold",
    "TR-fsdp-llama3-70b-16M",
    "TR-llama3-70b-memory",
    "TR-llama3-70b-pod-time",
    "TR-llama3-70b-sharding",
    "TR-mixed-xopt",
    "TR-scaling-between-pods",
    "TR-tp-threshold",
];

#[test]
fn every_training_vector_is_checked() {
    assert_area_covered("training", CHECKED);
}

fn v5p() -> Chip {
    get("tpu-v5p").unwrap()
}

/// α of one v5p axis from the catalog: 4.59e14 / 1.8e11 = 2550.
fn alpha() -> f64 {
    let c = v5p();
    ici_intensity(c.peak_flops.bf16.get(), c.scale_up.link.bidirectional.get())
}

fn hardware(shape: &[u64], slices: u64) -> ResolvedHardware {
    let chip = v5p();
    let axes = Topology::tpu_slice(shape, slices).resolve(&chip).unwrap();
    ResolvedHardware { chip, axes }
}

/// Bf16 weights, fp32 Adam moments and no stored gradients: the book's 10 bytes/param.
fn book_state(mut s: TrainingSection) -> TrainingSection {
    s.optimizer = Optimizer::Adam { master_weights: false };
    s.dtypes = TrainingDtypes::default();
    s.store_gradients = false;
    s
}

fn plan_on(preset: &str, hw: &ResolvedHardware, s: &TrainingSection) -> TrainingReport {
    plan(&presets::get(preset).unwrap().config, hw, s, FlopConvention::MaxText).unwrap()
}

fn component(r: &TrainingReport, c: MemoryComponent) -> f64 {
    r.memory.breakdown.iter().find(|i| i.component == c).map(|i| i.bytes.get()).unwrap()
}

/// A custom remat policy keeping exactly `kept` of the tensors the backward pass reads
/// (the layer input always: MaxText's scanned layer keeps it whatever `kept` says).
fn keeping(kept: &[&str]) -> Remat {
    let p = |name: &str| if kept.contains(&name) { Placement::Device } else { Placement::Remat };
    Remat::Custom(CustomRemat {
        decoder_layer_input: p("decoder_layer_input"),
        query_proj: p("query_proj"),
        key_proj: p("key_proj"),
        value_proj: p("value_proj"),
        context: p("context"),
        out_proj: p("out_proj"),
        mlpwi_0: p("mlpwi_0"),
        mlpwi_1: p("mlpwi_1"),
        mlpwo: p("mlpwo"),
        ..CustomRemat::default()
    })
}

/// The planner's saved activations of one chip holding a whole batch.
fn one_chip_activations(preset: &str, tokens: f64, seq_len: u64, kept: &[&str]) -> TrainingReport {
    let mut s = book_state(TrainingSection::new(GlobalBatch::Tokens(tokens), seq_len));
    s.mesh = Some(Mesh::default());
    s.remat = keeping(kept);
    plan_on(preset, &hardware(&[1], 1), &s)
}

#[test]
fn tr_10_pods_llama3() {
    // Corrected vector: the book says "about 2 days"; at the 50% MFU of its 17-day
    // estimate it is 3.55 days (2 days would need ~88% MFU). We test 3.55.
    let id = "TR-10-pods-llama3";
    let pods = input(id, "pods") as u64;
    let pod = Topology::tpu_slice(&[16, 20, 28], 1).devices();
    assert_eq!(pod, input(id, "pod_chips"));
    let chips = Topology::tpu_slice(&[16, 20, 28], pods).devices();
    let c = v5p().peak_flops.bf16.get();
    assert_eq!(c, input(id, "C"));
    let flops = input(id, "total_flops");
    check(
        id,
        &[
            ("chips", chips),
            ("B_per_chip", input(id, "batch") / chips),
            ("days_at_mfu", days_to_train(flops, chips, c, input(id, "mfu"))),
            ("days_at_100pct", days_to_train(flops, chips, c, 1.0)),
        ],
    );
}

#[test]
fn tr_dp_layer_times() {
    // One layer's backward pass under pure DP on a ring of 8960 v5p: two gradient
    // AllReduces of 2DF bytes against four matmuls of 2(B/X)DF FLOPs.
    let id = "TR-dp-layer-times";
    let (b, d, f, x) = (input(id, "B"), input(id, "D"), input(id, "F"), input(id, "X") as u64);
    let chip = v5p();
    assert_eq!(chip.scale_up.link.bidirectional.get(), input(id, "W_ici"));
    let axes = Topology::tpu_slice(&[x], 1).resolve(&chip).unwrap();
    let time = |k, v: f64| collective_cost(k, Bytes(v), &axes).unwrap().time.get();
    let grads = 2.0 * d * f * 2.0;
    let t_comms = data_parallel_traffic(grads, grads, ZeroStage(0), &time).backward;
    let t_math = compute_time(8.0 * b * d * f, x as f64, input(id, "C"));
    let bound = b / x as f64 > fsdp_critical_batch(alpha(), 1.0, 2.0);
    check(
        id,
        &[
            ("T_comms", t_comms),
            ("T_math", t_math),
            ("T_layer", t_math.max(t_comms)),
            ("compute_bound", f64::from(u8::from(bound))),
        ],
    );
}

#[test]
fn tr_dp_max_model() {
    let id = "TR-dp-max-model";
    let hbm = v5p().hbm.capacity.get();
    assert_eq!(hbm, input(id, "hbm_bytes"));
    let bytes = state_bytes_per_param(Optimizer::default(), &TrainingDtypes::default(), false, 0.0);
    assert_eq!(bytes, input(id, "bytes_per_param"));
    check(id, &[("max_params", max_params_pure_dp(hbm, bytes))]);
}

#[test]
fn tr_ex5_2_memory() {
    // LLaMA-2 13B, 16M tokens, checkpoints after the three big MLP matmuls (BF, BF, BD).
    // In MaxText's semantics the BD is the layer input, not the down projection's output:
    // the backward pass never reads the latter (a dense layer's `mlpwo` only feeds the
    // residual sum), and the scanned layer always keeps its input. Same bytes.
    let id = "TR-ex5.2-memory";
    let r = one_chip_activations("llama-2-13b", input(id, "B"), 1000, &["mlpwi_0", "mlpwi_1", "mlpwo"]);
    let state = component(&r, MemoryComponent::Weights) + component(&r, MemoryComponent::Optimizer);
    check(id, &[("param_opt_bytes", state), ("activation_bytes", component(&r, MemoryComponent::Activations))]);
}

#[test]
fn tr_ex5_3_5_4_derived() {
    let id = "TR-ex5.3-5.4-derived";
    let (p, chips, c, f) = (input(id, "params"), input(id, "chips"), input(id, "C"), input(id, "F"));
    let step = |b: f64| compute_time(6.0 * p * b, chips, c);
    let mixed = MixedSharding {
        alpha: input(id, "alpha"),
        m_x: 2.0,
        m_y: 1.0,
        d_ff: f,
        weight_bytes: 2.0,
        activation_bytes: 2.0,
    };
    let (b1, b3, b10) = (input(id, "B_1M"), input(id, "B_3M"), input(id, "B_10M"));
    let fsdp_10 = b10 / chips > fsdp_critical_batch(input(id, "alpha"), 3.0, 2.0);
    let mixed_3 = b3 / chips > mixed.critical_batch();
    check(
        id,
        &[
            ("step_s_1M", step(b1)),
            ("step_s_3M", step(b3)),
            ("step_s_10M", step(b10)),
            ("per_chip_1M", b1 / chips),
            ("per_chip_3M", b3 / chips),
            ("per_chip_10M", b10 / chips),
            ("fsdp_compute_bound_10M", f64::from(u8::from(fsdp_10))),
            ("mixed_compute_bound_3M", f64::from(u8::from(mixed_3))),
        ],
    );
}

#[test]
fn tr_ex5_3_v5p_4096() {
    let id = "TR-ex5.3-v5p-4096";
    let chips = Topology::tpu_slice(&[16, 16, 16], 1).devices();
    assert_eq!(chips, input(id, "chips"));
    let section = TrainingSection::new(GlobalBatch::Tokens(input(id, "batch")), input(id, "seq_len") as u64);
    let r = one_chip_activations("llama-2-13b", input(id, "act_batch"), 1000, &["mlpwi_0", "mlpwi_1", "mlpwo"]);
    let activations = component(&r, MemoryComponent::Activations);
    let total = activations + input(id, "param_opt_bytes");
    let mixed = MixedSharding {
        alpha: alpha(),
        m_x: 2.0,
        m_y: 1.0,
        d_ff: input(id, "F"),
        weight_bytes: 2.0,
        activation_bytes: 2.0,
    };
    check(
        id,
        &[
            ("seq_batch", section.sequences() as f64),
            ("total_hbm", chips * v5p().hbm.capacity.get()),
            ("activation_bytes", activations),
            ("total_bytes", total),
            ("fsdp_min_batch", fsdp_critical_batch(alpha(), 3.0, 2.0) * chips),
            ("mixed_B_per_chip_min", mixed.critical_batch()),
            ("fsdp_bytes_per_chip", total / chips),
        ],
    );
}

#[test]
fn tr_fig16_threshold() {
    // Corrected vector: the book prints 1.6e10; the expression it writes evaluates to
    // 1.63e6 tokens (consistent with its figure). We test 1.63e6.
    let id = "TR-fig16-threshold";
    let mixed = MixedSharding {
        alpha: input(id, "alpha"),
        m_x: input(id, "MXMY"),
        m_y: 1.0,
        d_ff: input(id, "F"),
        weight_bytes: 2.0,
        activation_bytes: 2.0,
    };
    check(id, &[("B_total_min", input(id, "N") * mixed.critical_batch())]);
}

#[test]
fn tr_fsdp_llama3_70b_16m() {
    // 6·N·D for LLaMA-3-70B's 70.55B parameters over 15T tokens (the book rounds N to 70e9).
    let id = "TR-fsdp-llama3-70b-16M";
    let m = presets::get("llama-3-70b").unwrap().config;
    let w = Workload { per_device_batch: 1.0, seq_len: 4096, grad_accum: 1, remat: RematPolicy::None };
    let flops = training_flops(&m, &w, FlopConvention::SixNd).per_token().get() * input(id, "tokens");
    let chips = input(id, "batch") / fsdp_critical_batch(alpha(), input(id, "n_axes"), 2.0);
    check(
        id,
        &[
            ("total_flops", flops),
            ("chips", chips),
            ("days", days_to_train(flops, chips, input(id, "C"), input(id, "mfu"))),
        ],
    );
}

#[test]
fn tr_llama3_70b_memory() {
    // 4M tokens on one chip's worth of state: bf16 weights, fp32 Adam, no stored
    // gradients, four D-wide checkpoints per layer (layer input, q — 64 heads of 128
    // are D wide —, attention output, out projection).
    let id = "TR-llama3-70b-memory";
    let r = one_chip_activations(
        "llama-3-70b",
        input(id, "batch"),
        4096,
        &["decoder_layer_input", "query_proj", "context", "out_proj"],
    );
    let (p, o, a) = (
        component(&r, MemoryComponent::Weights),
        component(&r, MemoryComponent::Optimizer),
        component(&r, MemoryComponent::Activations),
    );
    let total = p + o + a;
    let hbm = r.memory.capacity_bytes.get();
    assert_eq!(hbm, input(id, "hbm"));
    let min_chips = total / hbm;
    check(
        id,
        &[
            ("param_bytes", p),
            ("opt_bytes", o),
            ("ckpt_bytes", a),
            ("total_bytes", total),
            ("min_chips", min_chips),
            // The same work on fewer chips takes proportionally longer.
            ("days_on_min_chips", input(id, "days_full_pod") * input(id, "pod_chips") / min_chips),
        ],
    );
}

#[test]
fn tr_llama3_70b_pod_time() {
    let id = "TR-llama3-70b-pod-time";
    let days = days_to_train(input(id, "total_flops"), input(id, "chips"), input(id, "C"), input(id, "mfu"));
    check(id, &[("seconds", days * 86_400.0), ("days", days)]);
}

#[test]
fn tr_llama3_70b_sharding() {
    // End to end: the planner's thresholds for LLaMA-3-70B, B = 4.19e6 tokens of 4096
    // (rounded to 1023 sequences), on a full v5p pod 16×20×28.
    let id = "TR-llama3-70b-sharding";
    let section = TrainingSection::new(GlobalBatch::Tokens(input(id, "B")), input(id, "seq_len") as u64);
    let r = plan_on("llama-3-70b", &hardware(&[16, 20, 28], 1), &section);
    let t = &r.thresholds;
    assert_eq!((r.devices as f64, t.d_ff, t.alpha), (input(id, "N"), input(id, "F"), input(id, "alpha")));
    assert_eq!(t.binding, Binding::MixedFsdpTp, "{}", t.explanation);
    let [lo, hi] = t.mixed.compute_bound_fsdp.unwrap();
    check(
        id,
        &[
            ("seq_batch", r.global_batch_sequences as f64),
            ("B_per_chip", t.batch_per_device),
            ("fsdp_B_per_chip_min", t.fsdp_critical_batch_all_axes),
            ("mixed_B_per_chip_min", t.mixed.critical_batch_per_device),
            ("X_term1", (lo + hi) / 2.0),
            ("X_term2", (hi - lo) / 2.0),
            ("X", hi),
            ("Y", r.devices as f64 / hi),
        ],
    );
}

#[test]
fn tr_mixed_xopt() {
    let id = "TR-mixed-xopt";
    let mixed = MixedSharding {
        alpha: alpha(),
        m_x: input(id, "M_X"),
        m_y: input(id, "M_Y"),
        d_ff: input(id, "F"),
        weight_bytes: 2.0,
        activation_bytes: 2.0,
    };
    let x = mixed.optimal_fsdp(input(id, "B"), input(id, "N"));
    check(id, &[("X_opt", x), ("Y_opt", input(id, "N") / x)]);
}

#[test]
fn tr_scaling_between_pods() {
    let id = "TR-scaling-between-pods";
    let (a, f, n) = (input(id, "alpha"), input(id, "F"), input(id, "pod_chips"));
    let mixed = MixedSharding { alpha: a, m_x: 2.0, m_y: 1.0, d_ff: f, weight_bytes: 2.0, activation_bytes: 2.0 };
    // "We'd use the equation above" with M_X = M_Y for X_opt.
    let even = MixedSharding { m_x: 1.0, m_y: 1.0, ..mixed };
    let x = even.optimal_fsdp(input(id, "batch_3_5M"), n);
    check(
        id,
        &[
            ("Y_max_per_axis", tp_max_degree(a, 1.0, f, 2.0)),
            ("fsdp_max_chips_2M", input(id, "batch_2M") / fsdp_critical_batch(a, input(id, "n_axes"), 2.0)),
            ("mixed_B_per_chip_min", mixed.critical_batch()),
            ("X_fsdp_3_5M", x),
            ("Y_tp_3_5M", n / x),
        ],
    );
}

#[test]
fn tr_tp_threshold() {
    let id = "TR-tp-threshold";
    let (a, a8) = (input(id, "alpha"), input(id, "alpha_int8"));
    let target = input(id, "Y_target");
    check(
        id,
        &[
            ("Y_max_llama3_70b", tp_max_degree(a, 1.0, input(id, "F_llama3_70b"), 2.0)),
            // The F at which the limit reaches Y: the limit is linear in F.
            ("F_min_for_8way", target / tp_max_degree(a, 1.0, 1.0, 2.0)),
            ("Y_max_gemma7b", tp_max_degree(a, 1.0, input(id, "F_gemma7b"), 2.0)),
            // int8: twice the FLOP/s and half the bytes per activation.
            ("Y_max_llama3_70b_int8", tp_max_degree(a8, 1.0, input(id, "F_llama3_70b"), 1.0)),
        ],
    );
}

/// Chapter 6 end to end on the planner: LLaMA-3-70B, 4M tokens of 4096 per step, a
/// full v5p pod, 15T tokens.
#[test]
fn llama3_70b_chapter_end_to_end() {
    let hw = hardware(&[16, 20, 28], 1);
    let mut s = TrainingSection::new(GlobalBatch::Tokens(4_194_304.0), 4096);
    s.token_budget = Some(15e12);
    let r = plan_on("llama-3-70b", &hw, &s);
    // 6.2: about 6.3e24 FLOPs (MaxText's count adds causal attention: within 5%) and
    // 44 days at 40% MFU — the planner's days × MFU is the same amount of work.
    let total = r.model_flops_per_step.get() * r.steps.unwrap();
    assert!((total / 6.3e24 - 1.0).abs() < 0.05, "{total}");
    assert!((r.days.unwrap() * r.mfu / (44.0 * 0.4) - 1.0).abs() < 0.05);
    assert!(r.mfu > 0.4 && r.mfu <= 1.0);
    // 6.3: FSDP alone is comms-bound, mixed FSDP + TP is not; the search uses TP.
    assert_eq!(r.thresholds.binding, Binding::MixedFsdpTp);
    assert!(r.mesh.degrees.tp > 1, "{:?}", r.mesh.degrees);
    let mut fsdp_only = s.clone();
    fsdp_only.mesh = Some(Mesh { fsdp: 560, cp: 16, ..Mesh::default() });
    let f = plan_on("llama-3-70b", &hw, &fsdp_only);
    assert_eq!(
        (f.bound.resource, f.bound.axis),
        (Bottleneck::Communication, Some(Parallelism::Fsdp)),
        "{}",
        f.bound.explanation
    );
    assert!(f.step_time_s.get() > r.step_time_s.get());
    // 6.2: "we're nowhere near being memory bound during training at these scales".
    assert!(r.memory.per_device_bytes.get() < 0.25 * r.memory.capacity_bytes.get());
}
