//! The Saved page: every scenario saved in this browser (`crate::share::storage`), newest
//! first, each openable in any view, downloadable, renamable and deletable; two or more side
//! by side; and every entry that could not be read, kept with why, its raw text downloadable.
//!
//! Element ids: the list is `#saved-table`, a row `#saved-<n>` (n from 0, newest first) with
//! `#saved-<n>-compare` (checkbox), `#saved-<n>-name`, `#saved-<n>-rename`,
//! `#saved-<n>-delete`, `#saved-<n>-json`, `#saved-<n>-open-<view>`; unreadable entries are
//! `#unreadable-<n>` with `-raw` and `-delete`; the comparison is `#compare-table`.

mod compare;
mod entry_row;

use leptos::prelude::*;
use shardcalc_core::scenario::Scenario;

use crate::dom::download_text;
use crate::share::storage::{self, StoredEntry};
use compare::Comparison;
use entry_row::{EntryRow, UnreadableRow};

/// The saved list, re-read after every change here and when another tab changes storage.
#[derive(Clone, Copy)]
pub struct SavedList {
    /// The entries, or why storage cannot be used.
    pub entries: RwSignal<Result<Vec<StoredEntry>, String>>,
    /// Keys ticked for the comparison.
    pub compare: RwSignal<Vec<String>>,
    /// What the last action did or why it failed.
    pub message: RwSignal<Option<Result<String, String>>>,
}

impl SavedList {
    fn new() -> Self {
        Self {
            entries: RwSignal::new(storage::list()),
            compare: RwSignal::new(Vec::new()),
            message: RwSignal::new(None),
        }
    }

    /// Reads storage again (dropping ticks of entries that are gone).
    pub fn refresh(&self) {
        let entries = storage::list();
        if let Ok(list) = &entries {
            self.compare.update(|keys| keys.retain(|k| list.iter().any(|e| &e.key == k)));
        }
        self.entries.set(entries);
    }

    /// Shows the outcome of an action and re-reads storage.
    pub fn after(&self, outcome: Result<String, String>) {
        self.message.set(Some(outcome));
        self.refresh();
    }
}

/// Downloads text as a file, reporting a failure in the page's message.
pub fn offer(list: SavedList, file: &str, mime: &str, text: &str) {
    if let Err(e) = download_text(file, mime, text) {
        list.message.set(Some(Err(format!("The download failed: {e:?}"))));
    }
}

/// The Saved page.
#[component]
pub fn SavedView() -> impl IntoView {
    let list = SavedList::new();
    let listener = window_event_listener(leptos::ev::storage, move |_| list.refresh());
    on_cleanup(move || listener.remove());
    let readable = move || {
        list.entries.with(|e| {
            e.as_ref().map(|v| v.iter().filter(|x| x.read.is_ok()).cloned().collect::<Vec<_>>()).unwrap_or_default()
        })
    };
    let unreadable = move || {
        list.entries.with(|e| {
            e.as_ref().map(|v| v.iter().filter(|x| x.read.is_err()).cloned().collect::<Vec<_>>()).unwrap_or_default()
        })
    };
    let compared = Signal::derive(move || {
        let keys = list.compare.get();
        list.entries.with(|e| {
            let entries = e.as_ref().map(Vec::as_slice).unwrap_or_default();
            keys.iter()
                .filter_map(|k| entries.iter().find(|x| &x.key == k))
                .filter_map(|x| x.read.as_ref().ok().map(|(s, _)| (s.name.clone(), s.scenario.clone())))
                .collect::<Vec<(String, Scenario)>>()
        })
    });
    view! {
        <div class="saved">
            <h2>"Saved scenarios"</h2>
            <p class="hint">
                "Scenarios saved with “Save & share” on any page, kept in this browser only (its local storage). "
                "Tick two or more to compare them."
            </p>
            {move || list.message.get().map(|m| match m {
                Ok(text) => view! { <p id="saved-message" class="share-message ok" role="status">{text}</p> }.into_any(),
                Err(text) => view! { <p id="saved-message" class="share-message field-error" role="alert">{text}</p> }.into_any(),
            })}
            {move || list.entries.with(|e| e.as_ref().err().map(|e| view! { <p class="field-error" id="storage-error">{format!("Saved scenarios are not available: {e}.")}</p> }))}
            {move || {
                let rows = readable();
                if rows.is_empty() {
                    return view! { <p id="saved-empty">"Nothing is saved in this browser yet."</p> }.into_any();
                }
                let rows = rows.into_iter().enumerate().map(|(n, entry)| view! { <EntryRow list=list n=n entry=entry /> }).collect_view();
                view! {
                    <div class="table-wrap">
                        <table id="saved-table">
                            <thead>
                                <tr>
                                    <th scope="col">"Compare"</th>
                                    <th scope="col">"Name"</th>
                                    <th scope="col">"Model"</th>
                                    <th scope="col">"Saved"</th>
                                    <th scope="col">"Open in"</th>
                                    <th scope="col">"Actions"</th>
                                </tr>
                            </thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
                }
                .into_any()
            }}
            {move || {
                let rows = unreadable();
                (!rows.is_empty()).then(|| {
                    let items = rows.into_iter().enumerate().map(|(n, entry)| view! { <UnreadableRow list=list n=n entry=entry /> }).collect_view();
                    view! {
                        <section class="unreadable" aria-labelledby="unreadable-heading">
                            <h3 id="unreadable-heading">"Could not read"</h3>
                            <p class="hint">"These entries are kept as they are: download the raw text to repair it, or delete them."</p>
                            <ul id="unreadable-list">{items}</ul>
                        </section>
                    }
                })
            }}
            {move || (compared.with(Vec::len) >= 2).then(|| view! { <Comparison scenarios=compared /> })}
        </div>
    }
}
