//! The hardware page's tables as exported (CSV and Markdown, `shardcalc_charts::table`),
//! numbers in base units (bytes, seconds, FLOP/s) at full precision.

use shardcalc_core::collectives::summary::SummaryRow;
use shardcalc_core::collectives::{AxisShape, CollectiveKind, Network, Regime};
use shardcalc_core::hardware::intensity::Channel;
use shardcalc_core::report_hardware::{CollectiveReport, HardwareReport, RooflineReport};
use shardcalc_core::roofline::Resource;

use shardcalc_charts::table::Table;

use super::spec_table::SpecRow;

/// The id serde gives an enum value in JSON (`all_gather`, `scale_up`, ...), written out
/// here so the page does not link serde_json's `Value` serializer for it.
trait Id {
    fn id(&self) -> &'static str;
}

impl Id for CollectiveKind {
    fn id(&self) -> &'static str {
        match self {
            CollectiveKind::AllGather => "all_gather",
            CollectiveKind::ReduceScatter => "reduce_scatter",
            CollectiveKind::AllReduce => "all_reduce",
            CollectiveKind::AllToAll => "all_to_all",
        }
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

fn id(value: &impl Id) -> String {
    value.id().to_string()
}

fn num(x: f64) -> String {
    // Not format!("{x}"): see shardcalc_core::decimal.
    shardcalc_core::decimal::shortest(x)
}

/// The spec table: field path, label, value (base unit; empty when not published), source,
/// date, and the other sources as `value (source; note)` joined by ` | `.
#[must_use]
pub fn spec(rows: &[SpecRow]) -> Table {
    let mut out = Table::new(["field", "label", "value", "unit", "source", "as_of", "other_sources"]);
    for r in rows {
        let others: Vec<String> =
            r.others.iter().map(|(v, s, n)| format!("{v} ({s}{}{n})", if n.is_empty() { "" } else { "; " })).collect();
        out.push([
            r.field.path.into(),
            r.field.label.into(),
            r.value.map(num).unwrap_or_default(),
            base_unit(r.field.path).into(),
            r.source.clone(),
            r.as_of.clone(),
            others.join(" | "),
        ]);
    }
    out
}

/// The base unit of a chip field's value in the CSV.
fn base_unit(path: &str) -> &'static str {
    if path.starts_with("peak_flops") || path == "vector_flops" {
        "FLOP/s"
    } else if path.ends_with("capacity") {
        "B"
    } else if path.ends_with("hop_latency") {
        "s"
    } else if path.starts_with("price") {
        "USD/chip-hour"
    } else if path.contains("bandwidth") || path.ends_with("one_way") || path.ends_with("bidirectional") {
        "B/s"
    } else {
        "count"
    }
}

/// Critical intensities.
#[must_use]
pub fn intensities(r: &HardwareReport) -> Table {
    let mut out =
        Table::new(["channel", "links", "dtype", "bandwidth_bytes_per_s", "critical_intensity_flop_per_byte"]);
    for row in &r.critical_intensities {
        out.push([
            id(&row.channel),
            row.links.map(|l| l.to_string()).unwrap_or_default(),
            row.dtype.name().into(),
            num(row.bandwidth.get()),
            num(row.intensity.get()),
        ]);
    }
    out
}

/// The topology's resolved axes.
#[must_use]
pub fn topology(r: &HardwareReport) -> Table {
    let mut out = Table::new(["axis", "size", "network", "shape", "link_bytes_per_s_one_way", "hop_latency_s"]);
    for a in r.topology.iter().flat_map(|t| &t.axes) {
        out.push([
            a.name.clone(),
            a.size.to_string(),
            id(&a.network),
            id(&a.shape),
            num(a.link.get()),
            num(a.hop_latency.get()),
        ]);
    }
    out
}

/// The answered collectives.
#[must_use]
pub fn collectives(rs: &[CollectiveReport]) -> Table {
    let mut out = Table::new([
        "kind",
        "axes",
        "array_bytes",
        "time_s",
        "regime",
        "bytes_per_link",
        "latency_floor_s",
        "bandwidth_time_s",
    ]);
    for c in rs {
        out.push([
            id(&c.kind),
            c.axes.join("+"),
            num(c.array_bytes.get()),
            num(c.time_s.get()),
            id(&c.regime),
            num(c.bytes_per_link.get()),
            num(c.latency_floor_s.get()),
            num(c.bandwidth_time_s.get()),
        ]);
    }
    out
}

/// The roofline: one row per resource, then the op's numbers.
#[must_use]
pub fn roofline(r: &RooflineReport) -> Table {
    let t = &r.times;
    let mut out = Table::new(["quantity", "value", "unit"]);
    let mut row = |q: &str, v: String, u: &str| out.push([q.into(), v, u.into()]);
    row("bound", id(&r.bound), "");
    row("time_lower", num(r.time_s.get()), "s");
    row("time_upper", num(r.upper_time_s.get()), "s");
    for (q, s) in [("compute", t.compute_s), ("hbm", t.hbm_s), ("ici", t.ici_s), ("dcn", t.dcn_s), ("host", t.host_s)] {
        row(&format!("time_{q}"), num(s.get()), "s");
    }
    row("flops", num(r.flops.get()), "FLOP");
    row("hbm_bytes", num(r.hbm_bytes.get()), "B");
    row("intensity", r.intensity.map(|i| num(i.get())).unwrap_or_default(), "FLOP/B");
    row("critical_intensity_hbm", num(r.critical_intensity_hbm.get()), "FLOP/B");
    if let Some(m) = &r.matmul {
        row("critical_batch", m.critical_batch.map(num).unwrap_or_default(), "tokens");
        row("critical_batch_approx", num(m.critical_batch_approx), "tokens");
        if let Some(p) = m.mxu {
            row("mxu_size", num(p.mxu_size), "");
            row("mxu_utilization", num(p.utilization), "");
        }
    }
    out
}

/// Chapter 3's summary table.
#[must_use]
pub fn summary(rows: &[SummaryRow]) -> Table {
    let mut out = Table::new(["operation", "description", "syntax", "runtime", "multiple_of_all_gather"]);
    for r in rows {
        out.push([
            r.name.clone(),
            r.description.clone(),
            r.syntax.clone(),
            r.runtime.clone(),
            num(r.multiple_of_all_gather),
        ]);
    }
    out
}
