//! The serving form: the model (a preset here; anything else comes from the model page
//! through the link), the chip and topology, the prediction mode, then every field of
//! `shardcalc_core::field::serving` in its fieldset: workload; traffic and targets (the rate,
//! the targets, the traffic mix in its table editor, the token budget); formats; sharding;
//! prefill; disaggregation (the prefill pool and the KV link); speculative decoding; cost (with
//! the chip's price, or "no public price", beside the field); the search; conventions.

use leptos::prelude::*;
use shardcalc_core::field::serving::{
    BATCHING, CONVENTIONS, COST, FORMATS, KV_TRANSFER, PREFILL, PREFILL_POOL, RATE, SEARCH, SHARDING, SPECULATIVE,
    WORKLOAD,
};
use shardcalc_core::field::Field;
use shardcalc_core::hardware::query::ChipSource;
use shardcalc_core::inference::price::Price;
use shardcalc_core::scenario::Scenario;

use super::rows::price_text;
use super::traffic::TrafficEditor;
use crate::components::{Fields, HardwarePicker, PredictionSwitch, PresetSelect};
use crate::state::use_app_state;

/// One fieldset of the form: `class`, legend, fields.
#[component]
fn Group(
    /// The fieldset's class (`serving-<name>`).
    class: &'static str,
    /// Its legend.
    legend: &'static str,
    /// Its fields.
    fields: &'static [Field],
    /// What follows the fields.
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    view! {
        <fieldset class=class>
            <legend>{legend}</legend>
            <Fields group=fields />
            {children.map(|c| c())}
        </fieldset>
    }
}

/// `chip: price (source)` for the decode servers' chip (`prefill` false) or the prefill
/// servers' (when `prefill.chip` is set), as the plan resolves it.
fn price_line(s: &Scenario, prefill: bool) -> Option<String> {
    let i = s.inference.as_ref()?;
    let (source, typed) = if prefill {
        (i.prefill.chip.clone()?, i.prefill.price_per_chip_hour_usd)
    } else {
        (s.hardware.as_ref()?.chip.clone(), i.price_per_chip_hour_usd)
    };
    let chip = source.resolve().ok()?;
    let price = Price::resolve(typed, &chip);
    let custom = if matches!(source, ChipSource::Custom(_)) { " (custom)" } else { "" };
    let advice = match (price.usd_per_chip_hour, chip.price_per_chip_hour_usd) {
        (None, _) => ": type one above for costs",
        (Some(_), None) => "",
        (Some(_), Some(_)) if typed.is_some() => "; empty the field for the catalog's",
        _ => "",
    };
    Some(format!("{}{custom}: {}{advice}", chip.name, price_text(&price)))
}

/// The price the plan uses beside its field (`#inference-price-source`,
/// `#inference-prefill-price-source`).
#[component]
fn PriceNote(
    /// Element id.
    id: &'static str,
    /// The prefill servers' price (else the decode servers').
    prefill: bool,
) -> impl IntoView {
    let state = use_app_state();
    let text = move || state.shown.with(|s| price_line(s, prefill)).unwrap_or_default();
    view! { <p class="hint price-source" id=id>{text}</p> }
}

/// Every input of the serving view.
#[component]
pub fn ServingInputs() -> impl IntoView {
    let state = use_app_state();
    let fragment = state.shared_fragment_memo();
    view! {
        <fieldset class="serving-model">
            <legend>"Model"</legend>
            <div class="field preset">
                <label for="preset">"Preset"</label>
                <PresetSelect />
            </div>
            <p class="hint" id="preset-info">
                "Custom or imported models come from the "
                <a id="serving-edit-model" href=move || format!("index.html{}", fragment.get())>"model page"</a>
                "; the link carries the model here."
            </p>
        </fieldset>
        <HardwarePicker />
        <PredictionSwitch />
        <Group class="serving-workload" legend="Workload" fields=&WORKLOAD />
        <Group class="serving-rate" legend="Traffic and targets" fields=&RATE>
            <TrafficEditor />
            <Fields group=&BATCHING />
        </Group>
        <Group class="serving-dtypes" legend="Number formats" fields=&FORMATS />
        <Group class="serving-sharding" legend="Sharding" fields=&SHARDING />
        <Group class="serving-prefill" legend="Prefill" fields=&PREFILL />
        <Group class="serving-disaggregation" legend="Disaggregated serving" fields=&PREFILL_POOL>
            <PriceNote id="inference-prefill-price-source" prefill=true />
            <Fields group=&KV_TRANSFER />
        </Group>
        <Group class="serving-speculative" legend="Speculative decoding" fields=&SPECULATIVE />
        <Group class="serving-cost" legend="Cost" fields=&COST>
            <PriceNote id="inference-price-source" prefill=false />
        </Group>
        <Group class="serving-search" legend="Search under targets" fields=&SEARCH />
        <Group class="serving-advanced" legend="Conventions" fields=&CONVENTIONS />
    }
}
