//! The hardware page's tables, each one [`Table`] shown on the page (labels and cells with
//! units) and exported (CSV and Markdown: numbers in base units, bytes, seconds, FLOP/s, at
//! full precision).

use shardcalc_charts::format::{grouped, percent, significant, thousands};
use shardcalc_charts::table::Table;
use shardcalc_core::collectives::summary::SummaryRow;
use shardcalc_core::collectives::{collective_cost, AxisLink, AxisShape, CollectiveKind, Network, Regime};
use shardcalc_core::field::chip::{ChipNumber, Unit, NUMBERS};
use shardcalc_core::hardware::chip::{Chip, Fabric};
use shardcalc_core::hardware::intensity::{Channel, CriticalIntensity};
use shardcalc_core::report_hardware::{CollectiveReport, HardwareReport, RooflineReport};
use shardcalc_core::roofline::Resource;
use shardcalc_core::units::Bytes;

use super::units::{bytes, intensity, rate, seconds};

/// The id an enum value has in the scenario's JSON (`all_gather`, `scale_up`, ...), written
/// out so that the page links no JSON serializer for it.
trait Id {
    fn id(&self) -> &'static str;
}

impl Id for CollectiveKind {
    fn id(&self) -> &'static str {
        shardcalc_core::field::collectives::kind_id(*self)
    }
}

impl Id for Regime {
    fn id(&self) -> &'static str {
        match self {
            Regime::None => "none",
            Regime::Latency => "latency",
            Regime::Bandwidth => "bandwidth",
            Regime::Mixed => "mixed",
        }
    }
}

impl Id for Network {
    fn id(&self) -> &'static str {
        match self {
            Network::DieToDie => "die_to_die",
            Network::ScaleUp => "scale_up",
            Network::ScaleOut => "scale_out",
        }
    }
}

impl Id for AxisShape {
    fn id(&self) -> &'static str {
        match self {
            AxisShape::Ring => "ring",
            AxisShape::Line => "line",
            AxisShape::Switch => "switch",
            AxisShape::FullMesh => "full_mesh",
            AxisShape::UnidirectionalRing => "unidirectional_ring",
        }
    }
}

impl Id for Channel {
    fn id(&self) -> &'static str {
        match self {
            Channel::Hbm => "hbm",
            Channel::OnChip => "on_chip",
            Channel::ScaleUp => "scale_up",
            Channel::DieToDie => "die_to_die",
            Channel::Pcie => "pcie",
            Channel::ScaleOut => "scale_out",
        }
    }
}

impl Id for Resource {
    fn id(&self) -> &'static str {
        match self {
            Resource::Compute => "compute",
            Resource::Hbm => "hbm",
            Resource::Ici => "ici",
            Resource::Dcn => "dcn",
            Resource::Host => "host",
        }
    }
}

/// A cell: its id, shown as text.
fn id_cell(value: &impl Id, shown: &str) -> (String, String) {
    (value.id().to_string(), shown.to_string())
}

/// A number cell: exact (the shortest text reading back as `x`; not `format!`, see
/// `shardcalc_core::decimal`) and as shown.
fn num(x: f64, shown: String) -> (String, String) {
    (shardcalc_core::decimal::shortest(x), shown)
}

fn text(t: &str) -> (String, String) {
    (t.to_string(), t.to_string())
}

/// Display name of a collective.
#[must_use]
pub fn kind_name(kind: CollectiveKind) -> &'static str {
    match kind {
        CollectiveKind::AllGather => "AllGather",
        CollectiveKind::ReduceScatter => "ReduceScatter",
        CollectiveKind::AllReduce => "AllReduce",
        CollectiveKind::AllToAll => "AllToAll",
    }
}

/// Display name of a regime.
#[must_use]
pub fn regime_name(r: Regime) -> &'static str {
    match r {
        Regime::None => "nothing moves",
        Regime::Latency => "latency-bound",
        Regime::Bandwidth => "bandwidth-bound",
        Regime::Mixed => "mixed",
    }
}

/// Display name of a resource.
#[must_use]
pub fn resource_name(r: Resource) -> &'static str {
    match r {
        Resource::Compute => "compute",
        Resource::Hbm => "HBM bandwidth",
        Resource::Ici => "ICI / NVLink",
        Resource::Dcn => "DCN / scale-out",
        Resource::Host => "host PCIe",
    }
}

/// How an axis is wired, in words.
#[must_use]
pub fn shape_name(shape: AxisShape) -> &'static str {
    match shape {
        AxisShape::Ring => "ring (wraparound)",
        AxisShape::Line => "line (no wraparound)",
        AxisShape::Switch => "switch",
        AxisShape::FullMesh => "full mesh",
        AxisShape::UnidirectionalRing => "unidirectional ring",
    }
}

/// A whole number with grouped digits (`8,192`), else four significant digits.
#[must_use]
pub fn count(x: f64) -> String {
    if x.fract() == 0.0 && (0.0..9e15).contains(&x) {
        // Whole and below 2^53: exact.
        thousands(x as u64)
    } else {
        significant(x, 4)
    }
}

/// `value` (base unit) in the number's display unit: `810.0 GB/s`, `4`, `1.20 USD / chip-hour`.
#[must_use]
pub fn display(number: &ChipNumber, value: f64) -> String {
    let x = value / number.unit.scale();
    let shown = match number.unit {
        Unit::Count => count(x),
        Unit::UsdPerHour => grouped(x, 2),
        _ => significant(x, 4),
    };
    let unit = number.unit.label();
    if unit.is_empty() {
        shown
    } else {
        format!("{shown} {unit}")
    }
}

/// The base unit of a chip's number in the exports.
fn base_unit(unit: Unit) -> &'static str {
    match unit {
        Unit::TeraFlops => "FLOP/s",
        Unit::Gigabytes | Unit::Mebibytes => "B",
        Unit::GigabytesPerSec => "B/s",
        Unit::Microseconds => "s",
        Unit::Count => "count",
        Unit::UsdPerHour => "USD/chip-hour",
    }
}

/// The spec table (`#spec-table`): every number of `chip` with its unit, source and date,
/// and what other sources say where they disagree; rows marked `disagree` or `missing`.
#[must_use]
pub fn spec(chip: &Chip) -> Table {
    let mut out = Table::labelled(&[
        ("field", ""),
        ("label", "Quantity"),
        ("value", "Value"),
        ("unit", ""),
        ("source", "Source"),
        ("as_of", "As of"),
        ("other_sources", "Other sources"),
    ]);
    let values = chip.numeric_fields();
    for n in NUMBERS {
        let value = values.iter().find(|(p, _)| *p == n.path).and_then(|(_, v)| *v);
        let (source, as_of) = if value.is_some() { chip.source_of(n.path) } else { ("", "") };
        let others: Vec<&_> = chip.alternatives.iter().filter(|a| a.field == n.path).collect();
        let other = |shown: bool| -> String {
            let each = others.iter().map(|a| {
                let v = if shown { display(n, a.value) } else { shardcalc_core::decimal::shortest(a.value) };
                let note = if a.note.is_empty() { String::new() } else { format!(" — {}", a.note) };
                format!("{v}: {}{note}", a.source)
            });
            each.collect::<Vec<_>>().join(if shown { "; " } else { " | " })
        };
        out.push_shown(vec![
            text(n.path),
            text(n.label),
            value.map_or_else(|| (String::new(), "not published".into()), |v| num(v, display(n, v))),
            text(base_unit(n.unit)),
            text(source),
            text(as_of),
            (other(false), other(true)),
        ]);
        if !others.is_empty() {
            out.mark("disagree");
        }
        if value.is_none() {
            out.mark("missing");
        }
    }
    out
}

/// What a row of the intensity table measures against.
#[must_use]
pub fn channel_label(r: &CriticalIntensity, scale_up: &str, scale_out: &str, torus: bool) -> String {
    match (r.channel, r.links) {
        (Channel::Hbm, _) => "HBM".into(),
        (Channel::OnChip, _) => "On-chip memory (VMEM / SMEM)".into(),
        (Channel::ScaleUp, Some(2)) if torus => format!("{scale_up}, 2 links (1 axis with wraparound, or 2 without)"),
        (Channel::ScaleUp, Some(k)) if torus => format!("{scale_up}, {k} links ({} axes with wraparound)", k / 2),
        (Channel::ScaleUp, Some(k)) => format!("{scale_up}, all {k} links"),
        (Channel::ScaleUp, None) => scale_up.to_string(),
        (Channel::DieToDie, _) => "Die-to-die link".into(),
        (Channel::Pcie, _) => "PCIe (host)".into(),
        (Channel::ScaleOut, _) => format!("{scale_out} per chip"),
    }
}

/// Critical intensities per channel, link count and format (`#intensity-table`).
#[must_use]
pub fn intensities(r: &HardwareReport) -> Table {
    let c = &r.chip;
    let torus = matches!(c.scale_up.fabric, Fabric::Torus { .. });
    let mut out = Table::labelled(&[
        ("channel", "Channel"),
        ("links", ""),
        ("dtype", "Format"),
        ("bandwidth_bytes_per_s", "Bandwidth"),
        ("critical_intensity_flop_per_byte", "Critical intensity (FLOP/B)"),
    ]);
    for row in &r.critical_intensities {
        let links = row.links.map(|l| l.to_string()).unwrap_or_default();
        out.push_shown(vec![
            id_cell(&row.channel, &channel_label(row, &c.scale_up.name, &c.scale_out.name, torus)),
            (links.clone(), links),
            text(row.dtype.name()),
            num(row.bandwidth.get(), rate(row.bandwidth.get())),
            num(row.intensity.get(), intensity(row.intensity.get())),
        ]);
    }
    out
}

/// The topology's axes as the collective model sees them (`#topology-table`).
#[must_use]
pub fn topology(r: &HardwareReport) -> Table {
    let mut out = Table::labelled(&[
        ("axis", "Axis"),
        ("size", "Devices"),
        ("network", "Network"),
        ("shape", "Wiring"),
        ("link_bytes_per_s_one_way", "Link, one-way"),
        ("hop_latency_s", "Hop latency"),
    ]);
    for a in r.topology.iter().flat_map(|t| &t.axes) {
        let network = match a.network {
            Network::ScaleUp => "scale-up",
            Network::ScaleOut => "scale-out",
            Network::DieToDie => "die-to-die",
        };
        out.push_shown(vec![
            text(&a.name),
            (a.size.to_string(), thousands(a.size)),
            id_cell(&a.network, network),
            id_cell(&a.shape, shape_name(a.shape)),
            num(a.link.get(), rate(a.link.get())),
            num(a.hop_latency.get(), seconds(a.hop_latency.get())),
        ]);
    }
    out
}

/// The answered collectives (`#collectives-table`, rows `#collective-result-<i>`).
#[must_use]
pub fn collectives(rs: &[CollectiveReport]) -> Table {
    let mut out = Table::labelled(&[
        ("kind", "Collective"),
        ("axes", "Axes"),
        ("array_bytes", "V"),
        ("time_s", "Time"),
        ("regime", "Regime"),
        ("bytes_per_link", "Bytes per link (one way)"),
        ("latency_floor_s", "Latency floor"),
        ("bandwidth_time_s", "Bandwidth time"),
    ]);
    for (i, c) in rs.iter().enumerate() {
        out.push_shown(vec![
            id_cell(&c.kind, &format!("{}. {}", i + 1, kind_name(c.kind))),
            (c.axes.join("+"), c.axes.join(" + ")),
            num(c.array_bytes.get(), bytes(c.array_bytes.get())),
            num(c.time_s.get(), seconds(c.time_s.get())),
            id_cell(&c.regime, regime_name(c.regime)),
            num(c.bytes_per_link.get(), bytes(c.bytes_per_link.get())),
            num(c.latency_floor_s.get(), seconds(c.latency_floor_s.get())),
            num(c.bandwidth_time_s.get(), seconds(c.bandwidth_time_s.get())),
        ]);
    }
    out
}

/// The op's numbers (`#roofline-op`, value cells `#roofline-<quantity>`): what binds, its
/// time, FLOPs and bytes, its intensity against the chip's critical one, and for a matmul
/// the batch at which it turns compute-bound and its MXU padding.
#[must_use]
pub fn roofline_op(r: &RooflineReport) -> Table {
    let mut out = Table::labelled(&[("quantity", ""), ("label", "Quantity"), ("value", "Value"), ("unit", "")]);
    let mut row = |q: &str, label: &str, value: (String, String), unit: &str| {
        out.push_shown(vec![text(q), text(label), value, text(unit)]);
    };
    row("bound", "Bound by", id_cell(&r.bound, resource_name(r.bound)), "");
    row("time_lower", "Time, perfect overlap (the bound)", num(r.time_s.get(), seconds(r.time_s.get())), "s");
    row("time_upper", "Time, no overlap", num(r.upper_time_s.get(), seconds(r.upper_time_s.get())), "s");
    row("op_flops", "FLOPs", num(r.flops.get(), significant(r.flops.get(), 4)), "FLOP");
    row("op_hbm_bytes", "Through HBM", num(r.hbm_bytes.get(), bytes(r.hbm_bytes.get())), "B");
    let i = r.intensity.map(|i| i.get());
    let i_cell = i.map_or_else(|| (String::new(), "n/a".into()), |i| num(i, intensity(i)));
    row("intensity", "Intensity (FLOP/B)", i_cell, "FLOP/B");
    let critical = r.critical_intensity_hbm.get();
    row("critical_intensity_hbm", "The chip's critical intensity (HBM)", num(critical, intensity(critical)), "FLOP/B");
    if let Some(m) = &r.matmul {
        let exact = m.critical_batch.map_or_else(
            || (String::new(), "never (activations alone outrun compute)".into()),
            |b| num(b, significant(b, 4)),
        );
        row("critical_batch", "Compute-bound above a batch of (exact, book Solution 2.4)", exact, "tokens");
        let approx = m.critical_batch_approx;
        row(
            "critical_batch_approx",
            "… for B ≪ D, F: peak × weight bytes / (2 × HBM bandwidth) (book 1.1.2)",
            num(approx, significant(approx, 4)),
            "tokens",
        );
        if let Some(p) = m.mxu {
            let padded = format!("B {}, D {}, F {}", count(p.padded_b), count(p.padded_d), count(p.padded_f));
            row("mxu_size", "MXU side (D and F pad to it, B to 8 rows)", num(p.mxu_size, padded), "");
            row("mxu_utilization", "MXU utilization", num(p.utilization, percent(p.utilization, 1.0)), "");
            let waste = 1.0 - p.utilization;
            row("mxu_waste", "Padding waste", num(waste, percent(waste, 1.0)), "");
        }
    }
    out
}

/// The time on each resource at its peak (`#roofline-table`), the bound marked `bound`.
#[must_use]
pub fn roofline_times(r: &RooflineReport) -> Table {
    let t = &r.times;
    let lower = r.time_s.get();
    let mut out = Table::labelled(&[("resource", "Resource"), ("time_s", "Time"), ("share_of_bound", "of the bound")]);
    for (res, s) in [
        (Resource::Compute, t.compute_s.get()),
        (Resource::Hbm, t.hbm_s.get()),
        (Resource::Ici, t.ici_s.get()),
        (Resource::Dcn, t.dcn_s.get()),
        (Resource::Host, t.host_s.get()),
    ] {
        let share = if lower > 0.0 { num(s / lower, percent(s, lower)) } else { (String::new(), "n/a".into()) };
        out.push_shown(vec![id_cell(&res, resource_name(res)), num(s, seconds(s)), share]);
        if res == r.bound {
            out.mark("bound");
        }
    }
    out
}

/// Chapter 3's summary of collective costs (book 3.4, `#collective-summary-table`), with
/// each row's time for `probe` = (V, axes label, axes) on this topology.
#[must_use]
pub fn summary(rows: &[SummaryRow], probe: Option<&(f64, String, Vec<AxisLink>)>) -> Table {
    let here = probe.map_or_else(String::new, |(v, names, _)| format!("Here: V = {} over {names}", bytes(*v)));
    let mut out = Table::labelled(&[
        ("operation", "Operation"),
        ("description", "Description"),
        ("syntax", "Syntax"),
        ("runtime", "Runtime"),
        ("multiple_of_all_gather", "×AllGather"),
        ("time_here_s", &here),
    ]);
    for r in rows {
        let cost = probe.and_then(|(v, _, axes)| collective_cost(r.kind, Bytes(*v), axes).ok());
        let time = cost.map_or_else(
            || (String::new(), String::new()),
            |c| num(c.time.get(), format!("{} ({})", seconds(c.time.get()), regime_name(c.regime))),
        );
        out.push_shown(vec![
            text(&r.name),
            text(&r.description),
            text(&r.syntax),
            text(&r.runtime),
            num(r.multiple_of_all_gather, significant(r.multiple_of_all_gather, 3)),
            time,
        ]);
    }
    out
}
