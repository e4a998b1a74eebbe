//! Per-axis settings of the topology (book 2.2): force the wraparound off (or on, where the
//! chip can have it), override an axis's link bandwidth or hop latency, and use Ironwood's
//! die-to-die link as a mesh axis. The shape and slices are the `HardwarePicker`'s.

use leptos::prelude::*;
use shardcalc_core::collectives::{AxisShape, Network};
use shardcalc_core::hardware::chip::Fabric;
use shardcalc_core::hardware::topology::AxisSpec;
use shardcalc_core::units::{BytesPerSec, Seconds};

use super::derived::Derived;
use super::edit::update;
use super::units::{plain, rate, seconds};
use crate::components::SectionField;
use crate::dom::{event_checked, event_value};
use crate::parse::{parse_nonnegative_real, parse_positive_real};
use crate::state::{use_app_state, AppState};

/// Name of the die-to-die axis the checkbox adds.
pub const D2D_AXIS: &str = "d2d";

fn set_axis(state: AppState, i: usize, f: impl FnOnce(&mut AxisSpec)) -> Result<(), String> {
    update(state, &format!("hardware.topology.axes[{i}]"), move |s| {
        if let Some(a) = s.hardware.as_mut().and_then(|h| h.topology.as_mut()).and_then(|t| t.axes.get_mut(i)) {
            f(a);
        }
    })
}

/// The axes table with its overrides, and the die-to-die checkbox.
#[component]
pub fn TopologyEditor(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let state = use_app_state();
    // Rebuilt only when axes come or go (not when an override changes).
    let layout = Memo::new(move |_| {
        derived.section.with(|s| {
            s.as_ref()
                .and_then(|h| h.topology.as_ref())
                .map(|t| t.axes.iter().map(|a| (a.name.clone(), a.size, a.network)).collect::<Vec<_>>())
                .unwrap_or_default()
        })
    });
    move || {
        state.generation.track();
        let axes = layout.get();
        let rows = axes
            .iter()
            .enumerate()
            .map(|(i, (name, size, network))| view! { <AxisRow derived=derived index=i name=name.clone() size=*size network=*network /> })
            .collect_view();
        view! {
            <fieldset class="topology-editor" id="topology-editor">
                <legend>"Mesh axes"</legend>
                <p class="hint">"Each axis: wraparound (book 2.2: only a full axis, or a slice of whole cubes, has one), and overrides of its link bandwidth and per-hop latency. Empty = the chip's."</p>
                {rows}
                <DieToDie derived=derived />
            </fieldset>
        }
    }
}

#[component]
fn AxisRow(derived: Derived, index: usize, name: String, size: u64, network: Network) -> impl IntoView {
    let state = use_app_state();
    let spec = derived.section.with_untracked(|s| {
        s.as_ref().and_then(|h| h.topology.as_ref()).and_then(|t| t.axes.get(index).cloned())
    });
    let Some(spec) = spec else { return ().into_any() };
    let torus = derived.resolved.with_untracked(|r| {
        r.as_ref().is_ok_and(|hw| matches!(hw.chip.scale_up.fabric, Fabric::Torus { .. }))
    });
    let wrap_error = RwSignal::new(None::<String>);
    let on_wrap = move |ev: leptos::ev::Event| {
        let value = match event_value(&ev).as_str() {
            "on" => Some(true),
            "off" => Some(false),
            _ => None,
        };
        wrap_error.set(set_axis(state, index, |a| a.wraparound = value).err());
    };
    let link = Callback::new(move |text: String| {
        let value = if text.trim().is_empty() {
            None
        } else {
            Some(BytesPerSec(parse_positive_real(&text).map_err(|m| format!("link: {m}"))? * 1e9))
        };
        set_axis(state, index, |a| a.link_one_way = value)
    });
    let latency = Callback::new(move |text: String| {
        let value = if text.trim().is_empty() {
            None
        } else {
            Some(Seconds(parse_nonnegative_real(&text).map_err(|m| format!("latency: {m}"))? * 1e-6))
        };
        set_axis(state, index, |a| a.hop_latency = value)
    });
    // What the axis resolves to, following the scenario.
    let resolved = move || {
        derived.resolved.with(|r| {
            let a = r.as_ref().ok()?.axes.get(index)?;
            let shape = match a.shape {
                AxisShape::Ring => "ring (wraparound)",
                AxisShape::Line => "line (no wraparound)",
                AxisShape::Switch => "switched",
                AxisShape::FullMesh => "full mesh",
            };
            Some(format!("{shape}, {} per link one-way, {} per hop", rate(a.link.get()), seconds(a.hop_latency.get())))
        })
    };
    let network_label = match network {
        Network::ScaleUp => "scale-up",
        Network::ScaleOut => "scale-out (DCN)",
        Network::DieToDie => "die-to-die",
    };
    let wrap_value = match spec.wraparound {
        Some(true) => "on",
        Some(false) => "off",
        None => "auto",
    };
    let wrap_select = (torus && network == Network::ScaleUp).then(|| {
        let option = move |v: &'static str, label: &'static str| view! { <option value=v selected=v == wrap_value>{label}</option> };
        view! {
            <div class="field" class:invalid=move || wrap_error.with(Option::is_some)>
                <label for=format!("axis-{index}-wraparound")>"Wraparound"</label>
                <select id=format!("axis-{index}-wraparound") aria-describedby=format!("axis-{index}-wraparound-error") on:change=on_wrap>
                    {option("auto", "the chip's rule")}
                    {option("off", "off (a line)")}
                    {option("on", "on (a ring)")}
                </select>
                <div class="field-error" id=format!("axis-{index}-wraparound-error") aria-live="polite">
                    {move || wrap_error.get().map(|m| view! { <p>{m}</p> })}
                </div>
            </div>
        }
    });
    view! {
        <div class="axis-row" id=format!("axis-{index}")>
            <p class="axis-title">
                <strong>{name}</strong> {format!(" — {size} devices, {network_label}: ")}
                <span id=format!("axis-{index}-resolved")>{resolved}</span>
            </p>
            {wrap_select}
            <SectionField id=format!("axis-{index}-link") label="Link override" unit="GB/s one-way" initial=spec.link_one_way.map(|w| plain(w.get() / 1e9)).unwrap_or_default() apply=link />
            <SectionField id=format!("axis-{index}-latency") label="Hop latency override" unit="µs" initial=spec.hop_latency.map(|l| plain(l.get() / 1e-6)).unwrap_or_default() apply=latency />
        </div>
    }
    .into_any()
}

/// For chips with chiplets (Ironwood): a checkbox adding the die-to-die link as an axis.
#[component]
fn DieToDie(derived: Derived) -> impl IntoView {
    let state = use_app_state();
    let chiplets = derived.resolved.with_untracked(|r| r.as_ref().ok().and_then(|hw| hw.chip.chiplets.map(|c| (c.count, c.die_to_die.one_way))));
    let Some((count, link)) = chiplets else { return ().into_any() };
    let on = derived.section.with_untracked(|s| {
        s.as_ref().and_then(|h| h.topology.as_ref()).is_some_and(|t| t.axes.iter().any(|a| a.network == Network::DieToDie))
    });
    let error = RwSignal::new(None::<String>);
    let on_change = move |ev: leptos::ev::Event| {
        let checked = event_checked(&ev);
        let result = update(state, "hardware.topology", |s| {
            if let Some(t) = s.hardware.as_mut().and_then(|h| h.topology.as_mut()) {
                t.axes.retain(|a| a.network != Network::DieToDie);
                if checked {
                    t.axes.push(AxisSpec::new(D2D_AXIS, count, Network::DieToDie));
                }
            }
            // Collectives over a removed axis move to the remaining ones.
            if !checked {
                for q in &mut s.collectives {
                    q.axes.retain(|a| a != D2D_AXIS);
                }
                s.collectives.retain(|q| !q.axes.is_empty());
            }
        });
        error.set(result.err());
    };
    view! {
        <div class="field check" class:invalid=move || error.with(Option::is_some)>
            <div class="input-row">
                <input id="topology-d2d" type="checkbox" checked=on on:change=on_change />
                <label for="topology-d2d">{format!("Use the die-to-die link as an axis “{D2D_AXIS}” ({count} chiplets, {} one-way)", rate(link.get()))}</label>
            </div>
            <p class="hint">"Ironwood's two chiplets are separate devices joined by a link about 6× faster than ICI (its guide: TP=2 over die-to-die)."</p>
            <div class="field-error" id="topology-d2d-error" aria-live="polite">{move || error.get().map(|m| view! { <p>{m}</p> })}</div>
        </div>
    }
    .into_any()
}
