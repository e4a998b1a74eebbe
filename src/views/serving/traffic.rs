//! The traffic mix editor: prompt and output lengths as small tables of (tokens, weight)
//! rows with add and remove, written through the fields `inference.traffic.prompt` and
//! `inference.traffic.output` (`shardcalc_core::field::serving::rate`: one text,
//! `512:2; 8192:1`, read by core). No rows is the fixed length (P or G). A cell's new text
//! replaces that cell in the field's text; text that does not read stays in its cell with the
//! field's message under the table, and the scenario keeps its last valid mix. Under them,
//! what the mix means: the mean prompt and output, and the context a decoding sequence holds
//! on average (length-biased: long outputs stay longer in the batch).
//!
//! Ids: `#inference-traffic-prompt` (the table), `-<i>-tokens`, `-<i>-weight`, `-<i>-share`,
//! `-<i>-remove`, `-add`, `-error`, `-hint`; the same under `inference-traffic-output`;
//! `#inference-traffic-summary`.

use leptos::prelude::*;
use shardcalc_charts::format::{percent, significant, thousands};
use shardcalc_core::field::serving::rate::{lengths, lengths_text, Lengths, TRAFFIC};
use shardcalc_core::field::Field;
use shardcalc_core::inference::traffic::LengthShare;
use shardcalc_core::text::shortest;

use crate::components::element_id;
use crate::dom::event_value;
use crate::state::use_app_state;

/// The field's text with row `i`'s tokens (or weight) replaced by `cell` as typed.
fn with_cell(list: &[LengthShare], i: usize, weight: bool, cell: &str) -> String {
    let items: Vec<String> = list
        .iter()
        .enumerate()
        .map(|(j, l)| match (j == i, weight) {
            (true, false) => format!("{}:{}", cell.trim(), shortest(l.weight)),
            (true, true) => format!("{}:{}", l.tokens, cell.trim()),
            _ => format!("{}:{}", l.tokens, shortest(l.weight)),
        })
        .collect();
    items.join("; ")
}

/// One distribution's table.
#[component]
fn LengthsTable(
    /// `inference.traffic.prompt` or `.output`.
    field: &'static Field,
    /// Which.
    which: Lengths,
    /// "prompt" or "output".
    noun: &'static str,
    /// The fixed length's symbol, `P` or `G`.
    symbol: &'static str,
) -> impl IntoView {
    let state = use_app_state();
    let id = element_id(field.path);
    let list = Memo::new(move |_| state.draft.with(|d| lengths(&d.scenario, which)));
    let fixed = move || {
        state.draft.with(|d| {
            d.scenario
                .inference
                .as_ref()
                .map_or(0, |i| if which == Lengths::Prompt { i.prompt_len } else { i.output_len })
        })
    };
    let write = move |text: String| state.set(field, &text);
    let edit =
        move |i: usize, weight: bool, cell: String| write(list.with_untracked(|l| with_cell(l, i, weight, &cell)));
    let add = move |_| {
        let mut l = list.get_untracked();
        let tokens = l.last().map_or_else(fixed, |x| x.tokens.saturating_mul(2));
        l.push(LengthShare { tokens, weight: 1.0 });
        write(lengths_text(&l));
    };
    let remove = move |i: usize| {
        let mut l = list.get_untracked();
        if i < l.len() {
            l.remove(i);
        }
        write(lengths_text(&l));
    };
    let messages = Memo::new(move |_| {
        state
            .errors
            .with(|e| e.iter().filter(|e| field.shows(e)).map(ToString::to_string).collect::<Vec<_>>().join(" "))
    });
    let stem = id.clone();
    // Rebuilt when the list changes (an add, a remove, a valid edit, a loaded link); a cell
    // whose text does not read keeps it, as the list does not change.
    let rows = move || {
        let total: f64 = list.with(|l| l.iter().map(|x| x.weight).sum());
        list.with(|l| {
            l.iter()
                .enumerate()
                .map(|(i, x)| {
                    let share = percent(x.weight, total);
                    view! {
                        <tr>
                            <td><input id=format!("{stem}-{i}-tokens") type="text" inputmode="numeric" autocomplete="off"
                                aria-label=format!("{noun} length {} in tokens", i + 1) value=x.tokens.to_string()
                                on:change=move |ev| edit(i, false, event_value(&ev)) /></td>
                            <td><input id=format!("{stem}-{i}-weight") type="text" inputmode="decimal" autocomplete="off"
                                aria-label=format!("weight of {noun} length {}", i + 1) value=shortest(x.weight)
                                on:change=move |ev| edit(i, true, event_value(&ev)) /></td>
                            <td class="num" id=format!("{stem}-{i}-share")>{share}</td>
                            <td><button type="button" class="small" id=format!("{stem}-{i}-remove") on:click=move |_| remove(i)>"Remove"</button></td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let hint = move || {
        if list.with(Vec::is_empty) {
            format!("Every {noun} is {symbol} = {} tokens; add lengths for a distribution.", thousands(fixed()))
        } else {
            format!("Weights are relative; remove every row for a fixed {symbol}.")
        }
    };
    view! {
        <div class="field traffic" id=format!("{id}-field")>
            <label for=format!("{id}-add")>{field.label}</label>
            <table class="lengths" id=id.clone() hidden=move || list.with(Vec::is_empty)>
                <thead><tr><th scope="col">"tokens"</th><th scope="col">"weight"</th><th scope="col" class="num">"share"</th><th></th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <p class="hint" id=format!("{id}-hint")>{hint}</p>
            <button type="button" class="small" id=format!("{id}-add") on:click=add>{format!("Add {noun} length")}</button>
            <p class="field-error" id=format!("{id}-error") aria-live="polite">{move || messages.get()}</p>
        </div>
    }
}

/// Both distributions and what they mean.
#[component]
pub fn TrafficEditor() -> impl IntoView {
    let state = use_app_state();
    let summary = move || {
        state.shown.with(|s| {
            let Some(i) = &s.inference else { return String::new() };
            let t = i.traffic();
            format!(
                "Mean prompt E[P] = {} tokens, mean output E[G] = {} tokens; a decoding sequence holds {} tokens of context on average (long outputs stay longer in the batch).",
                significant(t.mean_prompt(), 4),
                significant(t.mean_output(), 4),
                thousands(t.decode_context(i.kv_context))
            )
        })
    };
    view! {
        <LengthsTable field=&TRAFFIC[0] which=Lengths::Prompt noun="prompt" symbol="P" />
        <LengthsTable field=&TRAFFIC[1] which=Lengths::Output noun="output" symbol="G" />
        <p class="hint" id="inference-traffic-summary">{summary}</p>
    }
}
