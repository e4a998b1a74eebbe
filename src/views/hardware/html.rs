//! Result tables and key numbers as HTML text, shown with `inner_html`.
//!
//! Why: every distinct `view!` tree is its own monomorphised rendering code in the wasm,
//! and this page's read-only results (seven tables, a dozen key numbers) cost about 40 KB
//! gzip that way. Built as text they cost a few KB, which keeps the page under its 300 KB
//! budget (docs/size.md). Every piece of text goes through [`escape`] (`crate::html_text`'s,
//! which the other pages' HTML text uses too); element ids stay stable for tests and embeds.

pub use crate::html_text::escape;

/// One table cell.
pub struct Cell {
    /// Text (escaped when written).
    pub text: String,
    /// Right-aligned number.
    pub num: bool,
    /// Written as HTML already (no escaping); only for markup built here.
    pub raw: bool,
}

/// A text cell.
#[must_use]
pub fn text(t: impl Into<String>) -> Cell {
    Cell { text: t.into(), num: false, raw: false }
}

/// A number cell (right-aligned).
#[must_use]
pub fn num(t: impl Into<String>) -> Cell {
    Cell { text: t.into(), num: true, raw: false }
}

/// A cell of markup built by this module (already escaped).
#[must_use]
pub fn raw(t: impl Into<String>) -> Cell {
    Cell { text: t.into(), num: false, raw: true }
}

/// One table row: its header cell, the other cells, an optional id and classes.
pub struct Row {
    /// Row header (`<th scope="row">`).
    pub head: String,
    /// The other cells.
    pub cells: Vec<Cell>,
    /// `id` of the `<tr>`, if any.
    pub id: Option<String>,
    /// `class` of the `<tr>` (space-separated), empty for none.
    pub class: String,
}

/// A row with a header and cells.
#[must_use]
pub fn row(head: impl Into<String>, cells: Vec<Cell>) -> Row {
    Row { head: head.into(), cells, id: None, class: String::new() }
}

impl Row {
    /// The row with an id.
    #[must_use]
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The row with a class when `on`.
    #[must_use]
    pub fn class_if(mut self, on: bool, class: &str) -> Self {
        if on {
            if !self.class.is_empty() {
                self.class.push(' ');
            }
            self.class.push_str(class);
        }
        self
    }
}

/// A scrollable table: `id`, caption, column headers (a leading `#` marks a number column)
/// and rows.
#[must_use]
pub fn table(id: &str, caption: &str, headers: &[&str], rows: &[Row]) -> String {
    let mut out = format!(
        "<div class=\"table-wrap\"><table id=\"{}\"><caption>{}</caption><thead><tr>",
        escape(id),
        escape(caption)
    );
    for h in headers {
        match h.strip_prefix('#') {
            Some(h) => out += &format!("<th scope=\"col\" class=\"num\">{}</th>", escape(h)),
            None => out += &format!("<th scope=\"col\">{}</th>", escape(h)),
        }
    }
    out += "</tr></thead><tbody>";
    for r in rows {
        out += "<tr";
        if let Some(id) = &r.id {
            out += &format!(" id=\"{}\"", escape(id));
        }
        if !r.class.is_empty() {
            out += &format!(" class=\"{}\"", escape(&r.class));
        }
        out += &format!("><th scope=\"row\">{}</th>", escape(&r.head));
        for c in &r.cells {
            let body = if c.raw { c.text.clone() } else { escape(&c.text) };
            out += if c.num { "<td class=\"num\">" } else { "<td>" };
            out += &body;
            out += "</td>";
        }
        out += "</tr>";
    }
    out += "</tbody></table></div>";
    out
}

/// `<span id="id">text</span>` (or `<strong>` when `strong`).
#[must_use]
pub fn value(id: &str, text: &str, strong: bool) -> String {
    let tag = if strong { "strong" } else { "span" };
    format!("<{tag} id=\"{}\">{}</{tag}>", escape(id), escape(text))
}
