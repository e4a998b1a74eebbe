//! Picking the chip (from the bundled catalog) and the topology it is wired into, for the
//! views that need hardware (hardware & collectives, training, serving): the fields
//! `hardware.chip`, `hardware.topology` (a shape: `16x20x28` is a TPU slice, `8` a GPU NVLink
//! domain) and `hardware.topology.slices` of `shardcalc_core::field::hardware`, where the
//! rules live (a new chip keeps a shape that fits it, else starts from its default).
//!
//! A custom chip (defined on the hardware page) stays on offer after a catalog chip is
//! picked, so choosing it again brings it back.

use leptos::prelude::*;
use shardcalc_core::field::hardware::use_chip;
use shardcalc_core::field::hardware::{CUSTOM_CHIP, PICKER};
use shardcalc_core::hardware::chip::Chip;
use shardcalc_core::hardware::query::ChipSource;
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::scenario::Scenario;

use super::field::Field;
use crate::dom::event_value;
use crate::state::use_app_state;

/// The chip drop-down (`#hw-chip`), the shape (`#hw-shape`) and the number of slices
/// (`#hw-slices`), with the resulting chip count (`#hw-summary`).
#[component]
pub fn HardwarePicker() -> impl IntoView {
    let state = use_app_state();
    let [chip_field, shape_field, slices_field] = &PICKER;
    // The last custom chip the scenario had.
    let custom = RwSignal::new(None::<Box<Chip>>);
    Effect::new(move |_| {
        if let Some(ChipSource::Custom(c)) = state.draft.with(|d| d.scenario.hardware.as_ref().map(|h| h.chip.clone()))
        {
            custom.set(Some(c));
        }
    });
    let options = Memo::new(move |_| {
        let mut list = state.draft.with(|d| chip_field.options(&d.scenario));
        if let Some(c) = custom.get().filter(|_| !list.iter().any(|o| o.value == CUSTOM_CHIP)) {
            list.insert(
                0,
                shardcalc_core::field::Choice {
                    value: CUSTOM_CHIP.into(),
                    label: format!("Custom: {}", c.name),
                    group: "",
                },
            );
        }
        list
    });
    let selected = Memo::new(move |_| state.draft.with(|d| chip_field.text(&d.scenario)));
    let on_change = move |ev: leptos::ev::Event| {
        let value = event_value(&ev);
        match custom.get_untracked().filter(|_| value == CUSTOM_CHIP) {
            Some(chip) => state.update(|s| use_chip(s, ChipSource::Custom(chip.clone()), &chip)),
            None => state.set(chip_field, &value),
        }
    };
    let message = Memo::new(move |_| {
        state.errors.with(|e| e.iter().filter(|e| chip_field.shows(e)).map(ToString::to_string).collect::<Vec<_>>())
    });
    let summary = Memo::new(move |_| state.shown.with(summary));
    view! {
        <fieldset class="hardware-picker">
            <legend>"Hardware"</legend>
            <div class="field" id="hw-chip-field">
                <label for="hw-chip">{chip_field.label}</label>
                <select id="hw-chip" aria-describedby="hw-chip-error" prop:value=selected on:change=on_change>
                    {move || options.with(|o| super::field::options_view(o, &selected.get_untracked()))}
                </select>
                <div class="field-error" id="hw-chip-error" aria-live="polite">
                    {move || message.get().into_iter().map(|m| view! { <p>{m}</p> }).collect_view()}
                </div>
            </div>
            <Field field=shape_field />
            <Field field=slices_field />
            <p class="hardware-summary" id="hw-summary">{summary}</p>
        </fieldset>
    }
}

/// The summary line: the chip count and how each axis is wired ("" without hardware).
fn summary(s: &Scenario) -> String {
    let Some(hw) = s.hardware.as_ref() else { return String::new() };
    let Ok(chip) = hw.chip.resolve() else { return String::new() };
    match &hw.topology {
        Some(t) => describe(&chip, t),
        None => format!("{}: no topology; the view chooses one.", chip.name),
    }
}

/// "64 devices of TPU v5p: x 4 (ring) × y 4 (ring) × z 4 (ring)".
fn describe(chip: &Chip, t: &Topology) -> String {
    use shardcalc_core::collectives::AxisShape;
    let word = |shape: AxisShape| match shape {
        AxisShape::Ring => " (ring)",
        AxisShape::Line => " (no wraparound)",
        AxisShape::Switch => " (switched)",
        AxisShape::FullMesh => " (full mesh)",
        AxisShape::UnidirectionalRing => " (one-way ring)",
    };
    let axes: Vec<String> = match t.resolve(chip) {
        Ok(links) => links.iter().map(|l| format!("{} {}{}", l.name, l.size, word(l.shape))).collect(),
        Err(_) => t.axes.iter().map(|a| format!("{} {}", a.name, a.size)).collect(),
    };
    let devices = t.devices();
    let count = shardcalc_core::error::number_text(devices);
    format!("{count} {} of {}: {}", if devices == 1.0 { "device" } else { "devices" }, chip.name, axes.join(" × "))
}
