//! Saved scenarios in the browser's `localStorage`, one key per scenario
//! (`shardcalc_core::saved` has the format and the recovery rules). Every entry under the
//! prefix is listed, whether it reads or not; nothing is removed or rewritten except by the
//! user's save, rename or delete.

use shardcalc_core::saved::{self, Recovered, SavedScenario, Unreadable, KEY_PREFIX, MAX_ENTRIES};
use shardcalc_core::scenario::{Scenario, Sections};
use web_sys::Storage;

/// One key under [`KEY_PREFIX`], read.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredEntry {
    /// The storage key.
    pub key: String,
    /// The raw text (kept so that an unreadable entry can be downloaded).
    pub raw: String,
    /// The entry, or why it could not be read.
    pub read: Result<(SavedScenario, Recovered), Unreadable>,
}

impl StoredEntry {
    /// The entry's name, or its key when it cannot be read.
    #[must_use]
    pub fn name(&self) -> String {
        match &self.read {
            Ok((s, _)) => s.name.clone(),
            Err(_) => self.key.clone(),
        }
    }
}

fn storage() -> Result<Storage, String> {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .ok_or_else(|| "this browser does not let the page use its storage (private mode or disabled)".to_string())
}

fn js_message(e: &wasm_bindgen::JsValue) -> String {
    js_sys::Error::from(e.clone()).message().as_string().unwrap_or_else(|| format!("{e:?}"))
}

/// Every saved entry, newest first; unreadable entries last, by key.
///
/// # Errors
/// When the browser refuses storage altogether.
pub fn list() -> Result<Vec<StoredEntry>, String> {
    let storage = storage()?;
    let mut out = Vec::new();
    for key in keys(&storage) {
        let raw = storage.get_item(&key).ok().flatten().unwrap_or_default();
        let read = saved::read(&key, &raw);
        out.push(StoredEntry { key, raw, read });
    }
    // Keys are unique, so this order is total and an unstable sort gives the same list.
    out.sort_unstable_by(|a, b| match (&a.read, &b.read) {
        (Ok((x, _)), Ok((y, _))) => y.saved_at.total_cmp(&x.saved_at).then_with(|| a.key.cmp(&b.key)),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        (Err(_), Err(_)) => a.key.cmp(&b.key),
    });
    Ok(out)
}

/// Every key under [`KEY_PREFIX`].
fn keys(storage: &Storage) -> Vec<String> {
    let n = storage.length().unwrap_or(0);
    (0..n).filter_map(|i| storage.key(i).ok().flatten()).filter(|k| k.starts_with(KEY_PREFIX)).collect()
}

/// Milliseconds since 1970 by the browser's clock.
#[must_use]
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Saves `scenario` under a new key as `name`, as a page working with the optional `sections`
/// writes it (the others as they came); returns the key.
///
/// # Errors
/// An empty name, too many entries, or storage refused or full.
pub fn save_new(name: &str, scenario: &Scenario, sections: Sections) -> Result<String, String> {
    let name = saved::clean_name(name)?;
    let storage = storage()?;
    // Counted, not read: the page that saves never needs to parse the other entries.
    let count = keys(&storage).len();
    if count >= MAX_ENTRIES {
        return Err(format!("{count} scenarios are saved, the most this page keeps; delete some first"));
    }
    let key = saved::new_key(now_ms(), |k| storage.get_item(k).ok().flatten().is_some());
    write(&key, &SavedScenario::new(name, now_ms(), scenario.clone()).to_json_with(sections))?;
    Ok(key)
}

/// Writes an entry's text (`SavedScenario::to_json`) under `key`.
///
/// # Errors
/// Storage refused or full.
fn write(key: &str, entry: &str) -> Result<(), String> {
    storage()?.set_item(key, entry).map_err(|e| {
        format!("the browser refused to store it ({}); delete some saved scenarios or free space", js_message(&e))
    })
}

/// Renames the entry under `key` (rewriting it in the current format).
///
/// # Errors
/// An empty name, an entry that cannot be read, or storage refused.
pub fn rename(key: &str, name: &str) -> Result<(), String> {
    let name = saved::clean_name(name)?;
    let raw = storage()?.get_item(key).ok().flatten().ok_or_else(|| format!("{key} is no longer saved"))?;
    let (mut entry, _) = saved::read(key, &raw).map_err(|e| format!("{key} {}", e.problem))?;
    entry.name = name;
    entry.format = saved::ENTRY_FORMAT;
    entry.saved_at = now_ms();
    write(key, &entry.to_json())
}

/// Deletes the entry under `key`.
///
/// # Errors
/// Storage refused.
pub fn remove(key: &str) -> Result<(), String> {
    storage()?.remove_item(key).map_err(|e| js_message(&e))
}

/// `YYYY-MM-DD HH:MM` in the browser's time zone ("" for 0, an unknown time).
#[must_use]
pub fn format_time(ms: f64) -> String {
    if ms <= 0.0 || !ms.is_finite() {
        return String::new();
    }
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms));
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        d.get_full_year(),
        d.get_month() + 1,
        d.get_date(),
        d.get_hours(),
        d.get_minutes()
    )
}
