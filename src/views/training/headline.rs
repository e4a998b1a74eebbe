//! The headline numbers of the plan: the best mesh and where it sits, whether it fits,
//! step time, throughput, MFU/HFU, days and cost for the budget, and what binds. Every
//! headline number is rendered here (and only here), so that a later calibration can
//! add its uncertainty band to each in one place.

use leptos::prelude::*;
use shardcalc_charts::format::{grouped, short_count, significant, thousands};
use shardcalc_charts::training::{mesh_label, time_unit};
use shardcalc_core::collectives::AxisShape;
use shardcalc_core::training::step::Bottleneck;
use shardcalc_core::training::TrainingReport;

use super::derived::Derived;

/// Seconds with a unit that suits them: `850 ms`, `5.21 s`.
#[must_use]
pub fn seconds(s: f64) -> String {
    let (div, unit) = time_unit(s);
    format!("{} {unit}", significant(s / div, 3))
}

/// What binds, in words.
#[must_use]
pub fn bottleneck_label(b: Bottleneck) -> &'static str {
    match b {
        Bottleneck::Compute => "compute",
        Bottleneck::Communication => "communication",
        Bottleneck::PipelineBubble => "pipeline bubble",
        Bottleneck::HostOffload => "host offload",
        Bottleneck::Memory => "memory (does not fit)",
    }
}

/// Where each logical axis sits: `tp on x[4/1] (line), fsdp on y × z`.
#[must_use]
pub fn placement_text(r: &TrainingReport) -> String {
    let parts: Vec<String> = r
        .mesh
        .placement
        .iter()
        .map(|a| {
            let pieces: Vec<String> = a
                .pieces
                .iter()
                .map(|p| {
                    let shape = match p.shape {
                        AxisShape::Ring => "ring",
                        AxisShape::Line => "line",
                        AxisShape::Switch => "switch",
                        AxisShape::FullMesh => "full mesh",
                    };
                    let stride = if p.stride > 1 { format!(", every {}", p.stride) } else { String::new() };
                    format!("{} {} ({shape}{stride})", p.physical, p.size)
                })
                .collect();
            format!("{} on {}", a.axis.id(), pieces.join(" × "))
        })
        .collect();
    if parts.is_empty() {
        "one device".into()
    } else {
        parts.join("; ")
    }
}

/// One headline number. Ids: `#<id>` (the card), `#<id>-value`, `#<id>-detail`.
#[component]
fn Card(
    /// Element id stem.
    id: &'static str,
    /// What the number is.
    title: &'static str,
    /// The number with its unit.
    value: Signal<String>,
    /// One line of context.
    detail: Signal<String>,
) -> impl IntoView {
    view! {
        <div class="card" id=id>
            <h3>{title}</h3>
            <p class="value" id=format!("{id}-value")>{move || value.get()}</p>
            <p class="detail" id=format!("{id}-detail")>{move || detail.get()}</p>
        </div>
    }
}

/// The best plan's headline cards.
#[component]
pub fn Headline(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let best = derived.shown;
    let text = move |f: fn(&TrainingReport) -> String| {
        Signal::derive(move || best.with(|b| b.as_ref().map(f).unwrap_or_default()))
    };
    view! {
        <div class="cards training-cards">
            <Card
                id="training-mesh"
                title="Best mesh"
                value=text(|r| mesh_label(&r.mesh.degrees))
                detail=text(|r| format!("{}; {} microbatch{}, remat {}", placement_text(r), r.microbatches, if r.microbatches == 1 { "" } else { "es" }, r.remat))
            />
            <Card
                id="training-memory"
                title="Memory per device"
                value=text(|r| format!("{} of {} GB", significant(r.memory.per_device_bytes.get() / 1e9, 3), significant(r.memory.capacity_bytes.get() / 1e9, 3)))
                detail=text(|r| {
                    let h = r.memory.headroom_bytes.get() / 1e9;
                    if r.memory.fits {
                        format!("fits, {} GB free", significant(h, 3))
                    } else {
                        format!("does not fit: {} GB over; nothing the search tried fits", significant(-h, 3))
                    }
                })
            />
            <Card
                id="training-step-time"
                title="Step time"
                value=text(|r| seconds(r.step_time_s.get()))
                detail=text(|r| format!(
                    "compute {} + exposed communication {} + bubble {}",
                    seconds(r.breakdown.compute_s.get()),
                    seconds(r.breakdown.exposed_communication_s.get()),
                    seconds(r.breakdown.bubble_s.get())
                ))
            />
            <Card
                id="training-tokens-per-s"
                title="Throughput"
                value=text(|r| format!("{} tokens/s", grouped(r.tokens_per_s, 0)))
                detail=text(|r| format!("{} tokens ({} sequences) per step", thousands(r.global_batch_tokens as u64), thousands(r.global_batch_sequences)))
            />
            <Card
                id="training-mfu"
                title="MFU"
                value=text(|r| format!("{}%", significant(100.0 * r.mfu, 3)))
                detail=text(|r| format!("HFU {}% (with recompute and padding); {}; a roofline unless the efficiency settings say otherwise", significant(100.0 * r.hfu, 3), r.flops_convention.label()))
            />
            <Card
                id="training-days"
                title="Time to train"
                value=text(|r| r.days.map(|d| format!("{} days", significant(d, 3))).unwrap_or_else(|| "no budget".into()))
                detail=text(|r| match (r.token_budget, r.steps, r.chip_hours) {
                    (Some(b), Some(s), Some(h)) => format!("{} tokens = {} steps; {} chip-hours", short_count(b), short_count(s), short_count(h)),
                    _ => "set a token budget".into(),
                })
            />
            <Card
                id="training-cost"
                title="Cost"
                value=text(|r| r.cost_usd.map(|c| format!("${}", short_count(c))).unwrap_or_else(|| "no price".into()))
                detail=text(|r| r.price_per_chip_hour_usd.map(|p| format!("at ${} per chip-hour × {} chips", significant(p, 3), grouped(r.chips, 0))).unwrap_or_else(|| "set a price per chip-hour".into()))
            />
            <Card
                id="training-bound"
                title="What binds"
                value=text(|r| bottleneck_label(r.bound.resource).to_string())
                detail=text(|r| r.bound.explanation.clone())
            />
        </div>
    }
}
