//! Speculative decoding (book 7.2.1): a draft proposes γ tokens, the target scores them in
//! one step and keeps the accepted prefix. The draft costs a fraction of a target step, or is
//! a model of its own (a preset, or a custom model from the link) on the same chips.
//!
//! The four inputs make one `inference.speculative` value, so each edit reads all four
//! texts; a problem with another field's text names that field.

use leptos::prelude::*;
use shardcalc_core::inference::speculative::{DraftCost, Speculative};
use shardcalc_core::presets;
use shardcalc_core::scenario::ModelSource;

use super::fields::{current_section, optional_positive_count, use_refused};
use crate::components::{messages_under, SectionField};
use crate::dom::event_value;
use crate::parse::{parse_positive_real, shortest};
use crate::state::{use_app_state, AppState};

/// The draft option standing for "a cost ratio".
const RATIO: &str = "ratio";
/// The draft option standing for the custom draft model the scenario already has.
const CUSTOM: &str = "custom";

/// The paths of the four inputs.
const SPECULATIVE_PATHS: [&str; 4] = [
    "inference.speculative.draft_len",
    "inference.speculative.acceptance",
    "inference.speculative.draft",
    "inference.speculative.draft.cost_ratio",
];

/// The texts of the four inputs.
#[derive(Clone, Debug)]
struct Texts {
    draft_len: String,
    acceptance: String,
    draft: String,
    ratio: String,
}

fn initial_texts(state: AppState) -> (Texts, Option<ModelSource>) {
    let spec = current_section(state).speculative;
    let (draft, ratio, custom) = match spec.as_ref().map(|s| &s.draft) {
        Some(DraftCost::Model(ModelSource::Preset(id))) => (id.clone(), "0.05".to_string(), None),
        Some(DraftCost::Model(m @ ModelSource::Custom(_))) => (CUSTOM.to_string(), "0.05".to_string(), Some(m.clone())),
        Some(DraftCost::CostRatio(r)) => (RATIO.to_string(), shortest(*r), None),
        None => (RATIO.to_string(), "0.05".to_string(), None),
    };
    let texts = Texts {
        draft_len: spec.as_ref().map(|s| s.draft_len.to_string()).unwrap_or_default(),
        acceptance: spec.as_ref().map_or_else(|| "0.8".to_string(), |s| shortest(s.acceptance)),
        draft,
        ratio,
    };
    (texts, custom)
}

/// The speculative setting the texts describe (`None`: off).
fn read(t: &Texts, custom: Option<&ModelSource>) -> Result<Option<Speculative>, String> {
    let Some(draft_len) = optional_positive_count(&t.draft_len).map_err(|m| format!("inference.speculative.draft_len: {m}"))? else {
        return Ok(None);
    };
    let acceptance = acceptance(&t.acceptance).map_err(|m| format!("inference.speculative.acceptance: {m}"))?;
    let draft = match t.draft.as_str() {
        RATIO => DraftCost::CostRatio(parse_positive_real(&t.ratio).map_err(|m| format!("inference.speculative.draft.cost_ratio: {m}"))?),
        CUSTOM => DraftCost::Model(custom.cloned().ok_or("inference.speculative.draft: the custom draft model is gone; choose one")?),
        id => DraftCost::Model(ModelSource::Preset(id.to_string())),
    };
    Ok(Some(Speculative { draft_len, acceptance, draft }))
}

/// A probability in [0, 1] (0 allowed).
fn acceptance(text: &str) -> Result<f64, String> {
    super::fields::non_negative_real(text)
}

/// Draft length, acceptance, the draft and its cost ratio.
#[component]
pub fn SpeculativeInputs() -> impl IntoView {
    let state = use_app_state();
    let (texts, custom) = initial_texts(state);
    let texts = StoredValue::new(texts);
    let custom = StoredValue::new(custom);
    let refused = use_refused();
    let apply = move |path: &'static str, edit: fn(&mut Texts, String), text: String| -> Result<(), String> {
        texts.update_value(|t| edit(t, text));
        let result = texts.with_value(|t| custom.with_value(|c| read(t, c.as_ref()))).and_then(|spec| {
            let mut section = current_section(state);
            section.speculative = spec;
            state.try_update(|s| s.inference = Some(section)).map_err(|e| messages_under(&e, path))
        });
        // One value behind four fields: a success clears every one of them.
        if result.is_ok() {
            for p in SPECULATIVE_PATHS {
                let _ = refused.record(p, Ok(()));
            }
        }
        refused.record(path, result)
    };
    let draft_error = RwSignal::new(None::<String>);
    let on_draft = move |ev: leptos::ev::Event| {
        draft_error.set(apply("inference.speculative.draft", |t, v| t.draft = v, event_value(&ev)).err());
    };
    let (initial, selected) = texts.with_value(|t| (t.clone(), t.draft.clone()));
    let mut choices = vec![(RATIO.to_string(), "a cost ratio (below)".to_string())];
    if custom.with_value(Option::is_some) {
        choices.push((CUSTOM.to_string(), "the custom draft model in the link".to_string()));
    }
    choices.extend(presets::all().iter().map(|p| (p.id.clone(), p.config.name.clone())));
    let choices = choices
        .into_iter()
        .map(|(value, label)| {
            let is = value == selected;
            view! { <option value=value selected=is>{label}</option> }
        })
        .collect_view();
    view! {
        <fieldset class="serving-speculative">
            <legend>"Speculative decoding"</legend>
            <SectionField
                id="inference-speculative-draft_len"
                label="Draft length γ"
                unit="tokens"
                initial=initial.draft_len
                hint="Tokens the draft proposes per step (1–64); empty = no speculative decoding"
                apply=Callback::new(move |v| apply("inference.speculative.draft_len", |t, v| t.draft_len = v, v))
                input_mode="numeric"
            />
            <SectionField
                id="inference-speculative-acceptance"
                label="Acceptance α"
                unit="0–1"
                initial=initial.acceptance
                hint="Probability the target accepts each draft token (i.i.d., Leviathan et al. 2023)"
                apply=Callback::new(move |v| apply("inference.speculative.acceptance", |t, v| t.acceptance = v, v))
            />
            <div class="field" class:invalid=move || draft_error.with(Option::is_some)>
                <label for="inference-speculative-draft">"Draft"</label>
                <select id="inference-speculative-draft" aria-describedby="inference-speculative-draft-hint inference-speculative-draft-error" on:change=on_draft>
                    {choices}
                </select>
                <p class="hint" id="inference-speculative-draft-hint">"A cost ratio, or a draft model served on the same chips (its weights and caches take HBM)"</p>
                <div class="field-error" id="inference-speculative-draft-error" aria-live="polite">
                    {move || draft_error.get().map(|m| view! { <p>{m}</p> })}
                </div>
            </div>
            <SectionField
                id="inference-speculative-draft-cost_ratio"
                label="Draft cost ratio"
                unit="× a step"
                initial=initial.ratio
                hint="One draft step as a fraction of one target decode step (used when the draft is a cost ratio)"
                apply=Callback::new(move |v| apply("inference.speculative.draft.cost_ratio", |t, v| t.ratio = v, v))
            />
        </fieldset>
    }
}
