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

use super::fields::{current_section, element_id, optional_positive_count, use_refused};
use super::form::{select_html, show_message, target_of, text_html, value_of};
use crate::components::messages_under;
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
    let Some(draft_len) =
        optional_positive_count(&t.draft_len).map_err(|m| format!("inference.speculative.draft_len: {m}"))?
    else {
        return Ok(None);
    };
    let acceptance = acceptance(&t.acceptance).map_err(|m| format!("inference.speculative.acceptance: {m}"))?;
    let draft = match t.draft.as_str() {
        RATIO => DraftCost::CostRatio(
            parse_positive_real(&t.ratio).map_err(|m| format!("inference.speculative.draft.cost_ratio: {m}"))?,
        ),
        CUSTOM => DraftCost::Model(
            custom.cloned().ok_or("inference.speculative.draft: the custom draft model is gone; choose one")?,
        ),
        id => DraftCost::Model(ModelSource::Preset(id.to_string())),
    };
    Ok(Some(Speculative { draft_len, acceptance, draft }))
}

/// A probability in [0, 1] (0 allowed).
fn acceptance(text: &str) -> Result<f64, String> {
    super::fields::non_negative_real(text)
}

/// The fieldset as HTML (the form's markup, [`super::form`]).
fn fieldset_html(t: &Texts, custom: bool) -> String {
    let mut choices = vec![(RATIO, "a cost ratio (below)")];
    if custom {
        choices.push((CUSTOM, "the custom draft model in the link"));
    }
    let presets = presets::all();
    choices.extend(presets.iter().map(|p| (p.id.as_str(), p.config.name.as_str())));
    [
        r#"<fieldset class="serving-speculative"><legend>Speculative decoding</legend>"#.to_string(),
        text_html(
            "inference-speculative-draft_len",
            "Draft length γ",
            "tokens",
            "Tokens the draft proposes per step (1–64); empty = no speculative decoding",
            "numeric",
            &t.draft_len,
            false,
        ),
        text_html(
            "inference-speculative-acceptance",
            "Acceptance α",
            "0–1",
            "Probability the target accepts each draft token (i.i.d., Leviathan et al. 2023)",
            "decimal",
            &t.acceptance,
            false,
        ),
        select_html(
            "inference-speculative-draft",
            "Draft",
            "A cost ratio, or a draft model served on the same chips (its weights and caches take HBM)",
            choices.into_iter(),
            &t.draft,
        ),
        text_html(
            "inference-speculative-draft-cost_ratio",
            "Draft cost ratio",
            "× a step",
            "One draft step as a fraction of one target decode step (used when the draft is a cost ratio)",
            "decimal",
            &t.ratio,
            false,
        ),
        "</fieldset>".to_string(),
    ]
    .concat()
}

/// Draft length, acceptance, the draft and its cost ratio, as HTML with one delegated
/// handler: an edit of any of the four reads all four texts.
#[component]
pub fn SpeculativeInputs() -> impl IntoView {
    let state = use_app_state();
    let refused = use_refused();
    // The custom draft model the link brought, kept while the user tries other drafts.
    let custom = StoredValue::new(None::<ModelSource>);
    let html = move || {
        state.generation.track();
        let (texts, model) = initial_texts(state);
        let html = fieldset_html(&texts, model.is_some());
        custom.set_value(model);
        html
    };
    let on_event = move |ev: leptos::ev::Event| {
        let Some((id, _)) = target_of(&ev) else { return };
        let Some(&path) = SPECULATIVE_PATHS.iter().find(|p| element_id(p) == id) else { return };
        let [draft_len, acceptance, draft, ratio] = SPECULATIVE_PATHS.map(|p| value_of(&element_id(p)));
        let texts = Texts { draft_len, acceptance, draft, ratio };
        let result = custom.with_value(|c| read(&texts, c.as_ref())).and_then(|spec| {
            let mut section = current_section(state);
            section.speculative = spec;
            state.try_update(|s| s.inference = Some(section)).map_err(|e| messages_under(&e, path))
        });
        // One value behind four fields: a success clears every one of them.
        if result.is_ok() {
            for p in SPECULATIVE_PATHS {
                let _ = refused.record(p, Ok(()));
                show_message(&element_id(p), None);
            }
        }
        show_message(&id, refused.record(path, result).err().as_deref());
    };
    view! { <div class="form-groups" inner_html=html on:input=on_event on:change=on_event></div> }
}
