//! The chip's derived numbers (book 1.1, MaxText and Ironwood guides): critical arithmetic
//! intensity per channel, link count and format; the book's β; FLOPs per dollar; and the
//! topology's axes as the collective model sees them.

use leptos::prelude::*;
use shardcalc_charts::format::{significant, thousands};

use super::derived::Derived;
use super::tables;
use crate::components::DataTable;

/// `#beta`, `#flops-per-dollar`, `#intensity-table`, `#topology-devices` and
/// `#topology-table`, with their exports.
#[component]
pub fn DerivedNumbers(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let report = derived.report;
    let intensities = Memo::new(move |_| report.with(|r| r.as_ref().map(tables::intensities).unwrap_or_default()));
    let topology = Memo::new(move |_| report.with(|r| r.as_ref().map(tables::topology).unwrap_or_default()));
    let beta = move || report.with(|r| r.as_ref().map(|r| significant(r.hbm_over_ici, 3)).unwrap_or_default());
    let per_dollar = move || {
        report.with(|r| {
            let r = r.as_ref()?;
            let (per_dollar, price) = r.flops_per_dollar.zip(r.chip.price_per_chip_hour_usd)?;
            Some(format!(
                "{} bf16 FLOPs per dollar at {} USD per chip-hour (book 8.1: FLOPs/$ = peak × 3600 / price).",
                significant(per_dollar, 3),
                significant(price, 3)
            ))
        })
    };
    let devices = move || {
        report.with(|r| {
            let t = r.as_ref()?.topology.as_ref()?;
            // Whole numbers below 2^53 (at most 2^30 per axis, checked): the cast is exact.
            Some(if t.devices.fract() == 0.0 && t.devices < 9e15 {
                thousands(t.devices as u64)
            } else {
                significant(t.devices, 6)
            })
        })
    };
    let has_topology = move || report.with(|r| r.as_ref().is_some_and(|r| r.topology.is_some()));
    view! {
        <section class="result-section" aria-labelledby="derived-heading">
            <h3 id="derived-heading">"Derived numbers"</h3>
            <p>
                "Critical arithmetic intensity (book 1.1): peak FLOP/s over the bandwidth of a channel; an op with fewer FLOPs per byte through that channel is bound by it. β = HBM bandwidth / bidirectional bandwidth of one link (book 7.3.2): "
                <strong id="beta">{beta}</strong>"."
            </p>
            <p id="flops-per-dollar">{per_dollar}</p>
            <DataTable
                id="intensity-table"
                table=intensities
                caption="Critical intensity per channel, link count and compute format (one-way bandwidth)"
                row_headers=true
                exports="intensities"
            />
            <Show when=has_topology>
                <h4>"Topology: "<span id="topology-devices">{devices}</span>" devices"</h4>
                <DataTable
                    id="topology-table"
                    table=topology
                    caption="Mesh axes as the collective model sees them"
                    row_headers=true
                    exports="topology"
                />
            </Show>
        </section>
    }
}
