//! The training planner's mesh search on issue 4's reference case: LLaMA-3-70B, a
//! 4M-token batch of 4096-token sequences, a full TPU v5p pod (16×20×28 = 8960 chips),
//! and the training page's default (LLaMA 3 8B, 2^20 tokens, a 4×4×4 slice). The page runs
//! the search on every input change and must stay under 50 ms in Chromium
//! (tests/web_training.rs times it there); the calibrated variants plan with the physical
//! model, the page's default. `./dev.sh bench training` or
//! `cargo bench -p shardcalc-bench --bench training`.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use criterion::{criterion_group, criterion_main, Criterion};
use shardcalc_core::efficiency::calibration::bundled;
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::catalog::get;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::presets;
use shardcalc_core::training::plan;
use shardcalc_core::training::section::{GlobalBatch, TrainingSection};
use std::hint::black_box;

fn search(c: &mut Criterion, name: &str, preset: &str, shape: &[u64], section: &TrainingSection) {
    let model = presets::get(preset).map(|p| p.config);
    let chip = get("tpu-v5p");
    let (Some(model), Some(chip)) = (model, chip) else { return };
    let Ok(axes) = Topology::tpu_slice(shape, 1).resolve(&chip) else { return };
    let hw = ResolvedHardware { chip, axes };
    if let Ok(r) = plan(&model, &hw, section, FlopConvention::MaxText) {
        if let Some(s) = &r.search {
            eprintln!("{name}: configurations evaluated: {} ({} meshes, {} fit)", s.evaluated, s.meshes, s.feasible);
        }
    }
    c.bench_function(name, |b| {
        b.iter(|| plan(black_box(&model), black_box(&hw), black_box(section), FlopConvention::MaxText))
    });
}

fn training_search(c: &mut Criterion) {
    let pod = TrainingSection::new(GlobalBatch::Tokens(4_194_304.0), 4096);
    search(c, "training_search/llama-3-70b_4M_v5p_16x20x28", "llama-3-70b", &[16, 20, 28], &pod);
    search(c, "training_search/llama-3-8b_1M_v5p_4x4x4", "llama-3-8b", &[4, 4, 4], &TrainingSection::default());
    // The calibrated prediction (the page's default since issue 16): the physical model's
    // kernel times per mesh and microbatch count.
    let calibrated = |s: &TrainingSection| TrainingSection { calibration: Some(bundled()), ..s.clone() };
    search(
        c,
        "training_search_calibrated/llama-3-70b_4M_v5p_16x20x28",
        "llama-3-70b",
        &[16, 20, 28],
        &calibrated(&pod),
    );
    search(
        c,
        "training_search_calibrated/llama-3-8b_1M_v5p_4x4x4",
        "llama-3-8b",
        &[4, 4, 4],
        &calibrated(&TrainingSection::default()),
    );
}

/// What the Training page computes on an input change, piece by piece, for its default
/// scenario: the inputs read, the search, the best plan with its budget, the bands. The
/// page's repaint budget (16 ms in Chromium, bench-browser) is spent here first.
fn training_view(c: &mut Criterion) {
    use shardcalc_core::scenario::Scenario;
    use shardcalc_core::view::training::{search, TrainingInputs};
    let s = Scenario::default();
    let inputs = TrainingInputs::of(&s).unwrap();
    let key = inputs.search_key();
    let searched = search(&key);
    let best = inputs.with_budget(&searched).unwrap();
    c.bench_function("training_view/default/inputs", |b| b.iter(|| TrainingInputs::of(black_box(&s))));
    c.bench_function("training_view/default/search", |b| b.iter(|| search(black_box(&key))));
    c.bench_function("training_view/default/with_budget", |b| b.iter(|| inputs.with_budget(black_box(&searched))));
    c.bench_function("training_view/default/bands", |b| b.iter(|| inputs.bands(black_box(&best))));
}

criterion_group!(benches, training_search, training_view);
criterion_main!(benches);
