//! The training form written as HTML text from the fields' [`Spec`]s, with one delegated
//! handler for every edit (`input` for text, `change` for drop-downs and checkboxes), one
//! for the explore buttons' clicks, and one effect that writes the planning problems under
//! the fields they concern (`{id}-conflict`).
//!
//! Why not a component per field: each field's `view!` tree, its signals and closures are
//! reactive and rendering code in the wasm; the form's ~60 fields as text cost the page far
//! less (docs/size.md, "Training form, session 14"). The markup is [`crate::form_html`]'s
//! (shared with the pickers and the serving form): the input `{id}`, its wrapper `{id}-field`,
//! `{id}-hint`, `{id}-error` (the field's own message, written by [`show_message`]), and
//! here `{id}-conflict`. The HTML is written again only when the
//! scenario is replaced wholesale (a link, a preset: `AppState::generation`) or a change
//! moved other fields' values (`Derived::form_generation`), so typing never loses focus and
//! a refused text stays in its field. Every text is escaped.

use leptos::prelude::*;
use leptos::wasm_bindgen::JsCast;
use shardcalc_core::error::FieldError;
use shardcalc_core::training::section::TrainingSection;
use web_sys::{Element, Event, MouseEvent};

use super::conflicts::messages_html;
use super::derived::{text_of, Derived};
use super::fields::{current, write, Kind, Spec};
use super::{explore, inputs, remat_inputs};
use crate::dom::{event_checked, event_value};
use crate::form_html::{error_div, option_html, show_message, text_html};
use crate::html_text::escape;

/// Every group of fields, in the form's order.
static GROUPS: [&[Spec]; 9] = [
    &inputs::RUN,
    &inputs::STATE,
    &inputs::FORMAT_FIELDS,
    &remat_inputs::POLICY,
    &remat_inputs::TENSORS,
    &remat_inputs::SEARCHED,
    &explore::DEGREES,
    &inputs::PIPELINE,
    &inputs::ADVANCED,
];

/// Boxes of planning problems that are not a field's own: under the topology (the hardware
/// picker's `#hw-shape`), the policies searched, and the explored mesh as a whole.
const BOXES: [(&str, &[&str]); 3] = [
    ("hw-shape", &["hardware", "hardware.topology"]),
    ("training-search-remat", &["training.search.remat", "training.search"]),
    ("training-explore", &["training.mesh"]),
];

/// `<div id="{id}-conflict">` with the problems of `paths`.
fn conflict_box(out: &mut String, id: &str, paths: &[&str], errors: &[FieldError]) {
    out.push_str(&format!(
        r#"<div class="field-error conflict" id="{id}-conflict" aria-live="polite">{}</div>"#,
        messages_html(errors, paths)
    ));
}

/// One field: label, input (text with its unit, drop-down, or checkbox), hint, message box
/// (the shared markup of [`crate::form_html`]: the wrapper `{id}-field`) and, for text and
/// drop-downs, the box of its planning problems after it.
fn field(out: &mut String, spec: &Spec, t: &TrainingSection, errors: &[FieldError]) {
    let Spec { id, label, unit, hint, arg, conflicts, .. } = *spec;
    match spec.kind {
        Kind::Text { get, .. } => out.push_str(&text_html(id, label, unit, hint, "decimal", &get(t, arg), false)),
        Kind::Select { options, get, .. } => {
            let value = get(t, arg);
            let options: String = options.iter().map(|(v, l)| option_html(v, l, *v == value)).collect();
            out.push_str(&format!(
                r#"<div class="field" id="{id}-field"><label for="{id}">{}</label><select id="{id}" aria-describedby="{id}-hint {id}-error {id}-conflict">{options}</select><p class="hint" id="{id}-hint">{}</p>{}</div>"#,
                escape(label),
                escape(hint),
                error_div(id)
            ));
        }
        Kind::Check { get, .. } => {
            let checked = if get(t, arg) { " checked" } else { "" };
            out.push_str(&format!(
                r#"<div class="field check" id="{id}-field"><div class="input-row"><input id="{id}" type="checkbox"{checked} aria-describedby="{id}-hint {id}-error"><label for="{id}">{}</label></div><p class="hint" id="{id}-hint">{}</p>{}</div>"#,
                escape(label),
                escape(hint),
                error_div(id)
            ));
            return;
        }
    }
    conflict_box(out, id, conflicts, errors);
}

fn fields(out: &mut String, specs: &[Spec], t: &TrainingSection, errors: &[FieldError]) {
    for spec in specs {
        field(out, spec, t, errors);
    }
}

/// The form of section `t`: batch and budget, training state and formats, remat, the
/// explored mesh (or the button to start), pipeline and search, the roofline's assumptions.
fn form_of(t: &TrainingSection, errors: &[FieldError]) -> String {
    let mut o = String::from(r#"<fieldset class="training-batch"><legend>Batch and budget</legend>"#);
    fields(&mut o, &inputs::RUN, t, errors);
    o.push_str(r#"</fieldset><fieldset class="training-optimizer"><legend>Optimizer and training state</legend>"#);
    fields(&mut o, &inputs::STATE, t, errors);
    o.push_str(r#"<details class="subfields"><summary>Number formats</summary>"#);
    fields(&mut o, &inputs::FORMAT_FIELDS, t, errors);
    o.push_str(r#"</details></fieldset><fieldset class="training-remat"><legend>Rematerialisation</legend>"#);
    fields(&mut o, &remat_inputs::POLICY, t, errors);
    if matches!(t.remat, shardcalc_core::training::tensors::Remat::Custom(_)) {
        o.push_str(r#"<div class="subfields custom-remat" id="training-remat-custom"><p class="hint">Each tensor the backward pass reads: kept (HBM), recomputed (FLOPs), or offloaded (PCIe).</p>"#);
        fields(&mut o, &remat_inputs::TENSORS, t, errors);
        o.push_str("</div>");
    }
    o.push_str(r#"<details class="subfields" id="training-search-remat"><summary>Policies the search tries</summary><p class="hint">Offloading policies only on chips with a published PCIe bandwidth; dominated policies are skipped.</p>"#);
    fields(&mut o, &remat_inputs::SEARCHED, t, errors);
    let [_, search_box, explore_box] = BOXES;
    conflict_box(&mut o, search_box.0, search_box.1, errors);
    o.push_str(r#"</details></fieldset><fieldset class="training-explore" id="training-explore"><legend>Explore a mesh</legend>"#);
    if t.mesh.is_some() {
        o.push_str(r#"<p class="hint">Degrees multiply to the chip count (devices); the batch is split dp·fsdp·ep ways by whole sequences.</p>"#);
        conflict_box(&mut o, explore_box.0, explore_box.1, errors);
        o.push_str(r#"<div class="mesh-degrees">"#);
        fields(&mut o, &explore::DEGREES, t, errors);
        o.push_str(r#"</div><div class="actions"><button type="button" id="training-mesh-fill">FSDP takes the remaining devices</button><button type="button" id="training-explore-stop">Stop exploring</button></div>"#);
    } else {
        o.push_str(r#"<p class="hint">Plan one mesh of your own next to the search's best: start from the best, or pick a row of the ranked table.</p><button type="button" id="training-explore-start">Explore, starting from the best mesh</button>"#);
    }
    o.push_str(r#"</fieldset><fieldset class="training-pipeline"><legend>Pipeline, microbatches and search</legend>"#);
    fields(&mut o, &inputs::PIPELINE, t, errors);
    o.push_str(r#"</fieldset><fieldset class="training-advanced"><legend>What the roofline assumes</legend><details class="subfields"><summary>Efficiency, overlap, MoE capacity, attention kernel</summary>"#);
    fields(&mut o, &inputs::ADVANCED, t, errors);
    o + "</details></fieldset>"
}

/// The form's HTML; written again when the scenario is replaced wholesale or a change
/// moved other fields' values.
fn form_html(d: &Derived) -> String {
    d.state.generation.track();
    d.form_generation.track();
    let errors = d.conflicts.get_untracked();
    current(d.state, |t| form_of(t, &errors))
}

/// An edit in the form: the field's text (`input`) or choice (`change`) is written into the
/// section, and the message, if any, shown next to the field. (Not inlined: the `input` and
/// `change` listeners would each get a copy.)
#[inline(never)]
fn on_edit(ev: &Event, d: Derived) {
    let Some(input) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
    let id = input.id();
    let Some(spec) = GROUPS.iter().flat_map(|g| g.iter()).find(|s| s.id == id) else { return };
    // Text fields answer every keystroke; drop-downs and checkboxes their `change`.
    if (ev.type_() == "input") != matches!(spec.kind, Kind::Text { .. }) {
        return;
    }
    let (value, on, arg) = (event_value(ev), event_checked(ev), spec.arg);
    let result = write(d.state, d, spec, |t| match spec.kind {
        Kind::Text { set, .. } | Kind::Select { set, .. } => set(t, arg, &value),
        Kind::Check { set, .. } => set(t, arg, on),
    });
    show_message(&id, result.err().as_deref());
}

/// A click on one of the explore buttons.
fn on_click(ev: &MouseEvent, d: Derived) {
    let id = ev.target().and_then(|t| t.dyn_into::<Element>().ok()).map(|e| e.id()).unwrap_or_default();
    match id.as_str() {
        "training-explore-start" => explore::start(d.state, d),
        "training-explore-stop" => explore::stop(d.state, d),
        "training-mesh-fill" => explore::fill(d.state, d),
        _ => {}
    }
}

/// Writes the planning problems into every `{id}-conflict` box on the page (those of
/// fields not shown are skipped); a box whose problems did not change is left alone.
fn show_conflicts(errors: &[FieldError]) {
    let boxes = GROUPS
        .iter()
        .flat_map(|g| g.iter())
        .filter(|s| !s.conflicts.is_empty())
        .map(|s| (s.id, s.conflicts))
        .chain(BOXES);
    for (id, paths) in boxes {
        let Some(el) = document().get_element_by_id(&format!("{id}-conflict")) else { continue };
        let html = messages_html(errors, paths);
        if el.inner_html() != html {
            el.set_inner_html(&html);
        }
    }
}

/// The training section's inputs (everything but the model, hardware and prediction mode).
#[component]
pub fn TrainingForm(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    Effect::new(move |_| derived.conflicts.with(|e| show_conflicts(e)));
    let edit = move |ev: Event| on_edit(&ev, derived);
    view! { <div class="training-form" inner_html=text_of(derived, form_html) on:input=edit on:change=edit on:click=move |ev| on_click(&ev, derived)></div> }
}
