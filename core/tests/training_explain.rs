//! What the training planner says in words: which of the book's thresholds binds (one
//! setup per case, numbers in the sentence), how a mesh that cannot be planned names the
//! fields it conflicts with and a fix, and that the page's shortcuts (the budget applied
//! to a plan, the search's ranking) agree with the full computation.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use shardcalc_core::error::Invalid;
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::catalog::get;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::presets;
use shardcalc_core::training::budget::apply_budget;
use shardcalc_core::training::mesh::Mesh;
use shardcalc_core::training::pipeline::{Pipeline, Schedule};
use shardcalc_core::training::plan;
use shardcalc_core::training::report::{Binding, TrainingReport};
use shardcalc_core::training::section::{GlobalBatch, TrainingSection};

fn v5p(shape: &[u64], slices: u64) -> ResolvedHardware {
    let chip = get("tpu-v5p").unwrap();
    let axes = Topology::tpu_slice(shape, slices).resolve(&chip).unwrap();
    ResolvedHardware { chip, axes }
}

fn run(preset: &str, hw: &ResolvedHardware, s: &TrainingSection) -> Result<TrainingReport, Invalid> {
    plan(&presets::get(preset).unwrap().config, hw, s, FlopConvention::MaxText)
}

fn tokens(t: f64) -> TrainingSection {
    TrainingSection::new(GlobalBatch::Tokens(t), 4096)
}

/// The four bindings of `thresholds.binding`, each with the sentence quoting its numbers
/// (book 5.1.2: α/3 = 850 on a v5p slice; 5.1.4: 2α²/F ≈ 454 for F = 28,672; 5.1.6: C/W_dcn).
#[test]
fn each_binding_has_its_sentence() {
    // 4M tokens on 64 chips: 65,536 per device, far above α/3 = 850.
    let r = run("llama-3-8b", &v5p(&[4, 4, 4], 1), &tokens(4_194_304.0)).unwrap();
    let t = &r.thresholds;
    assert_eq!(t.binding, Binding::FsdpComputeBound, "{}", t.explanation);
    assert!(
        t.explanation.contains("65536 tokens per device") && t.explanation.contains("α/3 = 850"),
        "{}",
        t.explanation
    );

    // Chapter 6: 468 tokens per device on a full pod: FSDP alone no, FSDP + TP yes.
    let pod = v5p(&[16, 20, 28], 1);
    let r = run("llama-3-70b", &pod, &tokens(4_194_304.0)).unwrap();
    assert_eq!(r.thresholds.binding, Binding::MixedFsdpTp);
    assert!(r.thresholds.explanation.contains("468 tokens per device < α/3 = 850"), "{}", r.thresholds.explanation);
    assert!(r.thresholds.explanation.contains("above 454 per device"), "{}", r.thresholds.explanation);

    // 256K tokens on the pod: 29 per device, below even the mixed limit.
    let r = run("llama-3-70b", &pod, &tokens(262_144.0)).unwrap();
    assert_eq!(r.thresholds.binding, Binding::CommsBound);
    assert!(r.thresholds.explanation.contains("29 tokens per device is below"), "{}", r.thresholds.explanation);

    // Two slices over DCN with 64K tokens: 32,768 per slice, below C/W_dcn ≈ 73k.
    let r = run("llama-3-8b", &v5p(&[4, 4, 4], 2), &tokens(65_536.0)).unwrap();
    let d = r.thresholds.dcn.clone().unwrap();
    assert_eq!(r.thresholds.binding, Binding::Dcn);
    assert!(d.batch_per_slice < d.critical_batch_per_slice);
    assert!(r.thresholds.explanation.contains("32768 tokens per slice"), "{}", r.thresholds.explanation);
}

fn field_error(r: Result<TrainingReport, Invalid>, field: &str) -> String {
    let e = r.expect_err("cannot be planned");
    e.0.iter().find(|f| f.field == field).unwrap_or_else(|| panic!("no error on {field}: {e}")).message.clone()
}

/// Cross-field problems name the other field and say how to fix them.
#[test]
fn a_mesh_that_cannot_be_planned_names_the_conflict_and_a_fix() {
    let hw = v5p(&[4, 4, 4], 1);
    let mut s = tokens(1_048_576.0);
    // LLaMA 3 8B: 32 heads, 8 K/V heads, F = 14,336. TP = 3 divides none of them.
    s.mesh = Some(Mesh { fsdp: 16, tp: 3, ..Mesh::default() });
    let m = field_error(run("llama-3-8b", &hw, &s), "training.mesh");
    assert!(m.contains("48") && m.contains("64 devices") && m.contains("hardware.topology"), "{m}");
    s.mesh = Some(Mesh { fsdp: 8, tp: 8, ..Mesh::default() });
    assert!(run("llama-3-8b", &hw, &s).is_ok());
    s.mesh = Some(Mesh { fsdp: 21, tp: 3, pp: 1, dp: 1, ..Mesh::default() });
    let m = field_error(run("llama-3-8b", &hw, &s), "training.mesh");
    assert!(m.contains("fsdp = ") || m.contains("make the degrees multiply to 64"), "{m}");
    // Product right, TP wrong: the message names the heads and F and lists TP degrees that work.
    let hw96 = v5p(&[4, 4, 6], 1);
    s.mesh = Some(Mesh { fsdp: 32, tp: 3, ..Mesh::default() });
    let m = field_error(run("llama-3-8b", &hw96, &s), "training.mesh.tp");
    assert!(m.contains("model.attention.num_heads") && m.contains("F = 14336") && m.contains("tp = 1, 2, 4, 8"), "{m}");
    // A dense model has no experts to split.
    s.mesh = Some(Mesh { fsdp: 48, ep: 2, ..Mesh::default() });
    assert!(field_error(run("llama-3-8b", &hw96, &s), "training.mesh.ep").contains("model.moe"));
    // More data shards than sequences: the batch is named, with the smallest that works.
    let mut small = TrainingSection::new(GlobalBatch::Sequences(32), 4096);
    small.mesh = Some(Mesh { fsdp: 64, ..Mesh::default() });
    let m = field_error(run("llama-3-8b", &hw, &small), "training.mesh");
    assert!(m.contains("training.global_batch") && m.contains("at least 64 sequences"), "{m}");
    // A microbatch count that does not divide a shard's sequences lists the ones that do.
    small.mesh = Some(Mesh { fsdp: 16, tp: 4, ..Mesh::default() });
    small.microbatches = Some(3);
    let m = field_error(run("llama-3-8b", &hw, &small), "training.microbatches");
    assert!(m.contains("microbatches = 1, 2"), "{m}");
    // Uneven pipeline stages plan (32 layers over 3 stages: 11, 11 and 10, the pace of 11),
    // but not more chunks than layers.
    small.microbatches = None;
    small.mesh = Some(Mesh { fsdp: 21, pp: 3, ..Mesh::default() });
    let hw63 = v5p(&[3, 3, 7], 1);
    assert!(run("llama-3-8b", &hw63, &small).is_ok());
    small.pipeline = Pipeline { schedule: Schedule::Interleaved, virtual_stages: 16 };
    let m = field_error(run("llama-3-8b", &hw63, &small), "training.mesh.pp");
    assert!(m.contains("model.num_layers") && m.contains("pp = 1"), "{m}");
    // The interleaved schedule needs a multiple of the stages' microbatches.
    small.pipeline.virtual_stages = 2;
    small.microbatches = Some(2);
    let m = field_error(run("llama-3-8b", &hw63, &small), "training.microbatches");
    assert!(m.contains("multiple of the stages") && m.contains("microbatches = 3, 6"), "{m}");
}

/// The page changes the budget and price without planning again: the result is the plan's.
#[test]
fn applying_a_budget_later_equals_planning_with_it() {
    let hw = v5p(&[16, 20, 28], 1);
    let mut s = tokens(4_194_304.0);
    let mut later = run("llama-3-70b", &hw, &s).unwrap();
    assert!(later.days.is_none() && later.cost_usd.is_none());
    s.token_budget = Some(15e12);
    s.price_per_chip_hour_usd = Some(2.5);
    let direct = run("llama-3-70b", &hw, &s).unwrap();
    apply_budget(&mut later, s.token_budget, s.price(&hw.chip), s.chip_peak(&hw.chip));
    assert_eq!(later, direct);
    assert!(direct.cost_usd.is_some_and(|c| c > 0.0));
}
