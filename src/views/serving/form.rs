//! The serving form's [`Group`]s written as HTML text (`crate::form_html`, the markup and
//! classes of `SectionField`), with one delegated handler per event kind that sends each edit to its
//! field's setter and shows the message next to the field.
//!
//! Why not one Leptos component per field: each `view!` tree is its own code in the wasm, and
//! the form's twenty-odd fields cost the page about 15 KB gzip that way (docs/size.md,
//! "Serving page, session 13"). The HTML is written again only when the scenario is replaced
//! wholesale (a link, a preset: `AppState::generation`), so typing never loses focus; a field
//! shown only for some scenarios (D axes for 2D sharding, expert axes for MoE) is always
//! written and `hidden` while it does not apply. Every text is escaped; ids are stable
//! (README, tests).

use leptos::prelude::*;
use shardcalc_core::inference::InferenceSection;
use shardcalc_core::scenario::Scenario;
use wasm_bindgen::JsCast;
use web_sys::{Event, HtmlElement, HtmlInputElement};

use super::fields::{apply_to_inference, current_section, element_id, use_refused, Field, Group, Refused};
use super::sharding_inputs::apply_prefill_topology;
pub use crate::form_html::{select_html, show_message, target_of, text_html, value_of};
use crate::html_text::escape;
use crate::state::{use_app_state, AppState};

/// One group as a fieldset.
fn group_html(g: &Group, section: &InferenceSection, scenario: &Scenario) -> String {
    let mut out = format!(r#"<fieldset class="{}"><legend>{}</legend>"#, g.class, escape(g.legend));
    for f in g.fields {
        match f {
            Field::Text(spec) | Field::TextIf(spec, _) | Field::Special(spec) => {
                let hidden = matches!(f, Field::TextIf(_, when) if !when(scenario));
                out += &text_html(
                    spec.id,
                    spec.label,
                    spec.unit,
                    spec.hint,
                    spec.input_mode,
                    &(spec.get)(section),
                    hidden,
                );
            }
            Field::Choice(spec) => {
                let options = spec.options.iter().map(|&(v, l)| (v, l));
                out += &select_html(&element_id(spec.path), spec.label, spec.hint, options, &(spec.get)(section));
            }
        }
    }
    out + "</fieldset>"
}

/// Applies the new `value` of the field with element id `id`, if it is one of `groups`'.
fn dispatch(state: AppState, refused: Refused, groups: &[&Group], id: &str, value: &str) {
    for f in groups.iter().flat_map(|g| g.fields) {
        let (path, result) = match f {
            Field::Text(spec) | Field::TextIf(spec, _) if spec.id == id => {
                (spec.path, apply_to_inference(state, spec.path, value, spec.set))
            }
            Field::Special(spec) if spec.id == id => (spec.path, apply_prefill_topology(state, value)),
            Field::Choice(spec) if element_id(spec.path) == id => {
                (spec.path, apply_to_inference(state, spec.path, value, spec.set))
            }
            _ => continue,
        };
        show_message(id, refused.record(path, result).err().as_deref());
        return;
    }
}

/// `groups` as fieldsets, written from the scenario's `inference` section and again when the
/// scenario is replaced wholesale; the fields shown only for some scenarios are hidden or
/// shown as the scenario changes.
#[component]
pub fn FormGroups(
    /// The groups, in order.
    groups: &'static [&'static Group],
) -> impl IntoView {
    let state = use_app_state();
    let refused = use_refused();
    let html = move || {
        state.generation.track();
        let section = current_section(state);
        state.scenario.with_untracked(|s| groups.iter().map(|g| group_html(g, &section, s)).collect::<String>())
    };
    let on_event = move |ev: Event| {
        if let Some((id, value)) = target_of(&ev) {
            dispatch(state, refused, groups, &id, &value);
        }
    };
    // The fields shown only for some scenarios; one that appears shows the section's value
    // (choosing 2D sharding fills the D axes).
    Effect::new(move |_| {
        state.generation.track();
        let shown: Vec<bool> = state.scenario.with(|s| {
            groups
                .iter()
                .flat_map(|g| g.fields)
                .filter_map(|f| if let Field::TextIf(_, when) = f { Some(when(s)) } else { None })
                .collect()
        });
        let fields = groups.iter().flat_map(|g| g.fields).filter_map(|f| {
            if let Field::TextIf(spec, _) = f {
                Some(spec)
            } else {
                None
            }
        });
        for (spec, shown) in fields.zip(shown) {
            let field = document()
                .get_element_by_id(&format!("{}-field", spec.id))
                .and_then(|e| e.dyn_into::<HtmlElement>().ok());
            let Some(field) = field else { continue };
            if field.hidden() && shown {
                if let Some(input) =
                    document().get_element_by_id(spec.id).and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
                {
                    input.set_value(&(spec.get)(&current_section(state)));
                }
            }
            field.set_hidden(!shown);
        }
    });
    view! { <div class="form-groups" inner_html=html on:input=on_event on:change=on_event></div> }
}
