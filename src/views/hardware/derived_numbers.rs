//! The chip's derived numbers (book 1.1, MaxText and Ironwood guides): critical arithmetic
//! intensity per channel, link count and format; the book's β; FLOPs per dollar; and the
//! topology's axes as the collective model sees them.

use leptos::prelude::*;
use shardcalc_charts::format::{significant, thousands};
use shardcalc_core::collectives::{AxisShape, Network};
use shardcalc_core::hardware::intensity::{Channel, CriticalIntensity};

use super::csv;
use super::derived::Derived;
use super::units::{intensity, rate, seconds};
use crate::components::CsvButton;

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

/// The derived numbers and the topology's axes.
#[component]
pub fn DerivedNumbers(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let report = derived.report;
    let rows = move || {
        report.with(|r| {
            let r = r.as_ref()?;
            let c = &r.chip;
            let torus = matches!(c.scale_up.fabric, shardcalc_core::hardware::chip::Fabric::Torus { .. });
            Some(
                r.critical_intensities
                    .iter()
                    .map(|row| {
                        let label = channel_label(row, &c.scale_up.name, &c.scale_out.name, torus);
                        view! {
                            <tr>
                                <th scope="row">{label}</th>
                                <td>{row.dtype.name()}</td>
                                <td class="num">{rate(row.bandwidth.get())}</td>
                                <td class="num">{intensity(row.intensity.get())}</td>
                            </tr>
                        }
                    })
                    .collect_view(),
            )
        })
    };
    let beta = move || report.with(|r| r.as_ref().map(|r| significant(r.hbm_over_ici, 3)));
    let per_dollar = move || {
        report.with(|r| {
            let c = &r.as_ref()?.chip;
            let price = c.price_per_chip_hour_usd?;
            Some(format!(
                "{} bf16 FLOPs per dollar at {} USD per chip-hour (book 8.1: FLOPs/$ = peak × 3600 / price).",
                significant(c.peak_flops.bf16.get() * 3600.0 / price, 3),
                significant(price, 3)
            ))
        })
    };
    let axes = move || {
        report.with(|r| {
            let t = r.as_ref()?.topology.as_ref()?;
            Some(
                t.axes
                    .iter()
                    .map(|a| {
                        let shape = match a.shape {
                            AxisShape::Ring => "ring (wraparound)",
                            AxisShape::Line => "line (no wraparound)",
                            AxisShape::Switch => "switch",
                            AxisShape::FullMesh => "full mesh",
                        };
                        let network = match a.network {
                            Network::ScaleUp => "scale-up",
                            Network::ScaleOut => "scale-out",
                            Network::DieToDie => "die-to-die",
                        };
                        view! {
                            <tr>
                                <th scope="row">{a.name.clone()}</th>
                                <td class="num">{thousands(a.size)}</td>
                                <td>{network}</td>
                                <td>{shape}</td>
                                <td class="num">{rate(a.link.get())}</td>
                                <td class="num">{seconds(a.hop_latency.get())}</td>
                            </tr>
                        }
                    })
                    .collect_view(),
            )
        })
    };
    let devices = move || report.with(|r| r.as_ref()?.topology.as_ref().map(|t| significant(t.devices, 6)));
    let intensity_csv = Signal::derive(move || report.with(|r| r.as_ref().map(csv::intensities).unwrap_or_default()));
    let topology_csv = Signal::derive(move || report.with(|r| r.as_ref().map(csv::topology).unwrap_or_default()));
    view! {
        <section class="result-section" aria-labelledby="derived-heading">
            <h3 id="derived-heading">"Derived numbers"</h3>
            <p>
                "Critical arithmetic intensity (book 1.1): peak FLOP/s over the bandwidth of a channel. An op with fewer FLOPs per byte through that channel is bound by it. β = HBM bandwidth / bidirectional bandwidth of one link (book 7.3.2): "
                <strong id="beta">{beta}</strong> "."
            </p>
            <p id="flops-per-dollar">{per_dollar}</p>
            <div class="table-wrap">
                <table id="intensity-table">
                    <caption>"Critical intensity per channel, link count and compute format (one-way bandwidth)"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Channel"</th>
                            <th scope="col">"Format"</th>
                            <th scope="col" class="num">"Bandwidth"</th>
                            <th scope="col" class="num">"Critical intensity (FLOP/B)"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <div class="actions"><CsvButton name="intensities" csv=intensity_csv /></div>
            <h4>"Topology: " <span id="topology-devices">{devices}</span> " devices"</h4>
            <div class="table-wrap">
                <table id="topology-table">
                    <caption>"Mesh axes as the collective model sees them"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Axis"</th>
                            <th scope="col" class="num">"Devices"</th>
                            <th scope="col">"Network"</th>
                            <th scope="col">"Wiring"</th>
                            <th scope="col" class="num">"Link, one-way"</th>
                            <th scope="col" class="num">"Hop latency"</th>
                        </tr>
                    </thead>
                    <tbody>{axes}</tbody>
                </table>
            </div>
            <div class="actions"><CsvButton name="topology" csv=topology_csv /></div>
        </section>
    }
}
