//! Area `other`: local shapes in JAX (3.1.2, 10.1.1), the profiled matmul of 9.2.4,
//! and XLA tiling (9.2.2).

use crate::harness::{assert_area_covered, check, input};
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::catalog::get;
use shardcalc_core::roofline::matmul::Matmul;
use shardcalc_core::roofline::padding::{pad_to_multiple, padding_expansion};
use shardcalc_core::roofline::{roofline, OpCost, Rates};
use shardcalc_core::sharding::local_shape;

const CHECKED: &[&str] =
    &["OT-jax-local-shapes-10.1.1", "OT-jax-local-shapes-3.1.2", "OT-profile-matmul", "OT-tiling-padding"];

#[test]
fn every_other_vector_is_checked() {
    assert_area_covered("other", CHECKED);
}

fn dims(id: &str, keys: &[&str]) -> Vec<u64> {
    keys.iter().map(|k| input(id, k) as u64).collect()
}

fn f(v: &[u64]) -> Vec<f64> {
    v.iter().map(|&n| n as f64).collect()
}

#[test]
fn ot_local_shapes() {
    let id = "OT-jax-local-shapes-3.1.2";
    let mesh = [("X", input(id, "X") as u64), ("Y", input(id, "Y") as u64)];
    let a = f(&local_shape(&dims(id, &["A0", "A1"]), &[&["X"], &["Y"]], &mesh).unwrap());
    let b = f(&local_shape(&dims(id, &["B0", "B1"]), &[&[], &["Y"]], &mesh).unwrap());
    check(id, &[("A_local0", a[0]), ("A_local1", a[1]), ("B_local0", b[0]), ("B_local1", b[1])]);

    let id = "OT-jax-local-shapes-10.1.1";
    let mesh = [("X", input(id, "X") as u64), ("Y", input(id, "Y") as u64)];
    let inp = f(&local_shape(&dims(id, &["In0", "In1"]), &[&["X"], &["Y"]], &mesh).unwrap());
    let w = f(&local_shape(&dims(id, &["W0", "W1"]), &[&["Y"], &[]], &mesh).unwrap());
    // Out[B_X, F]: the local matmul contracts the Y-sharded D, then AllReduce over Y.
    let out = f(&local_shape(&[input(id, "In0") as u64, input(id, "W1") as u64], &[&["X"], &[]], &mesh).unwrap());
    check(
        id,
        &[
            ("In_local0", inp[0]),
            ("In_local1", inp[1]),
            ("W_local0", w[0]),
            ("W_local1", w[1]),
            ("Out_local0", out[0]),
            ("Out_local1", out[1]),
        ],
    );
}

#[test]
fn ot_profile_matmul() {
    // Up-projection of B·T tokens on a TPU v2 with 8 cores (4 chips), compute-bound.
    let id = "OT-profile-matmul";
    let v2 = get("tpu-v2").unwrap();
    let chips = input(id, "cores") / v2.cores_per_chip as f64;
    assert_eq!(v2.peak_flops.bf16.get() / v2.cores_per_chip as f64, input(id, "C_per_core"));
    let m = Matmul::bf16(input(id, "B") * input(id, "T"), input(id, "D"), input(id, "F"));
    let per_chip = OpCost { flops: m.flops() / chips, ..OpCost::default() };
    let r = roofline(&per_chip, &Rates::of(&v2, DType::Bf16).unwrap()).unwrap();
    check(id, &[("t_matmul_s", r.times.compute.get())]);
}

#[test]
fn ot_tiling_padding() {
    let id = "OT-tiling-padding";
    let (rows, cols, tr, tc) = (input(id, "rows"), input(id, "cols"), input(id, "tile_r"), input(id, "tile_c"));
    check(
        id,
        &[
            ("padded_rows", pad_to_multiple(rows, tr)),
            ("padded_cols", pad_to_multiple(cols, tc)),
            ("expansion", padding_expansion(&[rows, cols], &[tr, tc])),
        ],
    );
}
