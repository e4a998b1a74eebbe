//! Property tests of the training planner, as loops over seeded pseudo-random inputs
//! (no extra dev-dependency): the search's best equals brute force on small cases;
//! more HBM never makes a configuration infeasible; a step is never shorter than its
//! compute roofline and its breakdown adds up; no input panics — every result is
//! finite or an error naming a `training.` or `hardware.` field.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use shardcalc_core::collectives::Network;
use shardcalc_core::dtype::DType;
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::catalog;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::hardware::topology::{AxisSpec, Topology};
use shardcalc_core::model::ModelConfig;
use shardcalc_core::presets;
use shardcalc_core::training::mesh::{mesh_of, Mesh, NetworkSplit, Parallelism, NETWORKS};
use shardcalc_core::training::optimizer::{Optimizer, ZeroStage};
use shardcalc_core::training::pipeline::{Pipeline, Schedule};
use shardcalc_core::training::placement::{scaled_axes, CostCache};
use shardcalc_core::training::plan;
use shardcalc_core::training::report::TrainingReport;
use shardcalc_core::training::search::{divides_model, search, Limits};
use shardcalc_core::training::section::{GlobalBatch, SearchOptions, TrainingSection};
use shardcalc_core::training::setup::{MeshContext, Setup};
use shardcalc_core::training::space::{pipelines, space};
use shardcalc_core::training::step::{evaluate, Microbatch};
use shardcalc_core::training::tensors::{CustomRemat, Placement, Remat, RematCost};

/// xorshift64*: deterministic, seedable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize].clone()
    }
    fn f(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn model(id: &str) -> ModelConfig {
    presets::get(id).unwrap().config
}

fn hw(chip: &str, axes: Vec<AxisSpec>) -> ResolvedHardware {
    let chip = catalog::get(chip).unwrap();
    let axes = Topology { axes }.resolve(&chip).unwrap();
    ResolvedHardware { chip, axes }
}

fn up(name: &str, size: u64) -> AxisSpec {
    AxisSpec::new(name, size, Network::ScaleUp)
}

/// Small topologies with every kind of network.
fn small_topologies() -> Vec<(&'static str, Vec<AxisSpec>)> {
    vec![
        ("tpu-v5p", vec![up("x", 2), up("y", 2), up("z", 2)]),
        ("tpu-v5e", vec![up("x", 4), up("y", 4)]),
        ("tpu-v5e", vec![up("x", 2), up("y", 4), AxisSpec::new("dcn", 2, Network::ScaleOut)]),
        ("h100-sxm", vec![up("nvlink", 8), AxisSpec::new("ib", 2, Network::ScaleOut)]),
        ("tpu-v7x", vec![up("x", 2), up("y", 2), AxisSpec::new("core", 2, Network::DieToDie)]),
    ]
}

/// Every split of each network's devices over its allowed axes, no pruning.
fn all_splits(capacity: [u64; 3]) -> Vec<NetworkSplit> {
    let mut out = vec![[[1u64; 6]; 3]];
    for (n, network) in NETWORKS.iter().enumerate() {
        let allowed = Parallelism::order_on(*network);
        let mut next = Vec::new();
        for split in &out {
            let mut stack = vec![(0usize, capacity[n], *split)];
            while let Some((k, left, s)) = stack.pop() {
                let Some(axis) = allowed.get(k) else {
                    if left == 1 {
                        next.push(s);
                    }
                    continue;
                };
                for d in 1..=left {
                    if left % d == 0 {
                        let mut t = s;
                        t[n][*axis as usize] = d;
                        stack.push((k + 1, left / d, t));
                    }
                }
            }
        }
        out = next;
    }
    out
}

/// The search's best equals brute force over every mesh, ZeRO stage, schedule (with its
/// virtual stages), microbatch count and policy of its space, with none of its pruning
/// (identical variants, dominated ZeRO-1, the state bound), and it evaluates no more.
#[test]
fn search_best_equals_brute_force_on_small_cases() {
    let models = ["llama-3-8b", "mixtral-8x7b", "qwen3-30b-a3b", "gemma-3-27b"];
    let mut r = Rng(0x7ea1_0001);
    for (chip, axes) in small_topologies() {
        for id in models {
            let m = model(id);
            let h = hw(chip, axes.clone());
            let mut section =
                TrainingSection::new(GlobalBatch::Sequences(r.pick(&[8, 12, 32, 64])), r.pick(&[1024, 4096]));
            section.search = Some(SearchOptions {
                schedules: r.pick(&[None, Some(vec![Schedule::Gpipe, Schedule::Interleaved])]),
                max_virtual_stages: Some(r.pick(&[2, 4, 64])),
                ..SearchOptions::default()
            });
            let setup = section.setup(&m, &h, FlopConvention::MaxText).unwrap();
            let sp = space(&setup, &section);
            let costs: Vec<RematCost> = sp.policies.iter().map(|(_, c)| *c).collect();
            let limits = Limits { top: 1, microbatches: None, max_microbatches: 64 };
            let mut cache = CostCache::new(scaled_axes(&h.axes, 1.0, 1.0));
            let found = search(&setup, &mut cache, &costs, &sp.choices, &limits);

            let mut evaluated = 0u64;
            let mut best: Option<(f64, f64, f64)> = None;
            let mut fitting: Vec<(f64, f64)> = Vec::new();
            let c = &sp.choices;
            for split in all_splits(setup.capacity) {
                let mesh = mesh_of(&split);
                if !divides_model(&setup, &mesh.degrees()) {
                    continue;
                }
                // Every ZeRO stage and every schedule, wherever they are the same.
                let schedules = pipelines(&c.schedules, c.max_virtual_stages, setup.profile.layers, mesh.pp.max(2));
                for (zero, pipeline) in c.zero_stages.iter().flat_map(|z| schedules.iter().map(move |p| (*z, *p))) {
                    let mut vs = setup.clone();
                    vs.options.zero = zero;
                    vs.options.pipeline = pipeline;
                    if mesh.pp * pipeline.chunks() > setup.profile.layers {
                        continue;
                    }
                    let v = pipeline;
                    let Some(mc) = MeshContext::new(&vs, &mut cache, &split) else { continue };
                    for mb_count in 1..=mc.sequences_per_shard.min(64) {
                        if mc.sequences_per_shard % mb_count != 0 || !v.takes_microbatches(mesh.pp, mb_count) {
                            continue;
                        }
                        let mb = Microbatch::new(&vs, &cache, &mc, mb_count);
                        for cost in &costs {
                            let s = evaluate(&vs, &mc, &mb, cost);
                            evaluated += 1;
                            if s.fits && s.step_time.is_finite() {
                                let key = (
                                    (s.step_time * 1e9).round(),
                                    s.comm.iter().map(|c| c.time).sum(),
                                    s.memory.total(),
                                );
                                if best.is_none_or(|b| key < b) {
                                    best = Some(key);
                                }
                                fitting.push((key.0, key.2));
                            }
                        }
                    }
                }
            }
            assert!(found.evaluated <= evaluated, "{id} on {chip} {axes:?}");
            let got = found.top.first().map(|c| (c.rank, c.comm, c.memory));
            assert_eq!(got, best, "{id} on {chip} {axes:?}");
            // The Pareto front too: every fitting (step, memory) no other beats on both.
            let mut front: Vec<(f64, f64)> = fitting
                .iter()
                .filter(|(t, m)| !fitting.iter().any(|(t2, m2)| t2 <= t && m2 <= m && (t2 < t || m2 < m)))
                .copied()
                .collect();
            front.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.total_cmp(&b.0)));
            front.dedup();
            let got: Vec<(f64, f64)> = found.pareto.iter().map(|c| (c.rank, c.memory)).collect();
            assert_eq!(got, front, "{id} on {chip} {axes:?}");
        }
    }
}

fn random_mesh(r: &mut Rng, setup: &Setup) -> Option<Mesh> {
    let splits: Vec<NetworkSplit> =
        all_splits(setup.capacity).into_iter().filter(|s| divides_model(setup, &mesh_of(s).degrees())).collect();
    if splits.is_empty() {
        return None;
    }
    Some(mesh_of(&r.pick(&splits)))
}

fn scaled_hbm(h: &ResolvedHardware, factor: f64) -> ResolvedHardware {
    let mut chip = h.chip.clone();
    chip.hbm.capacity = chip.hbm.capacity * factor;
    ResolvedHardware { chip, axes: h.axes.clone() }
}

fn random_section(r: &mut Rng, setup_mesh: Option<Mesh>, sequences: u64, seq_len: u64) -> TrainingSection {
    let mut s = TrainingSection::new(GlobalBatch::Sequences(sequences), seq_len);
    s.mesh = setup_mesh;
    s.remat = r.pick(&[Remat::Full, Remat::Minimal, Remat::None, Remat::SaveQkvProj, Remat::SaveDotExceptMlp]);
    s.optimizer = r.pick(&[
        Optimizer::default(),
        Optimizer::Adam { master_weights: true },
        Optimizer::Adafactor { momentum: false },
        Optimizer::Sgd { momentum: true },
    ]);
    s.zero_stage = ZeroStage(r.below(4) as u8);
    s.store_gradients = r.below(2) == 0;
    s
}

#[test]
fn more_hbm_never_makes_a_config_infeasible_and_steps_respect_the_roofline() {
    let mut r = Rng(0x7ea1_0002);
    let models = ["llama-3-8b", "mixtral-8x7b", "deepseek-v3", "llama-3-70b", "gpt-oss-120b"];
    for _ in 0..300 {
        let (chip, axes) = r.pick(&small_topologies());
        let m = model(r.pick(&models));
        let h = hw(chip, axes);
        let (seqs, len) = (r.pick(&[4, 8, 16, 64]), r.pick(&[512, 2048, 8192]));
        let probe = TrainingSection::new(GlobalBatch::Sequences(seqs), len);
        let setup = probe.setup(&m, &h, FlopConvention::MaxText).unwrap();
        let Some(mesh) = random_mesh(&mut r, &setup) else { continue };
        let section = random_section(&mut r, Some(mesh), seqs, len);
        let Ok(small) = plan(&m, &scaled_hbm(&h, 0.05 + r.f()), &section, FlopConvention::MaxText) else { continue };
        let big = plan(&m, &scaled_hbm(&h, 2.0 + 10.0 * r.f()), &section, FlopConvention::MaxText).unwrap();
        assert!(!small.memory.fits || big.memory.fits);
        assert_eq!(small.memory.per_device_bytes, big.memory.per_device_bytes);
        for rep in [&small, &big] {
            check_roofline(rep);
        }
    }
}

fn check_roofline(rep: &TrainingReport) {
    let t = rep.step_time_s.get();
    let b = &rep.breakdown;
    assert!(t.is_finite() && t > 0.0);
    // Never below the model FLOPs at the achievable peak, nor the hardware's.
    assert!(t >= b.model_compute_s.get() * (1.0 - 1e-12), "{t} < {:?}", b.model_compute_s);
    assert!(t >= b.compute_s.get() * (1.0 - 1e-12));
    assert!(rep.mfu <= 1.0 + 1e-12 && rep.hfu >= rep.mfu * (1.0 - 1e-12));
    let parts = b.compute_s.get() + b.exposed_communication_s.get() + b.bubble_s.get() + b.offload_exposed_s.get();
    assert!((parts - t).abs() <= 1e-9 * t, "{parts} vs {t}");
}

#[test]
fn more_hbm_never_shrinks_the_search() {
    let mut r = Rng(0x7ea1_0003);
    for _ in 0..12 {
        let (chip, axes) = r.pick(&small_topologies());
        let m = model(r.pick(&["llama-3-70b", "mixtral-8x22b", "llama-3.1-405b"]));
        let h = hw(chip, axes);
        let section = TrainingSection::new(GlobalBatch::Sequences(r.pick(&[8, 32])), 4096);
        let small = plan(&m, &scaled_hbm(&h, 0.3), &section, FlopConvention::MaxText).unwrap();
        let big = plan(&m, &scaled_hbm(&h, 3.0), &section, FlopConvention::MaxText).unwrap();
        let (s, b) = (small.search.clone().unwrap(), big.search.clone().unwrap());
        assert!(b.feasible >= s.feasible);
        if let (Some(x), Some(y)) = (s.best.first(), b.best.first()) {
            assert!(y.step_time_s.get() <= x.step_time_s.get() * (1.0 + 1e-12));
        }
        check_roofline(&small);
        check_roofline(&big);
    }
}

const NASTY: [f64; 9] = [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300, 1e-300, 0.5, 1.0, 3.0];

/// Whether every number of the report is finite (serde turns NaN into null, so a
/// null outside the documented optional keys is a failure).
fn all_finite(v: &serde_json::Value, key: &str) -> bool {
    const OPTIONAL: [&str; 12] = [
        "token_budget",
        "steps",
        "days",
        "chip_hours",
        "price_per_chip_hour_usd",
        "cost_usd",
        "dcn",
        "compute_bound_fsdp",
        "axis",
        "largest_loss",
        "dtype",
        "search",
    ];
    match v {
        serde_json::Value::Null => OPTIONAL.contains(&key),
        serde_json::Value::Number(n) => n.as_f64().is_some_and(f64::is_finite),
        serde_json::Value::Array(a) => a.iter().all(|x| all_finite(x, key)),
        serde_json::Value::Object(o) => o.iter().all(|(k, x)| all_finite(x, k)),
        _ => true,
    }
}

#[test]
fn no_input_panics_and_every_result_is_finite_or_names_its_field() {
    let mut r = Rng(0x7ea1_0004);
    let chips: Vec<String> = catalog::all().iter().map(|c| c.id.clone()).collect();
    let models = ["llama-3-8b", "mixtral-8x7b", "deepseek-v3", "gemma-3-27b", "gpt-oss-120b", "llama-4-scout"];
    for i in 0..1500 {
        let chip = catalog::get(&r.pick(&chips)).unwrap();
        let topo = match chip.scale_up.max_chips {
            n if n >= 64 => Topology::tpu_slice(&[r.pick(&[1, 2, 4]), r.pick(&[1, 2, 4])], r.pick(&[1, 2, 3])),
            _ => Topology::gpu_cluster(r.pick(&[1, 2, 8]).min(chip.scale_up.max_chips), r.pick(&[1, 2, 5])),
        };
        let Ok(axes) = topo.resolve(&chip) else { continue };
        let h = ResolvedHardware { chip, axes };
        let m = model(r.pick(&models));
        // Each field is valid most of the time, so that deeper checks run too.
        let odd = |r: &mut Rng| r.below(20) == 0;
        let tokens = if odd(&mut r) { r.pick(&NASTY) * 1e6 } else { r.pick(&[2e4, 1e6, 4e6]) };
        let sequences = if odd(&mut r) { r.pick(&[0, u64::MAX]) } else { r.pick(&[1, 3, 64, 1000]) };
        let mut s = TrainingSection::new(
            if r.below(2) == 0 { GlobalBatch::Tokens(tokens) } else { GlobalBatch::Sequences(sequences) },
            if odd(&mut r) { r.pick(&[0, u64::MAX]) } else { r.pick(&[1, 7, 4096]) },
        );
        s.token_budget = Some(if odd(&mut r) { r.pick(&NASTY) } else { 1.0 } * 1e12);
        s.efficiency.flops = if odd(&mut r) { r.pick(&NASTY) } else { r.pick(&[1.0, 0.4]) };
        s.efficiency.ici = if odd(&mut r) { f64::NAN } else { r.pick(&[1.0, 0.5]) };
        s.capacity_factor = if odd(&mut r) { r.pick(&NASTY) } else { 1.25 };
        s.price_per_chip_hour_usd = if odd(&mut r) { Some(r.pick(&NASTY)) } else { Some(2.0) };
        s.microbatches =
            if odd(&mut r) { r.pick(&[Some(0), Some(u64::MAX)]) } else { r.pick(&[None, None, Some(1), Some(2)]) };
        s.zero_stage = ZeroStage(if odd(&mut r) { 9 } else { r.pick(&[0, 1, 2, 3]) });
        let schedule = r.pick(&[Schedule::Gpipe, Schedule::OneFOneB, Schedule::Interleaved]);
        let virtual_stages = if schedule == Schedule::Interleaved { r.pick(&[0, 1, 2, 5]) } else { 1 };
        s.pipeline = Pipeline { schedule, virtual_stages };
        s.overlap.tensor = r.below(2) == 0;
        s.overlap.expert = r.below(2) == 0;
        s.overlap.context = r.below(4) != 0;
        s.dtypes.compute =
            if odd(&mut r) { DType::Fp32 } else { r.pick(&[DType::Bf16, DType::Bf16, DType::Fp8, DType::Int8]) };
        s.remat = r.pick(&[
            Remat::Full,
            Remat::Minimal,
            Remat::MinimalOffloaded,
            Remat::Custom(CustomRemat {
                mlpwi_0: Placement::Offload,
                context: Placement::Device,
                ..CustomRemat::default()
            }),
        ]);
        let degrees = [0, 1, 2, 3, 4, 6, 8, u64::MAX];
        s.mesh = match r.below(3) {
            0 => None,
            _ => Some(Mesh::from_degrees([0; 6].map(|_| r.pick(&degrees)))),
        };
        let options = SearchOptions {
            top: if odd(&mut r) { 0 } else { 3 },
            remat: None,
            max_microbatches: if odd(&mut r) { 0 } else { 8 },
            zero_stages: if odd(&mut r) { Some(vec![ZeroStage(5)]) } else { r.pick(&[None, Some(vec![ZeroStage(2)])]) },
            schedules: r.pick(&[None, Some(vec![Schedule::Gpipe]), Some(vec![])]),
            max_virtual_stages: r.pick(&[None, Some(0), Some(3)]),
        };
        s.search = r.pick(&[None, Some(options)]);
        match plan(&m, &h, &s, FlopConvention::MaxText) {
            Ok(rep) => {
                let v = serde_json::to_value(&rep).unwrap();
                assert!(all_finite(&v, ""), "case {i}: non-finite number in {v}");
                check_roofline(&rep);
            }
            Err(e) => {
                for f in &e.0 {
                    assert!(
                        f.field.starts_with("training") || f.field.starts_with("hardware"),
                        "case {i}: error on {}: {}",
                        f.field,
                        f.message
                    );
                }
            }
        }
    }
}

/// A scale-out link under 1 B/s after derating (a 1.5 B/s link at the calibration's DCN
/// fraction is 0.25 B/s) still costs a finite time, in proportion: every exposed second of
/// the step is communication over that link, so the calibrated step is the ideal one over
/// the fraction. Before `collectives::MIN_LINK` the collective refused the link, its time was
/// infinite and the step NaN (no-panic case 714543, seed 0x5eed0007).
#[test]
fn a_derated_link_below_one_byte_per_second_costs_a_finite_time() {
    use shardcalc_core::efficiency::{Calibration, PredictionMode};
    use shardcalc_core::hardware::query::{ChipSource, HardwareSection};
    use shardcalc_core::scenario::ModelSource;
    use shardcalc_core::scenario::Scenario;
    use shardcalc_core::training::replan::replan;
    use shardcalc_core::units::BytesPerSec;
    let mut out = AxisSpec::new("a1", 8, Network::ScaleOut);
    out.link_one_way = Some(BytesPerSec(1.5));
    let die = AxisSpec::new("a0", 2, Network::DieToDie);
    let mut training = TrainingSection {
        global_batch: GlobalBatch::Tokens(37150.45),
        seq_len: 1,
        microbatches: Some(2),
        ..TrainingSection::default()
    };
    training.mesh = Some(Mesh { dp: 2, fsdp: 4, tp: 2, ep: 1, cp: 1, pp: 1 });
    training.efficiency.overlap = 0.45;
    let s = Scenario {
        model: ModelSource::Preset("llama-4-scout".into()),
        hardware: Some(HardwareSection {
            chip: ChipSource::Preset("tpu-v7x".into()),
            topology: Some(Topology { axes: vec![die, out] }),
        }),
        training: Some(training),
        ..Scenario::default()
    };
    let mut s = s;
    s.conventions.prediction = PredictionMode::Ideal;
    let m = s.model.resolve().expect("a preset");
    let h = s.validate_hardware().expect("valid hardware").expect("hardware");
    let shown =
        shardcalc_core::scenario::training_report(&m, Some(&h), &s).expect("plans").expect("a training section");
    // The physical model at peak rates but half the DCN bandwidth: the 1.5 B/s link becomes
    // 0.75 B/s.
    let cal = Calibration { dcn: 0.5, ..Calibration::PEAK };
    let mut section = s.training.clone().expect("a training section");
    section.calibration = Some(cal);
    assert!(section.efficiency.dcn * cal.dcn * 1.5 < 1.0, "the derated link is under 1 B/s");
    let derated = replan(&m, &h, &section, s.conventions.flops, &shown).expect("re-plans");
    let (ideal, slow) = (shown.step_time_s.get(), derated.step_time_s.get());
    assert!(slow.is_finite() && ideal > 1e9, "{ideal} {slow}");
    // Compute (well under a second) is lost in the rounding of ~10^11 s of communication.
    assert!((slow * cal.dcn / ideal - 1.0).abs() < 1e-6, "ideal {ideal} s, derated {slow} s, dcn {}", cal.dcn);
}
