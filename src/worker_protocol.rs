//! The messages between a page and the background worker (`src/bin/worker.rs`). The worker
//! holds what a page needs only on request, so that its code is not in the page's first
//! download (docs/size.md): the config importers, SVG rendering, the MaxText command-line
//! import and log comparison (with MaxText's bundled base.yml and model files), and the
//! serving search under targets (which also keeps the search off the page's thread while the
//! user types).
//!
//! Messages are plain text, `<id>\n<kind>\n<payload>`, rather than serde types: a serde
//! envelope around a scenario or a model costs the page ~15 KB of wasm (its own serializer
//! and deserializer instances), where the scenario already travels as its permalink and a
//! model as the JSON the page reads anyway.
//!
//! This file is compiled into both sides: the page's lib (`crate::worker_protocol`) and the
//! worker bin (by `#[path]`, so the worker does not link the Leptos app).

use shardcalc_charts::table::Table;

/// The first message the worker sends, once its wasm is running and it listens.
pub const READY: &str = "ready";

/// What the page asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Import a Hugging Face `config.json` or a MaxText model YAML.
    Import {
        /// The file's text.
        text: String,
    },
    /// Import a pasted MaxText command line, launch script or config as a scenario, on the
    /// hardware of the scenario `link` (unless it names its own `compile_topology`).
    MaxText {
        /// The pasted text.
        text: String,
        /// The scenario the page shows, as its permalink.
        link: String,
    },
    /// Compare a pasted MaxText log with the plan of the scenario `link`.
    MaxTextLog {
        /// The log's text.
        text: String,
        /// The scenario the page shows, as its permalink.
        link: String,
    },
    /// Render the chart called `name` in `shardcalc_charts::catalog` as SVG.
    Svg {
        /// Catalog name: the chart's canvas id without `chart-`.
        name: String,
        /// The scenario the page shows, as its permalink (`shardcalc_core::permalink`).
        link: String,
    },
    /// Run the serving search under targets (`shardcalc_core::view::serving::search`).
    Search {
        /// The scenario (the search's key), as its permalink.
        link: String,
    },
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// The imported model, with the importer's warnings.
    Imported {
        /// The model as JSON (`shardcalc_core::model::ModelConfig`).
        model: String,
        /// What the importer assumed or could not map, one line each.
        warnings: Vec<String>,
    },
    /// The chart as an SVG document.
    Svg(String),
    /// A MaxText run as a scenario, and what became of its keys.
    Run {
        /// The scenario's permalink.
        link: String,
        /// One line per key read, warned about, unknown or ignored.
        notes: Vec<String>,
    },
    /// A log against the plan: two tables (boxed: a table is several times another reply's
    /// size) and notes.
    Compared {
        /// Measured against predicted, quantity by quantity.
        terms: Box<Table>,
        /// The predicted step's terms as shares of the measured step.
        breakdown: Box<Table>,
        /// What the comparison says besides (a log of another configuration, ...).
        notes: Vec<String>,
    },
    /// The search's report.
    Searched {
        /// Milliseconds the search took in the worker (`performance.now()`).
        ms: f64,
        /// `shardcalc_core::inference::search::SearchReport` as JSON (one line).
        report: String,
    },
    /// Why the request failed, one message per problem.
    Failed(Vec<String>),
}

/// Separates the parts of a [`Reply::Compared`].
const SEPARATOR: char = '\u{1e}';

/// Separates the cells of a table's line.
const CELL: char = '\u{1f}';

/// A table's column names and exact cells, a line each (what the page shows of a table the
/// worker builds; no CSV reader on the page). Line breaks, [`CELL`]s and [`SEPARATOR`]s inside
/// a cell become spaces.
fn table_text(table: &Table) -> String {
    let cell = CELL.to_string();
    let line = |cells: &[String]| {
        cells.iter().map(|c| c.replace(['\n', '\r', CELL, SEPARATOR], " ")).collect::<Vec<_>>().join(&cell)
    };
    std::iter::once(&table.columns).chain(&table.rows).map(|r| line(r)).collect::<Vec<_>>().join("\n")
}

/// The table of [`table_text`]'s text.
fn table_of(text: &str) -> Table {
    let mut lines = text.split('\n').map(|l| l.split(CELL).map(str::to_string).collect::<Vec<_>>());
    let mut table = Table::new(lines.next().unwrap_or_default());
    table.rows = lines.collect();
    table
}

/// `lines` as one line each (line breaks inside a line become spaces).
fn join_lines(lines: &[String]) -> String {
    lines.iter().map(|l| l.replace('\n', " ")).collect::<Vec<_>>().join("\n")
}

/// The lines of `text`, none for empty text.
fn split_lines(text: &str) -> Vec<String> {
    if text.is_empty() {
        Vec::new()
    } else {
        text.split('\n').map(str::to_string).collect()
    }
}

/// Splits `<id>\n<kind>\n<payload>`.
fn frame(text: &str) -> Option<(u32, &str, &str)> {
    let (id, rest) = text.split_once('\n')?;
    let (kind, payload) = rest.split_once('\n').unwrap_or((rest, ""));
    Some((id.parse().ok()?, kind, payload))
}

impl Request {
    /// The message carrying this request as number `id`.
    #[must_use]
    pub fn encode(&self, id: u32) -> String {
        match self {
            Request::Import { text } => format!("{id}\nimport\n{text}"),
            // A catalog name has no line break; the permalink is base64url.
            Request::Svg { name, link } => format!("{id}\nsvg\n{name}\n{link}"),
            Request::MaxText { text, link } => format!("{id}\nmaxtext\n{link}\n{text}"),
            Request::MaxTextLog { text, link } => format!("{id}\nmaxtext-log\n{link}\n{text}"),
            Request::Search { link } => format!("{id}\nsearch\n{link}"),
        }
    }

    /// The request in a message, with its number.
    #[must_use]
    pub fn decode(text: &str) -> Option<(u32, Request)> {
        let (id, kind, payload) = frame(text)?;
        let request = match kind {
            "import" => Request::Import { text: payload.to_string() },
            "svg" => {
                let (name, link) = payload.split_once('\n')?;
                Request::Svg { name: name.to_string(), link: link.to_string() }
            }
            "maxtext" | "maxtext-log" => {
                let (link, text) = payload.split_once('\n').unwrap_or((payload, ""));
                let (text, link) = (text.to_string(), link.to_string());
                if kind == "maxtext" {
                    Request::MaxText { text, link }
                } else {
                    Request::MaxTextLog { text, link }
                }
            }
            "search" => Request::Search { link: payload.to_string() },
            _ => return None,
        };
        Some((id, request))
    }
}

impl Reply {
    /// The message carrying this reply to request `id`.
    #[must_use]
    pub fn encode(&self, id: u32) -> String {
        match self {
            // The model's JSON is one line (serde_json escapes line breaks inside strings).
            Reply::Imported { model, warnings } => format!("{id}\nimported\n{model}\n{}", join_lines(warnings)),
            Reply::Svg(svg) => format!("{id}\nsvg\n{svg}"),
            Reply::Run { link, notes } => format!("{id}\nrun\n{link}\n{}", join_lines(notes)),
            // The parts are split by an ASCII record separator, which no table or note has.
            Reply::Compared { terms, breakdown, notes } => format!(
                "{id}\ncompared\n{}{SEPARATOR}{}{SEPARATOR}{}",
                table_text(terms),
                table_text(breakdown),
                join_lines(notes)
            ),
            // serde_json writes one line (it escapes line breaks inside strings).
            Reply::Searched { ms, report } => format!("{id}\nsearched\n{ms}\n{report}"),
            Reply::Failed(errors) => format!("{id}\nfailed\n{}", join_lines(errors)),
        }
    }

    /// The reply in a message, with the number of its request.
    #[must_use]
    pub fn decode(text: &str) -> Option<(u32, Reply)> {
        let (id, kind, payload) = frame(text)?;
        let reply = match kind {
            "imported" => {
                let (model, warnings) = payload.split_once('\n').unwrap_or((payload, ""));
                Reply::Imported { model: model.to_string(), warnings: split_lines(warnings) }
            }
            "svg" => Reply::Svg(payload.to_string()),
            "run" => {
                let (link, notes) = payload.split_once('\n').unwrap_or((payload, ""));
                Reply::Run { link: link.to_string(), notes: split_lines(notes) }
            }
            "compared" => {
                let mut parts = payload.split(SEPARATOR);
                let (terms, breakdown, notes) = (parts.next()?, parts.next()?, parts.next().unwrap_or(""));
                Reply::Compared {
                    terms: Box::new(table_of(terms)),
                    breakdown: Box::new(table_of(breakdown)),
                    notes: split_lines(notes),
                }
            }
            "searched" => {
                let (ms, report) = payload.split_once('\n')?;
                Reply::Searched { ms: shardcalc_core::text::real(ms).ok()?, report: report.to_string() }
            }
            "failed" => Reply::Failed(split_lines(payload)),
            _ => return None,
        };
        Some((id, reply))
    }
}
