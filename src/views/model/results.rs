//! The results column: a note when the results are stale, the headline numbers, and the
//! sections with tables and charts.

use leptos::prelude::*;
use shardcalc_charts::format::{percent, short_count, si, significant, thousands};
use shardcalc_core::flops::attention_crossover;
use shardcalc_core::flops::RematPolicy;
use shardcalc_core::report::Report;
use shardcalc_core::units::Params;

use super::derived::{summary, Derived};
use super::flop_table::FlopSection;
use super::notebook_table::NotebookSection;
use super::param_table::ParamSection;
use super::seq_len::SeqLenSection;
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
        <Show when=move || state.is_stale()>
            <p class="stale" id="stale-note" role="status">
                "These results are for the last valid inputs: fix the problems marked in the form to update them."
            </p>
        </Show>
        {move || derived.report.with(|r| match r {
            Ok(_) => None,
            Err(e) => Some(view! { <p class="field-error">{format!("Cannot compute: {e}")}</p> }),
        })}
        <div class="results-body" class:is-stale=move || state.is_stale()>
            <HeadlineCards derived=derived />
            <ParamSection derived=derived />
            <FlopSection derived=derived />
            <SeqLenSection derived=derived />
            <NotebookSection derived=derived />
        </div>
    }
}

/// One headline number.
#[component]
fn Card(
    /// Element id stem: the value is `#<id>-value`.
    id: &'static str,
    /// What the number is.
    title: Signal<String>,
    /// The number with its unit.
    value: Signal<String>,
    /// One line of context.
    detail: Signal<String>,
) -> impl IntoView {
    view! {
        <div class="card" id=id>
            <h3>{move || title.get()}</h3>
            <p class="value" id=format!("{id}-value")>{move || value.get()}</p>
            <p class="detail">{move || detail.get()}</p>
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
    let report = derived.report;
    let conv = derived.convention;
    let with_report = move |f: fn(&Report) -> String| {
        Signal::derive(move || report.with(|r| r.as_ref().map(f).unwrap_or_default()))
    };
    let tflops = Signal::derive(move || {
        report.with(|r| r.as_ref().map(|r| significant(summary(r, conv.get()).total_tflops_per_device_step, 4)).unwrap_or_default())
    });
    let tflops_detail = Signal::derive(move || {
        report.with(|r| {
            r.as_ref()
                .map(|r| {
                    let s = summary(r, conv.get());
                    let remat = if r.workload.remat == RematPolicy::None {
                        String::new()
                    } else {
                        format!("; {} hardware TFLOPs with remat", significant(s.hardware_tflops_per_device_step, 4))
                    };
                    format!("forward + backward over {} tokens{remat}", thousands_f(s.tokens_per_device_step))
                })
                .unwrap_or_default()
        })
    });
    let per_token = Signal::derive(move || {
        report.with(|r| r.as_ref().map(|r| format!("{}FLOP", si(summary(r, conv.get()).training_flops_per_token))).unwrap_or_default())
    });
    let crossover = Memo::new(move |_| derived.model.with(|m| m.as_ref().map(|m| attention_crossover(m, conv.get()))));
    let cross_value = Signal::derive(move || match crossover.get() {
        Some(Some(t)) => format!("{} tokens", thousands(t)),
        Some(None) => "never".into(),
        None => String::new(),
    });
    let cross_detail = Signal::derive(move || {
        let c = conv.get();
        if c.attention_counting() == shardcalc_core::flops::AttentionCounting::Ignored {
            format!("{} ignores dot-product attention", c.label())
        } else {
            format!("sequence length where dot-product attention outgrows the MLP per token ({})", c.label())
        }
    });
    view! {
        <div class="cards">
            <Card
                id="total-params"
                title=Signal::stored("Total parameters".to_string())
                value=with_report(|r| exact_params(r.params.total))
                detail=with_report(|r| {
                    let mtp = r.params.total.get() - r.params.total_without_mtp.get();
                    if mtp > 0.0 {
                        format!("{}; {} without MTP", short_count(r.params.total.get()), short_count(r.params.total_without_mtp.get()))
                    } else {
                        format!("{} stored", short_count(r.params.total.get()))
                    }
                })
            />
            <Card
                id="active-params"
                title=Signal::stored("Active parameters".to_string())
                value=with_report(|r| exact_params(r.params.active))
                detail=with_report(|r| format!(
                    "{} per token, {} of total",
                    short_count(r.params.active.get()),
                    percent(r.params.active.get(), r.params.total.get())
                ))
            />
            <Card
                id="weights-bf16"
                title=Signal::stored("Weights in bf16".to_string())
                value=with_report(|r| format!("{} GB", significant(r.params.weight_bytes.bf16.gb(), 4)))
                detail=with_report(|r| format!(
                    "= {} GiB (GB = 10⁹ bytes, GiB = 2³⁰ bytes); fp8 {} GB",
                    significant(r.params.weight_bytes.bf16.gib(), 4),
                    significant(r.params.weight_bytes.fp8.gb(), 4)
                ))
            />
            <Card
                id="tflops"
                title=Signal::derive(move || format!("TFLOPs per device-step ({})", conv.get().label()))
                value=tflops
                detail=tflops_detail
            />
            <Card
                id="flops-per-token"
                title=Signal::stored("Training FLOPs per token".to_string())
                value=per_token
                detail=with_report(|r| format!("6·N with N active = {}FLOP", si(6.0 * r.params.active.get())))
            />
            <Card
                id="crossover"
                title=Signal::stored("Attention overtakes the MLP at".to_string())
                value=cross_value
                detail=cross_detail
            />
        </div>
    }
}

/// A token count that may be fractional (fractional per-device batches).
fn thousands_f(x: f64) -> String {
    Params(x).exact().map_or_else(|| significant(x, 4), thousands)
}
