//! The op on the roofline (book 1.1): a matmul `X[B, D] · W[D, F]` with the format of each
//! array and of the compute (int8 weights with bf16 compute is Exercise 1.2), or any op
//! given as FLOPs and bytes per channel.

use leptos::prelude::*;
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::query::RooflineQuery;
use shardcalc_core::roofline::matmul::Matmul;
use shardcalc_core::roofline::OpCost;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::units::{Bytes, Flops};

use super::derived::Derived;
use super::edit::update;
use super::units::plain;
use crate::components::SectionField;
use crate::dom::event_value;
use crate::parse::{parse_nonnegative_real, parse_positive_real};
use crate::state::{use_app_state, AppState};

fn set_roofline(state: AppState, prefix: &str, f: impl FnOnce(&mut RooflineQuery)) -> Result<(), String> {
    update(state, prefix, move |s: &mut Scenario| {
        if let Some(q) = s.roofline.as_mut() {
            f(q);
        }
    })
}

fn set_matmul(state: AppState, field: &str, f: impl FnOnce(&mut Matmul)) -> Result<(), String> {
    set_roofline(state, &format!("roofline.matmul.{field}"), |q| {
        if let RooflineQuery::Matmul(m) = q {
            f(m);
        }
    })
}

fn set_op(state: AppState, field: &str, f: impl FnOnce(&mut OpCost)) -> Result<(), String> {
    set_roofline(state, &format!("roofline.op.{field}"), |q| {
        if let RooflineQuery::Op(op) = q {
            f(op);
        }
    })
}

/// The kind of op (matmul or FLOPs and bytes) and its fields.
#[component]
pub fn RooflineInputs(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let state = use_app_state();
    let is_matmul = Memo::new(move |_| derived.roofline_query.with(|q| !matches!(q, Some(RooflineQuery::Op(_)))));
    let kind_error = RwSignal::new(None::<String>);
    let on_kind = move |ev: leptos::ev::Event| {
        let to_op = event_value(&ev) == "op";
        let result = update(state, "roofline", |s| {
            s.roofline = match (s.roofline.take(), to_op) {
                // The op keeps the matmul's numbers, so the point does not jump.
                (Some(RooflineQuery::Matmul(m)), true) => Some(RooflineQuery::Op(m.op_cost())),
                (Some(RooflineQuery::Op(op)), false) => {
                    let mut m = Matmul::bf16(256.0, 8192.0, 32768.0);
                    m.compute = op.dtype;
                    Some(RooflineQuery::Matmul(m))
                }
                (q, _) => q,
            };
        });
        kind_error.set(result.err());
    };
    move || {
        state.generation.track();
        let matmul = is_matmul.get();
        let fields = if matmul { view! { <MatmulFields derived=derived /> }.into_any() } else { view! { <OpFields derived=derived /> }.into_any() };
        view! {
            <fieldset class="roofline-inputs" id="roofline-inputs">
                <legend>"Roofline op"</legend>
                <div class="field" class:invalid=move || kind_error.with(Option::is_some)>
                    <label for="roofline-kind">"Op"</label>
                    <select id="roofline-kind" on:change=on_kind>
                        <option value="matmul" selected=matmul>"Matmul X[B, D] · W[D, F]"</option>
                        <option value="op" selected=!matmul>"Any op: FLOPs and bytes"</option>
                    </select>
                    <div class="field-error" id="roofline-kind-error">{move || kind_error.get().map(|m| view! { <p>{m}</p> })}</div>
                </div>
                {fields}
            </fieldset>
        }
    }
}

/// A format drop-down writing `set` (only formats with a peak are offered for `compute`).
fn dtype_select(
    state: AppState,
    id: &'static str,
    label: &'static str,
    current: DType,
    choices: &'static [DType],
    set: fn(&mut Matmul, DType),
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let on_change = move |ev: leptos::ev::Event| {
        let value = event_value(&ev);
        let Some(d) = choices.iter().copied().find(|d| d.name() == value) else { return };
        let field = id.trim_start_matches("roofline-");
        error.set(set_matmul(state, field, |m| set(m, d)).err());
    };
    let options = choices
        .iter()
        .map(|d| view! { <option value=d.name() selected=*d == current>{d.name()}</option> })
        .collect_view();
    view! {
        <div class="field" class:invalid=move || error.with(Option::is_some)>
            <label for=id>{label}</label>
            <select id=id aria-describedby=format!("{id}-error") on:change=on_change>{options}</select>
            <div class="field-error" id=format!("{id}-error") aria-live="polite">{move || error.get().map(|m| view! { <p>{m}</p> })}</div>
        </div>
    }
}

const STORAGE: &[DType] = &[DType::Bf16, DType::Fp32, DType::Fp16, DType::Fp8, DType::Int8, DType::Int4];
const COMPUTE: &[DType] = &[DType::Bf16, DType::Fp8, DType::Int8, DType::Int4];

#[component]
fn MatmulFields(derived: Derived) -> impl IntoView {
    let state = use_app_state();
    let m = derived.roofline_query.with_untracked(|q| match q {
        Some(RooflineQuery::Matmul(m)) => m.clone(),
        _ => Matmul::bf16(256.0, 8192.0, 32768.0),
    });
    let dim = |field: &'static str, set: fn(&mut Matmul, f64)| {
        Callback::new(move |text: String| {
            let x = parse_positive_real(&text).map_err(|msg| format!("{field}: {msg}"))?;
            set_matmul(state, field, |m| set(m, x))
        })
    };
    view! {
        <SectionField id="roofline-b" label="B (batch, tokens)" hint="Rows of the activations X" initial=plain(m.b) apply=dim("b", |m, x| m.b = x) />
        <SectionField id="roofline-d" label="D (contracting)" hint="Model width for a projection" initial=plain(m.d) apply=dim("d", |m, x| m.d = x) />
        <SectionField id="roofline-f" label="F (output)" hint="e.g. the MLP width, 4·D" initial=plain(m.f) apply=dim("f", |m, x| m.f = x) />
        {dtype_select(state, "roofline-lhs", "Activations X", m.lhs, STORAGE, |m, d| m.lhs = d)}
        {dtype_select(state, "roofline-rhs", "Weights W", m.rhs, STORAGE, |m, d| m.rhs = d)}
        {dtype_select(state, "roofline-out", "Output Z", m.out, STORAGE, |m, d| m.out = d)}
        {dtype_select(state, "roofline-compute", "Compute (picks the peak)", m.compute, COMPUTE, |m, d| m.compute = d)}
        <p class="hint">"int8 weights with bf16 compute: weights int8, compute bf16 (book Exercise 1.2)."</p>
    }
}

#[component]
fn OpFields(derived: Derived) -> impl IntoView {
    let state = use_app_state();
    let op = derived.roofline_query.with_untracked(|q| match q {
        Some(RooflineQuery::Op(op)) => op.clone(),
        _ => OpCost::default(),
    });
    let amount = |field: &'static str, set: fn(&mut OpCost, f64)| {
        Callback::new(move |text: String| {
            let x = parse_nonnegative_real(&text).map_err(|msg| format!("{field}: {msg}"))?;
            set_op(state, field, |op| set(op, x))
        })
    };
    let dtype_error = RwSignal::new(None::<String>);
    let on_dtype = move |ev: leptos::ev::Event| {
        let value = event_value(&ev);
        let Some(d) = COMPUTE.iter().copied().find(|d| d.name() == value) else { return };
        dtype_error.set(set_op(state, "dtype", |op| op.dtype = d).err());
    };
    let dtypes = COMPUTE
        .iter()
        .map(|d| view! { <option value=d.name() selected=*d == op.dtype>{d.name()}</option> })
        .collect_view();
    view! {
        <SectionField id="roofline-flops" label="FLOPs" unit="FLOP" hint="On one chip" initial=plain(op.flops.get()) apply=amount("flops", |o, x| o.flops = Flops(x)) />
        <SectionField id="roofline-hbm_bytes" label="HBM bytes" unit="B" hint="Read + written" initial=plain(op.hbm_bytes.get()) apply=amount("hbm_bytes", |o, x| o.hbm_bytes = Bytes(x)) />
        <SectionField id="roofline-ici_bytes" label="ICI / NVLink bytes" unit="B" hint="Sent or received by this chip" initial=plain(op.ici_bytes.get()) apply=amount("ici_bytes", |o, x| o.ici_bytes = Bytes(x)) />
        <SectionField id="roofline-ici_links" label="ICI links used" hint="One-way links the ICI bytes spread over (book Solution 2.6)" initial=plain(op.ici_links) apply=amount("ici_links", |o, x| o.ici_links = x) />
        <SectionField id="roofline-dcn_bytes" label="DCN bytes" unit="B" initial=plain(op.dcn_bytes.get()) apply=amount("dcn_bytes", |o, x| o.dcn_bytes = Bytes(x)) />
        <SectionField id="roofline-host_bytes" label="Host (PCIe) bytes" unit="B" initial=plain(op.host_bytes.get()) apply=amount("host_bytes", |o, x| o.host_bytes = Bytes(x)) />
        <div class="field" class:invalid=move || dtype_error.with(Option::is_some)>
            <label for="roofline-dtype">"Compute format"</label>
            <select id="roofline-dtype" on:change=on_dtype>{dtypes}</select>
            <div class="field-error" id="roofline-dtype-error">{move || dtype_error.get().map(|m| view! { <p>{m}</p> })}</div>
        </div>
    }
}
