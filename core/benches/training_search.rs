//! The training planner's mesh search on the reference case: LLaMA-3-70B, a
//! 4M-token batch of 4096-token sequences, a full TPU v5p pod (16×20×28 = 8960 chips).
//! The page runs it on every input change and must stay under 50 ms in Chromium
//! (wasm is ~1.5–3× slower than native). `cargo bench -p shardcalc-core`.

use criterion::{criterion_group, criterion_main, Criterion};
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::catalog::get;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::presets;
use shardcalc_core::training::plan;
use shardcalc_core::training::section::{GlobalBatch, TrainingSection};
use std::hint::black_box;

fn llama3_70b_on_a_v5p_pod(c: &mut Criterion) {
    let model = presets::get("llama-3-70b").map(|p| p.config);
    let chip = get("tpu-v5p");
    let (Some(model), Some(chip)) = (model, chip) else { return };
    let Ok(axes) = Topology::tpu_slice(&[16, 20, 28], 1).resolve(&chip) else { return };
    let hw = ResolvedHardware { chip, axes };
    let section = TrainingSection::new(GlobalBatch::Tokens(4_194_304.0), 4096);
    if let Ok(r) = plan(&model, &hw, &section, FlopConvention::MaxText) {
        if let Some(s) = &r.search {
            eprintln!("configurations evaluated: {} ({} meshes, {} fit)", s.evaluated, s.meshes, s.feasible);
        }
    }
    c.bench_function("plan llama-3-70b, 4M tokens, v5p 16x20x28 (search)", |b| {
        b.iter(|| plan(black_box(&model), black_box(&hw), black_box(&section), FlopConvention::MaxText))
    });
}

criterion_group!(benches, llama3_70b_on_a_v5p_pod);
criterion_main!(benches);
