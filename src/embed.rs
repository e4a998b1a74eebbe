//! Embed mode and themes, read from the page's query string:
//! `<page>.html?embed=<name>&theme=light|dark#s=<permalink>`.
//!
//! With `embed`, the page renders its view as usual but shows only the chart or table called
//! `<name>`: a chart's name is its canvas id without `chart-` (the names of
//! `shardcalc_charts::catalog`, e.g. `seq-len` for `#chart-seq-len`; `chart-seq-len` works
//! too), a table's is `table-` and the `name` of its [`crate::components::CsvButton`] (e.g.
//! `table-params`, the id of its export buttons' wrapper), so a chart and a table may share a
//! name. [`crate::components::ChartCanvas`] and `CsvButton` [`Embed::register`] their names
//! when they mount; the one whose name is the target gets the class `embed-target`, and the
//! style sheet hides everything else
//! (`.embed-page` in `public/style.css`). Names that are not on the page get a message listing
//! the ones that are. `theme=dark` sets `data-theme="dark"` on `<html>` for any page.
//!
//! Nothing read here is ever used as markup: the name is compared with known names and shown
//! as text.

use leptos::prelude::*;

/// Longest embed name read (names are short ids such as `seq-len`).
pub const MAX_NAME_LEN: usize = 64;

/// The page's colour theme.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    /// Dark text on light surfaces (the default).
    #[default]
    Light,
    /// Light text on dark surfaces; charts are drawn light and inverted by the style sheet.
    Dark,
}

/// What the query string asks for, provided as context by [`crate::App`].
#[derive(Clone, Copy, Debug)]
pub struct Embed {
    /// The chart or table to show alone, if any.
    pub target: StoredValue<Option<String>>,
    /// The colour theme.
    pub theme: Theme,
    /// Names of the charts and tables on the page (registered as they mount).
    pub present: RwSignal<Vec<String>>,
}

impl Embed {
    /// Reads `embed` and `theme` from a query string such as `?embed=seq-len&theme=dark`.
    #[must_use]
    pub fn from_query(query: &str) -> Self {
        let (mut target, mut theme) = (None, Theme::Light);
        for pair in query.trim_start_matches('?').split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode_component(value);
            match key {
                "embed" => {
                    let name: String = value.chars().take(MAX_NAME_LEN).collect();
                    target = Some(name.strip_prefix("chart-").map_or_else(|| name.clone(), str::to_string));
                }
                "theme" if value == "dark" => theme = Theme::Dark,
                _ => {}
            }
        }
        Self::new(target, theme)
    }

    fn new(target: Option<String>, theme: Theme) -> Self {
        Self { target: StoredValue::new(target), theme, present: RwSignal::new(Vec::new()) }
    }

    /// From the page's own URL.
    #[must_use]
    pub fn from_location() -> Self {
        let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
        Self::from_query(&search)
    }

    /// Nothing embedded, light theme (component tests; pages without a query string).
    #[must_use]
    pub fn none() -> Self {
        Self::new(None, Theme::Light)
    }

    /// Whether the page shows one chart or table alone.
    #[must_use]
    pub fn is_embed(&self) -> bool {
        self.target.with_value(Option::is_some)
    }

    /// In an embed, records that the chart or table `name` is on the page (until the calling
    /// component is cleaned up) and says whether it is the one to show alone; outside an
    /// embed, `false` (nothing is recorded).
    pub fn register(&self, name: String) -> bool {
        let Some(is_target) = self.target.with_value(|t| t.as_ref().map(|t| *t == name)) else { return false };
        let present = self.present;
        present.update(|p| p.push(name.clone()));
        on_cleanup(move || {
            present.try_update(|p| {
                if let Some(i) = p.iter().position(|n| *n == name) {
                    p.remove(i);
                }
            });
        });
        is_target
    }

    /// Sets `data-theme` on `<html>` so the style sheet's theme variables apply.
    pub fn apply_theme(&self) {
        let root = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element());
        if let Some(root) = root {
            let theme = match self.theme {
                Theme::Light => "light",
                Theme::Dark => "dark",
            };
            let _ = root.set_attribute("data-theme", theme);
        }
    }
}

/// Registers the chart or table `name` with the page's embed settings ([`Embed::register`]):
/// whether it is the one to show alone (`false` outside an embed or outside [`crate::App`]).
pub fn register(name: String) -> bool {
    use_context::<Embed>().is_some_and(|e| e.register(name))
}

/// `%xx` and `+` decoded; malformed escapes are kept as typed.
fn decode_component(text: &str) -> String {
    let spaced = text.replace('+', " ");
    js_sys::decode_uri_component(&spaced).ok().and_then(|s| s.as_string()).unwrap_or(spaced)
}

/// The message an embed shows when its name is not on the page (`None` once it is).
#[component]
pub fn EmbedMissing() -> impl IntoView {
    let embed = use_context::<Embed>().unwrap_or_else(Embed::none);
    let message = move || {
        let target = embed.target.get_value()?;
        embed.present.with(|present| {
            if present.contains(&target) {
                return None;
            }
            let mut names: Vec<&str> = Vec::new();
            for name in present {
                if !names.contains(&name.as_str()) {
                    names.push(name);
                }
            }
            let known = if names.is_empty() { "none".to_string() } else { names.join(", ") };
            Some(format!("Nothing called “{target}” to embed on this page. Charts and tables here: {known}."))
        })
    };
    move || message().map(|m| view! { <p class="embed-missing" id="embed-missing" role="alert">{m}</p> })
}
