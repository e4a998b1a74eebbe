//! Picking a bundled preset, grouped by family, and what is known about it: source, date,
//! note, and its publisher's parameter count against ours.

use leptos::prelude::*;
use shardcalc_charts::format::{percent, short_count, thousands};
use shardcalc_core::field::Choice;
use shardcalc_core::params::count_params;
use shardcalc_core::presets::{self, Preset};
use shardcalc_core::scenario::ModelSource;

use super::field::options_view;
use crate::dom::event_value;
use crate::state::use_app_state;

/// Value of the placeholder option shown while the model is not an unedited preset.
const CUSTOM: &str = "custom";

/// The presets as the drop-down's choices, grouped by family (`options_view` groups
/// consecutive choices; `presets::tests::each_family_is_listed_together`).
fn choices() -> Vec<Choice> {
    presets::all()
        .iter()
        .map(|p| Choice { value: p.id.clone(), label: p.config.name.clone(), group: p.family.as_str() })
        .collect()
}

/// The preset drop-down with what is known about the preset: [`PresetSelect`] and
/// [`PresetInfo`] (source, date, note, published parameter count against ours).
#[component]
pub fn PresetPicker() -> impl IntoView {
    view! {
        <div class="field preset">
            <label for="preset">"Preset"</label>
            <PresetSelect />
            <PresetInfo />
        </div>
    }
}

/// The preset drop-down alone (`#preset`, described by `#preset-info` when the page has it).
/// Choosing a preset replaces the model (workload and conventions stay); while the model is
/// edited, the list shows "custom". Pages that only pick a model use this without
/// [`PresetInfo`].
#[component]
pub fn PresetSelect() -> impl IntoView {
    let state = use_app_state();
    let selected = Memo::new(move |_| {
        state.draft.with(|d| match &d.scenario.model {
            ModelSource::Preset(id) => id.clone(),
            ModelSource::Custom(_) => CUSTOM.to_string(),
        })
    });
    let on_change = move |ev: leptos::ev::Event| {
        let id = event_value(&ev);
        if presets::find(&id).is_some() {
            state.forget("model");
            state.update(|s| s.model = ModelSource::Preset(id.clone()));
            // Every model field shows the preset's value, even one holding unread text.
            state.generation.update(|g| *g += 1);
        }
    };
    // Rendered once, with the current preset selected (a drop-down rendered as the hardware
    // picker's); `prop:value` follows every later change.
    let initial = selected.get_untracked();
    view! {
        <select id="preset" aria-describedby="preset-info" prop:value=selected on:change=on_change>
            <option value=CUSTOM disabled selected=initial == CUSTOM>
                "Custom model (edited or imported)"
            </option>
            {options_view(&choices(), &initial)}
        </select>
    }
}

/// Source, date, note and published parameter count of the preset the model came from
/// (`#preset-info`, `#preset-published`): rebuilt only when the preset or whether it is
/// edited changes.
#[component]
pub fn PresetInfo() -> impl IntoView {
    let state = use_app_state();
    let origin = Memo::new(move |_| {
        state.draft.with(|d| d.scenario.model.origin().map(|p| (p.id.clone(), !d.scenario.model.is_preset())))
    });
    let info =
        move || origin.with(|o| o.as_ref().and_then(|(id, edited)| presets::find(id).map(|p| info_view(p, *edited))));
    view! { <div class="preset-info" id="preset-info">{info}</div> }
}

/// The preset's source (a link when it is one), date, published count and notes.
fn info_view(p: &Preset, edited: bool) -> impl IntoView {
    let note = (!p.note.is_empty()).then(|| view! { <p class="note">{p.note.clone()}</p> });
    view! {
        <p>
            {edited.then_some("Edited from this preset. ")}
            "Source: "
            {source_view(&p.source)}
            {format!(", {}.", p.as_of)}
        </p>
        {published(p)}
        {note}
    }
}

/// The publisher's count, ours for the preset as published, and the difference.
fn published(p: &Preset) -> Option<impl IntoView> {
    let r = p.reference_params.as_ref()?;
    let ours = count_params(&p.config).total.get();
    let theirs = r.value as f64;
    let diff = ours - theirs;
    let verdict = if diff == 0.0 {
        "identical".to_string()
    } else {
        let sign = if diff > 0.0 { "+" } else { "−" };
        format!("ours {sign}{} ({sign}{})", short_count(diff.abs()), percent(diff.abs(), theirs))
    };
    let kind = if r.exact { "exact" } else { "rounded" };
    let text = format!("Published: {} ({kind}); ours: {} — {verdict}.", thousands(r.value), ours_text(ours));
    let note = (!r.note.is_empty()).then(|| view! { <p class="note">{r.note.clone()}</p> });
    Some(view! {
        <p id="preset-published">{text}</p>
        {note}
    })
}

fn ours_text(x: f64) -> String {
    shardcalc_core::units::Params(x).exact().map_or_else(|| short_count(x), thousands)
}

/// A source string such as `https://host/path (comment)`: the address as a link, the rest as
/// text.
fn source_view(text: &str) -> AnyView {
    let (head, tail) = text.split_once(' ').map_or((text, String::new()), |(a, b)| (a, format!(" {b}")));
    match head.strip_prefix("https://") {
        Some(shown) => view! {
            <a href=head.to_string() rel="noopener noreferrer" target="_blank">{shown.to_string()}</a>
            {tail}
        }
        .into_any(),
        None => text.to_string().into_any(),
    }
}
