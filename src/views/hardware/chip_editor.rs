//! The custom chip: start from the chosen preset ("Edit a copy of this chip"), then edit
//! every spec with its unit; each field is checked by core's chip validation and its
//! message shows next to it. An edited number's source becomes "edited in shardcalc".

use leptos::prelude::*;
use shardcalc_core::hardware::chip::{Chip, ChipFamily, Fabric, WrapRule};
use shardcalc_core::hardware::query::ChipSource;

use super::chip_fields::{display, ChipField, CHIP_FIELDS};
use super::derived::Derived;
use super::edit::{edit_chip, editable_copy, today, update};
use super::units::plain;
use crate::components::SectionField;
use crate::dom::event_value;
use crate::parse::{parse_count, parse_positive_real};
use crate::state::{use_app_state, AppState};

/// "Edit a copy of this chip" for a preset, the editor for a custom chip.
#[component]
pub fn ChipEditor(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let state = use_app_state();
    let customize = move |_| {
        let Some(chip) = derived.resolved.with_untracked(|r| r.as_ref().ok().map(|hw| editable_copy(&hw.chip))) else {
            return;
        };
        let done = update(state, "hardware", |s| {
            if let Some(hw) = s.hardware.as_mut() {
                hw.chip = ChipSource::Custom(Box::new(chip));
            }
        });
        if done.is_ok() {
            // The chip picker and this editor rebuild around the custom chip.
            state.generation.update(|g| *g += 1);
        }
    };
    move || {
        state.generation.track();
        if derived.is_custom.get() {
            view! { <CustomChipFields derived=derived /> }.into_any()
        } else {
            view! {
                <div class="chip-customize">
                    <button type="button" id="chip-customize" on:click=customize>"Edit a copy of this chip"</button>
                    <p class="hint">"Define a custom chip: every number of the spec table becomes editable, starting from this chip's."</p>
                </div>
            }
            .into_any()
        }
    }
}

fn number_text(chip: &Chip, field: &ChipField) -> String {
    chip.numeric_fields()
        .into_iter()
        .find(|(p, _)| *p == field.path)
        .and_then(|(_, v)| v)
        .map(|v| plain(v / field.unit.scale()))
        .unwrap_or_default()
}

/// Reads the text of `field` and writes it into the custom chip.
fn apply_number(state: AppState, field: &'static ChipField, text: &str) -> Result<(), String> {
    let value = if text.trim().is_empty() && field.optional {
        None
    } else {
        let x = parse_positive_real(text).map_err(|m| format!("{}: {m}", field.label))?;
        Some(x * field.unit.scale())
    };
    edit_chip(state, field.path, |chip| {
        chip.set_field(field.path, value)?;
        chip.mark_edited(field.path, &today());
        chip.forget_missing_fields();
        Ok(())
    })
}

#[component]
fn CustomChipFields(derived: Derived) -> impl IntoView {
    let state = use_app_state();
    let Some(chip) = derived.resolved.with_untracked(|r| r.as_ref().ok().map(|hw| hw.chip.clone())) else {
        return view! { <p>"No chip."</p> }.into_any();
    };
    let name = Callback::new(move |text: String| {
        let text = text.trim().to_string();
        if text.is_empty() {
            return Err("name: must not be empty".to_string());
        }
        edit_chip(state, "name", |c| {
            c.name = text;
            Ok(())
        })
    });
    let numbers = CHIP_FIELDS
        .iter()
        .map(|field| {
            if field.editable {
                let apply = Callback::new(move |text: String| apply_number(state, field, &text));
                let hint = if field.optional { "Empty = not published" } else { "" };
                view! {
                    <SectionField id=field.id label=field.label unit=field.unit.label() hint=hint initial=number_text(&chip, field) apply=apply />
                }
                .into_any()
            } else {
                // A link's bidirectional rate: twice its one-way rate, shown as it follows.
                let text = move || {
                    derived.resolved.with(|r| {
                        let chip = r.as_ref().ok().map(|hw| &hw.chip);
                        let value = chip.and_then(|c| c.numeric_fields().into_iter().find(|(p, _)| *p == field.path)).and_then(|(_, v)| v);
                        value.map_or_else(|| "not set".to_string(), |v| format!("{} (twice one-way)", display(field, v)))
                    })
                };
                view! { <p class="derived-field"><span class="label">{field.label}</span> " " <output id=field.id>{text}</output></p> }.into_any()
            }
        })
        .collect_view();
    view! {
        <fieldset class="chip-editor" id="chip-editor">
            <legend>"Custom chip"</legend>
            <p class="hint">"Pick a preset above to start again from it. Edited numbers are listed as “edited in shardcalc” in the spec table."</p>
            <SectionField id="chip-name" label="Name" initial=chip.name.clone() apply=name input_mode="text" />
            <FabricFields chip=chip.clone() />
            {numbers}
        </fieldset>
    }
    .into_any()
}

/// Family, scale-up fabric and the torus's wraparound rule.
#[component]
fn FabricFields(chip: Chip) -> impl IntoView {
    let state = use_app_state();
    let error = RwSignal::new(None::<String>);
    let (kind, dims, rule, side) = match chip.scale_up.fabric {
        Fabric::Torus { dims, wraparound: WrapRule::FullAxis(n) } => ("torus", dims, "full_axis", n),
        Fabric::Torus { dims, wraparound: WrapRule::FullCubes(n) } => ("torus", dims, "full_cubes", n),
        Fabric::Switch => ("switch", 2, "full_axis", 16),
        Fabric::FullMesh => ("full_mesh", 2, "full_axis", 16),
    };
    let fabric = StoredValue::new((kind.to_string(), dims.to_string(), rule.to_string(), side.to_string()));
    let apply = move || {
        let (kind, dims, rule, side) = fabric.get_value();
        let fabric = match kind.as_str() {
            "switch" => Fabric::Switch,
            "full_mesh" => Fabric::FullMesh,
            _ => {
                let dims = parse_count(&dims).map_err(|m| format!("torus axes: {m}"))?;
                let side = parse_count(&side).map_err(|m| format!("wraparound size: {m}"))?;
                let wraparound = if rule == "full_cubes" { WrapRule::FullCubes(side) } else { WrapRule::FullAxis(side) };
                Fabric::Torus { dims, wraparound }
            }
        };
        edit_chip(state, "scale_up.fabric", |c| {
            c.scale_up.fabric = fabric;
            Ok(())
        })
    };
    let on_kind = move |ev: leptos::ev::Event| {
        let v = event_value(&ev);
        fabric.update_value(|f| f.0 = v);
        error.set(apply().err());
    };
    let on_rule = move |ev: leptos::ev::Event| {
        let v = event_value(&ev);
        fabric.update_value(|f| f.2 = v);
        error.set(apply().err());
    };
    let on_family = move |ev: leptos::ev::Event| {
        let family = if event_value(&ev) == "gpu" { ChipFamily::Gpu } else { ChipFamily::Tpu };
        error.set(
            edit_chip(state, "family", |c| {
                c.family = family;
                Ok(())
            })
            .err(),
        );
    };
    let dims_apply = Callback::new(move |text: String| {
        fabric.update_value(|f| f.1 = text);
        apply()
    });
    let side_apply = Callback::new(move |text: String| {
        fabric.update_value(|f| f.3 = text);
        apply()
    });
    let option = |value: &'static str, label: &'static str, current: &str| {
        view! { <option value=value selected=value == current>{label}</option> }
    };
    let family = if chip.family == ChipFamily::Gpu { "gpu" } else { "tpu" };
    view! {
        <div class="field" class:invalid=move || error.with(Option::is_some)>
            <label for="chip-family">"Family"</label>
            <select id="chip-family" on:change=on_family>
                {option("tpu", "TPU (slices, DCN)", family)}
                {option("gpu", "GPU (NVLink domain, scale-out)", family)}
            </select>
            <label for="chip-fabric">"Scale-up fabric"</label>
            <select id="chip-fabric" aria-describedby="chip-fabric-error" on:change=on_kind>
                {option("torus", "Torus (TPU ICI)", kind)}
                {option("switch", "Switch (NVLink + NVSwitch)", kind)}
                {option("full_mesh", "Full mesh (Infinity Fabric)", kind)}
            </select>
            <label for="chip-wrap-rule">"Wraparound rule (torus)"</label>
            <select id="chip-wrap-rule" on:change=on_rule>
                {option("full_axis", "Only a full axis wraps (v5e, v6e)", rule)}
                {option("full_cubes", "Only whole cubes wrap (v4, v5p, 7x)", rule)}
            </select>
            <div class="field-error" id="chip-fabric-error" aria-live="polite">
                {move || error.get().map(|m| view! { <p>{m}</p> })}
            </div>
        </div>
        <SectionField id="chip-torus-dims" label="Torus axes" hint="1, 2 or 3 (ignored for a switch or full mesh)" initial=dims.to_string() apply=dims_apply input_mode="numeric" />
        <SectionField id="chip-wrap-side" label="Wraparound size" unit="chips" hint="Full axis length, or cube side" initial=side.to_string() apply=side_apply input_mode="numeric" />
    }
}
