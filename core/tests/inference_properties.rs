//! Property tests of the serving model, as loops over seeded pseudo-random inputs (no
//! extra dev-dependency, like `properties.rs`): the decode step never gets faster with
//! more batch or more context, KV bytes grow linearly with tokens up to the window caps,
//! and no input panics — every report is finite or an error naming a field.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use serde_json::{json, Value};
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::catalog;
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::inference::options::{CommsOverlap, KvSharding, ServingDtypes, ServingSharding};
use shardcalc_core::inference::setup::ServingSetup;
use shardcalc_core::kv_cache::{kv_bytes_per_sequence, kv_bytes_per_token};
use shardcalc_core::model::LayerKind;
use shardcalc_core::presets;
use shardcalc_core::report::evaluate;
use shardcalc_core::scenario::Scenario;

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
}

const CHIPS: [&str; 5] = ["tpu-v5e", "tpu-v5p", "tpu-v6e", "h100-sxm", "mi300x"];
const DTYPES: [DType; 4] = [DType::Bf16, DType::Fp8, DType::Int8, DType::Int4];

fn random_setup(r: &mut Rng) -> ServingSetup {
    loop {
        let preset = r.pick(presets::all());
        let chip = catalog::get(r.pick(&CHIPS)).unwrap();
        // Any axis sizes, including ones that do not divide the heads (3, 5, 6, 7).
        let shape: Vec<u64> = match chip.scale_up.fabric {
            shardcalc_core::hardware::chip::Fabric::Torus { dims, .. } => {
                (0..dims.min(2)).map(|_| 1 + r.below(8)).collect()
            }
            _ => vec![1 + r.below(chip.scale_up.max_chips)],
        };
        let Ok(axes) = Topology::tpu_slice(&shape, 1).resolve(&chip) else { continue };
        let names: Vec<String> = axes.iter().map(|a| a.name.clone()).collect();
        let sharding = ServingSharding {
            kv: r.pick(&[KvSharding::Batch, KvSharding::Sequence, KvSharding::Replicate]),
            ..ServingSharding::default()
        };
        let dtypes = ServingDtypes {
            weights: r.pick(&DTYPES),
            kv: r.pick(&DTYPES),
            activations: r.pick(&DTYPES),
            compute: DType::Bf16,
        };
        let overlap = r.pick(&[CommsOverlap::Full, CommsOverlap::None]);
        if let Ok(s) = ServingSetup::new(&preset.config, &chip, &axes, &names, &sharding, dtypes, overlap) {
            return s;
        }
    }
}

#[test]
fn step_time_is_non_decreasing_in_batch_and_context() {
    let mut r = Rng(0x5e12_0001);
    for _ in 0..300 {
        let s = random_setup(&mut r);
        let context = 1 + r.below(1 << 17);
        let mut last = 0.0;
        for b in [1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 32.0, 100.0, 240.0, 1000.0, 4096.0] {
            let t = s.decode(b, context, 1.0).unwrap().time.step_time_s.get();
            assert!(t.is_finite() && t >= last * (1.0 - 1e-12), "{}: batch {b}: {t} < {last}", s.model.name);
            last = t;
        }
        let batch = (1 + r.below(512)) as f64;
        let mut last = 0.0;
        for c in [1_u64, 7, 128, 1000, 4096, 8192, 32_768, 131_072, 1 << 20] {
            let t = s.decode(batch, c, 1.0).unwrap().time.step_time_s.get();
            assert!(t.is_finite() && t >= last * (1.0 - 1e-12), "{}: context {c}: {t} < {last}", s.model.name);
            last = t;
        }
    }
}

#[test]
fn kv_bytes_are_linear_in_tokens_up_to_window_caps() {
    for p in presets::all() {
        let m = &p.config;
        for dtype in DTYPES {
            let per_token = kv_bytes_per_token(m, dtype).get();
            let has_local = m.layout.pattern.contains(&LayerKind::Local);
            let mut last = 0.0;
            for t in [1_u64, 2, 100, 1024, 4096, 8192, 65_536, 1 << 20] {
                let b = kv_bytes_per_sequence(m, t, dtype).get();
                if has_local {
                    // Never above the uncapped cache, never shrinking, and linear again
                    // once every window is full (the increment is the global layers').
                    assert!(b <= per_token * t as f64 * (1.0 + 1e-12) && b >= last, "{}", p.id);
                    let (big, bigger) = (1_u64 << 22, 1_u64 << 23);
                    let inc =
                        kv_bytes_per_sequence(m, bigger, dtype).get() - kv_bytes_per_sequence(m, big, dtype).get();
                    let inc2 = kv_bytes_per_sequence(m, 2 * bigger - big, dtype).get()
                        - kv_bytes_per_sequence(m, bigger, dtype).get();
                    assert!((inc - inc2).abs() <= 1e-9 * inc, "{}", p.id);
                } else {
                    assert!((b - per_token * t as f64).abs() <= 1e-9 * b, "{}: {t} tokens", p.id);
                }
                last = b;
            }
        }
    }
}

fn nasty_u64(r: &mut Rng) -> Value {
    if r.below(5) == 0 {
        r.pick(&[json!(0), json!(1_u64 << 30), json!(1_u64 << 40), json!(u64::MAX)])
    } else {
        r.pick(&[json!(1), json!(3), json!(7), json!(100), json!(8192), json!(100_000)])
    }
}

fn nasty_f64(r: &mut Rng) -> Value {
    if r.below(5) == 0 {
        r.pick(&[json!(0.0), json!(-1.0), json!(2.0), json!(1e300)])
    } else {
        r.pick(&[json!(1e-300), json!(0.01), json!(0.4), json!(0.9), json!(1.0)])
    }
}

fn random_inference(r: &mut Rng) -> Value {
    let mut i = json!({"prompt_len": nasty_u64(r), "output_len": nasty_u64(r)});
    let optional = [
        ("batch", nasty_u64(r)),
        ("request_rate", nasty_f64(r)),
        ("reserved_hbm_fraction", nasty_f64(r)),
        ("price_per_chip_hour_usd", nasty_f64(r)),
        ("kv_context", json!(r.pick(&["full", "mean"]))),
        ("comms_overlap", json!(r.pick(&["full", "none"]))),
        ("working_memory", json!(r.pick(&["activations", "ignored"]))),
        (
            "dtypes",
            json!({"weights": r.pick(&["bf16", "int8", "int4", "fp32"]), "compute": r.pick(&["bf16", "int8", "fp8"])}),
        ),
        ("prefill", json!({"mfu": nasty_f64(r), "chunk": nasty_u64(r)})),
        (
            "sharding",
            json!({"kv": r.pick(&["batch", "sequence", "replicate"]), "model_axes": r.pick(&[json!(["x"]), json!(["q"]), json!([])])}),
        ),
        (
            "speculative",
            json!({"draft_len": nasty_u64(r), "acceptance": nasty_f64(r), "draft": {"cost_ratio": nasty_f64(r)}}),
        ),
    ];
    for (key, v) in optional {
        if r.below(2) == 0 {
            i[key] = v;
        }
    }
    i
}

/// Every number in `v` (serde_json writes NaN and infinities as `null`).
fn assert_finite(v: &Value, path: &str) {
    match v {
        Value::Null => panic!("{path} is null (NaN or infinite)"),
        Value::Number(n) => assert!(n.as_f64().is_some_and(f64::is_finite), "{path} = {n}"),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| assert_finite(x, &format!("{path}[{i}]"))),
        Value::Object(o) => o.iter().for_each(|(k, x)| assert_finite(x, &format!("{path}.{k}"))),
        _ => {}
    }
}

#[test]
fn no_panic_and_finite_or_named_error_for_any_input() {
    let mut r = Rng(0x5e12_0002);
    let (mut ok, mut err) = (0, 0);
    for _ in 0..300 {
        let preset = r.pick(presets::all()).id.clone();
        let mut s = json!({
            "model": {"preset": preset},
            "workload": {"per_device_batch": 1, "seq_len": 16},
            "hardware": {"chip": {"preset": r.pick(&CHIPS)}},
            "inference": random_inference(&mut r),
        });
        if r.below(3) > 0 {
            let n = 1 + r.below(8);
            s["hardware"]["topology"] = json!({"axes": [{"name": "x", "size": n}]});
        }
        let Ok(scenario) = serde_json::from_value::<Scenario>(s.clone()) else { continue };
        match evaluate(&scenario) {
            Ok(report) => {
                ok += 1;
                assert_finite(&serde_json::to_value(&report).unwrap()["inference"], "inference");
            }
            Err(e) => {
                err += 1;
                for f in &e.0 {
                    assert!(
                        f.field.starts_with("inference") || f.field.starts_with("hardware"),
                        "{s}: unexpected field {}",
                        f.field
                    );
                }
            }
        }
    }
    assert!(ok > 10 && err > 10, "both paths exercised: {ok} ok, {err} errors");
}
