//! Our own vectors: chips the book does not cover, each number checked against the
//! source it cites, plus worked answers of the book that are not in book-vectors.json.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use shardcalc_core::collectives::{all_gather, all_reduce};
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::catalog::get;
use shardcalc_core::hardware::intensity::{critical_intensities, Channel};
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::hardware::Chip;
use shardcalc_core::roofline::matmul::{critical_batch_approx, Matmul};
use shardcalc_core::roofline::padding::mxu_padding;
use shardcalc_core::units::Bytes;

fn chip(id: &str) -> Chip {
    get(id).unwrap_or_else(|| panic!("no chip {id}"))
}

fn field(c: &Chip, path: &str) -> f64 {
    c.numeric_fields().into_iter().find(|(p, _)| *p == path).and_then(|(_, v)| v).unwrap_or(f64::NAN)
}

fn intensity(c: &Chip, channel: Channel, links: Option<u64>) -> f64 {
    critical_intensities(c)
        .into_iter()
        .find(|r| r.channel == channel && r.links == links && r.dtype == DType::Bf16)
        .map_or(f64::NAN, |r| r.intensity.get())
}

fn close(what: &str, got: f64, want: f64, rel: f64) {
    assert!((got - want).abs() <= rel * want.abs(), "{what}: got {got}, want {want}");
}

/// `(chip, field, value, source)`: the catalog must hold exactly the cited figure.
const SPEC_VECTORS: &[(&str, &str, f64, &str)] = &[
    ("tpu-v7x", "peak_flops.bf16", 2.307e15, "Cloud TPU7x docs: 2307 TFLOPs bf16"),
    ("tpu-v7x", "peak_flops.fp8", 4.614e15, "Cloud TPU7x docs: 4614 TFLOPs fp8"),
    ("tpu-v7x", "hbm.capacity", 192e9, "Ironwood guide: 192 GB of HBM"),
    ("tpu-v7x", "hbm.bandwidth", 7.38e12, "Ironwood guide: 7.38 TB/s"),
    ("tpu-v7x", "scale_up.max_chips", 9216.0, "Cloud TPU7x docs: 9216 chips per pod"),
    ("tpu-v7x", "host.chips_per_host", 4.0, "Ironwood guide: four chips per host"),
    ("tpu-v7x", "mxu.size", 256.0, "Ironwood guide: 256x256 MXU"),
    ("tpu-v7x", "chiplets.count", 2.0, "Cloud TPU7x docs: two TensorCores (chiplets)"),
    ("tpu-v6e", "hbm.capacity", 32e9, "Cloud TPU v6e docs: 32 GB"),
    ("tpu-v6e", "peak_flops.int8", 1.84e15, "book 2.3 table / Cloud v6e docs 1836 TOPs"),
    ("tpu-v6e", "mxu.size", 256.0, "book 2.1 footnote 1: Trillium has a 256x256 MXU"),
    ("tpu-v6e", "scale_out.bandwidth_per_chip", 1.25e10, "Cloud TPU7x docs table: v6e 100 Gbps DCN per chip"),
    ("h100-sxm", "peak_flops.bf16", 9.89e14, "NVIDIA H100 datasheet: 1,979 TFLOPS bf16 with sparsity"),
    ("h100-sxm", "peak_flops.fp8", 1.979e15, "NVIDIA H100 datasheet: 3,958 TFLOPS fp8 with sparsity"),
    ("h100-sxm", "hbm.capacity", 80e9, "NVIDIA H100 datasheet: 80 GB"),
    ("h100-sxm", "hbm.bandwidth", 3.35e12, "NVIDIA H100 datasheet: 3.35 TB/s"),
    ("h200-sxm", "hbm.capacity", 141e9, "NVIDIA H200 datasheet: 141 GB"),
    ("h200-sxm", "hbm.bandwidth", 4.8e12, "NVIDIA H200 datasheet: 4.8 TB/s"),
    ("b200", "peak_flops.bf16", 2.25e15, "NVIDIA HGX B200: 4.5 PFLOPS bf16 per GPU with sparsity"),
    ("b200", "peak_flops.fp8", 4.5e15, "NVIDIA HGX B200: 9 PFLOPS fp8 per GPU with sparsity"),
    ("b200", "hbm.capacity", 180e9, "NVIDIA DGX B200: 1,440 GB for 8 GPUs"),
    ("gb200-nvl72", "peak_flops.bf16", 2.5e15, "NVIDIA GB200 NVL72: 360 PFLOPS bf16 sparse / 72 GPUs / 2"),
    ("gb200-nvl72", "hbm.bandwidth", 8e12, "NVIDIA GB200 NVL72: 576 TB/s / 72 GPUs"),
    ("gb200-nvl72", "scale_up.max_chips", 72.0, "NVIDIA GB200 NVL72: 72 GPUs in one NVLink domain"),
    ("mi300x", "peak_flops.bf16", 1.3074e15, "AMD MI300X data sheet: 1307.4 TFLOPS bf16 dense"),
    ("mi300x", "peak_flops.fp8", 2.6149e15, "AMD MI300X data sheet: 2614.9 TFLOPS fp8 dense"),
    ("mi300x", "hbm.capacity", 192e9, "AMD MI300X data sheet: 192 GB HBM3"),
    ("mi300x", "hbm.bandwidth", 5.3e12, "AMD MI300X data sheet: 5.3 TB/s"),
    // Book 8.1's table "Google Cloud USD / hour" (pricing as of February 2025).
    ("tpu-v5e", "price_per_chip_hour_usd", 1.20, "book 8.1: v5e $1.20 per hour"),
    ("tpu-v5p", "price_per_chip_hour_usd", 4.20, "book 8.1: v5p $4.20 per hour"),
    ("h100-sxm", "price_per_chip_hour_usd", 10.8, "book 8.1: H100 $10.8 per hour"),
];

#[test]
fn book_8_1_flops_per_dollar() {
    // Book 8.1: FLOPs / $ = bf16 FLOP/s × 3600 / (USD per hour): 3.3e17 (H100), 3.9e17
    // (v5p), 5.8e17 (v5e). The book's H100 row uses 9.9e14 FLOP/s; the catalog's 9.89e14.
    for (id, want) in [("h100-sxm", 3.3e17), ("tpu-v5p", 3.9e17), ("tpu-v5e", 5.8e17)] {
        let c = chip(id);
        let per_dollar = c.peak_flops.bf16.get() * 3600.0 / field(&c, "price_per_chip_hour_usd");
        close(id, per_dollar, want, 0.02);
    }
}

#[test]
fn catalog_holds_the_cited_figures() {
    for &(id, path, want, source) in SPEC_VECTORS {
        close(&format!("{id}.{path} ({source})"), field(&chip(id), path), want, 1e-12);
    }
}

#[test]
fn per_gpu_scale_up_bandwidth() {
    // NVIDIA: NVLink 4 is 900 GB/s per H100, NVLink 5 1.8 TB/s per Blackwell GPU
    // (bidirectional, all 18 links); AMD: 896 GB/s aggregate Infinity Fabric on MI300X.
    for (id, bidi) in
        [("h100-sxm", 9e11), ("h200-sxm", 9e11), ("b200", 1.8e12), ("gb200-nvl72", 1.8e12), ("mi300x", 8.96e11)]
    {
        let c = chip(id);
        close(id, c.scale_up.egress_per_chip().bidirectional().get(), bidi, 1e-12);
    }
}

#[test]
fn derived_intensities_of_new_chips() {
    // MaxText custom-model guide: Trillium 5100 over 2 ICI links, "2500" over 4 (2550).
    close("v6e 2 links", intensity(&chip("tpu-v6e"), Channel::ScaleUp, Some(2)), 5100.0, 0.01);
    close("v6e 4 links", intensity(&chip("tpu-v6e"), Channel::ScaleUp, Some(4)), 2550.0, 0.01);
    // Ironwood guide: one-dimensional AI about 11,500; TP=4 needs an MLP above 46k.
    let ai = intensity(&chip("tpu-v7x"), Channel::ScaleUp, Some(2));
    close("v7x 1D", ai, 11_500.0, 0.01);
    close("v7x TP=4 MLP", 4.0 * ai, 46_000.0, 0.01);
    // Ironwood guide: the die-to-die link is 6x the ICI.
    let v7x = chip("tpu-v7x");
    let d2d = v7x.chiplets.map_or(f64::NAN, |c| c.die_to_die.one_way.get());
    close("v7x d2d", d2d / v7x.scale_up.link.one_way.get(), 6.0, 1e-12);
    // Book 1.1.2: "for GPUs this number is ... closer to 300".
    let h100 = chip("h100-sxm");
    close("H100 HBM", intensity(&h100, Channel::Hbm, None), 295.2, 0.01);
}

#[test]
fn ironwood_head_dim_padding() {
    // Ironwood guide: head_dim 128 in the QK product underuses the 256x256 MXU by 50%.
    let size = chip("tpu-v7x").mxu.map_or(f64::NAN, |m| m.size as f64);
    close("utilization", mxu_padding(&Matmul::bf16(2048.0, 128.0, 2048.0), size).utilization, 0.5, 1e-12);
}

#[test]
fn book_solution_1_2_int8_weights() {
    // Solution 1.2: int8 weights with bf16 compute are compute-bound above B = 120.
    let v5e = chip("tpu-v5e");
    close("B", critical_batch_approx(v5e.peak_flops.bf16, v5e.hbm.bandwidth, DType::Int8), 121.6, 1e-3);
}

#[test]
fn book_solution_3_2_v4_gathers() {
    // Solution 3.2 on a TPU v4p 4x4x4 (wraparound on every axis), B = 1024, D = 4096 bf16.
    let axes = Topology::tpu_slice(&[4, 4, 4], 1).resolve(&chip("tpu-v4")).unwrap();
    let full = 2.0 * 1024.0 * 4096.0;
    // AllGather_X([B_X, D_Y]): V = 2BD/|Y|, about 23 µs.
    let t = all_gather(Bytes(full / 4.0), &axes[..1]).unwrap().time.get();
    close("AllGather_X", t, 23.3e-6, 0.01);
    // AllGather_XY([B_X, D_Y]): the whole array over two axes, about 46 µs.
    let t = all_gather(Bytes(full), &axes[..2]).unwrap().time.get();
    close("AllGather_XY", t, 46.6e-6, 0.01);
    // AllReduce_Z([B_X, D_Y]{U_Z}): twice a gather of 2BD/(XY), about 11.6 µs.
    let t = all_reduce(Bytes(full / 16.0), &axes[2..]).unwrap().time.get();
    close("AllReduce_Z", t, 11.6e-6, 0.01);
}

#[test]
fn hierarchical_gpu_all_reduce() {
    // Four 8-GPU H100 nodes (NVLink inside, one 400 Gb/s NIC per GPU across): an AllReduce
    // of V = 1 GB is a ReduceScatter inside each node (each GPU keeps V/8), an AllReduce of
    // V/8 across the 4 nodes, and an AllGather inside the node (NCCL's tree/hierarchical
    // algorithm; book 3.2 "multiple axes" and 5.1.6 for DCN).
    let axes = Topology::gpu_cluster(8, 4).resolve(&chip("h100-sxm")).unwrap();
    let v = 1e9;
    let nvlink = 2.0 * (7.0 / 8.0) * v / 4.5e11; // RS + AG through 18 × 25 GB/s of NVLink
    let ib = 2.0 * (3.0 / 4.0) * (v / 8.0) / 5e10; // AllReduce of V/8 over 50 GB/s NICs
    let c = all_reduce(Bytes(v), &axes).unwrap();
    close("hierarchical", c.time.get(), nvlink + ib, 1e-12);
    // Five times faster than a flat ring of 32 GPUs at the NIC's speed.
    let flat = 2.0 * (31.0 / 32.0) * v / 5e10;
    assert!(flat / c.time.get() > 5.0, "{} vs {flat}", c.time.get());
    // The scale-out network carries 1/8 of what a flat ring would send per GPU.
    let ib_bytes = c.axes.iter().find(|a| a.axis == "scale_out").map_or(f64::NAN, |a| a.bytes_per_link.get());
    close("IB bytes per link", ib_bytes, 2.0 * 0.75 * v / 8.0, 1e-12);
}
