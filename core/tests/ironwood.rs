//! Ironwood (TPU7x) as its guides describe it (issue 16, item 7): the dual-chiplet
//! die-to-die axis, collectives offloaded to the SparseCores, and fp8 matmuls. Each test
//! checks a count by hand or a statement of the sources (`seeds/ironwood-*.txt`, the Cloud
//! TPU7x docs, MaxText). The blog's case studies are `core/tests/validation/case_studies.rs`.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use shardcalc_core::collectives::{all_gather, Network};
use shardcalc_core::efficiency::calibration::bundled;
use shardcalc_core::efficiency::Calibration;
use shardcalc_core::field;
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::catalog::get;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::hardware::topology::{AxisSpec, Topology};
use shardcalc_core::presets;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::training::mesh::{Mesh, Parallelism};
use shardcalc_core::training::plan;
use shardcalc_core::training::report::TrainingReport;
use shardcalc_core::training::section::{GlobalBatch, TrainingSection};
use shardcalc_core::training::tensors::Remat;
use shardcalc_core::units::Bytes;

/// A 4×4×4 slice of `chip`, each chiplet a device when `chiplets`, over `slices` slices.
fn slice(chip: &str, chiplets: bool, slices: u64) -> ResolvedHardware {
    let chip = get(chip).unwrap();
    let mut t = Topology::tpu_slice(&[4, 4, 4], slices);
    if chiplets {
        t.axes.push(AxisSpec::new("core", 2, Network::DieToDie));
    }
    ResolvedHardware { axes: t.resolve(&chip).unwrap(), chip }
}

fn run(preset: &str, hw: &ResolvedHardware, s: &TrainingSection) -> TrainingReport {
    plan(&presets::get(preset).unwrap().config, hw, s, FlopConvention::MaxText).unwrap()
}

fn comm(r: &TrainingReport, p: Parallelism) -> (f64, f64, bool) {
    r.communication
        .iter()
        .find(|c| c.parallelism == p)
        .map_or((0.0, 0.0, false), |c| (c.time_s.get(), c.exposed_s.get(), c.sparse_core))
}

fn close(got: f64, want: f64, rel: f64, what: &str) {
    assert!((got - want).abs() <= rel * want.abs().max(1e-30), "{what}: got {got}, want {want}");
}

/// The Cloud TPU7x docs give ICI (1.2 TB/s bidirectional over 6 ports) and DCN (100 Gb/s)
/// per chip, and "each TPU7x chip contains two TensorCores": with a die-to-die axis each
/// chiplet is a device and the two share their chip's ports and NICs, so a device's ICI
/// link is 50 GB/s one way and its DCN 6.25 GB/s; the die-to-die link, 6 × 100 GB/s
/// (the guide: "6x faster than the standard ICI"), is the chiplet's own.
#[test]
fn chiplets_share_their_chips_ici_and_dcn() {
    let axes = slice("tpu-v7x", true, 2).axes;
    let link = |name: &str| axes.iter().find(|a| a.name == name).unwrap().link.get();
    assert_eq!((link("x"), link("y"), link("z")), (50e9, 50e9, 50e9));
    assert_eq!(link("dcn"), 12.5e9 / 2.0);
    assert_eq!(link("core"), 600e9);
    let whole = slice("tpu-v7x", false, 2).axes;
    assert_eq!(whole[0].link.get(), 100e9, "one device per chip keeps the chip's links");
    // An AllGather of V over the whole slice: the ICI moves what it moved for whole chips
    // (each chiplet gathers its half at half the rate), then the chiplets exchange halves
    // over the die-to-die link: V/2 more at 600 GB/s.
    let v = Bytes(16e9);
    let chips = all_gather(v, &whole[..3]).unwrap().time.get();
    let chiplets = all_gather(v, &[axes[0].clone(), axes[1].clone(), axes[2].clone(), axes[4].clone()]).unwrap();
    close(chiplets.time.get(), chips + 8e9 / 600e9, 1e-12, "all-gather over chiplets");
}

/// The field that makes every chiplet a device adds the die-to-die axis on Ironwood and is
/// refused, naming itself, on a chip without chiplets.
#[test]
fn the_chiplet_field_adds_the_die_to_die_axis() {
    let mut s = Scenario::default();
    field::apply(&mut s, "hardware.chip", "tpu-v7x").unwrap();
    field::apply(&mut s, "hardware.topology", "4x4x4").unwrap();
    field::apply(&mut s, "hardware.topology.chiplets", "chiplet").unwrap();
    let devices = |s: &Scenario| s.hardware.as_ref().unwrap().topology.as_ref().unwrap().devices();
    assert_eq!(devices(&s), 128.0);
    assert_eq!(field::find("hardware.topology.chiplets").unwrap().text(&s), "chiplet");
    assert!(s.validate().is_ok());
    field::apply(&mut s, "hardware.topology.chiplets", "chip").unwrap();
    assert_eq!(devices(&s), 64.0);
    field::apply(&mut s, "hardware.chip", "tpu-v5p").unwrap();
    let e = field::apply(&mut s, "hardware.topology.chiplets", "chiplet").unwrap_err();
    assert_eq!(e.field, "hardware.topology.chiplets");
    assert!(e.message.contains("no chiplets"), "{e}");
}

/// TP 2 on the die-to-die axis, CP over ICI: an explicit mesh places TP on the chiplets
/// (placement gives the critical-path axis the innermost network first). The search sees
/// the same splits (`training_properties.rs` checks it against brute force over every split
/// of a topology with a die-to-die axis).
#[test]
fn tp2_sits_on_the_die_to_die_axis() {
    let hw = slice("tpu-v7x", true, 1);
    let mut s = TrainingSection::new(GlobalBatch::Sequences(32), 131_072);
    s.mesh = Some(Mesh { fsdp: 32, tp: 2, cp: 2, ..Mesh::default() });
    s.remat = Remat::Full;
    let r = run("llama-3-8b", &hw, &s);
    let on = |p: Parallelism| r.mesh.placement.iter().find(|a| a.axis == p).unwrap().pieces[0].network;
    assert_eq!((on(Parallelism::Tp), on(Parallelism::Cp)), (Network::DieToDie, Network::ScaleUp));
}

/// The Ironwood guide: offloading AllGather and ReduceScatter to the SparseCores "achieved
/// near-perfect overlap between communication and computation". FSDP's gathers shorter
/// than the compute they overlap: driven by the TensorCores, the calibrated `1 − overlap`
/// of them is serialised; offloaded, none. Llama 3 8B on 128 Ironwood chiplets.
#[test]
fn offloaded_gathers_hide_completely() {
    let hw = slice("tpu-v7x", true, 1);
    let c = bundled();
    let mut s = TrainingSection::new(GlobalBatch::Sequences(128), 8192);
    s.mesh = Some(Mesh { fsdp: 128, ..Mesh::default() });
    s.remat = Remat::Full;
    s.calibration = Some(c);
    s.overlap.sparse_core = Some(false);
    let tc = run("llama-3-8b", &hw, &s);
    s.overlap.sparse_core = Some(true);
    let sc = run("llama-3-8b", &hw, &s);
    let (time, exposed, offloaded) = comm(&tc, Parallelism::Fsdp);
    assert!(time < tc.breakdown.compute_s.get() && !offloaded && !tc.sparse_core);
    close(exposed, (1.0 - c.overlap) * time, 1e-9, "TensorCore-driven FSDP exposed");
    assert_eq!((comm(&sc, Parallelism::Fsdp).1, comm(&sc, Parallelism::Fsdp).2, sc.sparse_core), (0.0, true, true));
    close(tc.step_time_s.get() - sc.step_time_s.get(), (1.0 - c.overlap) * time, 1e-9, "step saved");
    assert_eq!(tc.breakdown.compute_s, sc.breakdown.compute_s);
}

/// Offloaded gathers longer than the compute they overlap show their excess over it, and
/// no more: the TensorCores, hiding half, show at least as much (`0.5·t + max(0.5·t − c, 0)
/// ≥ max(t − c, 0)`).
#[test]
fn offloaded_gathers_longer_than_compute_show_their_excess() {
    let hw = slice("tpu-v7x", true, 1);
    let mut s = TrainingSection::new(GlobalBatch::Sequences(128), 256);
    s.mesh = Some(Mesh { fsdp: 128, ..Mesh::default() });
    s.remat = Remat::None;
    s.calibration = Some(Calibration { overlap: 0.5, ..Calibration::PEAK });
    s.overlap.sparse_core = Some(true);
    let sc = run("llama-3-70b", &hw, &s);
    let (time, exposed, _) = comm(&sc, Parallelism::Fsdp);
    let compute = sc.breakdown.compute_s.get();
    assert!(time > compute, "{time} vs {compute}");
    // One microbatch: forward and backward each show their own excess.
    assert!(exposed > 0.0 && exposed < time);
    close(sc.step_time_s.get(), compute + exposed + sc.breakdown.optimizer_s.get(), 1e-9, "step adds up");
    s.overlap.sparse_core = Some(false);
    let tc = run("llama-3-70b", &hw, &s);
    assert!(comm(&tc, Parallelism::Fsdp).1 >= exposed * (1.0 - 1e-12));
}

/// SparseCores are a catalog fact with a source; the option is on by default where the TPU
/// runtime offloads by default (TPU7x: MaxText's xla_flags_library.py), off elsewhere, and
/// refused, naming its field, on a chip without SparseCores (v5e).
#[test]
fn sparse_core_offload_follows_the_chip() {
    for (chip, cores) in
        [("tpu-v4", Some(4)), ("tpu-v5e", None), ("tpu-v5p", Some(4)), ("tpu-v6e", Some(2)), ("tpu-v7x", Some(4))]
    {
        assert_eq!(get(chip).unwrap().sparse_cores.map(|s| s.count), cores, "{chip}");
    }
    assert!(get("h100-sxm").unwrap().sparse_cores.is_none());
    let s = TrainingSection::new(GlobalBatch::Sequences(64), 4096);
    assert!(run("llama-3-8b", &slice("tpu-v7x", false, 1), &s).sparse_core);
    assert!(!run("llama-3-8b", &slice("tpu-v5p", false, 1), &s).sparse_core);
    let mut on = s.clone();
    on.overlap.sparse_core = Some(true);
    assert!(run("llama-3-8b", &slice("tpu-v5p", false, 1), &on).sparse_core);
    let v5e = {
        let chip = get("tpu-v5e").unwrap();
        ResolvedHardware { axes: Topology::tpu_slice(&[8, 8], 1).resolve(&chip).unwrap(), chip }
    };
    let e = plan(&presets::get("llama-3-8b").unwrap().config, &v5e, &on, FlopConvention::MaxText).unwrap_err();
    assert!(
        e.0.iter().any(|f| f.field == "training.overlap.sparse_core" && f.message.contains("no SparseCores")),
        "{e}"
    );
    // Off is always accepted.
    on.overlap.sparse_core = Some(false);
    assert!(plan(&presets::get("llama-3-8b").unwrap().config, &v5e, &on, FlopConvention::MaxText).is_ok());
}

/// FP8 training as MaxText's Qwix recipes run it (`quantization: fp8_full`, the Ironwood
/// recipes'): the decoder layers' weight matmuls (forward and both backward) at the fp8
/// peak — the Cloud TPU7x docs: 4614 TFLOP/s, twice the bf16 2307 — and the rest in bf16:
/// splash attention (a Pallas kernel) and the logits (outside `decoder/.*layers.*`).
/// Llama 3 8B on a 4×4×4 Ironwood at peak rates, 4096 tokens a device: every matmul
/// compute-bound, so by hand the layers' `6·N·T` FLOPs at 4.614e15 and the logits' at
/// 2.307e15.
#[test]
fn fp8_runs_the_layers_weight_matmuls_at_the_fp8_peak() {
    use shardcalc_core::dtype::DType;
    use shardcalc_core::flops::forward_per_token;
    let hw = slice("tpu-v7x", false, 1);
    let mut s = TrainingSection::new(GlobalBatch::Sequences(64), 4096);
    s.mesh = Some(Mesh { fsdp: 64, ..Mesh::default() });
    s.remat = Remat::None;
    s.calibration = Some(Calibration::PEAK);
    let bf16 = run("llama-3-8b", &hw, &s);
    s.dtypes.compute = DType::Fp8;
    let fp8 = run("llama-3-8b", &hw, &s);
    let f = forward_per_token(&presets::get("llama-3-8b").unwrap().config);
    let t = 4096.0;
    let layers = 3.0 * (f.attention_projections + f.mlp) * t;
    let logits = 3.0 * f.unembedding * t;
    close(bf16.breakdown.matmul_s.get(), (layers + logits) / 2.307e15, 1e-9, "bf16 matmuls");
    close(fp8.breakdown.matmul_s.get(), layers / 4.614e15 + logits / 2.307e15, 1e-9, "fp8 matmuls");
    assert_eq!(fp8.breakdown.attention_s, bf16.breakdown.attention_s, "attention stays bf16");
    assert_eq!(fp8.breakdown.elementwise_s, bf16.breakdown.elementwise_s);
    // The MFU is against the compute format's peak (docs/report.md): fp8's here.
    close(fp8.mfu * 4.614e15 * fp8.step_time_s.get(), bf16.mfu * 2.307e15 * bf16.step_time_s.get(), 1e-9, "MFU");
    // A chip without an fp8 path refuses it, naming the field (v4: bf16 only).
    let v4 = {
        let chip = get("tpu-v4").unwrap();
        ResolvedHardware { axes: Topology::tpu_slice(&[4, 4, 4], 1).resolve(&chip).unwrap(), chip }
    };
    let e = plan(&presets::get("llama-3-8b").unwrap().config, &v4, &s, FlopConvention::MaxText).unwrap_err();
    assert!(e.0.iter().any(|f| f.field == "training.dtypes.compute" && f.message.contains("fp8")), "{e}");
}

/// Offloading changes who drives a collective, not what waits for it: EP's AllToAlls on
/// the critical path (the default) are exposed whole either way; overlapped with other
/// microbatches (`overlap.expert`), the SparseCores drive them (MaxText's
/// `moe_sparse_core_offload_targets: ep_collectives`) and they hide like FSDP's gathers.
#[test]
fn offload_moves_the_driver_not_the_dependency() {
    let hw = slice("tpu-v7x", true, 1);
    let mut s = TrainingSection::new(GlobalBatch::Sequences(256), 8192);
    s.mesh = Some(Mesh { fsdp: 16, ep: 8, ..Mesh::default() });
    s.remat = Remat::Full;
    s.calibration = Some(bundled());
    let plan_with = |s: &TrainingSection, sc: bool| {
        let mut s = s.clone();
        s.overlap.sparse_core = Some(sc);
        run("llama-4-scout", &hw, &s)
    };
    for sc in [false, true] {
        let (time, exposed, offloaded) = comm(&plan_with(&s, sc), Parallelism::Ep);
        assert_eq!((exposed, offloaded), (time, false), "critical, sparse_core {sc}");
    }
    s.overlap.expert = true;
    let (tc, sc) = (plan_with(&s, false), plan_with(&s, true));
    let (time, tc_exposed, tc_offloaded) = comm(&tc, Parallelism::Ep);
    let (_, sc_exposed, sc_offloaded) = comm(&sc, Parallelism::Ep);
    assert!(!tc_offloaded && sc_offloaded);
    assert!(sc.breakdown.compute_s.get() > time, "the AllToAlls fit in the compute");
    close(tc_exposed, (1.0 - bundled().overlap) * time, 1e-9, "TensorCore-driven AllToAlls");
    assert_eq!(sc_exposed, 0.0);
}

/// The page's checkbox shows the chip's default until it is ticked or unticked; it shows on
/// chips with SparseCores (and wherever it is set, so a refused setting can be undone).
#[test]
fn the_sparse_core_field_shows_the_chips_default() {
    let f = field::find("training.overlap.sparse_core").unwrap();
    let mut s = Scenario::default();
    field::apply(&mut s, "hardware.chip", "tpu-v7x").unwrap();
    field::apply(&mut s, "hardware.topology", "4x4x4").unwrap();
    assert!(f.applies_to(&s) && f.is_on(&s), "TPU7x offloads by default");
    field::apply(&mut s, "training.overlap.sparse_core", "false").unwrap();
    assert_eq!(s.training.as_ref().unwrap().overlap.sparse_core, Some(false));
    assert!(!f.is_on(&s));
    field::apply(&mut s, "hardware.chip", "tpu-v5e").unwrap();
    assert!(f.applies_to(&s), "set: shown to be undone");
    s.training.as_mut().unwrap().overlap.sparse_core = None;
    assert!(!f.applies_to(&s), "v5e has no SparseCores");
}
