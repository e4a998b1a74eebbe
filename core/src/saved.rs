//! Saved scenarios: one named scenario per browser-storage entry, and reading entries back
//! with recovery.
//!
//! The page keeps each saved scenario under its own key, `shardcalc.saved.<id>`, so that one
//! damaged entry never takes the others with it. An entry is a JSON object
//! `{"format": 1, "name": "...", "saved_at": <ms since 1970>, "scenario": {...}}`.
//! [`read`] also recovers the older or hand-made shapes a key may hold (a bare scenario
//! document, a permalink, a whole link) and, for anything else, says why it cannot read it,
//! so the page can keep the raw text under a "could not read" entry instead of dropping it.
//! Nothing here deletes or rewrites an entry: only the user does, by saving, renaming or
//! deleting.

use serde::{Deserialize, Serialize};

use crate::permalink;
use crate::scenario::{Scenario, Sections, MAX_SCENARIO_BYTES};

/// Prefix of every saved scenario's storage key.
pub const KEY_PREFIX: &str = "shardcalc.saved.";

/// The entry format this build writes.
pub const ENTRY_FORMAT: u32 = 1;

/// Largest entry read, in bytes: a scenario document at its limit plus the envelope.
pub const MAX_ENTRY_BYTES: usize = MAX_SCENARIO_BYTES + 4 * 1024;

/// Longest name kept, in characters.
pub const MAX_NAME_CHARS: usize = 120;

/// Most entries the page lists and saves (browser storage holds about 5 MB per site).
pub const MAX_ENTRIES: usize = 500;

/// One saved scenario, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedScenario {
    /// Entry format ([`ENTRY_FORMAT`] when written by this build).
    pub format: u32,
    /// The name the user gave it.
    pub name: String,
    /// When it was last saved or renamed, in milliseconds since 1970-01-01 UTC (0 if unknown).
    #[serde(default)]
    pub saved_at: f64,
    /// The scenario document, exactly as it was when saved (it may no longer validate).
    pub scenario: Scenario,
}

impl SavedScenario {
    /// A current-format entry.
    #[must_use]
    pub fn new(name: String, saved_at: f64, scenario: Scenario) -> Self {
        Self { format: ENTRY_FORMAT, name, saved_at, scenario }
    }

    /// The entry's text for storage.
    #[must_use]
    pub fn to_json(&self) -> String {
        // Scenario and its parts serialise infallibly (plain structs, string keys); the
        // empty fallback would read back as an unreadable entry, never as a wrong one.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// [`Self::to_json`] as a page writes it: the scenario by `Scenario::to_json_with`.
    #[must_use]
    pub fn to_json_with(&self, sections: Sections) -> String {
        /// The keys of [`SavedScenario`], in its order, with the scenario as text.
        #[derive(Serialize)]
        struct Entry<'a> {
            format: u32,
            name: &'a str,
            saved_at: f64,
            scenario: &'a serde_json::value::RawValue,
        }
        let Ok(scenario) = serde_json::value::RawValue::from_string(self.scenario.to_json_with(sections)) else {
            return String::new();
        };
        let entry = Entry { format: self.format, name: &self.name, saved_at: self.saved_at, scenario: &scenario };
        serde_json::to_string(&entry).unwrap_or_default()
    }
}

/// How an entry was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovered {
    /// The current format.
    Current,
    /// A bare scenario document without the envelope (named after its key).
    BareScenario,
    /// A permalink or a whole link (named after its key).
    Link,
}

/// An entry that could not be read: its raw text is kept so the user can download or
/// delete it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// Why, e.g. `saved entry: expected value at line 1 column 1`.
    pub problem: String,
}

/// Reads the entry stored under `key`.
///
/// Every attempt parses the text directly (never through `serde_json::Value`, which would
/// compile a second deserializer of the whole scenario into the page).
///
/// # Errors
/// [`Unreadable`] with the reason when the text is too long, written by a newer build, or
/// neither a saved scenario, a scenario document nor a link.
pub fn read(key: &str, raw: &str) -> Result<(SavedScenario, Recovered), Unreadable> {
    let unreadable = |problem: String| Unreadable { problem };
    if raw.len() > MAX_ENTRY_BYTES {
        return Err(unreadable(format!("is {} bytes; the limit is {MAX_ENTRY_BYTES} bytes", raw.len())));
    }
    let entry_error = match crate::json::from_str::<SavedScenario>(raw) {
        Ok(saved) if saved.format > ENTRY_FORMAT => {
            return Err(unreadable(newer(u64::from(saved.format))));
        }
        Ok(saved) => return Ok((saved, Recovered::Current)),
        Err(e) => e,
    };
    let recovered = |scenario| {
        SavedScenario::new(format!("recovered {}", key.strip_prefix(KEY_PREFIX).unwrap_or(key)), 0.0, scenario)
    };
    match crate::json::from_str::<Probe>(raw) {
        // An object with a format: a saved entry, newer or damaged.
        Ok(Probe { format: Some(n) }) if n > u64::from(ENTRY_FORMAT) => Err(unreadable(newer(n))),
        Ok(Probe { format: Some(_) }) => Err(unreadable(format!("saved entry: {entry_error}"))),
        // An object without one: a bare scenario document (older builds, or by hand).
        Ok(Probe { format: None }) => Scenario::from_json(raw)
            .map(|s| (recovered(s), Recovered::BareScenario))
            .map_err(|e| unreadable(format!("is neither a saved entry nor a scenario document: {e}"))),
        // Not an object: a link, bare or as a JSON string.
        Err(json_error) => {
            let text = serde_json::from_str::<String>(raw).unwrap_or_else(|_| raw.to_string());
            let link = permalink::find_in(&text);
            match permalink::parse(link) {
                Ok(s) => Ok((recovered(s), Recovered::Link)),
                Err(e) if link.starts_with(permalink::TAG) => {
                    Err(unreadable(format!("holds a link that cannot be read: {e}")))
                }
                Err(_) if json_error.is_data() => Err(unreadable("is JSON but not an object".into())),
                Err(_) => Err(unreadable(format!("is not JSON: {json_error}"))),
            }
        }
    }
}

/// The one thing [`read`] needs to know about an object it cannot read as an entry.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    format: Option<u64>,
}

fn newer(format: u64) -> String {
    format!("was written by a newer shardcalc (entry format {format}; this build reads {ENTRY_FORMAT})")
}

/// A name as typed, cleaned: control characters become spaces, runs of spaces collapse,
/// and it is cut to [`MAX_NAME_CHARS`].
///
/// # Errors
/// An empty name (after cleaning).
pub fn clean_name(text: &str) -> Result<String, String> {
    let spaced: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let name: String = spaced.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(MAX_NAME_CHARS).collect();
    if name.is_empty() {
        Err("give the scenario a name".into())
    } else {
        Ok(name)
    }
}

/// A storage key for a new entry made at `now_ms`, not yet `taken`.
#[must_use]
pub fn new_key(now_ms: f64, taken: impl Fn(&str) -> bool) -> String {
    // Milliseconds fit in u64 for any real clock; a broken clock (NaN, negative) gives 0.
    let stamp = if now_ms.is_finite() && now_ms > 0.0 { now_ms as u64 } else { 0 };
    (0u32..)
        .map(|n| if n == 0 { format!("{KEY_PREFIX}{stamp}") } else { format!("{KEY_PREFIX}{stamp}-{n}") })
        .find(|k| !taken(k))
        .unwrap_or_else(|| format!("{KEY_PREFIX}{stamp}-x"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ModelSource;

    fn seventy() -> Scenario {
        Scenario { model: ModelSource::Preset("llama-3-70b".into()), ..Scenario::default() }
    }

    #[test]
    fn current_entries_round_trip() {
        let saved = SavedScenario::new("70B at 8k".into(), 1_700_000_000_123.0, seventy());
        let (back, how) = read("shardcalc.saved.1", &saved.to_json()).unwrap();
        assert_eq!(back, saved);
        assert_eq!(how, Recovered::Current);
    }

    #[test]
    fn old_shapes_are_recovered_and_named_after_their_key() {
        let json = serde_json::to_string(&seventy()).unwrap();
        let (s, how) = read("shardcalc.saved.abc", &json).unwrap();
        assert_eq!((s.name.as_str(), how, &s.scenario), ("recovered abc", Recovered::BareScenario, &seventy()));
        let link = permalink::encode(&seventy());
        for text in [link.clone(), format!("https://x.test/tools/training.html#s={link}"), format!("\"{link}\"")] {
            let (s, how) = read("k", &text).unwrap();
            assert_eq!((how, s.scenario), (Recovered::Link, seventy()), "{text}");
        }
    }

    #[test]
    fn entries_that_do_not_validate_are_kept() {
        let mut s = seventy();
        s.workload.seq_len = 0;
        let saved = SavedScenario::new("broken".into(), 1.0, s.clone());
        let (back, _) = read("k", &saved.to_json()).unwrap();
        assert_eq!(back.scenario, s);
        assert_eq!(back.scenario.validate().unwrap_err().0[0].field, "workload.seq_len");
    }

    #[test]
    fn damaged_entries_say_why() {
        let problem = |raw: &str| read("k", raw).unwrap_err().problem;
        assert!(problem("{\"format\":1,\"name\":").contains("not JSON"), "{}", problem("{"));
        assert!(problem("42").contains("not an object"));
        assert!(problem("{\"format\":9,\"name\":\"x\"}").contains("newer shardcalc"));
        assert!(problem("{\"format\":1,\"name\":\"x\"}").contains("scenario"));
        assert!(problem("{\"hello\":1}").contains("neither"));
        assert!(problem("1.@@@").contains("link"));
        assert!(problem(&"x".repeat(MAX_ENTRY_BYTES + 1)).contains("limit"));
        let saved = SavedScenario::new("x".into(), 1.0, seventy()).to_json();
        assert!(problem(&saved.replace("\"name\"", "\"nme\"")).contains("nme"));
    }

    #[test]
    fn arbitrary_text_never_panics() {
        let entry = SavedScenario::new("x".into(), 1.0, seventy()).to_json();
        let mut state: u64 = 0x853c_49e6_748f_ea9b;
        for round in 0..5000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut bytes = entry.clone().into_bytes();
            let at = (state as usize) % bytes.len();
            let cut = (state >> 32) as usize % bytes.len();
            bytes[at] = b"{}[]\":,0x-"[(state % 10) as usize];
            if round % 3 == 0 {
                bytes.truncate(cut);
            }
            let _ = read("k", &String::from_utf8_lossy(&bytes));
        }
    }

    #[test]
    fn names_are_cleaned() {
        assert_eq!(clean_name("  a\tb\n\u{7}c  ").unwrap(), "a b c");
        assert!(clean_name(" \n ").is_err());
        assert_eq!(clean_name(&"é".repeat(500)).unwrap().chars().count(), MAX_NAME_CHARS);
        // Markup is kept as text: the page never renders a name as HTML.
        assert_eq!(clean_name("<b>x</b>").unwrap(), "<b>x</b>");
    }

    #[test]
    fn new_keys_do_not_collide() {
        let taken = ["shardcalc.saved.5", "shardcalc.saved.5-1"];
        assert_eq!(new_key(5.9, |k| taken.contains(&k)), "shardcalc.saved.5-2");
        assert_eq!(new_key(f64::NAN, |_| false), "shardcalc.saved.0");
    }
}
