//! The results column: a note when the results are stale, the headline numbers, and the
//! sections with tables and charts.

use leptos::prelude::*;
use shardcalc_charts::format::{percent, short_count, si, significant, thousands};
use shardcalc_core::flops::{FlopConvention, RematPolicy};
use shardcalc_core::report::Report;
use shardcalc_core::units::Params;

use super::derived::{summary, Derived};
use super::flop_table::FlopSection;
use super::notebook_table::NotebookSection;
use super::param_table::ParamSection;
use super::seq_len::SeqLenSection;
use crate::components::StaleNote;
use crate::state::use_app_state;

/// An exact integer with separators when the count is exact, else the short form.
#[must_use]
pub fn exact_params(p: Params) -> String {
    p.exact().map_or_else(|| short_count(p.get()), thousands)
}

/// Headline cards, then every section.
#[component]
pub fn Results(
    /// The memos the results read.
    derived: Derived,
) -> impl IntoView {
    let state = use_app_state();
    view! {
        <StaleNote />
        {move || derived.report.with(|r| r.as_ref().err().map(|e| view! { <p class="field-error">{format!("Cannot compute: {e}")}</p> }))}
        <div class="results-body" class:is-stale=move || state.is_stale()>
            <HeadlineCards derived=derived />
            <ParamSection derived=derived />
            <FlopSection derived=derived />
            <SeqLenSection derived=derived />
            <NotebookSection derived=derived />
        </div>
    }
}

/// One headline card: `#<id>` holding its title, `#<id>-value` and a detail line.
fn card(id: &'static str, title: String, value: String, detail: String) -> impl IntoView {
    view! {
        <div class="card" id=id>
            <h3>{title}</h3>
            <p class="value" id=format!("{id}-value")>{value}</p>
            <p class="detail">{detail}</p>
        </div>
    }
}

/// The six headline cards for `r` under `conv`, with where attention overtakes the MLP
/// (`crossover`: `None` = never).
fn cards(r: &Report, conv: FlopConvention, crossover: Option<u64>) -> impl IntoView {
    let p = &r.params;
    let s = summary(r, conv);
    let mtp = p.total.get() - p.total_without_mtp.get();
    let total_detail = if mtp > 0.0 {
        format!("{}; {} without MTP", short_count(p.total.get()), short_count(p.total_without_mtp.get()))
    } else {
        format!("{} stored", short_count(p.total.get()))
    };
    let remat = if r.workload.remat == RematPolicy::None {
        String::new()
    } else {
        format!("; {} hardware TFLOPs with remat", significant(s.hardware_tflops_per_device_step, 4))
    };
    let cross_value = crossover.map_or_else(|| "never".into(), |t| format!("{} tokens", thousands(t)));
    let cross_detail = if conv.attention_counting() == shardcalc_core::flops::AttentionCounting::Ignored {
        format!("{} ignores dot-product attention", conv.label())
    } else {
        format!("sequence length where dot-product attention outgrows the MLP per token ({})", conv.label())
    };
    let active =
        format!("{} per token, {} of total", short_count(p.active.get()), percent(p.active.get(), p.total.get()));
    let weights = format!(
        "= {} GiB (GB = 10⁹ bytes, GiB = 2³⁰ bytes); fp8 {} GB",
        significant(p.weight_bytes.bf16.gib(), 4),
        significant(p.weight_bytes.fp8.gb(), 4)
    );
    view! {
        <div class="cards">
            {card("total-params", "Total parameters".into(), exact_params(p.total), total_detail)}
            {card("active-params", "Active parameters".into(), exact_params(p.active), active)}
            {card("weights-bf16", "Weights in bf16".into(), format!("{} GB", significant(p.weight_bytes.bf16.gb(), 4)), weights)}
            {card(
                "tflops",
                format!("TFLOPs per device-step ({})", conv.label()),
                significant(s.total_tflops_per_device_step, 4),
                format!("forward + backward over {} tokens{remat}", thousands_f(s.tokens_per_device_step)),
            )}
            {card(
                "flops-per-token",
                "Training FLOPs per token".into(),
                format!("{}FLOP", si(s.training_flops_per_token)),
                format!("6·N with N active = {}FLOP", si(6.0 * p.active.get())),
            )}
            {card("crossover", "Attention overtakes the MLP at".into(), cross_value, cross_detail)}
        </div>
    }
}

/// Total and active parameters, bf16 weight memory, TFLOPs per device-step, training FLOPs
/// per token, and where attention overtakes the MLP.
#[component]
fn HeadlineCards(
    /// The memos the cards read.
    derived: Derived,
) -> impl IntoView {
    let conv = derived.convention;
    move || {
        let conv = conv.get();
        derived.report.with(|r| r.as_ref().ok().map(|e| cards(&e.report, conv, e.attention_crossover_tokens)))
    }
}

/// A token count that may be fractional (fractional per-device batches).
fn thousands_f(x: f64) -> String {
    Params(x).exact().map_or_else(|| significant(x, 4), thousands)
}
