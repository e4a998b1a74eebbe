//! Issue 16, "What the search may choose": EP and CP over the scale-out network, uneven
//! pipeline stages (the largest stage sets the pace and the memory), ZeRO stages,
//! schedules and microbatching searched, and every rule written out.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use shardcalc_core::collectives::Network;
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::catalog::get;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::hardware::topology::{AxisSpec, Topology};
use shardcalc_core::presets;
use shardcalc_core::training::mesh::{Mesh, Parallelism};
use shardcalc_core::training::optimizer::ZeroStage;
use shardcalc_core::training::pipeline::{Pipeline, Schedule};
use shardcalc_core::training::plan;
use shardcalc_core::training::report::{MemoryComponent, TrainingReport};
use shardcalc_core::training::section::{GlobalBatch, SearchOptions, TrainingSection};
use shardcalc_core::training::tensors::Remat;

fn hw(chip: &str, axes: Vec<AxisSpec>) -> ResolvedHardware {
    let chip = get(chip).unwrap();
    let axes = Topology { axes }.resolve(&chip).unwrap();
    ResolvedHardware { chip, axes }
}

fn run(preset: &str, hw: &ResolvedHardware, s: &TrainingSection) -> TrainingReport {
    plan(&presets::get(preset).unwrap().config, hw, s, FlopConvention::MaxText).unwrap()
}

fn part(r: &TrainingReport, c: MemoryComponent) -> f64 {
    r.memory.breakdown.iter().find(|i| i.component == c).unwrap().bytes.get()
}

/// LLaMA 3 8B has 32 layers: over 3 stages they are 11, 11 and 10. The step runs at the
/// pace of 11 layers (compute 11·3/32 of an even split's) and the largest stage holds
/// 11/32 of the layers' weights.
#[test]
fn uneven_stages_run_at_the_pace_of_the_largest() {
    let h = hw("tpu-v5p", vec![AxisSpec::new("x", 3, Network::ScaleUp), AxisSpec::new("y", 4, Network::ScaleUp)]);
    let mut s = TrainingSection::new(GlobalBatch::Sequences(16), 4096);
    s.remat = Remat::Full;
    s.microbatches = Some(4);
    s.mesh = Some(Mesh { fsdp: 4, pp: 3, ..Mesh::default() });
    let three = run("llama-3-8b", &h, &s);
    s.mesh = Some(Mesh { fsdp: 4, tp: 1, dp: 3, ..Mesh::default() });
    s.microbatches = Some(1);
    let flat = run("llama-3-8b", &h, &s);
    // Seconds per executed FLOP on the same 12 chips (the flat mesh pads 16 sequences to
    // 2 on each of its 12 shards; the pipelined one pads nothing).
    let per_flop = |r: &TrainingReport| r.breakdown.compute_s.get() / r.hardware_flops_per_step.get();
    let ratio = per_flop(&three) / per_flop(&flat);
    assert!((ratio - 33.0 / 32.0).abs() < 1e-9, "{ratio}");
    // Weights: the 11-layer stage (plus the larger embedding table) over fsdp = 4.
    let m = presets::get("llama-3-8b").unwrap().config;
    let p = shardcalc_core::params::count_params(&m);
    let get = |c| p.get(c).total.get();
    use shardcalc_core::params::ParamComponent as P;
    let embeddings = get(P::Embedding).max(get(P::Unembedding));
    let layers = p.total.get() - get(P::Embedding) - get(P::Unembedding);
    let expected = (layers * 11.0 / 32.0 + embeddings) / 4.0 * 2.0;
    let w = part(&three, MemoryComponent::Weights);
    assert!((w / expected - 1.0).abs() < 1e-9, "{w} vs {expected}");
}

/// With 32 layers on 6 chips the search may choose 3 or 6 stages (neither divides 32);
/// an interleaved schedule's virtual stages divide the largest stage's layers.
#[test]
fn the_search_tries_uneven_stages_and_equal_chunks() {
    let h = hw("tpu-v5p", vec![AxisSpec::new("x", 6, Network::ScaleUp)]);
    let mut s = TrainingSection::new(GlobalBatch::Sequences(12), 2048);
    s.search = Some(SearchOptions { top: 1000, ..SearchOptions::default() });
    let r = run("llama-3-8b", &h, &s);
    let search = r.search.unwrap();
    let rows: Vec<_> = search.best.iter().chain(&search.pareto).collect();
    assert!(rows.iter().any(|r| r.mesh.pp == 3 || r.mesh.pp == 6), "no uneven pipeline among the fastest 1000");
    for row in &rows {
        if row.pipeline.schedule == Schedule::Interleaved && row.mesh.pp > 1 {
            let largest = 32u64.div_ceil(row.mesh.pp);
            assert_eq!(largest % row.pipeline.virtual_stages, 0, "{row:?}");
            assert_eq!(row.microbatches % row.mesh.pp, 0, "{row:?}");
        }
    }
    assert!(search.constraints.iter().any(|c| c.contains("32 layers") && c.contains("uneven")));
}

/// Two v5p 2×2×2 slices joined over DCN and an 8-expert MoE: EP 8 × CP 2 spans both
/// slices, so one of them crosses the scale-out network (an explicit mesh is laid out
/// there), and the search says DCN may carry both.
#[test]
fn expert_and_context_parallelism_may_cross_the_scale_out_network() {
    let chip = get("tpu-v5p").unwrap();
    let axes = Topology::tpu_slice(&[2, 2, 2], 2).resolve(&chip).unwrap();
    let h = ResolvedHardware { chip, axes };
    let mut s = TrainingSection::new(GlobalBatch::Sequences(16), 4096);
    s.mesh = Some(Mesh { ep: 8, cp: 2, ..Mesh::default() });
    let r = run("mixtral-8x7b", &h, &s);
    let over_dcn = |axis: Parallelism| {
        r.mesh
            .placement
            .iter()
            .filter(|a| a.axis == axis)
            .flat_map(|a| &a.pieces)
            .any(|p| p.network == Network::ScaleOut)
    };
    assert!(over_dcn(Parallelism::Ep) || over_dcn(Parallelism::Cp), "{:?}", r.mesh.placement);
    assert!(r.step_time_s.get().is_finite());
    // The search says which axes DCN may carry.
    s.mesh = None;
    let r = run("mixtral-8x7b", &h, &s);
    let rule = r.search.unwrap().constraints.into_iter().find(|c| c.contains("scale-out")).unwrap();
    assert!(rule.contains("ep") && rule.contains("cp") && rule.contains("never tp"), "{rule}");
}

/// More options never make the best slower: the default search (every ZeRO stage,
/// 1F1B and interleaved) against searches restricted to ZeRO-0 or to 1F1B; and the ZeRO
/// stage and schedule of the best are reported.
#[test]
fn searching_zero_stages_and_schedules_never_loses() {
    let chip = get("tpu-v5e").unwrap();
    let axes = Topology::tpu_slice(&[4, 4], 4).resolve(&chip).unwrap();
    let h = ResolvedHardware { chip, axes };
    for preset in ["llama-3-8b", "mixtral-8x7b"] {
        let mut s = TrainingSection::new(GlobalBatch::Sequences(64), 4096);
        s.search = Some(SearchOptions::default());
        let all = run(preset, &h, &s);
        for restricted in [
            SearchOptions { zero_stages: Some(vec![ZeroStage(0)]), ..SearchOptions::default() },
            SearchOptions { schedules: Some(vec![Schedule::OneFOneB]), ..SearchOptions::default() },
        ] {
            s.search = Some(restricted.clone());
            let fewer = run(preset, &h, &s);
            assert!(all.step_time_s.get() <= fewer.step_time_s.get() * (1.0 + 1e-12), "{preset} {restricted:?}");
        }
        let best = &all.search.as_ref().unwrap().best[0];
        assert_eq!((best.zero_stage, best.pipeline), (all.zero_stage, all.pipeline));
    }
}

/// A plan's ZeRO stage and schedule come from the search when it chose them, not from
/// the section: replanning the shown configuration reproduces it.
#[test]
fn the_chosen_variant_is_the_reported_one() {
    use shardcalc_core::training::replan::replan;
    let chip = get("tpu-v5e").unwrap();
    let axes = Topology::tpu_slice(&[4, 4], 4).resolve(&chip).unwrap();
    let h = ResolvedHardware { chip, axes };
    let m = presets::get("llama-3-8b").unwrap().config;
    let mut s = TrainingSection::new(GlobalBatch::Sequences(64), 4096);
    s.zero_stage = ZeroStage(3);
    s.pipeline = Pipeline { schedule: Schedule::Gpipe, virtual_stages: 1 };
    let shown = plan(&m, &h, &s, FlopConvention::MaxText).unwrap();
    assert!(shown.zero_stage != s.zero_stage || shown.pipeline != s.pipeline, "the search chose the section's own");
    let again = replan(&m, &h, &s, FlopConvention::MaxText, &shown).unwrap();
    assert_eq!(again.step_time_s, shown.step_time_s);
    assert_eq!(again.memory.per_device_bytes, shown.memory.per_device_bytes);
}

/// Every rule is written out with the model's numbers; options are validated by name.
#[test]
fn constraints_are_sentences_and_options_name_their_fields() {
    let h = hw("tpu-v5p", vec![AxisSpec::new("x", 4, Network::ScaleUp), AxisSpec::new("y", 4, Network::ScaleUp)]);
    let mut s = TrainingSection::new(GlobalBatch::Sequences(32), 4096);
    let r = run("llama-3-8b", &h, &s);
    let c = r.search.unwrap().constraints;
    let has = |needle: &str| c.iter().any(|x| x.contains(needle));
    assert!(has("32 query heads") && has("F = 14336") && has("8 K/V heads"), "{c:?}");
    assert!(has("ep = 1") && has("sequence length 4096") && has("32 sequences"), "{c:?}");
    assert!(has("ZeRO stages 0, 1, 2, 3") && has("interleaved") && has("gpipe only when listed"), "{c:?}");
    assert!(has("reserved_hbm_fraction 0.05"), "{c:?}");
    let m = presets::get("llama-3-8b").unwrap().config;
    for (options, field) in [
        (
            SearchOptions { zero_stages: Some(vec![ZeroStage(4)]), ..SearchOptions::default() },
            "training.search.zero_stages[0]",
        ),
        (SearchOptions { zero_stages: Some(vec![]), ..SearchOptions::default() }, "training.search.zero_stages"),
        (SearchOptions { schedules: Some(vec![]), ..SearchOptions::default() }, "training.search.schedules"),
        (
            SearchOptions { max_virtual_stages: Some(0), ..SearchOptions::default() },
            "training.search.max_virtual_stages",
        ),
    ] {
        s.search = Some(options);
        let e = plan(&m, &h, &s, FlopConvention::MaxText).unwrap_err();
        assert!(e.0.iter().any(|f| f.field == field), "{field}: {e}");
    }
}
