//! Area `collectives`: book chapter 3 (AllGather, latency-bound gathers, AllToAll,
//! matmul strategies, unidirectional rings).

use crate::harness::{assert_area_covered, check, input};
use shardcalc_core::collectives::ring::{busiest_link_fraction, Pattern};
use shardcalc_core::collectives::{all_gather, AxisLink, AxisShape, CollectiveCost, Network, Regime};
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::catalog::get;
use shardcalc_core::hardware::intensity::{critical_intensities, Channel};
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::units::{BidiBytesPerSec, Bytes, BytesPerSec, Seconds};

const CHECKED: &[&str] = &[
    "CO-allgather-formula",
    "CO-alltoall-footnote",
    "CO-ex3.3-latency-bound",
    "CO-ex3.4-strategy-thresholds",
    "CO-popquiz2a-allgather",
    "CO-popquiz2b-latency-bound",
    "CO-unidirectional",
];

#[test]
fn every_collectives_vector_is_checked() {
    assert_area_covered("collectives", CHECKED);
}

fn axis(size: u64, shape: AxisShape, link: BytesPerSec, latency: f64) -> AxisLink {
    AxisLink { name: "x".into(), size, network: Network::ScaleUp, shape, link, hop_latency: Seconds(latency) }
}

fn gather(v: f64, axes: &[AxisLink]) -> CollectiveCost {
    all_gather(Bytes(v), axes).unwrap()
}

#[test]
fn co_allgather_formula() {
    // T_total = V / W_bidi on a bidirectional ring, whatever |X|.
    let id = "CO-allgather-formula";
    let w = BidiBytesPerSec(input(id, "W_bidi")).one_way();
    let c = gather(input(id, "V"), &[axis(input(id, "X") as u64, AxisShape::Ring, w, 0.0)]);
    let hops = c.axes[0].hops as f64;
    check(id, &[("T_hop", c.time.get() / hops), ("hops", hops), ("T_total", c.time.get())]);
}

#[test]
fn co_unidirectional() {
    // A unidirectional ring costs what a line costs: V/W · (N-1)/N.
    let id = "CO-unidirectional";
    let (v, w, n) = (input(id, "V"), BytesPerSec(input(id, "W_oneway")), input(id, "N") as u64);
    check(
        id,
        &[
            ("T_uni", gather(v, &[axis(n, AxisShape::Line, w, 0.0)]).time.get()),
            ("T_bidi_limit", gather(v, &[axis(n, AxisShape::Ring, w, 0.0)]).time.get()),
        ],
    );
}

#[test]
fn co_alltoall_footnote() {
    // An even bidirectional ring: each link direction carries N²/8 chunks of V/N²,
    // so a device sends N²/4 chunks in all — a quarter of the array.
    let id = "CO-alltoall-footnote";
    let n = input(id, "N") as u64;
    let per_direction = busiest_link_fraction(Pattern::AllToAll, AxisShape::Ring, n);
    let chunks = 2.0 * per_direction * (n * n) as f64;
    check(id, &[("chunks", chunks), ("per_device_fraction_of_bytes", 2.0 * per_direction)]);
}

#[test]
fn co_ex3_3_latency_bound() {
    // AllGather_X([B_X]) with B = 128 bf16 on a TPU v4p 4x4x4 (a full cube: wraparound).
    let id = "CO-ex3.3-latency-bound";
    let v4 = get("tpu-v4").unwrap();
    assert_eq!(v4.scale_up.link.one_way.get(), input(id, "W_oneway"));
    let axes = Topology::tpu_slice(&[4, 4, 4], 1).resolve(&v4).unwrap();
    assert_eq!(axes[0].shape, AxisShape::Ring);
    let total = input(id, "B") * input(id, "bytes_per_elem");
    let c = gather(total, &axes[..1]);
    assert_eq!(c.regime, Regime::Latency);
    check(
        id,
        &[
            ("total_bytes", total),
            ("bytes_per_device", total / input(id, "X")),
            ("hops", c.axes[0].hops as f64),
            ("t_total", c.time.get()),
        ],
    );
}

#[test]
fn co_ex3_4_strategy_thresholds() {
    // Strategy 2 (local matmul + AllReduce of 2BF bytes) is compute-bound when
    // D / (2X) > C / W_ici = α, the v5p ICI intensity of one wrapped axis.
    let id = "CO-ex3.4-strategy-thresholds";
    let alpha = critical_intensities(&get("tpu-v5p").unwrap())
        .into_iter()
        .find(|r| r.channel == Channel::ScaleUp && r.links == Some(2) && r.dtype == DType::Bf16)
        .map(|r| r.intensity.get())
        .unwrap_or(f64::NAN);
    assert!((alpha - input(id, "alpha")).abs() < 1e-9);
    check(
        id,
        &[
            ("X_max_strategy2_compute_bound", input(id, "D") / (2.0 * alpha)),
            ("D_min_strategy2_wins_large_B", 2.0 * alpha),
        ],
    );
}

#[test]
fn co_pop_quiz_2() {
    // AllGather_Y([E_Y, F]) on a v5e mesh {X: 8, Y: 4}: Y = 4 < 16 has no wraparound.
    let v5e = get("tpu-v5e").unwrap();
    let axes = Topology::tpu_slice(&[8, 4], 1).resolve(&v5e).unwrap();
    let y = &axes[1..];
    assert_eq!(y[0].shape, AxisShape::Line);
    let id = "CO-popquiz2a-allgather";
    let total = input(id, "E") * input(id, "F") * input(id, "bytes_per_elem");
    let with_wrap = axis(4, AxisShape::Ring, v5e.scale_up.link.one_way, 1e-6);
    check(
        id,
        &[
            ("shard_bytes", total / input(id, "Y")),
            ("total_bytes", total),
            ("t_ideal_bidi", gather(total, &[with_wrap]).time.get()),
            ("t_no_wraparound", gather(total, y).time.get()),
        ],
    );
    let id = "CO-popquiz2b-latency-bound";
    let total = input(id, "E") * input(id, "F") * input(id, "bytes_per_elem");
    let shard = total / input(id, "Y");
    let c = gather(total, y);
    assert_eq!(c.regime, Regime::Latency);
    check(
        id,
        &[
            ("shard_bytes", shard),
            ("t_per_hop_bw", (Bytes(shard) / v5e.scale_up.link.one_way).get()),
            ("t_total", c.time.get()),
        ],
    );
}
