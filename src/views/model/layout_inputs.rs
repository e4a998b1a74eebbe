//! Which layers attend locally: none, a sliding window or chunks, and the repeating
//! pattern, as a "local layers per global layer" number or a free-form `LLLLLG`.

use leptos::prelude::*;
use shardcalc_core::model::{LayerKind, LocalAttention, MAX_PATTERN};

use super::access::{count, text};
use super::span_note::SpanNote;
use crate::components::{NumberField, SelectField, TextField};
use crate::dom::input_by_id;
use crate::field_spec::{field_id, NumberKind, NumberSpec, SelectSpec, ANY_COUNT};
use crate::parse::{format_pattern, locals_per_global, parse_pattern};
use crate::state::{use_app_state, Draft};

const PATTERN: &str = "model.layout.pattern";
const LOCALS: &str = "model.layout.locals_per_global";
/// Window or chunk given when local attention is switched on.
const DEFAULT_SPAN: u64 = 4096;

fn span(d: &Draft) -> Option<u64> {
    match d.model.layout.local {
        Some(LocalAttention::SlidingWindow { window }) => Some(window),
        Some(LocalAttention::Chunked { chunk }) => Some(chunk),
        None => None,
    }
}

static LOCAL_KIND: SelectSpec = SelectSpec {
    path: "model.layout.local",
    label: "Local attention",
    hint: "what the pattern's L layers do; G layers always attend to the whole context",
    options: &[
        ("none", "none (every layer global)"),
        ("sliding_window", "sliding window (Mistral, Gemma, gpt-oss)"),
        ("chunked", "chunked (Llama 4)"),
    ],
    get: |d| match d.model.layout.local {
        None => "none",
        Some(LocalAttention::SlidingWindow { .. }) => "sliding_window",
        Some(LocalAttention::Chunked { .. }) => "chunked",
    },
    set: |d, v| {
        let size = span(d).unwrap_or(DEFAULT_SPAN);
        d.model.layout.local = match v {
            "sliding_window" => Some(LocalAttention::SlidingWindow { window: size }),
            "chunked" => Some(LocalAttention::Chunked { chunk: size }),
            _ => None,
        };
        d.forget("model.layout.local");
    },
};

static WINDOW: NumberSpec = NumberSpec {
    path: "model.layout.local.window",
    label: "Window",
    unit: "tokens",
    hint: "each query attends to at most this many tokens (Gemma 3: 1,024)",
    kind: ANY_COUNT,
    get: |d| span(d).and_then(text),
    set: |d, n| {
        if let (Some(LocalAttention::SlidingWindow { window }), Some(n)) = (&mut d.model.layout.local, count(n)) {
            *window = n;
        }
    },
};

static CHUNK: NumberSpec = NumberSpec {
    path: "model.layout.local.chunk",
    label: "Chunk",
    unit: "tokens",
    hint: "queries attend within their chunk only (Llama 4 Scout: 8,192)",
    kind: ANY_COUNT,
    get: |d| span(d).and_then(text),
    set: |d, n| {
        if let (Some(LocalAttention::Chunked { chunk }), Some(n)) = (&mut d.model.layout.local, count(n)) {
            *chunk = n;
        }
    },
};

static LOCALS_PER_GLOBAL: NumberSpec = NumberSpec {
    path: LOCALS,
    label: "Local layers per global layer",
    unit: "",
    hint: "writes the pattern L…LG (Gemma 2: 1, Gemma 3: 5, Llama 4: 3); empty for a custom pattern",
    kind: NumberKind::OptionalCount { max: MAX_PATTERN as u64 - 1 },
    get: |d| Some(locals_per_global(&d.model.layout.pattern).map(|n| n.to_string()).unwrap_or_default()),
    set: |d, n| {
        if let Some(n) = count(n) {
            // n <= MAX_PATTERN - 1 (checked while reading), so this is a small vector.
            let mut pattern = vec![LayerKind::Local; usize::try_from(n).unwrap_or(0)];
            pattern.push(LayerKind::Global);
            d.model.layout.pattern = pattern;
        }
    },
};

/// After the count changed: show the pattern it wrote in the pattern box.
fn sync_pattern_text(d: &mut Draft) {
    if d.unreadable.contains_key(LOCALS) {
        return;
    }
    let text = format_pattern(&d.model.layout.pattern);
    d.text.insert(PATTERN.into(), text.clone());
    d.unreadable.remove(PATTERN);
    if let Some(input) = input_by_id(&field_id(PATTERN)) {
        input.set_value(&text);
    }
}

fn set_pattern(d: &mut Draft, text: &str) {
    match parse_pattern(text) {
        Ok(pattern) => {
            d.unreadable.remove(PATTERN);
            d.model.layout.pattern = pattern;
            // Show the count this pattern corresponds to, or nothing for a custom one.
            let n = locals_per_global(&d.model.layout.pattern).map(|n| n.to_string()).unwrap_or_default();
            d.text.insert(LOCALS.into(), n.clone());
            d.unreadable.remove(LOCALS);
            if let Some(input) = input_by_id(&field_id(LOCALS)) {
                input.set_value(&n);
            }
        }
        Err(message) => {
            d.unreadable.insert(PATTERN.into(), message);
        }
    }
}

/// The layout fieldset. The layer counts it implies are shown live in the legend.
#[component]
pub fn LayoutInputs() -> impl IntoView {
    let state = use_app_state();
    let kind = Memo::new(move |_| state.draft.with(|d| (LOCAL_KIND.get)(d)));
    let counts = Memo::new(move |_| {
        state.draft.with(|d| {
            let (global, local) = d.model.layout.counts(d.model.num_layers);
            format!("{global} global, {local} local layers")
        })
    });
    view! {
        <fieldset>
            <legend>"Layer layout: " {counts}</legend>
            <SelectField spec=&LOCAL_KIND />
            {move || match kind.get() {
                "sliding_window" => view! {
                    <NumberField spec=&WINDOW />
                    <SpanNote field="model-layout-local-window" />
                }.into_any(),
                "chunked" => view! {
                    <NumberField spec=&CHUNK />
                    <SpanNote field="model-layout-local-chunk" />
                }.into_any(),
                _ => ().into_any(),
            }}
            <NumberField spec=&LOCALS_PER_GLOBAL then=sync_pattern_text />
            <TextField
                path=PATTERN
                label="Layer pattern"
                hint="L = local, G = global, repeated over the layers: LLLLLG is five local then one global"
                get=|d| format_pattern(&d.model.layout.pattern)
                set=set_pattern
            />
        </fieldset>
    }
}
