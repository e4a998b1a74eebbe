//! One saved scenario in the list (open, download, rename, delete, tick to compare), and one
//! entry that could not be read (download its raw text, delete).

use leptos::html::Input;
use leptos::prelude::*;
use shardcalc_core::saved::Recovered;
use shardcalc_core::scenario::Sections;

use super::{offer, SavedList};
use crate::share::document;
use crate::share::storage::{self, StoredEntry};
use crate::state::url;
use crate::views::View;

/// A file name made of the entry's name: letters, digits and dashes only.
fn file_stem(name: &str) -> String {
    let stem: String = name.chars().map(|c| if c.is_alphanumeric() { c } else { '-' }).collect();
    let stem = stem.trim_matches('-').chars().take(60).collect::<String>();
    if stem.is_empty() {
        "scenario".into()
    } else {
        stem
    }
}

/// Row `#saved-<n>` of the saved list.
#[component]
pub fn EntryRow(
    /// The page's list (for refreshing and messages).
    list: SavedList,
    /// Position in the list, for element ids.
    n: usize,
    /// The entry (readable).
    entry: StoredEntry,
) -> impl IntoView {
    let Ok((saved, how)) = entry.read.clone() else {
        return ().into_any();
    };
    let key = StoredValue::new(entry.key.clone());
    let renaming = RwSignal::new(false);
    let confirming = RwSignal::new(false);
    let name_input = NodeRef::<Input>::new();
    let id = move |suffix: &str| format!("saved-{n}-{suffix}");
    let ticked = move || list.compare.with(|c| key.with_value(|k| c.contains(k)));
    let toggle = move |_| {
        let k = key.get_value();
        list.compare.update(|c| match c.iter().position(|x| *x == k) {
            Some(i) => {
                c.remove(i);
            }
            None => c.push(k),
        });
    };
    let name = saved.name.clone();
    let finish_rename = move |_| {
        let typed = name_input.get_untracked().map(|i| i.value()).unwrap_or_default();
        let outcome =
            key.with_value(|k| storage::rename(k, &typed)).map(|()| format!("Renamed to “{}”.", typed.trim()));
        renaming.set(false);
        list.after(outcome);
    };
    let delete = move |_| {
        let outcome = key.with_value(|k| storage::remove(k));
        list.after(outcome.map(|()| "Deleted.".to_string()));
    };
    let scenario = StoredValue::new(saved.scenario.clone());
    let json_name = format!("shardcalc-{}.json", file_stem(&saved.name));
    let download = move |_| {
        offer(list, &json_name, "application/json", &scenario.with_value(|s| document::to_json(s, Sections::ALL)))
    };
    let problems = saved.scenario.validate().err().map(|e| e.to_string());
    let model = saved.scenario.model.resolve().map_or_else(|e| e.to_string(), |m| m.name);
    let fragment = url::fragment(&saved.scenario);
    let opens = View::ALL
        .iter()
        .filter(|v| **v != View::Saved)
        .map(|v| {
            let href = crate::single_file::view_href(*v, &fragment);
            view! { <a id=id(&format!("open-{}", v.id())) href=href>{v.label()}</a> }
        })
        .collect_view();
    let recovered = match how {
        Recovered::Current => None,
        Recovered::BareScenario | Recovered::Link => Some("recovered from an older format; renaming rewrites it"),
    };
    view! {
        <tr id=format!("saved-{n}")>
            <td><input type="checkbox" id=id("compare") prop:checked=ticked on:change=toggle aria-label="Compare" /></td>
            <td>
                {move || if renaming.get() {
                    view! {
                        <input type="text" id=id("new-name") node_ref=name_input value=name.clone() maxlength="120" />
                        <button type="button" id=id("rename-ok") on:click=finish_rename>"Save name"</button>
                        <button type="button" on:click=move |_| renaming.set(false)>"Cancel"</button>
                    }.into_any()
                } else {
                    view! { <span class="saved-name" id=id("name")>{name.clone()}</span> }.into_any()
                }}
                {recovered.map(|r| view! { <p class="hint">{r}</p> })}
                {problems.map(|p| view! { <p class="field-error" id=id("problems")>{format!("Does not validate: {p}")}</p> })}
            </td>
            <td>{model}</td>
            <td>{storage::format_time(saved.saved_at)}</td>
            <td class="open-links">{opens}</td>
            <td class="row-actions">
                <button type="button" id=id("json") on:click=download>"JSON"</button>
                <button type="button" id=id("rename") on:click=move |_| renaming.set(true)>"Rename"</button>
                {move || if confirming.get() {
                    view! {
                        <button type="button" id=id("delete-confirm") class="danger" on:click=delete>"Delete for good"</button>
                        <button type="button" on:click=move |_| confirming.set(false)>"Keep"</button>
                    }.into_any()
                } else {
                    view! { <button type="button" id=id("delete") on:click=move |_| confirming.set(true)>"Delete"</button> }.into_any()
                }}
            </td>
        </tr>
    }
    .into_any()
}

/// Item `#unreadable-<n>`: the key, why it could not be read, its raw text to download, delete.
#[component]
pub fn UnreadableRow(
    /// The page's list.
    list: SavedList,
    /// Position among the unreadable entries, for element ids.
    n: usize,
    /// The entry (unreadable).
    entry: StoredEntry,
) -> impl IntoView {
    let problem = entry.read.as_ref().err().map(|e| e.problem.clone()).unwrap_or_default();
    let key = StoredValue::new(entry.key.clone());
    let raw = StoredValue::new(entry.raw.clone());
    let file = format!("{}.txt", file_stem(&entry.key));
    let download = move |_| raw.with_value(|r| offer(list, &file, "text/plain", r));
    let delete = move |_| list.after(key.with_value(|k| storage::remove(k)).map(|()| "Deleted.".to_string()));
    view! {
        <li id=format!("unreadable-{n}")>
            <code>{entry.key.clone()}</code>
            " (" {entry.raw.len()} " bytes) " {problem}
            <button type="button" id=format!("unreadable-{n}-raw") on:click=download>"Download raw text"</button>
            <button type="button" id=format!("unreadable-{n}-delete") on:click=delete>"Delete"</button>
        </li>
    }
}
