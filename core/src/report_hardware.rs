//! The hardware, collective and roofline sections of the report (docs/report.md).

use crate::collectives::query::CollectiveQuery;
use crate::collectives::{collective_cost, AxisLink, AxisTraffic, CollectiveCost, CollectiveKind, Regime};
use crate::error::Invalid;
use crate::hardware::intensity::{critical_intensities, critical_intensity, hbm_over_ici, CriticalIntensity};
use crate::hardware::query::ResolvedHardware;
use crate::hardware::Chip;
use crate::roofline::matmul::{critical_batch, critical_batch_approx};
use crate::roofline::padding::{mxu_padding, MxuPadding};
use crate::roofline::query::RooflineQuery;
use crate::roofline::{roofline, Rates, Resource};
use crate::units::{Bytes, Flops, Intensity, Seconds};
use serde::{Deserialize, Serialize};

/// `hardware`: the chip as used, and its derived numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HardwareReport {
    /// The chip, with its sources and alternatives.
    pub chip: Chip,
    /// Critical arithmetic intensity per channel and compute format.
    pub critical_intensities: Vec<CriticalIntensity>,
    /// The book's β (7.3.2): HBM bandwidth over bidirectional ICI bandwidth of one axis.
    pub hbm_over_ici: f64,
    /// bf16 FLOPs one dollar buys at the chip's price per chip-hour (book 8.1: FLOPs/$ =
    /// peak × 3600 / price); absent without a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flops_per_dollar: Option<f64>,
    /// The resolved mesh axes, when the scenario has a topology.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<TopologyReport>,
}

/// The mesh as the collective model sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TopologyReport {
    /// Devices in the mesh.
    pub devices: f64,
    /// Each axis: size, network, ring/line/switch/full mesh, link, latency.
    pub axes: Vec<AxisLink>,
}

/// One answered collective query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CollectiveReport {
    /// Which collective.
    pub kind: CollectiveKind,
    /// The axes it runs over.
    pub axes: Vec<String>,
    /// `V`, the full array in bytes.
    pub array_bytes: Bytes,
    /// Estimated time in seconds.
    pub time_s: Seconds,
    /// `latency`, `bandwidth`, `mixed` or `none`.
    pub regime: Regime,
    /// Bytes over the busiest link, one direction.
    pub bytes_per_link: Bytes,
    /// Hops × per-hop latency.
    pub latency_floor_s: Seconds,
    /// Bytes over bandwidth.
    pub bandwidth_time_s: Seconds,
    /// The array size at which the latency floor equals the bandwidth time: a smaller
    /// `array_bytes` is latency-bound on these axes (book 3.2: 45 kB per hop on a v5e
    /// ICI link). Absent when nothing moves or no axis has a per-hop latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_bound_below_bytes: Option<Bytes>,
    /// Per-axis traffic.
    pub per_axis: Vec<AxisTraffic>,
}

/// The `V` at which `latency_floor = bandwidth_time`: both scale as the cost says (the
/// floor is fixed, the bandwidth time linear in `V`), so it is `floor / (bandwidth / V)`,
/// computed from a 1-byte collective when `c`'s own array is empty.
fn latency_crossover(c: &CollectiveCost, axes: &[AxisLink]) -> Option<Bytes> {
    let per_byte = if c.array_bytes.get() > 0.0 {
        c.bandwidth_time.get() / c.array_bytes.get()
    } else {
        collective_cost(c.kind, Bytes(1.0), axes).ok()?.bandwidth_time.get()
    };
    let v = c.latency_floor.get() / per_byte;
    (c.latency_floor.get() > 0.0 && per_byte > 0.0 && v.is_finite()).then_some(Bytes(v))
}

/// Seconds on each resource.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ResourceSeconds {
    /// FLOPs / peak.
    pub compute_s: Seconds,
    /// HBM bytes / HBM bandwidth.
    pub hbm_s: Seconds,
    /// ICI bytes / ICI bandwidth.
    pub ici_s: Seconds,
    /// DCN bytes / DCN bandwidth.
    pub dcn_s: Seconds,
    /// Host bytes / PCIe bandwidth.
    pub host_s: Seconds,
}

/// What the roofline says about a matmul beyond its time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MatmulReport {
    /// Batch above which it is compute-bound, exactly; absent when never.
    pub critical_batch: Option<f64>,
    /// The same for `B ≪ D, F`: peak × weight bytes / (2 × HBM bandwidth).
    pub critical_batch_approx: f64,
    /// Padding waste on the chip's MXU (TPUs only).
    pub mxu: Option<MxuPadding>,
}

/// `roofline`: the op's time bounds on one chip.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RooflineReport {
    /// The resource that takes longest.
    pub bound: Resource,
    /// Lower bound (perfect overlap): the longest resource time.
    pub time_s: Seconds,
    /// Upper bound (no overlap): the sum.
    pub upper_time_s: Seconds,
    /// Per-resource times.
    pub times: ResourceSeconds,
    /// FLOPs of the op.
    pub flops: Flops,
    /// HBM bytes of the op.
    pub hbm_bytes: Bytes,
    /// FLOPs per HBM byte; absent when no HBM bytes.
    pub intensity: Option<Intensity>,
    /// The chip's critical intensity against HBM in the compute format.
    pub critical_intensity_hbm: Intensity,
    /// Matmul-only numbers.
    pub matmul: Option<MatmulReport>,
}

/// The three sections.
pub type HardwareSections = (HardwareReport, Vec<CollectiveReport>, Option<RooflineReport>);

fn collective_report(i: usize, q: &CollectiveQuery, axes: &[AxisLink]) -> Result<CollectiveReport, Invalid> {
    let chosen: Vec<AxisLink> = q.axes.iter().filter_map(|n| axes.iter().find(|a| &a.name == n).cloned()).collect();
    let c =
        collective_cost(q.kind, Bytes(q.array_bytes), &chosen).map_err(|e| e.prefixed(&format!("collectives[{i}]")))?;
    Ok(CollectiveReport {
        kind: q.kind,
        axes: q.axes.clone(),
        array_bytes: c.array_bytes,
        time_s: c.time,
        regime: c.regime,
        bytes_per_link: c.bytes_per_link,
        latency_floor_s: c.latency_floor,
        bandwidth_time_s: c.bandwidth_time,
        latency_bound_below_bytes: latency_crossover(&c, &chosen),
        per_axis: c.axes,
    })
}

/// The `roofline` section: `q` on one `chip` (what the hardware page's roofline shows).
///
/// # Errors
/// Problems only visible once computed (host bytes on a chip without a PCIe figure, a
/// compute format the chip lacks), named by field under `roofline.op` / `roofline.matmul`.
pub fn roofline_report(chip: &Chip, q: &RooflineQuery) -> Result<RooflineReport, Invalid> {
    let (op, field) = match q {
        RooflineQuery::Op(op) => (op.clone(), "roofline.op"),
        RooflineQuery::Matmul(m) => (m.op_cost(), "roofline.matmul"),
    };
    let rates = Rates::of(chip, op.dtype).map_err(|e| e.prefixed(field))?;
    let r = roofline(&op, &rates).map_err(|e| e.prefixed(field))?;
    let matmul = match q {
        RooflineQuery::Matmul(m) => Some(MatmulReport {
            critical_batch: critical_batch(m, rates.compute, rates.hbm),
            critical_batch_approx: critical_batch_approx(rates.compute, rates.hbm, m.rhs),
            mxu: chip.mxu.map(|x| mxu_padding(m, x.size as f64)),
        }),
        RooflineQuery::Op(_) => None,
    };
    Ok(RooflineReport {
        bound: r.bound,
        time_s: r.lower,
        upper_time_s: r.upper,
        times: ResourceSeconds {
            compute_s: r.times.compute,
            hbm_s: r.times.hbm,
            ici_s: r.times.ici,
            dcn_s: r.times.dcn,
            host_s: r.times.host,
        },
        flops: op.flops,
        hbm_bytes: op.hbm_bytes,
        intensity: (op.hbm_bytes.get() > 0.0).then(|| op.flops / op.hbm_bytes),
        critical_intensity_hbm: critical_intensity(rates.compute, rates.hbm),
        matmul,
    })
}

/// The `hardware` section: the chip, its derived numbers and, with a topology, its axes.
#[must_use]
pub fn hardware_report(hw: &ResolvedHardware, has_topology: bool) -> HardwareReport {
    HardwareReport {
        // The report shows where each number comes from (a bundled chip's citations).
        chip: crate::hardware::catalog::with_provenance(hw.chip.clone()),
        critical_intensities: critical_intensities(&hw.chip),
        hbm_over_ici: hbm_over_ici(&hw.chip),
        flops_per_dollar: flops_per_dollar(&hw.chip),
        topology: has_topology.then(|| TopologyReport {
            devices: hw.axes.iter().map(|a| a.size as f64).product(),
            axes: hw.axes.clone(),
        }),
    }
}

/// bf16 FLOPs per dollar at the chip's price per chip-hour (book 8.1: peak × 3600 / price);
/// `None` without a positive price (or for a price so small the ratio overflows).
#[must_use]
pub fn flops_per_dollar(chip: &Chip) -> Option<f64> {
    chip.price_per_chip_hour_usd
        .filter(|p| *p > 0.0)
        .map(|p| chip.peak_flops.bf16.get() * 3600.0 / p)
        .filter(|x| x.is_finite())
}

/// The `collectives` section: every query on the resolved `axes`.
///
/// # Errors
/// A query whose numbers the cost model refuses, named `collectives[i].<field>`.
pub fn collective_reports(queries: &[CollectiveQuery], axes: &[AxisLink]) -> Result<Vec<CollectiveReport>, Invalid> {
    queries.iter().enumerate().map(|(i, q)| collective_report(i, q, axes)).collect()
}

/// Build the hardware, collective and roofline sections (the page computes them one by
/// one, with [`hardware_report`], [`collective_reports`] and [`roofline_report`], so that an
/// edit recomputes only its section).
///
/// # Errors
/// Problems only visible once computed (e.g. host bytes on a chip without a PCIe
/// figure), named by field.
pub fn hardware_sections(
    hw: &ResolvedHardware,
    has_topology: bool,
    collectives: &[CollectiveQuery],
    roofline: Option<&RooflineQuery>,
) -> Result<HardwareSections, Invalid> {
    let report = hardware_report(hw, has_topology);
    let collectives = collective_reports(collectives, &hw.axes)?;
    let roofline = roofline.map(|q| roofline_report(&hw.chip, q)).transpose()?;
    Ok((report, collectives, roofline))
}
