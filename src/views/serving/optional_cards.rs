//! The headline cards that only some scenarios have, shown while their report has them:
//! serving at the request rate co-located (`#serving-colocated`: continuous batching, the
//! servers and their time to first token with queueing) and disaggregated
//! (`#serving-disagg`: "x prefill : y decode", the KV transfer and what it adds, each pool's
//! chip and cost), the MoE and MLA details (`#serving-moe`, `#serving-mla`), and speculative
//! decoding (`#serving-speculative`). Under the cards, when a rate is set, the queueing model
//! in one sentence (`#serving-queueing`).

use leptos::prelude::*;
use shardcalc_charts::format::significant;
use shardcalc_core::inference::report::PoolReport;
use shardcalc_core::inference::targets::Unmet;
use shardcalc_core::inference::InferenceReport;
use shardcalc_core::view::serving::QUEUEING_MODEL;

use super::derived::Derived;
use super::headline::Headline;
use super::rows::{constraint_text, count, seconds, show, Unit};

fn usd_per_hour(x: Option<f64>) -> String {
    x.map_or_else(|| "no price".into(), |h| format!("{}/h", show(h, Unit::Usd)))
}

fn unmet(u: &Unmet) -> String {
    format!("{}: {}", constraint_text(u.constraint), u.reason)
}

fn pool(p: &PoolReport) -> String {
    format!("{} {}", p.chip, p.topology)
}

fn colocated_value(r: &InferenceReport) -> String {
    let Some(at) = &r.continuous_batching.at_request_rate else { return String::new() };
    match &at.deployment {
        Some(d) => {
            format!("{} × {} chips · TTFT p99 {}", d.servers, count(d.chips_per_server), seconds(d.point.ttft.p99_s))
        }
        None => "cannot meet the targets".into(),
    }
}

fn colocated_detail(r: &InferenceReport) -> String {
    let Some(at) = &r.continuous_batching.at_request_rate else { return String::new() };
    match (&at.deployment, &at.impossible) {
        (Some(d), _) => format!(
            "continuous batching, {} requests/s each: TTFT p50 {}, TPOT {}, {} in flight per server; {}; set by {}",
            significant(d.rate_per_server, 3),
            seconds(d.point.ttft.p50_s),
            seconds(d.point.tpot_s.get()),
            significant(d.point.concurrency, 3),
            usd_per_hour(d.usd_per_hour),
            constraint_text(d.binds)
        ),
        (None, Some(u)) => unmet(u),
        (None, None) => String::new(),
    }
}

fn disagg_value(r: &InferenceReport) -> String {
    let g = &r.disaggregation;
    match &g.deployment {
        Some(d) => format!("{} · TTFT p99 {}", d.ratio, seconds(d.ttft.p99_s)),
        None if g.impossible.is_some() => "cannot meet the targets".into(),
        None => String::new(),
    }
}

fn disagg_detail(r: &InferenceReport) -> String {
    let g = &r.disaggregation;
    match (&g.deployment, &g.impossible) {
        (Some(d), _) => format!(
            "prefill on {} ({}, {} prompts a pass), decode on {} ({}); KV transfer {} over {}, {} of it added to the TTFT (p50 {}); TPOT {}",
            pool(&g.prefill_pool),
            usd_per_hour(d.prefill_usd_per_hour),
            g.prefill_batch,
            pool(&g.decode_pool),
            usd_per_hour(d.decode_usd_per_hour),
            seconds(g.kv_transfer_s.get()),
            g.kv_link.name,
            seconds(g.kv_transfer_added_s.get()),
            seconds(d.ttft.p50_s),
            seconds(d.tpot_s.get())
        ),
        (None, Some(u)) => unmet(u),
        (None, None) => String::new(),
    }
}

fn moe_value(r: &InferenceReport) -> String {
    r.moe.as_ref().map_or_else(String::new, |m| {
        format!(
            "{} of {} experts touched · {}× busiest",
            significant(m.experts_touched_per_layer, 3),
            m.experts,
            significant(m.load_imbalance, 3)
        )
    })
}

fn moe_detail(r: &InferenceReport) -> String {
    r.moe.as_ref().map_or_else(String::new, |m| {
        format!(
            "{} tokens per expert; EP over {} chips ({} experts each); AllToAlls {} per step; {} of expert weights read on the busiest chip",
            significant(m.tokens_per_expert, 3),
            count(m.expert_parallel),
            significant(m.experts_per_chip, 3),
            seconds(m.all_to_all_s.get()),
            show(m.expert_weight_bytes_per_chip.get(), Unit::Bytes)
        )
    })
}

fn mla_value(r: &InferenceReport) -> String {
    r.mla.as_ref().map_or_else(String::new, |m| {
        format!(
            "{} of KV per token ({}× less than MHA)",
            show(m.kv_bytes_per_token.get(), Unit::Bytes),
            significant(m.mha_equivalent_kv_bytes_per_token.get() / m.kv_bytes_per_token.get().max(1.0), 3)
        )
    })
}

fn mla_detail(r: &InferenceReport) -> String {
    r.mla.as_ref().map_or_else(String::new, |m| {
        format!(
            "absorbed projections: {} FLOP per cached byte against the chip's {}: attention is {}",
            significant(m.attention_intensity, 3),
            significant(m.chip_intensity, 3),
            if m.attention_compute_bound { "compute-bound" } else { "memory-bound" }
        )
    })
}

fn speculative_value(r: &InferenceReport) -> String {
    r.speculative.as_ref().map_or_else(String::new, |s| {
        format!("{} tokens/step · {}×", significant(s.expected_tokens_per_step, 3), significant(s.speedup, 3))
    })
}

fn speculative_detail(r: &InferenceReport) -> String {
    r.speculative.as_ref().map_or_else(String::new, |s| {
        format!(
            "per-token latency {} (plain {}); {} per chip",
            seconds(s.time_per_token_s.get()),
            seconds(r.decode.step.step_time_s.get()),
            show(s.tokens_per_s_per_chip, Unit::TokensPerS)
        )
    })
}

/// The cards some reports have, after the headline's.
pub(super) static OPTIONAL: [Headline; 5] = [
    Headline {
        id: "serving-colocated",
        title: "Co-located servers at the request rate",
        value: colocated_value,
        detail: colocated_detail,
        band: None,
        applies: Some(|r| r.continuous_batching.at_request_rate.is_some()),
    },
    Headline {
        id: "serving-disagg",
        title: "Disaggregated at the request rate",
        value: disagg_value,
        detail: disagg_detail,
        band: None,
        applies: Some(|r| r.disaggregation.deployment.is_some() || r.disaggregation.impossible.is_some()),
    },
    Headline {
        id: "serving-moe",
        title: "Experts in a decode step",
        value: moe_value,
        detail: moe_detail,
        band: None,
        applies: Some(|r| r.moe.is_some()),
    },
    Headline {
        id: "serving-mla",
        title: "Latent attention (MLA)",
        value: mla_value,
        detail: mla_detail,
        band: None,
        applies: Some(|r| r.mla.is_some()),
    },
    Headline {
        id: "serving-speculative",
        title: "Speculative decoding",
        value: speculative_value,
        detail: speculative_detail,
        band: None,
        applies: Some(|r| r.speculative.is_some()),
    },
];

/// The queueing model, when a request rate is set (`#serving-queueing`).
#[component]
pub fn QueueingNote(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let hidden = move || !derived.with_report(|r| r.continuous_batching.at_request_rate.is_some()).unwrap_or(false);
    view! {
        <p class="hint" id="serving-queueing" hidden=hidden>
            {format!("Time to first token at a request rate: {QUEUEING_MODEL}; the KV transfer and the prefill pass add to it.")}
        </p>
    }
}
