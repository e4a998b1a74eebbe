//! Property tests of the collective and roofline models, as loops over seeded
//! pseudo-random inputs (no extra dev-dependency): monotone in bytes, never below
//! the latency floor, AllReduce = 2 × AllGather and AllToAll = AllGather / 4 when
//! bandwidth-bound, and no panic for any input — every result finite or an error
//! naming a field.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use shardcalc_core::collectives::{collective_cost, AxisLink, AxisShape, CollectiveKind, Network, Regime};
use shardcalc_core::hardware::catalog;
use shardcalc_core::hardware::topology::{AxisSpec, Topology};
use shardcalc_core::roofline::matmul::{critical_batch, Matmul};
use shardcalc_core::roofline::padding::mxu_padding;
use shardcalc_core::roofline::{roofline, OpCost, Rates};
use shardcalc_core::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Seconds};

/// xorshift64*: deterministic, seedable, good enough to spread test inputs.
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
    /// Log-uniform in [10^lo, 10^hi].
    fn log(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        10f64.powf(lo + u * (hi - lo))
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const SHAPES: [AxisShape; 5] = AxisShape::ALL;
const NETWORKS: [Network; 3] = [Network::DieToDie, Network::ScaleUp, Network::ScaleOut];

fn random_axes(r: &mut Rng) -> Vec<AxisLink> {
    (0..1 + r.below(4))
        .map(|i| AxisLink {
            name: format!("a{i}"),
            size: 1 + r.below(64),
            network: r.pick(&NETWORKS),
            shape: r.pick(&SHAPES),
            link: BytesPerSec(r.log(9.0, 12.0)),
            hop_latency: Seconds(if r.below(4) == 0 { 0.0 } else { r.log(-7.0, -4.0) }),
        })
        .collect()
}

#[test]
fn time_is_monotone_in_bytes_and_never_below_the_latency_floor() {
    let mut r = Rng(0x5eed_0001);
    for _ in 0..4000 {
        let axes = random_axes(&mut r);
        let kind = r.pick(&CollectiveKind::ALL);
        let (a, b) = (r.log(0.0, 12.0), r.log(0.0, 12.0));
        let (small, large) = (a.min(b), a.max(b));
        let cs = collective_cost(kind, Bytes(small), &axes).unwrap();
        let cl = collective_cost(kind, Bytes(large), &axes).unwrap();
        assert!(cs.time <= cl.time, "{kind:?} {axes:?}: {small} → {:?}, {large} → {:?}", cs.time, cl.time);
        for c in [&cs, &cl] {
            assert!(c.time.is_finite() && c.time >= c.latency_floor, "{c:?}");
            assert!(c.time >= c.bandwidth_time * (1.0 - 1e-12) || c.regime == Regime::Mixed, "{c:?}");
        }
    }
}

fn ring(size: u64, name: &str, link: f64) -> AxisLink {
    AxisLink {
        name: name.into(),
        size,
        network: Network::ScaleUp,
        shape: AxisShape::Ring,
        link: BytesPerSec(link),
        hop_latency: Seconds(1e-6),
    }
}

#[test]
fn allreduce_is_twice_and_alltoall_a_quarter_of_an_allgather_when_bandwidth_bound() {
    let mut r = Rng(0x5eed_0002);
    let mut checked = 0;
    for _ in 0..2000 {
        // Even bidirectional rings (book 3.4's table); one to three axes.
        let axes: Vec<AxisLink> =
            (0..1 + r.below(3)).map(|i| ring(2 * (2 + r.below(16)), &format!("a{i}"), r.log(10.0, 11.5))).collect();
        let v = Bytes(r.log(3.0, 11.0));
        let ag = collective_cost(CollectiveKind::AllGather, v, &axes).unwrap();
        let ar = collective_cost(CollectiveKind::AllReduce, v, &axes).unwrap();
        let a2a = collective_cost(CollectiveKind::AllToAll, v, &axes).unwrap();
        if ag.regime == Regime::Bandwidth && ar.regime == Regime::Bandwidth {
            assert!((ar.time / ag.time - 2.0).abs() < 1e-9, "{axes:?} {v:?}");
            checked += 1;
        }
        if ag.regime == Regime::Bandwidth && a2a.regime == Regime::Bandwidth && axes.len() == 1 {
            assert!((a2a.time / ag.time - 0.25).abs() < 1e-9, "{axes:?} {v:?}");
        }
        let rs = collective_cost(CollectiveKind::ReduceScatter, v, &axes).unwrap();
        assert_eq!(rs.time, ag.time);
    }
    assert!(checked > 500, "too few bandwidth-bound cases ({checked})");
}

const NASTY: [f64; 10] = [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300, 1e-300, f64::MAX, 5e-324];

fn nasty(r: &mut Rng) -> f64 {
    if r.below(2) == 0 {
        r.pick(&NASTY)
    } else {
        r.log(-3.0, 20.0)
    }
}

#[test]
fn no_panic_and_finite_or_named_error_for_any_input() {
    let mut r = Rng(0x5eed_0003);
    let fields = ["array_bytes", "axes"];
    for _ in 0..5000 {
        let mut axes = random_axes(&mut r);
        for a in &mut axes {
            if r.below(3) == 0 {
                a.size = r.pick(&[0, 1, 2, u64::MAX, 1 << 40]);
            }
            if r.below(3) == 0 {
                a.link = BytesPerSec(nasty(&mut r));
            }
            if r.below(3) == 0 {
                a.hop_latency = Seconds(nasty(&mut r));
            }
        }
        if r.below(10) == 0 {
            axes.clear();
        }
        let kind = r.pick(&CollectiveKind::ALL);
        match collective_cost(kind, Bytes(nasty(&mut r)), &axes) {
            Ok(c) => {
                assert!(c.time.is_finite() && c.latency_floor.is_finite() && c.bytes_per_link.is_finite(), "{c:?}");
                assert!(c.axes.iter().all(|a| a.bytes_per_link.is_finite()));
            }
            Err(e) => assert!(e.0.iter().all(|f| fields.iter().any(|p| f.field.starts_with(p))), "{e}"),
        }
    }
}

#[test]
fn roofline_and_topology_never_panic() {
    let mut r = Rng(0x5eed_0004);
    let chips = catalog::all();
    for _ in 0..3000 {
        let chip = &chips[r.below(chips.len() as u64) as usize];
        let op = OpCost {
            flops: Flops(nasty(&mut r)),
            hbm_bytes: Bytes(nasty(&mut r)),
            ici_bytes: Bytes(nasty(&mut r)),
            ici_links: nasty(&mut r),
            dcn_bytes: Bytes(nasty(&mut r)),
            host_bytes: Bytes(nasty(&mut r)),
            ..OpCost::default()
        };
        let mut rates = Rates::of(chip, shardcalc_core::dtype::DType::Bf16).unwrap();
        if r.below(4) == 0 {
            rates.compute = FlopsPerSec(nasty(&mut r));
        }
        match roofline(&op, &rates) {
            Ok(x) => assert!(x.lower.is_finite() && x.upper.is_finite() && x.upper >= x.lower),
            Err(e) => assert!(!e.0.is_empty() && e.0.iter().all(|f| !f.field.is_empty())),
        }
        let m = Matmul::bf16(nasty(&mut r), nasty(&mut r), nasty(&mut r));
        if m.validate().is_ok() {
            let p = mxu_padding(&m, 128.0);
            assert!(p.utilization > 0.0 && p.utilization <= 1.0 + 1e-12, "{p:?}");
            if let Some(b) = critical_batch(&m, rates.compute, rates.hbm) {
                assert!(b.is_finite() && b > 0.0, "{m:?} {:?} {:?}: {b}", rates.compute, rates.hbm);
            }
        }
        let t = Topology {
            axes: (0..r.below(5))
                .map(|i| AxisSpec {
                    wraparound: [None, Some(true), Some(false)][r.below(3) as usize],
                    unidirectional: r.below(4) == 0,
                    link_one_way: (r.below(3) == 0).then(|| BytesPerSec(nasty(&mut r))),
                    ..AxisSpec::new(&format!("a{}", i % 3), r.pick(&[0, 1, 2, 4, 16, 1 << 40]), r.pick(&NETWORKS))
                })
                .collect(),
        };
        if let Ok(axes) = t.resolve(chip) {
            let kind = r.pick(&CollectiveKind::ALL);
            let c = collective_cost(kind, Bytes(r.log(0.0, 15.0)), &axes).unwrap();
            assert!(c.time.is_finite());
        }
    }
}
