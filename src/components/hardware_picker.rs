//! Picking the chip (from the bundled catalog) and the topology it is wired into, for the
//! views that need hardware (hardware & collectives, training, serving). Writes
//! `scenario.hardware` through [`AppState::try_update`], so the scenario stays valid.
//!
//! The topology is edited as a shape: `16x20x28` is a TPU slice (axes `x`, `y`, `z`), `8` a
//! GPU NVLink domain; "slices" adds a DCN axis (TPU) or scale-out nodes (GPU) when above 1
//! (`Topology::tpu_slice`, `Topology::gpu_cluster`). Per-axis settings already in the
//! scenario (wraparound, link or latency overrides, die-to-die axes) are kept for axes that
//! keep their name.

use leptos::prelude::*;
use shardcalc_core::collectives::Network;
use shardcalc_core::hardware::catalog;
use shardcalc_core::hardware::chip::{Chip, ChipFamily};
use shardcalc_core::hardware::query::{ChipSource, CollectiveQuery, HardwareSection};
use shardcalc_core::hardware::topology::{AxisSpec, Topology};
use shardcalc_core::scenario::Scenario;
use web_sys::Event;

use super::section_field::messages_under;
use crate::dom::input_by_id;
use crate::form_html::{error_div, option_html, show_message, target_of, text_html, value_of};
use crate::html_text::{attr, escape};
use crate::parse::parse_count;
use crate::state::{use_app_state, AppState};

/// Value of the option that stands for a custom chip already in the scenario.
const CUSTOM: &str = "custom";

/// The chip drop-down (`#hw-chip`), the shape (`#hw-shape`) and the number of slices
/// (`#hw-slices`), with the resulting chip count (`#hw-summary`).
///
/// When the scenario has no hardware yet, it is set to `default_chip` with `default_shape`
/// on first render (so the view has something to show). The fields are HTML text
/// (`crate::form_html`) handled by one delegated `input`/`change` handler, written again
/// only when the scenario is replaced wholesale (`AppState::generation`: a link, a saved
/// scenario, a preset), so what the user typed stays, valid or not; a refused edit shows its
/// message next to its field (`#hw-shape-error`, ...) and the scenario keeps its last valid
/// hardware.
#[component]
pub fn HardwarePicker(
    /// Chip id used when the scenario has no hardware, e.g. `tpu-v5p`.
    default_chip: &'static str,
    /// Shape used then, e.g. `4x4x4` (empty for none when `allow_no_topology`).
    default_shape: &'static str,
    /// Whether an empty shape is allowed (no topology: the view picks one, e.g. serving's
    /// smallest slice that fits).
    #[prop(optional)]
    allow_no_topology: bool,
) -> impl IntoView {
    let state = use_app_state();
    if state.scenario.with_untracked(|s| s.hardware.is_none()) {
        let shape = parse_shape(default_shape).ok();
        state.fill_defaults(|s| {
            let topology =
                catalog::get(default_chip).and_then(|chip| shape.map(|sh| topology_for(&chip, &sh, 1, None)));
            s.hardware = Some(HardwareSection { chip: ChipSource::Preset(default_chip.to_string()), topology });
        });
    }
    let html = move || {
        // Rebuilt when the scenario is replaced wholesale (a link, a saved scenario).
        state.generation.track();
        state.scenario.with_untracked(|s| fields_html(s, allow_no_topology))
    };
    // The summary follows the scenario's hardware (the DOM is written only when it changes).
    Effect::new(move |_| {
        let text = state.scenario.with(summary);
        if let Some(p) =
            document().get_element_by_id("hw-summary").filter(|p| p.text_content().as_deref() != Some(text.as_str()))
        {
            p.set_text_content(Some(&text));
        }
    });
    let on_event = move |ev: Event| {
        let Some((id, value)) = target_of(&ev) else { return };
        let result = match id.as_str() {
            "hw-chip" => change_chip(state, &value, allow_no_topology),
            "hw-shape" => apply(state, &value, &value_of("hw-slices"), allow_no_topology, None),
            "hw-slices" => apply(state, &value_of("hw-shape"), &value, allow_no_topology, None),
            _ => return,
        };
        show_message(&id, result.err().as_deref());
    };
    view! { <fieldset class="hardware-picker" inner_html=html on:input=on_event on:change=on_event></fieldset> }
}

/// The picker's legend and fields, from the scenario's hardware.
fn fields_html(s: &Scenario, allow_no_topology: bool) -> String {
    let hw = s.hardware.as_ref();
    let (chip_id, custom_name) = match hw.map(|h| &h.chip) {
        Some(ChipSource::Preset(id)) => (id.as_str(), None),
        Some(ChipSource::Custom(c)) => (CUSTOM, Some(c.name.as_str())),
        None => ("", None),
    };
    let (shape, slices) = hw.and_then(|h| h.topology.as_ref()).map_or((String::new(), 1), shape_of);
    let mut options = custom_name.map(|name| option_html(CUSTOM, &format!("Custom: {name}"), true)).unwrap_or_default();
    for (family, label) in [(ChipFamily::Tpu, "TPU"), (ChipFamily::Gpu, "GPU")] {
        options += &format!("<optgroup{}>", attr("label", label));
        for c in catalog::all().iter().filter(|c| c.family == family) {
            options += &option_html(&c.id, &c.name, c.id == chip_id);
        }
        options += "</optgroup>";
    }
    let shape_hint = if allow_no_topology {
        "Chips per axis: 16x20x28 (TPU slice), 8 (GPU NVLink domain); empty = smallest that fits"
    } else {
        "Chips per axis: 16x20x28 (TPU slice), 8 (GPU NVLink domain)"
    };
    format!(
        r#"<legend>Hardware</legend><div class="field" id="hw-chip-field"><label for="hw-chip">Chip</label><select id="hw-chip" aria-describedby="hw-chip-error">{options}</select>{}</div>{}{}<p class="hardware-summary" id="hw-summary">{}</p>"#,
        error_div("hw-chip"),
        text_html("hw-shape", "Topology", "", shape_hint, "text", &shape, false),
        text_html(
            "hw-slices",
            "Slices / nodes",
            "× over DCN",
            "Copies of the shape joined by the data-center network (TPU slices, GPU nodes)",
            "numeric",
            &slices.to_string(),
            false
        ),
        escape(&summary(s)),
    )
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

/// A new chip from the catalog with the shape and slices as typed; when they do not fit it
/// (e.g. a TPU slice on a GPU), with the chip's default shape, written into the two fields.
fn change_chip(state: AppState, id: &str, allow_no_topology: bool) -> Result<(), String> {
    let Some(chip) = catalog::get(id) else { return Ok(()) };
    apply(state, &value_of("hw-shape"), &value_of("hw-slices"), allow_no_topology, Some(&chip)).or_else(|_| {
        let (shape, slices) = default_shape_for(&chip);
        let slices = slices.to_string();
        for (field, text) in [("hw-shape", &shape), ("hw-slices", &slices)] {
            if let Some(input) = input_by_id(field) {
                input.set_value(text);
            }
            show_message(field, None);
        }
        apply(state, &shape, &slices, allow_no_topology, Some(&chip))
    })
}

/// Reads the shape and slices and writes `hardware` (with `chip` when given, else the
/// scenario's chip).
fn apply(state: AppState, shape: &str, slices: &str, allow_none: bool, chip: Option<&Chip>) -> Result<(), String> {
    let slices = parse_count(slices).map_err(|m| format!("slices: {m}"))?;
    if slices == 0 {
        return Err("slices: must be at least 1".into());
    }
    let shape = if shape.trim().is_empty() && allow_none { None } else { Some(parse_shape(shape)?) };
    let chip = match chip {
        Some(c) => c.clone(),
        None => state
            .scenario
            .with_untracked(|s| s.hardware.as_ref().map(|h| h.chip.resolve()))
            .ok_or("choose a chip first")?
            .map_err(|e| e.to_string())?,
    };
    let source = if chip.id.is_empty() || catalog::get(&chip.id).is_none() {
        state
            .scenario
            .with_untracked(|s| s.hardware.as_ref().map(|h| h.chip.clone()))
            .unwrap_or(ChipSource::Custom(Box::new(chip.clone())))
    } else {
        ChipSource::Preset(chip.id.clone())
    };
    state
        .try_update(|s| {
            let old = s.hardware.as_ref().and_then(|h| h.topology.clone());
            let topology = shape.map(|sh| topology_for(&chip, &sh, slices, old.as_ref()));
            keep_collectives_on(&mut s.collectives, topology.as_ref());
            s.hardware = Some(HardwareSection { chip: source, topology });
        })
        .map_err(|e| messages_under(&e, "hardware"))
}

/// `16x20x28` → `[16, 20, 28]`; at most four axes.
///
/// # Errors
/// A message starting `topology:` for text that is not a shape.
pub fn parse_shape(text: &str) -> Result<Vec<u64>, String> {
    let parts: Vec<&str> = text.split(['x', 'X', '×', '*']).map(str::trim).collect();
    if parts.len() > 4 {
        return Err("topology: at most four axes (e.g. 16x20x28)".into());
    }
    parts
        .iter()
        .map(|p| match parse_count(p) {
            Ok(0) => Err("topology: every axis needs at least 1 chip".to_string()),
            Ok(n) => Ok(n),
            Err(m) => Err(format!("topology: {m} (write chips per axis, e.g. 4x4x4)")),
        })
        .collect()
}

/// The topology of `shape` times `slices` on `chip`, keeping `old`'s per-axis settings for
/// axes that keep their name, and its die-to-die axes.
#[must_use]
pub fn topology_for(chip: &Chip, shape: &[u64], slices: u64, old: Option<&Topology>) -> Topology {
    let mut t = match chip.family {
        ChipFamily::Tpu => Topology::tpu_slice(shape, slices),
        ChipFamily::Gpu => {
            let per_domain = shape.iter().product::<u64>().max(1);
            Topology::gpu_cluster(per_domain, slices)
        }
    };
    if let Some(old) = old {
        for axis in &mut t.axes {
            if let Some(prev) = old.axes.iter().find(|a| a.name == axis.name && a.network == axis.network) {
                axis.wraparound = prev.wraparound;
                axis.link_one_way = prev.link_one_way;
                axis.hop_latency = prev.hop_latency;
            }
        }
        if chip.chiplets.is_some() {
            let chiplets: Vec<AxisSpec> = old.axes.iter().filter(|a| a.network == Network::DieToDie).cloned().collect();
            t.axes.extend(chiplets);
        }
    }
    t
}

/// Collective queries follow a new topology: axes it no longer has are dropped, and a
/// query left without axes runs over the first axis (so a new shape or chip is never
/// refused because of a query the user can fix afterwards).
fn keep_collectives_on(queries: &mut [CollectiveQuery], topology: Option<&Topology>) {
    let Some(t) = topology else { return };
    for q in queries {
        q.axes.retain(|name| t.axes.iter().any(|a| &a.name == name));
        if q.axes.is_empty() {
            q.axes.extend(t.axes.first().map(|a| a.name.clone()));
        }
    }
}

/// The shape text and slice count of a topology (inverse of [`topology_for`]).
#[must_use]
pub fn shape_of(t: &Topology) -> (String, u64) {
    let up: Vec<String> = t.axes.iter().filter(|a| a.network == Network::ScaleUp).map(|a| a.size.to_string()).collect();
    let out: u64 = t.axes.iter().filter(|a| a.network == Network::ScaleOut).map(|a| a.size).product();
    (up.join("x"), out.max(1))
}

/// A sensible first topology for a chip: one full GPU domain, or a small TPU slice.
fn default_shape_for(chip: &Chip) -> (String, u64) {
    match chip.family {
        ChipFamily::Gpu => (chip.scale_up.max_chips.max(1).to_string(), 1),
        ChipFamily::Tpu if chip.scale_up.links_per_chip >= 6 => ("4x4x4".into(), 1),
        ChipFamily::Tpu => ("4x4".into(), 1),
    }
}

/// "64 chips of TPU v5p: x 4 (wraps) × y 4 (wraps) × z 4 (wraps)".
fn describe(chip: &Chip, t: &Topology) -> String {
    let axes: Vec<String> = match t.resolve(chip) {
        Ok(links) => links.iter().map(|l| format!("{} {}{}", l.name, l.size, shape_word(l.shape))).collect(),
        Err(_) => t.axes.iter().map(|a| format!("{} {}", a.name, a.size)).collect(),
    };
    let devices = t.devices();
    let count = shardcalc_core::error::number_text(devices);
    format!("{count} {} of {}: {}", if devices == 1.0 { "device" } else { "devices" }, chip.name, axes.join(" × "))
}

/// How an axis is wired, for the summary line.
fn shape_word(shape: shardcalc_core::collectives::AxisShape) -> &'static str {
    use shardcalc_core::collectives::AxisShape;
    match shape {
        AxisShape::Ring => " (ring)",
        AxisShape::Line => " (no wraparound)",
        AxisShape::Switch => " (switched)",
        AxisShape::FullMesh => " (full mesh)",
        AxisShape::UnidirectionalRing => " (one-way ring)",
    }
}
