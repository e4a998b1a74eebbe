//! No panic for any hardware input, at the level of a whole scenario: custom chips with
//! broken numbers, topologies with hostile sizes and overrides, collective queries over
//! missing axes, roofline ops with NaN, ... (what the hardware page can send to core).
//!
//! A scenario that validates must compute every hardware section, with finite,
//! non-negative numbers that survive JSON; one that does not must name fields of the
//! sections it got wrong. `SHARDCALC_HW_CASES` sets the number of cases (default 4000).
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use serde_json::Value;
use shardcalc_core::collectives::query::CollectiveQuery;
use shardcalc_core::collectives::{CollectiveKind, Network};
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::catalog;
use shardcalc_core::hardware::chip::{Chip, ChipFamily};
use shardcalc_core::hardware::query::{ChipSource, HardwareSection};
use shardcalc_core::hardware::topology::{AxisSpec, Topology};
use shardcalc_core::report::evaluate;
use shardcalc_core::report_hardware::hardware_sections;
use shardcalc_core::roofline::matmul::Matmul;
use shardcalc_core::roofline::query::RooflineQuery;
use shardcalc_core::roofline::OpCost;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::units::{Bytes, BytesPerSec, Flops, Seconds};

/// xorshift64*: deterministic and seedable.
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
    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
    /// Log-uniform in [10^lo, 10^hi].
    fn log(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        10f64.powf(lo + u * (hi - lo))
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize].clone()
    }
}

const HOSTILE: [f64; 12] =
    [0.0, -0.0, -1.0, 0.5, 3.0, 1e-300, 5e-324, 1e300, f64::MAX, 18_446_744_073_709_551_616.0, 1e31, 7.0];
const NON_FINITE: [f64; 3] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];

fn number(r: &mut Rng, lo: f64, hi: f64) -> f64 {
    match r.below(24) {
        0 => r.pick(&HOSTILE),
        1 => r.pick(&NON_FINITE),
        _ => r.log(lo, hi),
    }
}

/// Replaces numeric leaves of a chip's JSON with hostile values and drops optional keys.
fn mutate(r: &mut Rng, v: &mut Value) {
    const OPTIONAL: [&str; 11] = [
        "fp8",
        "int8",
        "int4",
        "vector_flops",
        "on_chip",
        "mxu",
        "hop_latency",
        "pcie",
        "chiplets",
        "price_per_chip_hour_usd",
        "bandwidth",
    ];
    match v {
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                if OPTIONAL.contains(&k.as_str()) && r.chance(0.08) {
                    map.remove(&k);
                } else if let Some(child) = map.get_mut(&k) {
                    mutate(r, child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| mutate(r, i)),
        Value::Number(_) if r.chance(0.06) => {
            let x = r.pick(&HOSTILE);
            *v = serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number);
        }
        _ => {}
    }
}

fn chip(r: &mut Rng) -> (ChipSource, Chip) {
    // With provenance: a custom chip starts as "Edit a copy" of a bundled one, sources included.
    let all = catalog::all_with_provenance();
    let base = all[r.below(all.len() as u64) as usize].clone();
    if r.chance(0.4) {
        return (ChipSource::Preset(base.id.clone()), base);
    }
    let mut value = serde_json::to_value(&base).unwrap();
    mutate(r, &mut value);
    let mut c: Chip = serde_json::from_value(value).unwrap_or_else(|_| base.clone());
    c.id = format!("custom-{}", c.id);
    if r.chance(0.7) {
        // Keep the links consistent most of the time, so that many custom chips validate.
        c.scale_up.link.bidirectional = c.scale_up.link.one_way.bidirectional();
        if let Some(p) = c.host.pcie.as_mut() {
            p.bidirectional = p.one_way.bidirectional();
        }
        if let Some(ch) = c.chiplets.as_mut() {
            ch.die_to_die.bidirectional = ch.die_to_die.one_way.bidirectional();
        }
    }
    if r.chance(0.9) {
        // What the page's editor does after removing a part (e.g. `on_chip`).
        c.forget_missing_fields();
    }
    if r.chance(0.05) {
        c.hbm.bandwidth = BytesPerSec(r.pick(&NON_FINITE));
    }
    if r.chance(0.05) {
        c.scale_up.hop_latency = Some(Seconds(r.pick(&NON_FINITE)));
    }
    (ChipSource::Custom(Box::new(c.clone())), c)
}

fn size(r: &mut Rng) -> u64 {
    if r.chance(0.05) {
        r.pick(&[0, u64::MAX, 1 << 40, 1 << 31])
    } else {
        r.pick(&[1, 2, 3, 4, 4, 4, 8, 8, 16, 16, 7])
    }
}

fn topology(r: &mut Rng, chip: &Chip) -> Topology {
    let slices = r.pick(&[1, 1, 1, 2, 4, 1, 2, 0]);
    let mut t = match chip.family {
        ChipFamily::Tpu => {
            let dims = 1 + r.below(3) as usize;
            let shape: Vec<u64> = (0..dims).map(|_| size(r)).collect();
            Topology::tpu_slice(&shape, slices)
        }
        ChipFamily::Gpu => Topology::gpu_cluster(r.pick(&[1, 2, 4, 8, 72, 0]), slices),
    };
    if r.chance(0.15) {
        t.axes.push(AxisSpec::new("d2d", r.pick(&[1, 2, 3]), Network::DieToDie));
    }
    for a in &mut t.axes {
        if r.chance(0.1) {
            a.wraparound = Some(r.chance(0.3));
        }
        if r.chance(0.15) {
            a.link_one_way = Some(BytesPerSec(number(r, 8.0, 12.0)));
        }
        if r.chance(0.15) {
            a.hop_latency = Some(Seconds(number(r, -8.0, -4.0)));
        }
    }
    t
}

fn collectives(r: &mut Rng, t: &Topology) -> Vec<CollectiveQuery> {
    let names: Vec<String> = t.axes.iter().map(|a| a.name.clone()).chain(["nope".to_string()]).collect();
    let mut out = Vec::new();
    for _ in 0..r.below(4) {
        let mut axes: Vec<String> = Vec::new();
        for _ in 0..1 + r.below(3) {
            // Mostly known, distinct axes; sometimes an unknown one or one twice.
            let known = names.len() - usize::from(r.chance(0.95));
            let name = r.pick(&names[..known]);
            if !axes.contains(&name) || r.chance(0.05) {
                axes.push(name);
            }
        }
        out.push(CollectiveQuery { kind: r.pick(&CollectiveKind::ALL), array_bytes: number(r, 0.0, 12.0), axes });
    }
    out
}

fn roofline(r: &mut Rng) -> Option<RooflineQuery> {
    let dtypes = DType::ALL;
    match r.below(3) {
        0 => None,
        1 => Some(RooflineQuery::Matmul(Matmul {
            b: number(r, 0.0, 6.0),
            d: number(r, 1.0, 5.0),
            f: number(r, 1.0, 5.0),
            lhs: r.pick(&dtypes),
            rhs: r.pick(&dtypes),
            out: r.pick(&dtypes),
            compute: r.pick(&[DType::Bf16, DType::Bf16, DType::Int8, DType::Fp8, DType::Int4, DType::Fp32]),
        })),
        _ => Some(RooflineQuery::Op(OpCost {
            flops: Flops(number(r, 6.0, 15.0)),
            hbm_bytes: Bytes(number(r, 3.0, 12.0)),
            ici_bytes: Bytes(if r.chance(0.5) { 0.0 } else { number(r, 3.0, 12.0) }),
            ici_links: if r.chance(0.7) { 1.0 } else { number(r, 0.0, 1.0) },
            dcn_bytes: Bytes(if r.chance(0.6) { 0.0 } else { number(r, 3.0, 12.0) }),
            host_bytes: Bytes(if r.chance(0.6) { 0.0 } else { number(r, 3.0, 12.0) }),
            dtype: r.pick(&[DType::Bf16, DType::Bf16, DType::Bf16, DType::Int8, DType::Fp8, DType::Int4, DType::Fp32]),
        })),
    }
}

/// Keys whose value may be absent (`None` serializes as null).
const OPTIONAL_KEYS: [&str; 16] = [
    "fp8",
    "int8",
    "int4",
    "vector_flops",
    "on_chip",
    "mxu",
    "count",
    "hop_latency",
    "pcie",
    "chiplets",
    "price_per_chip_hour_usd",
    "intensity",
    "critical_batch",
    "links",
    "bandwidth",
    "matmul",
];

/// Every number in `v` is present (not null: JSON has no NaN or infinity, so a NaN
/// serializes as null) and not negative; only optional keys may be null.
fn all_finite_non_negative(v: &Value, path: &str) -> Result<(), String> {
    let key = path.rsplit('.').next().unwrap_or(path);
    match v {
        Value::Null if OPTIONAL_KEYS.contains(&key) && !path.contains("hbm") => Ok(()),
        Value::Null => Err(format!("{path} is null (NaN or infinity)")),
        Value::Number(n) if n.as_f64().is_some_and(|x| x < 0.0) => Err(format!("{path} = {n} is negative")),
        Value::Array(items) => {
            items.iter().enumerate().try_for_each(|(i, x)| all_finite_non_negative(x, &format!("{path}[{i}]")))
        }
        Value::Object(map) => map.iter().try_for_each(|(k, x)| all_finite_non_negative(x, &format!("{path}.{k}"))),
        _ => Ok(()),
    }
}

#[test]
fn hardware_scenarios_never_panic() {
    let cases: u64 = std::env::var("SHARDCALC_HW_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(4000);
    let mut r = Rng(0x5eed_4a5d);
    let (mut valid, mut with_custom_chip) = (0, 0);
    for case in 0..cases {
        let (source, chip) = chip(&mut r);
        let topology = (!r.chance(0.1)).then(|| topology(&mut r, &chip));
        let queries = topology.as_ref().map(|t| collectives(&mut r, t)).unwrap_or_default();
        let s = Scenario {
            hardware: Some(HardwareSection { chip: source, topology }),
            collectives: queries,
            roofline: roofline(&mut r),
            ..Scenario::default()
        };
        let outcome = std::panic::catch_unwind(|| match s.validate() {
            Ok(_) => {
                let hw = s.validate_hardware().map_err(|e| format!("validate_hardware after validate: {e}"))?;
                let hw = hw.ok_or("no hardware resolved")?;
                let has_topology = s.hardware.as_ref().is_some_and(|h| h.topology.is_some());
                let sections = hardware_sections(&hw, has_topology, &s.collectives, s.roofline.as_ref())
                    .map_err(|e| format!("a valid scenario's hardware sections failed: {e}"))?;
                let (report, collectives, roofline) = &sections;
                all_finite_non_negative(&serde_json::to_value(report).map_err(|e| e.to_string())?, "hardware")?;
                all_finite_non_negative(&serde_json::to_value(collectives).map_err(|e| e.to_string())?, "collectives")?;
                if let Some(r) = roofline {
                    all_finite_non_negative(&serde_json::to_value(r).map_err(|e| e.to_string())?, "roofline")?;
                }
                evaluate(&s).map_err(|e| format!("evaluate: {e}"))?;
                Ok(true)
            }
            Err(e) => {
                let ok = ["hardware", "collectives", "roofline"];
                match e.0.iter().find(|f| !ok.iter().any(|p| f.field.starts_with(p))) {
                    Some(f) => Err(format!("error on an unexpected field: {f}")),
                    None => Ok(false),
                }
            }
        });
        match outcome {
            Ok(Ok(is_valid)) => {
                valid += u64::from(is_valid);
                with_custom_chip +=
                    u64::from(is_valid && matches!(s.hardware.as_ref().map(|h| &h.chip), Some(ChipSource::Custom(_))));
            }
            Ok(Err(msg)) => panic!("case {case}: {msg}\n{}", serde_json::to_string(&s).unwrap_or_default()),
            Err(_) => panic!("case {case} panicked: {s:?}"),
        }
    }
    eprintln!("{valid} of {cases} scenarios valid, {with_custom_chip} of them with a custom chip");
    // The generator must reach the computing code, with custom chips too.
    assert!(valid * 5 >= cases, "only {valid} of {cases} scenarios were valid");
    assert!(with_custom_chip * 20 >= cases, "only {with_custom_chip} valid scenarios had a custom chip");
}
