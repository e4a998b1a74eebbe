//! The inputs column under the chip picker: the custom chip, the mesh axes, the roofline op
//! and the collective queries, written as HTML from the scenario ([`super::controls`]) and
//! re-written only when their structure changes (a chip made custom, an axis or a query
//! added...), so typing never loses focus. One delegated handler per event kind sends each
//! edit to [`super::dispatch`], and its message shows next to the control.

use leptos::prelude::*;
use shardcalc_core::collectives::{CollectiveKind, Network};
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::chip::{Chip, Fabric, WrapRule};
use shardcalc_core::hardware::query::{ChipSource, RooflineQuery};
use shardcalc_core::scenario::Scenario;
use wasm_bindgen::JsCast;

use super::chip_fields::CHIP_FIELDS;
use super::collective_kinds::{kind_id, kind_name};
use super::controls::{self, button, check, heading, note, render, select, text, words, Control};
use super::derived::Derived;
use super::dispatch::{dispatch, D2D_AXIS};
use super::units::{bytes_input, plain};
use crate::state::use_app_state;

fn options(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(v, l)| ((*v).to_string(), (*l).to_string())).collect()
}

fn dtype_options(choices: &[DType]) -> Vec<(String, String)> {
    choices.iter().map(|d| (d.name().to_string(), d.name().to_string())).collect()
}

/// Formats a matmul stores in (activations, weights, output).
pub const STORAGE: [DType; 6] = [DType::Bf16, DType::Fp32, DType::Fp16, DType::Fp8, DType::Int8, DType::Int4];
/// Formats a chip computes in.
pub const COMPUTE: [DType; 4] = [DType::Bf16, DType::Fp8, DType::Int8, DType::Int4];

fn chip_controls(s: &Scenario) -> Vec<Control> {
    let custom = match s.hardware.as_ref().map(|h| &h.chip) {
        Some(ChipSource::Custom(c)) => c.as_ref().clone(),
        _ => {
            return vec![
                button("chip-customize", "Edit a copy of this chip"),
                note(
                    "Define a custom chip: every number of the spec table becomes editable, starting from this chip's.",
                ),
            ];
        }
    };
    let mut out = vec![
        note("Pick a preset above to start again from it. Edited numbers are listed as “edited in shardcalc” in the spec table; a link's bidirectional rate is twice its one-way rate."),
        words("chip-name", "Name", "", custom.name.clone()),
    ];
    out.extend(fabric_controls(&custom));
    let values = custom.numeric_fields();
    for f in CHIP_FIELDS.iter().filter(|f| f.editable) {
        let value = values.iter().find(|(p, _)| *p == f.path).and_then(|(_, v)| *v).map(|v| plain(v / f.unit.scale()));
        let hint = if f.optional { "Empty = not published" } else { "" };
        out.push(text(f.id, f.label, f.unit.label(), hint, value.unwrap_or_default()));
    }
    out
}

fn fabric_controls(chip: &Chip) -> Vec<Control> {
    let (kind, dims, rule, side) = match chip.scale_up.fabric {
        Fabric::Torus { dims, wraparound: WrapRule::FullAxis(n) } => ("torus", dims, "full_axis", n),
        Fabric::Torus { dims, wraparound: WrapRule::FullCubes(n) } => ("torus", dims, "full_cubes", n),
        Fabric::Switch => ("switch", 2, "full_axis", 16),
        Fabric::FullMesh => ("full_mesh", 2, "full_axis", 16),
    };
    let kinds = options(&[
        ("torus", "Torus (TPU ICI; slices over DCN)"),
        ("switch", "Switch (NVLink + NVSwitch; GPU nodes)"),
        ("full_mesh", "Full mesh (Infinity Fabric; GPU nodes)"),
    ]);
    let rules = options(&[
        ("full_axis", "Only a full axis wraps (v5e, v6e)"),
        ("full_cubes", "Only whole cubes wrap (v4, v5p, 7x)"),
    ]);
    let mut dims_field =
        text("chip-torus-dims", "Torus axes", "", "1, 2 or 3 (ignored for a switch or full mesh)", dims.to_string());
    let mut side_field =
        text("chip-wrap-side", "Wraparound size", "chips", "Full axis length, or cube side", side.to_string());
    for f in [&mut dims_field, &mut side_field] {
        if let controls::Kind::Text { mode, .. } = &mut f.kind {
            *mode = "numeric";
        }
    }
    vec![
        select("chip-fabric", "Scale-up fabric", kinds, kind),
        dims_field,
        select("chip-wrap-rule", "Wraparound rule (torus)", rules, rule),
        side_field,
    ]
}

fn axis_controls(s: &Scenario) -> Vec<Control> {
    let Some(hw) = s.hardware.as_ref() else { return Vec::new() };
    let chip = hw.chip.resolve().ok();
    let torus = chip.as_ref().is_some_and(|c| matches!(c.scale_up.fabric, Fabric::Torus { .. }));
    let mut out = vec![note(
        "Each axis: wraparound (book 2.2: only a full axis, or a slice of whole cubes, has one), and overrides of its link bandwidth and per-hop latency. Empty = the chip's. The resolved wiring is in the topology table.",
    )];
    for (i, a) in hw.topology.iter().flat_map(|t| t.axes.iter()).enumerate() {
        let network = match a.network {
            Network::ScaleUp => "scale-up",
            Network::ScaleOut => "scale-out (DCN)",
            Network::DieToDie => "die-to-die",
        };
        out.push(heading(format!("axis-{i}"), format!("{} — {} devices, {network}", a.name, a.size)));
        if torus && a.network == Network::ScaleUp {
            let value = match a.wraparound {
                Some(true) => "on",
                Some(false) => "off",
                None => "auto",
            };
            let wrap = options(&[("auto", "the chip's rule"), ("off", "off (a line)"), ("on", "on (a ring)")]);
            out.push(select(format!("axis-{i}-wraparound"), "Wraparound", wrap, value));
        }
        let link = a.link_one_way.map(|w| plain(w.get() / 1e9)).unwrap_or_default();
        out.push(text(format!("axis-{i}-link"), "Link override", "GB/s one-way", "", link));
        let latency = a.hop_latency.map(|l| plain(l.get() / 1e-6)).unwrap_or_default();
        out.push(text(format!("axis-{i}-latency"), "Hop latency override", "µs", "", latency));
    }
    if let Some(ch) = chip.as_ref().and_then(|c| c.chiplets) {
        let on = hw.topology.iter().flat_map(|t| t.axes.iter()).any(|a| a.network == Network::DieToDie);
        let label = format!(
            "Use the die-to-die link as an axis “{D2D_AXIS}” ({} chiplets, {} GB/s one-way)",
            ch.count,
            plain(ch.die_to_die.one_way.get() / 1e9)
        );
        out.push(check("topology-d2d", label, on));
        out.push(note("Ironwood's two chiplets are separate devices joined by a link about 6× faster than ICI (its guide: TP=2 over die-to-die)."));
    }
    out
}

fn roofline_controls(s: &Scenario) -> Vec<Control> {
    let kinds = options(&[("matmul", "Matmul X[B, D] · W[D, F]"), ("op", "Any op: FLOPs and bytes")]);
    match s.roofline.as_ref() {
        Some(RooflineQuery::Op(op)) => vec![
            select("roofline-kind", "Op", kinds, "op"),
            text("roofline-flops", "FLOPs", "FLOP", "On one chip", plain(op.flops.get())),
            text("roofline-hbm_bytes", "HBM bytes", "B", "Read + written", plain(op.hbm_bytes.get())),
            text(
                "roofline-ici_bytes",
                "ICI / NVLink bytes",
                "B",
                "Sent or received by this chip",
                plain(op.ici_bytes.get()),
            ),
            text(
                "roofline-ici_links",
                "ICI links used",
                "",
                "One-way links the ICI bytes spread over (book Solution 2.6)",
                plain(op.ici_links),
            ),
            text("roofline-dcn_bytes", "DCN bytes", "B", "", plain(op.dcn_bytes.get())),
            text("roofline-host_bytes", "Host (PCIe) bytes", "B", "", plain(op.host_bytes.get())),
            select("roofline-dtype", "Compute format", dtype_options(&COMPUTE), op.dtype.name()),
        ],
        Some(RooflineQuery::Matmul(m)) => vec![
            select("roofline-kind", "Op", kinds, "matmul"),
            text("roofline-b", "B (batch, tokens)", "", "Rows of the activations X", plain(m.b)),
            text("roofline-d", "D (contracting)", "", "Model width for a projection", plain(m.d)),
            text("roofline-f", "F (output)", "", "e.g. the MLP width, 4·D", plain(m.f)),
            select("roofline-lhs", "Activations X", dtype_options(&STORAGE), m.lhs.name()),
            select("roofline-rhs", "Weights W", dtype_options(&STORAGE), m.rhs.name()),
            select("roofline-out", "Output Z", dtype_options(&STORAGE), m.out.name()),
            select("roofline-compute", "Compute (picks the peak)", dtype_options(&COMPUTE), m.compute.name()),
            note("int8 weights with bf16 compute: weights int8, compute bf16 (book Exercise 1.2)."),
        ],
        None => Vec::new(),
    }
}

fn collective_controls(s: &Scenario) -> Vec<Control> {
    let axes: Vec<&str> = s
        .hardware
        .iter()
        .flat_map(|h| h.topology.iter())
        .flat_map(|t| t.axes.iter())
        .map(|a| a.name.as_str())
        .collect();
    let kinds: Vec<(String, String)> =
        CollectiveKind::ALL.iter().map(|k| (kind_id(*k).to_string(), kind_name(*k).to_string())).collect();
    let mut out = vec![note(
        "V is the full array: the gathered result on one chip (AllGather), the unreduced input (ReduceScatter), the array (AllReduce), the per-chip shard × the axis sizes (AllToAll). Sizes like 34MB, 32 MiB or 33554432.",
    )];
    for (i, q) in s.collectives.iter().enumerate() {
        out.push(select(
            format!("collective-{i}-kind"),
            format!("Collective {}", i + 1),
            kinds.clone(),
            kind_id(q.kind),
        ));
        out.push(words(
            format!("collective-{i}-bytes"),
            "Array size V",
            "bytes (B, kB, MB, GB, KiB, MiB, GiB)",
            bytes_input(q.array_bytes),
        ));
        for name in &axes {
            out.push(check(
                format!("collective-{i}-axis-{name}"),
                format!("over {name}"),
                q.axes.iter().any(|a| a == name),
            ));
        }
        out.push(button(format!("collective-{i}-remove"), "Remove"));
    }
    out.push(button("collective-add", "Add a collective"));
    out
}

/// The inputs under the chip picker, with their delegated handlers.
#[component]
pub fn HardwareInputs(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let state = use_app_state();
    // What each group looks like (not its values): the HTML is re-written only when it changes.
    let chip_key = Memo::new(move |_| {
        let custom = derived.section.with(|s| matches!(s.as_ref().map(|h| &h.chip), Some(ChipSource::Custom(_))));
        format!("{}/{custom}", state.generation.get())
    });
    let axes_key = Memo::new(move |_| {
        let chip = derived.chip.with(|c| {
            c.as_ref().map(|c| (c.id.clone(), format!("{:?}", c.scale_up.fabric), c.chiplets.map(|ch| ch.count)))
        });
        let axes = derived.section.with(|s| {
            s.as_ref()
                .and_then(|h| h.topology.as_ref())
                .map(|t| t.axes.iter().map(|a| format!("{}:{}:{:?}", a.name, a.size, a.network)).collect::<Vec<_>>())
        });
        format!("{}/{chip:?}/{axes:?}", state.generation.get())
    });
    let roofline_key = Memo::new(move |_| {
        let matmul = derived.roofline_query.with(|q| matches!(q, Some(RooflineQuery::Matmul(_))));
        format!("{}/{matmul}", state.generation.get())
    });
    let collectives_key = Memo::new(move |_| {
        let axes = derived.section.with(|s| {
            s.as_ref()
                .and_then(|h| h.topology.as_ref())
                .map(|t| t.axes.iter().map(|a| a.name.clone()).collect::<Vec<_>>())
        });
        format!("{}/{}/{axes:?}", state.generation.get(), derived.queries.with(Vec::len))
    });
    let html = move |key: Memo<String>, controls: fn(&Scenario) -> Vec<Control>| {
        Memo::new(move |_| {
            // Read, not only tracked: a memo that is never read is never computed, so it
            // would never report a change.
            key.with(|_| ());
            state.shown.with_untracked(|s| render(&controls(s)))
        })
    };
    let chip_html = html(chip_key, chip_controls);
    let axes_html = html(axes_key, axis_controls);
    let roofline_html = html(roofline_key, roofline_controls);
    let collectives_html = html(collectives_key, collective_controls);

    let handle = move |ev: &web_sys::Event, kind: &str| {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        let input = target.dyn_ref::<web_sys::HtmlInputElement>();
        let is_text = input.is_some_and(|i| i.type_() == "text");
        let is_button = target.tag_name().eq_ignore_ascii_case("button");
        // Text inputs apply on `input`, drop-downs and checkboxes on `change`, buttons on `click`.
        let ours = match kind {
            "input" => is_text,
            "change" => !is_text && !is_button,
            _ => is_button,
        };
        if !ours {
            return;
        }
        let id = target.id();
        let value = controls::value_of(&id);
        let checked = input.is_some_and(web_sys::HtmlInputElement::checked);
        if let Some(result) = dispatch(state, derived, &id, &value, checked) {
            controls::show_message(&id, result.err().as_deref());
        }
    };
    view! {
        <div
            class="hardware-inputs"
            on:input=move |ev| handle(&ev, "input")
            on:change=move |ev| handle(&ev, "change")
            on:click=move |ev| handle(&ev, "click")
        >
            <fieldset class="chip-editor" id="chip-editor">
                <legend>"Custom chip"</legend>
                <div inner_html=chip_html></div>
            </fieldset>
            <fieldset class="topology-editor" id="topology-editor">
                <legend>"Mesh axes"</legend>
                <div inner_html=axes_html></div>
            </fieldset>
            <fieldset class="roofline-inputs" id="roofline-inputs">
                <legend>"Roofline op"</legend>
                <div inner_html=roofline_html></div>
            </fieldset>
            <fieldset class="collective-inputs" id="collective-inputs">
                <legend>"Collectives"</legend>
                <div inner_html=collectives_html></div>
            </fieldset>
        </div>
    }
}
