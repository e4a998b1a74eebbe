//! Area `roofline`: book chapters 1-3 (time bounds, matmul intensity, critical batch,
//! transfers, sharded memory) and the roofline appendix of chapter 7.

use crate::harness::{assert_area_covered, check, input};
use shardcalc_core::collectives::point_to_point;
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::catalog::{get, with_provenance};
use shardcalc_core::roofline::matmul::{critical_batch, critical_batch_approx, Matmul};
use shardcalc_core::roofline::{roofline, OpCost, Rates};
use shardcalc_core::sharding::{bytes_per_device, devices, replication};
use shardcalc_core::units::{Bytes, BytesPerSec, Flops, Seconds};

const CHECKED: &[&str] = &[
    "RL-appA-layer-latency",
    "RL-ex1.5-H100-Bcrit",
    "RL-ex2.1-param-load-latency",
    "RL-ex2.3-pcie-batch",
    "RL-ex2.4a-int8-matmul-exact",
    "RL-ex2.4b-vmem",
    "RL-ex2.5-ici-transfer",
    "RL-ex2.6-host-offload",
    "RL-ex3.1-replication-ratio",
    "RL-popquiz-sharded-memory",
    "RL-time-bounds",
];

#[test]
fn every_roofline_vector_is_checked() {
    assert_area_covered("roofline", CHECKED);
}

fn rates(chip: &str, dtype: DType) -> Rates {
    Rates::of(&get(chip).unwrap(), dtype).unwrap()
}

/// Time to stream `bytes` from HBM at `bw`, as the roofline computes it.
fn hbm_time(bytes: f64, bw: f64) -> Seconds {
    let op = OpCost { hbm_bytes: Bytes(bytes), ..OpCost::default() };
    roofline(&op, &Rates { hbm: BytesPerSec(bw), ..rates("tpu-v5e", DType::Bf16) }).unwrap().times.hbm
}

#[test]
fn rl_time_bounds() {
    let id = "RL-time-bounds";
    let h100 = rates("h100-sxm", DType::Bf16);
    assert_eq!(h100.compute.get(), input(id, "C"));
    assert_eq!(h100.hbm.get(), input(id, "W"));
    let op =
        OpCost { flops: Flops(input(id, "flops")), hbm_bytes: Bytes(input(id, "comm_bytes")), ..OpCost::default() };
    let r = roofline(&op, &h100).unwrap();
    check(
        id,
        &[
            ("T_math", r.times.compute.get()),
            ("T_comms", r.times.hbm.get()),
            ("T_lower", r.lower.get()),
            ("T_upper", r.upper.get()),
        ],
    );
}

#[test]
fn rl_weight_load_latency() {
    // Appendix A (7.6.1): 600M bf16 params over 4 shards at 8.2e11 B/s.
    let id = "RL-appA-layer-latency";
    let bytes = input(id, "params") * input(id, "bytes_per_param") / input(id, "shards");
    check(id, &[("t_min_s", hbm_time(bytes, input(id, "W_hbm")).get())]);
    // Solution 2.1 uses 1.23e12 for v4 (an alternative of the table's 1.2e12).
    let id = "RL-ex2.1-param-load-latency";
    let per_chip = input(id, "params") * input(id, "bytes_per_param") / input(id, "chips");
    assert!(with_provenance(get("tpu-v4").unwrap()).alternatives.iter().any(|a| a.value == input(id, "W_hbm")));
    check(id, &[("bytes_per_chip", per_chip), ("t_load_s", hbm_time(per_chip, input(id, "W_hbm")).get())]);
}

#[test]
fn rl_ex1_5_h100_critical_batch() {
    // The datasheet's 1.979e15 is the sparsity figure; the catalog stores the dense half.
    let id = "RL-ex1.5-H100-Bcrit";
    let h100 = rates("h100-sxm", DType::Bf16);
    assert!((h100.compute.get() - input(id, "sparse_flops") / 2.0).abs() < 1e12);
    check(
        id,
        &[("dense_flops", h100.compute.get()), ("B_crit", critical_batch_approx(h100.compute, h100.hbm, DType::Bf16))],
    );
}

#[test]
fn rl_ex2_3_pcie_batch() {
    // Weights and activations in host DRAM, one v6e chip; the exercise assumes PCIe at
    // 1.5e10 B/s (the catalog's v6e figure is section 2.3's 3.2e10).
    let id = "RL-ex2.3-pcie-batch";
    let v6e = rates("tpu-v6e", DType::Bf16);
    assert_eq!(v6e.compute.get(), input(id, "C"));
    check(id, &[("B_min", critical_batch_approx(v6e.compute, BytesPerSec(input(id, "W_pcie")), DType::Bf16))]);
}

#[test]
fn rl_ex2_4_int8_matmul() {
    let id = "RL-ex2.4a-int8-matmul-exact";
    let v5e = get("tpu-v5e").unwrap();
    let int8 = Rates::of(&v5e, DType::Int8).unwrap();
    assert_eq!(int8.compute.get(), input(id, "C_int8"));
    assert_eq!(int8.hbm.get(), input(id, "W_hbm"));
    let m = Matmul {
        b: 1.0,
        d: input(id, "D"),
        f: input(id, "F"),
        lhs: DType::Int8,
        rhs: DType::Int8,
        out: DType::Int8,
        compute: DType::Int8,
    };
    let weights = m.d * m.f * m.rhs.bytes();
    check(
        id,
        &[
            ("flops_per_B", m.flops().get()),
            ("weight_bytes", weights),
            ("bytes_per_B", m.hbm_bytes().get() - weights),
            ("B_min", critical_batch(&m, int8.compute, int8.hbm).unwrap_or(f64::NAN)),
        ],
    );
    // Out of VMEM at about 22x the HBM bandwidth (the catalog's v5e VMEM bandwidth).
    let id = "RL-ex2.4b-vmem";
    let vmem = v5e.on_chip.as_ref().and_then(|m| m.bandwidth).unwrap_or_default();
    check(id, &[("W_vmem", vmem.get()), ("B_min", critical_batch(&m, int8.compute, vmem).unwrap_or(f64::NAN))]);
}

#[test]
fn rl_ex2_5_ici_transfer() {
    // TPU{0,0} → TPU{3,3} on a v5e 4x4 (no wraparound): 6 hops, 2 ports.
    let id = "RL-ex2.5-ici-transfer";
    let v5e = get("tpu-v5e").unwrap();
    assert_eq!(v5e.scale_up.link.one_way.get(), input(id, "W_oneway"));
    let t = point_to_point(
        Bytes(input(id, "bytes")),
        input(id, "ports"),
        v5e.scale_up.link.one_way,
        input(id, "hops") as u64,
        v5e.scale_up.hop_latency.unwrap_or_default(),
    );
    check(id, &[("t_first_byte", t.first_byte.get()), ("t_total", t.total.get())]);
}

#[test]
fn rl_ex2_6_host_offload() {
    // int8[128K, 128K] offloaded to the hosts of a v5e 4x4, gathered onto TPU{0,0}
    // over its 2 ICI links, then multiplied by a bf16[8, 128K] vector.
    let id = "RL-ex2.6-host-offload";
    let v5e = rates("tpu-v5e", DType::Bf16);
    let (array, chips) = (input(id, "array_bytes"), input(id, "chips"));
    assert_eq!(v5e.host.get(), input(id, "W_pcie"));
    let op = OpCost {
        flops: Flops(input(id, "flops")),
        hbm_bytes: Bytes(array),
        ici_bytes: Bytes(array * (chips - 1.0) / chips),
        ici_links: input(id, "ici_axes"),
        dcn_bytes: Bytes::ZERO,
        // Every chip loads its 1/16 over its own PCIe link (8 links per host).
        host_bytes: Bytes(array / input(id, "hosts") / input(id, "pcie_links_per_host")),
        dtype: DType::Bf16,
    };
    let r = roofline(&op, &v5e).unwrap();
    check(
        id,
        &[
            ("t_pcie", r.times.host.get()),
            ("t_ici", r.times.ici.get()),
            ("t_hbm", r.times.hbm.get()),
            ("t_flops", r.times.compute.get()),
        ],
    );
}

#[test]
fn rl_sharded_memory() {
    let mesh = [("X", 4), ("Y", 8), ("Z", 2)];
    check("RL-ex3.1-replication-ratio", &[("ratio_total_to_one_copy", replication(&[&["X"], &[], &[]], &mesh))]);
    let id = "RL-popquiz-sharded-memory";
    let mesh = [("X", input(id, "X") as u64), ("Y", input(id, "Y") as u64), ("Z", input(id, "Z") as u64)];
    let global = [input(id, "I") as u64, input(id, "J") as u64];
    let per_device = bytes_per_device(&global, &[&["X", "Y"], &[]], &mesh, input(id, "bytes_per_elem")).unwrap();
    check(id, &[("bytes_per_device", per_device.get()), ("total_bytes", per_device.get() * devices(&mesh))]);
}

#[test]
fn rates_reject_missing_dtypes() {
    // Ironwood has no int8 matmul path.
    let e = Rates::of(&get("tpu-v7x").unwrap(), DType::Int8).unwrap_err();
    assert_eq!(e.0[0].field, "dtype");
}
