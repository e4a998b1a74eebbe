//! The headline numbers of the plan: the best mesh and where it sits, whether it fits,
//! step time, throughput, MFU/HFU, days and cost for the budget, and what binds. Every
//! headline number is rendered here (and only here), in the prediction mode of the switch:
//! the calibrated prediction by default (issue 16). Step time, throughput, MFU, days and
//! cost show the ideal roofline beside it as the bound no run beats (`#<id>-roofline`), and
//! carry their uncertainty band (issue 8) as `#<id>-band`: the calibrated value, its
//! p10–p90 range over the held-back published runs, the roofline, and the term that moves
//! the number most ([`Banded`], [`crate::components::band_text`]).

use leptos::prelude::*;
use shardcalc_charts::format::{grouped, short_count, significant, thousands};
use shardcalc_charts::training::{mesh_label, time_unit};
use shardcalc_core::collectives::AxisShape;
use shardcalc_core::training::step::Bottleneck;
use shardcalc_core::training::TrainingReport;
use shardcalc_core::validation::bands::{Band, TrainingBands};
use shardcalc_core::validation::PredictionMode;
use shardcalc_core::view::training::StepAccount;

use crate::components::band_text;

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
        Bottleneck::Memory => "memory (does not fit)",
        b => b.label(),
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
                        AxisShape::UnidirectionalRing => "one-way ring",
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

/// Which band of [`TrainingBands`] a headline carries, and how its numbers read (the
/// headline value's own formatter).
pub struct Banded {
    /// The band.
    pub of: fn(&TrainingBands) -> Option<&Band>,
    /// One number with its unit.
    pub number: fn(f64) -> String,
}

/// The roofline's value of a headline number, with the number's formatter: `None` when it
/// has none (no budget, no price).
pub type Roofline = fn(&TrainingReport, &StepAccount) -> Option<String>;

/// One headline number: element id stem (`#<id>`, `#<id>-value`, `#<id>-detail`,
/// `#<id>-roofline` when it has a roofline and `#<id>-band` when banded), title, value and
/// one line of context, each read from the plan.
pub struct Headline {
    /// Element id stem.
    pub id: &'static str,
    /// What the number is.
    pub title: &'static str,
    /// The number with its unit.
    pub value: fn(&TrainingReport) -> String,
    /// One line of context.
    pub detail: fn(&TrainingReport) -> String,
    /// The ideal roofline's value (the bound), for the numbers the calibration moves.
    pub roofline: Option<Roofline>,
    /// The uncertainty band, for the numbers the calibration moves.
    pub band: Option<Banded>,
}

fn tokens_per_s(x: f64) -> String {
    format!("{} tokens/s", grouped(x, 0))
}

fn percent_of(x: f64) -> String {
    format!("{}%", significant(100.0 * x, 3))
}

fn days(d: f64) -> String {
    format!("{} days", significant(d, 3))
}

fn dollars(c: f64) -> String {
    format!("${}", short_count(c))
}

fn step_band(b: &TrainingBands) -> Option<&Band> {
    Some(&b.step_time_s)
}

fn tokens_band(b: &TrainingBands) -> Option<&Band> {
    Some(&b.tokens_per_s)
}

fn mfu_band(b: &TrainingBands) -> Option<&Band> {
    Some(&b.mfu)
}

fn days_band(b: &TrainingBands) -> Option<&Band> {
    b.days.as_ref()
}

fn cost_band(b: &TrainingBands) -> Option<&Band> {
    b.cost_usd.as_ref()
}

fn mesh_detail(r: &TrainingReport) -> String {
    let plural = if r.microbatches == 1 { "" } else { "es" };
    format!("{}; {} microbatch{plural}, remat {}", placement_text(r), r.microbatches, r.remat)
}

fn memory_value(r: &TrainingReport) -> String {
    format!(
        "{} of {} GB",
        significant(r.memory.per_device_bytes.get() / 1e9, 3),
        significant(r.memory.capacity_bytes.get() / 1e9, 3)
    )
}

fn memory_detail(r: &TrainingReport) -> String {
    let h = r.memory.headroom_bytes.get() / 1e9;
    if r.memory.fits {
        format!("fits, {} GB free", significant(h, 3))
    } else {
        format!("does not fit: {} GB over; nothing the search tried fits", significant(-h, 3))
    }
}

/// The step as compute (its matmuls named) plus the terms that add to it, those above zero.
fn step_detail(r: &TrainingReport) -> String {
    let b = &r.breakdown;
    let mut text = format!("compute {} (matmuls {})", seconds(b.compute_s.get()), seconds(b.matmul_s.get()));
    for (name, t) in [
        ("exposed communication", b.exposed_communication_s),
        ("optimizer update", b.optimizer_s),
        ("slice sync", b.sync_s),
        ("bubble", b.bubble_s),
        ("host offload", b.offload_exposed_s),
    ] {
        if t.get() > 0.0 {
            text.push_str(&format!(" + {name} {}", seconds(t.get())));
        }
    }
    text
}

fn days_detail(r: &TrainingReport) -> String {
    match (r.token_budget, r.steps, r.chip_hours) {
        (Some(b), Some(s), Some(h)) => {
            format!("{} tokens = {} steps; {} chip-hours", short_count(b), short_count(s), short_count(h))
        }
        _ => "set a token budget".into(),
    }
}

fn cost_detail(r: &TrainingReport) -> String {
    r.price_per_chip_hour_usd
        .map(|p| format!("at ${} per chip-hour × {} chips", significant(p, 3), grouped(r.chips, 0)))
        .unwrap_or_else(|| "set a price per chip-hour".into())
}

/// The headline numbers, in order.
pub static HEADLINES: [Headline; 8] = [
    Headline {
        id: "training-mesh",
        title: "Best mesh",
        value: |r| mesh_label(&r.mesh.degrees),
        detail: mesh_detail,
        roofline: None,
        band: None,
    },
    Headline {
        id: "training-memory",
        title: "Memory per device",
        value: memory_value,
        detail: memory_detail,
        roofline: None,
        band: None,
    },
    Headline {
        id: "training-step-time",
        title: "Step time",
        value: |r| seconds(r.step_time_s.get()),
        detail: step_detail,
        roofline: Some(|r, _| Some(seconds(r.roofline.step_time_s.get()))),
        band: Some(Banded { of: step_band, number: seconds }),
    },
    Headline {
        id: "training-tokens-per-s",
        title: "Throughput",
        value: |r| tokens_per_s(r.tokens_per_s),
        detail: |r| {
            format!(
                "{} tokens ({} sequences) per step",
                thousands(r.global_batch_tokens as u64),
                thousands(r.global_batch_sequences)
            )
        },
        roofline: Some(|r, _| Some(tokens_per_s(r.roofline.tokens_per_s))),
        band: Some(Banded { of: tokens_band, number: tokens_per_s }),
    },
    Headline {
        id: "training-mfu",
        title: "MFU",
        value: |r| percent_of(r.mfu),
        detail: |r| {
            format!(
                "HFU {}% (with recompute and padding); {}",
                significant(100.0 * r.hfu, 3),
                r.flops_convention.label()
            )
        },
        roofline: Some(|r, _| Some(percent_of(r.roofline.mfu))),
        band: Some(Banded { of: mfu_band, number: percent_of }),
    },
    Headline {
        id: "training-days",
        title: "Time to train",
        value: |r| r.days.map_or_else(|| "no budget".into(), days),
        detail: days_detail,
        roofline: Some(|_, a| a.roofline_days.map(days)),
        band: Some(Banded { of: days_band, number: days }),
    },
    Headline {
        id: "training-cost",
        title: "Cost",
        value: |r| r.cost_usd.map_or_else(|| "no price".into(), dollars),
        detail: cost_detail,
        roofline: Some(|_, a| a.roofline_cost_usd.map(dollars)),
        band: Some(Banded { of: cost_band, number: dollars }),
    },
    Headline {
        id: "training-bound",
        title: "What binds",
        value: |r| bottleneck_label(r.bound.resource).to_string(),
        detail: |r| r.bound.explanation.clone(),
        roofline: None,
        band: None,
    },
];

/// The band line of `banded` in the view's prediction mode: empty before a plan or when the
/// number has no band (no budget, no price), the reason when the inputs cannot be banded.
fn band_line(banded: &Banded, derived: Derived) -> String {
    let mode = derived.inputs.with(|i| i.as_ref().map(|i| i.prediction).unwrap_or_default());
    derived.bands.with(|b| match b {
        Some(Ok(b)) => (banded.of)(b).map(|band| band_text(band, mode, banded.number)).unwrap_or_default(),
        Some(Err(e)) => format!("no band: {e}"),
        None => String::new(),
    })
}

/// The roofline line of a card: the bound beside the calibrated prediction, or, when the
/// switch shows the roofline itself, that it is the bound.
fn roofline_line(roofline: Roofline, derived: Derived) -> String {
    let mode = derived.inputs.with(|i| i.as_ref().map(|i| i.prediction).unwrap_or_default());
    derived.with_shown(|r| {
        let value = r.and_then(|r| roofline(r, &StepAccount::of(r)));
        match (value, mode) {
            (None, _) => String::new(),
            (Some(v), PredictionMode::Calibrated) => format!("roofline {v}: the bound no run beats"),
            (Some(_), PredictionMode::Ideal) => "the ideal roofline, the bound no run beats".into(),
        }
    })
}

/// One headline card: `#<id>` with its title, `#<id>-value`, `#<id>-detail` and, when it
/// has them, `#<id>-roofline` and `#<id>-band`.
#[component]
fn Card(
    /// What the card shows.
    headline: &'static Headline,
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let read = move |f: fn(&TrainingReport) -> String| move || derived.with_shown(|r| r.map(f).unwrap_or_default());
    view! {
        <div class="card" id=headline.id>
            <h3>{headline.title}</h3>
            <p class="value" id=format!("{}-value", headline.id)>{read(headline.value)}</p>
            {headline.roofline.map(|roofline| {
                view! { <p class="detail roofline" id=format!("{}-roofline", headline.id)>{move || roofline_line(roofline, derived)}</p> }
            })}
            <p class="detail" id=format!("{}-detail", headline.id)>{read(headline.detail)}</p>
            {headline.band.as_ref().map(|banded| {
                view! { <p class="detail band" id=format!("{}-band", headline.id)>{move || band_line(banded, derived)}</p> }
            })}
        </div>
    }
}

/// The best plan's headline cards.
#[component]
pub fn Headlines(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let cards = HEADLINES.iter().map(|h| view! { <Card headline=h derived=derived /> }).collect_view();
    view! { <div class="cards training-cards">{cards}</div> }
}
