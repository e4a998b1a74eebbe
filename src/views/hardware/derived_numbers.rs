//! The chip's derived numbers (book 1.1, MaxText and Ironwood guides): critical arithmetic
//! intensity per channel, link count and format; the book's β; FLOPs per dollar; and the
//! topology's axes as the collective model sees them.

use leptos::prelude::*;
use shardcalc_charts::format::{significant, thousands};
use shardcalc_core::collectives::{AxisShape, Network};
use shardcalc_core::hardware::chip::Fabric;
use shardcalc_core::hardware::intensity::{Channel, CriticalIntensity};
use shardcalc_core::report_hardware::HardwareReport;

use super::derived::Derived;
use super::units::{intensity, rate, seconds};
use super::{csv, html};
use crate::components::TableExports;

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

/// The derived-numbers section of `r` as HTML.
#[must_use]
pub fn numbers_html(r: &HardwareReport) -> String {
    let c = &r.chip;
    let torus = matches!(c.scale_up.fabric, Fabric::Torus { .. });
    let mut out = String::from("<h3 id=\"derived-heading\">Derived numbers</h3>");
    out += &format!(
        "<p>Critical arithmetic intensity (book 1.1): peak FLOP/s over the bandwidth of a channel; an op with fewer FLOPs per byte through that channel is bound by it. β = HBM bandwidth / bidirectional bandwidth of one link (book 7.3.2): {}.</p>",
        html::value("beta", &significant(r.hbm_over_ici, 3), true)
    );
    let per_dollar = r.flops_per_dollar.zip(c.price_per_chip_hour_usd).map(|(per_dollar, price)| {
        format!(
            "{} bf16 FLOPs per dollar at {} USD per chip-hour (book 8.1: FLOPs/$ = peak × 3600 / price).",
            significant(per_dollar, 3),
            significant(price, 3)
        )
    });
    out += &format!("<p id=\"flops-per-dollar\">{}</p>", html::escape(&per_dollar.unwrap_or_default()));
    let rows: Vec<html::Row> = r
        .critical_intensities
        .iter()
        .map(|row| {
            html::row(
                channel_label(row, &c.scale_up.name, &c.scale_out.name, torus),
                vec![
                    html::text(row.dtype.name()),
                    html::num(rate(row.bandwidth.get())),
                    html::num(intensity(row.intensity.get())),
                ],
            )
        })
        .collect();
    out += &html::table(
        "intensity-table",
        "Critical intensity per channel, link count and compute format (one-way bandwidth)",
        &["Channel", "Format", "#Bandwidth", "#Critical intensity (FLOP/B)"],
        &rows,
    );
    if let Some(t) = &r.topology {
        // Whole numbers below 2^53 (at most 2^30 per axis, checked): the cast is exact.
        let devices = if t.devices.fract() == 0.0 && t.devices < 9e15 {
            thousands(t.devices as u64)
        } else {
            significant(t.devices, 6)
        };
        out += &format!("<h4>Topology: {} devices</h4>", html::value("topology-devices", &devices, false));
        let rows: Vec<html::Row> = t
            .axes
            .iter()
            .map(|a| {
                let network = match a.network {
                    Network::ScaleUp => "scale-up",
                    Network::ScaleOut => "scale-out",
                    Network::DieToDie => "die-to-die",
                };
                html::row(
                    a.name.clone(),
                    vec![
                        html::num(thousands(a.size)),
                        html::text(network),
                        html::text(shape_name(a.shape)),
                        html::num(rate(a.link.get())),
                        html::num(seconds(a.hop_latency.get())),
                    ],
                )
            })
            .collect();
        out += &html::table(
            "topology-table",
            "Mesh axes as the collective model sees them",
            &["Axis", "#Devices", "Network", "Wiring", "#Link, one-way", "#Hop latency"],
            &rows,
        );
    }
    out
}

/// The derived numbers and the topology's axes, with their CSVs.
#[component]
pub fn DerivedNumbers(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let report = derived.report;
    let body = move || report.with(|r| r.as_ref().map(numbers_html).unwrap_or_default());
    let intensity_csv = Signal::derive(move || report.with(|r| r.as_ref().map(csv::intensities).unwrap_or_default()));
    let topology_csv = Signal::derive(move || report.with(|r| r.as_ref().map(csv::topology).unwrap_or_default()));
    view! {
        <section class="result-section" aria-labelledby="derived-heading">
            <div inner_html=body></div>
            <div class="actions">
                <span>"Critical intensities:"</span>
                <TableExports name="intensities" table=intensity_csv />
                <span>"Topology:"</span>
                <TableExports name="topology" table=topology_csv />
            </div>
        </section>
    }
}
