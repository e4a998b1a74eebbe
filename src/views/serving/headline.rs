//! The headline numbers of the serving plan, each with the term that binds it: decode step,
//! throughput, cost, time to first token, KV cache, where it fits, the disaggregation ratio
//! and, when set, speculative decoding. The numbers the calibration moves (decode step,
//! throughput, cost, time to first token) carry their uncertainty band (issue 8) as
//! `#<id>-band`: calibrated and roofline values and what dominates (serving's calibration
//! derates HBM bandwidth and matmul peaks, `efficiency::serving`).

use leptos::prelude::*;
use shardcalc_charts::format::{percent, significant, thousands};
use shardcalc_core::inference::report::TopologySource;
use shardcalc_core::inference::InferenceReport;
use shardcalc_core::validation::bands::{Band, ServingBands};

use super::derived::Derived;
use super::optional_cards::OPTIONAL;
use super::rows::{decode_bound, kv_layout_text, prefill_bound, seconds, show, Unit};
use crate::components::{band_text, StaleNote};

/// Which band of [`ServingBands`] a headline carries, and how its numbers read.
pub(super) struct Banded {
    of: fn(&ServingBands) -> Option<&Band>,
    number: fn(f64) -> String,
}

fn step_band(b: &ServingBands) -> Option<&Band> {
    Some(&b.decode_step_s)
}

fn throughput_band(b: &ServingBands) -> Option<&Band> {
    Some(&b.tokens_per_s_per_chip)
}

fn cost_band(b: &ServingBands) -> Option<&Band> {
    b.decode_usd_per_million_tokens.as_ref()
}

fn ttft_band(b: &ServingBands) -> Option<&Band> {
    Some(&b.ttft_s)
}

fn tokens_per_s(x: f64) -> String {
    show(x, Unit::TokensPerS)
}

fn usd(x: f64) -> String {
    show(x, Unit::Usd)
}

/// One headline: title, value and a line of context, each computed from the report.
pub(super) struct Headline {
    /// Element id stem: the value is `#<id>-value`, the detail `#<id>-detail`.
    pub id: &'static str,
    pub title: &'static str,
    pub value: fn(&InferenceReport) -> String,
    pub detail: fn(&InferenceReport) -> String,
    /// The uncertainty band (`#<id>-band`), for the numbers the calibration moves.
    pub band: Option<Banded>,
    /// Whether the report has this card (hidden otherwise); `None`: always.
    pub applies: Option<fn(&InferenceReport) -> bool>,
}

static HEADLINES: [Headline; 7] = [
    Headline {
        id: "serving-step",
        title: "Decode step (per-token latency)",
        value: |r| seconds(r.decode.step.step_time_s.get()),
        band: Some(Banded { of: step_band, number: seconds }),
        applies: None,
        detail: |r| {
            let t = &r.decode.step;
            format!(
                "bound by {}: weights {}, KV {}, FLOPs {}, collectives {}",
                decode_bound(t.binds),
                seconds(t.weight_load_s.get()),
                seconds(t.kv_load_s.get()),
                seconds(t.flops_s.get()),
                seconds(t.comms_s.get())
            )
        },
    },
    Headline {
        id: "serving-throughput",
        title: "Throughput per chip",
        value: |r| tokens_per_s(r.decode.tokens_per_s_per_chip),
        band: Some(Banded { of: throughput_band, number: tokens_per_s }),
        applies: None,
        detail: |r| {
            format!(
                "{} on {} at batch {}; {} requests/s/chip",
                show(r.decode.tokens_per_s, Unit::TokensPerS),
                show(r.serving.chips, Unit::Chips),
                thousands(r.serving.batch),
                significant(r.decode.queries_per_s_per_chip, 3)
            )
        },
    },
    Headline {
        id: "serving-cost",
        title: "Cost per million tokens",
        value: |r| r.cost.as_ref().map_or_else(|| "no price".into(), |c| usd(c.decode_usd_per_million_tokens)),
        band: Some(Banded { of: cost_band, number: usd }),
        applies: None,
        detail: |r| match &r.cost {
            Some(c) => format!(
                "generated, at ${}/chip-hour; prompt tokens {} per million",
                significant(c.price_per_chip_hour_usd, 3),
                show(c.prefill_usd_per_million_tokens, Unit::Usd)
            ),
            None => "enter a price per chip-hour (the catalog has none for this chip)".into(),
        },
    },
    Headline {
        id: "serving-ttft",
        title: "Time to first token",
        value: |r| seconds(r.prefill.ttft_s.get()),
        band: Some(Banded { of: ttft_band, number: seconds }),
        applies: None,
        detail: |r| {
            format!(
                "prefill bound by {} on {}, at {} of peak FLOP/s",
                prefill_bound(r.prefill.bound),
                show(r.prefill.chips, Unit::Chips),
                percent(r.prefill.mfu_effective, 1.0)
            )
        },
    },
    Headline {
        id: "serving-kv",
        title: "KV cache per token",
        value: |r| show(r.kv_bytes_per_token.get(), Unit::Bytes),
        band: None,
        applies: None,
        detail: |r| {
            format!(
                "{} per sequence, {} per batch; {}",
                show(r.kv_cache.bytes_per_sequence.get(), Unit::Bytes),
                show(r.kv_cache.bytes_per_batch.get(), Unit::Bytes),
                kv_layout_text(r)
            )
        },
    },
    Headline {
        id: "serving-fit",
        title: "Topology and largest batch",
        value: |r| format!("{} · B ≤ {}", r.serving.topology, thousands(r.max_batch)),
        band: None,
        applies: None,
        detail: |r| {
            let chosen = match r.serving.topology_source {
                TopologySource::Scenario => "given",
                TopologySource::SmallestFitting => "the smallest that fits",
            };
            let smallest = r.memory.min_topology.as_ref().map_or_else(|| "none".to_string(), |t| t.label.clone());
            format!(
                "{chosen}; smallest slice that fits: {smallest}; {} of {} HBM per chip used",
                show(r.memory.per_chip.total.get(), Unit::Bytes),
                show(r.memory.per_chip.hbm.get(), Unit::Bytes)
            )
        },
    },
    Headline {
        id: "serving-ratio",
        title: "Prefill : decode servers",
        value: |r| match &r.disaggregation.deployment {
            Some(d) => d.ratio.clone(),
            None => format!("{} : 1", significant(r.disaggregation.prefill_per_decode, 3)),
        },
        band: None,
        applies: None,
        detail: |r| {
            let d = &r.disaggregation;
            let per = if d.deployment.is_some() { "for the request rate" } else { "to keep both busy (book 8.1.2)" };
            format!(
                "{per}; {} of KV per request over {}: {} a pass, {} added to the time to first token",
                show(d.kv_bytes_per_request.get(), Unit::Bytes),
                d.kv_link.name,
                seconds(d.kv_transfer_s.get()),
                seconds(d.kv_transfer_added_s.get())
            )
        },
    },
];

/// One headline card: `#<id>` with its title, `#<id>-value`, `#<id>-detail` and, when
/// banded, `#<id>-band`.
#[component]
fn Card(
    /// What the card shows.
    headline: &'static Headline,
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let read = move |f: fn(&InferenceReport) -> String| move || derived.with_report(f).unwrap_or_default();
    let band = move |banded: &'static Banded| {
        move || {
            let mode = derived.prediction();
            derived
                .with_bands(|b| (banded.of)(b).map(|band| band_text(band, mode, banded.number)))
                .flatten()
                .unwrap_or_default()
        }
    };
    let hidden = move || headline.applies.is_some_and(|f| !derived.with_report(f).unwrap_or(false));
    view! {
        <div class="card" id=headline.id hidden=hidden>
            <h3>{headline.title}</h3>
            <p class="value" id=format!("{}-value", headline.id)>{read(headline.value)}</p>
            <p class="detail" id=format!("{}-detail", headline.id)>{read(headline.detail)}</p>
            {headline.band.as_ref().map(|b| view! { <p class="detail band" id=format!("{}-band", headline.id)>{band(b)}</p> })}
        </div>
    }
}

/// The headline cards, a stale note while the form has problems, a message when nothing can
/// be computed, and the plan's caveats.
#[component]
pub fn Headline(
    /// The memos the cards read.
    derived: Derived,
) -> impl IntoView {
    let error = move || {
        derived.report.with(|r| match r {
            Err(e) => {
                Some(view! { <p class="field-error" id="serving-error">{format!("Cannot plan serving: {e}")}</p> })
            }
            Ok(_) => None,
        })
    };
    let notes = move || {
        derived
            .with_report(|r| r.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view())
            .unwrap_or_default()
    };
    let cards = HEADLINES.iter().chain(&OPTIONAL).map(|h| view! { <Card headline=h derived=derived /> }).collect_view();
    view! {
        <StaleNote />
        {error}
        <div class="cards" id="serving-headline">
            {cards}
        </div>
        <ul class="notes" id="serving-notes">{notes}</ul>
    }
}
