//! The model view's form: the model's shape and blocks, the workload and the convention,
//! every field from `shardcalc_core::field::model`.

use leptos::prelude::*;
use shardcalc_core::field::conventions::CONVENTION_FIELDS;
use shardcalc_core::field::model::{ATTENTION, EXTRAS, FFN, LAYOUT, MTP, SHAPE, WORKLOAD};
use shardcalc_core::flops::FlopConvention;

use super::span_note::SpanNote;
use crate::components::{ErrorSummary, Field, Fields};
use crate::state::use_app_state;

/// Every field of the model and the workload, with legends that say what the numbers make
/// (the attention variant, how many layers are local, how many MoE).
#[component]
pub fn ModelForm() -> impl IntoView {
    let state = use_app_state();
    let model = move |f: fn(&shardcalc_core::model::ModelConfig) -> String| {
        Memo::new(move |_| state.draft.with(|d| d.scenario.model.resolve().map(|m| f(&m)).unwrap_or_default()))
    };
    let attention = model(|m| m.attention_label().to_string());
    let layers = model(|m| {
        let (global, local) = m.layout.counts(m.num_layers);
        format!("{global} global, {local} local layers")
    });
    let ffn = model(|m| {
        let (moe, dense) = m.moe_and_dense_layers();
        format!("{dense} dense, {moe} MoE layers")
    });
    let [local, window, chunk, locals, pattern] = &LAYOUT;
    let [batch, seq_len, grad_accum, remat] = &WORKLOAD;
    let (ffn_main, moe) = FFN.split_at(4);
    view! {
        <form class="model-form" novalidate on:submit=|ev| ev.prevent_default()>
            <ErrorSummary />
            <fieldset>
                <legend>"Shape"</legend>
                <Fields group=&SHAPE />
            </fieldset>
            <fieldset>
                <legend>"Attention: " <span id="attention-label">{attention}</span></legend>
                <Fields group=&ATTENTION />
            </fieldset>
            <fieldset>
                <legend>"Layer layout: " {layers}</legend>
                <Field field=local />
                <Field field=window />
                <SpanNote field=window />
                <Field field=chunk />
                <SpanNote field=chunk />
                <Field field=locals />
                <Field field=pattern />
            </fieldset>
            <fieldset>
                <legend>"Feed-forward: " {ffn}</legend>
                <Fields group=ffn_main />
                <div class="subfields">
                    <Fields group=moe />
                </div>
            </fieldset>
            <fieldset>
                <legend>"Norms and embeddings"</legend>
                <Fields group=&EXTRAS />
            </fieldset>
            <fieldset>
                <legend>"Multi-token prediction"</legend>
                <Fields group=&MTP />
            </fieldset>
            <fieldset>
                <legend>"Training step, per device"</legend>
                <Field field=batch />
                <Field field=seq_len />
                <SpanNote field=seq_len />
                <Field field=grad_accum />
                <Field field=remat />
            </fieldset>
            <ConventionPicker />
        </form>
    }
}

/// The four FLOP conventions as radio buttons (`#convention-<id>`, the field
/// `conventions.flops`), with the chosen one's explanation.
#[component]
pub fn ConventionPicker() -> impl IntoView {
    let state = use_app_state();
    let field = &CONVENTION_FIELDS[0];
    let current = Memo::new(move |_| state.draft.with(|d| d.scenario.conventions.flops));
    let radios = FlopConvention::ALL
        .iter()
        .map(|&c| {
            let id = format!("convention-{}", c.id());
            let for_id = id.clone();
            view! {
                <label class="radio" for=for_id>
                    <input
                        type="radio"
                        name="convention"
                        id=id
                        value=c.id()
                        prop:checked=move || current.get() == c
                        on:change=move |_| state.set(field, c.id())
                    />
                    {c.label()}
                </label>
            }
        })
        .collect_view();
    view! {
        <fieldset class="conventions">
            <legend>{field.label}</legend>
            <div class="radios">{radios}</div>
            <p class="hint" id="convention-explanation">{move || current.get().explanation()}</p>
        </fieldset>
    }
}
