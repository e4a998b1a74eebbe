//! Read-only results as HTML text, shown with `inner_html` (the validation and model pages).
//!
//! Why: every distinct `view!` tree is its own monomorphised rendering code in the wasm (2-6 KB
//! gzip per table), and rewriting a table as one string is one DOM change instead of one per
//! cell (docs/size.md). Every piece of text goes through [`escape`]; the builders here only
//! put escaped text and attribute values into the markup they return. (The hardware page's
//! table builders, `views/hardware/html.rs`, escape through this module too.)

/// `text` with `&`, `<`, `>` and `"` escaped, for element content and attribute values.
#[must_use]
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// ` name="value"` (value escaped), to put in an opening tag.
#[must_use]
pub fn attr(name: &str, value: &str) -> String {
    format!(" {name}=\"{}\"", escape(value))
}

/// `<tag attrs>inner</tag>`: `attrs` from [`attr`] (or empty), `inner` markup built here.
#[must_use]
pub fn el(tag: &str, attrs: &str, inner: &str) -> String {
    format!("<{tag}{attrs}>{inner}</{tag}>")
}

/// `text` escaped and followed by a smaller second line (`<span class="short">`), if any.
#[must_use]
pub fn with_short(text: &str, short: &str) -> String {
    let mut out = escape(text);
    if !short.is_empty() {
        out.push(' ');
        out.push_str(&el("span", " class=\"short\"", &escape(short)));
    }
    out
}

/// The header row and the caption of a table: column headers, a leading `#` marking a number
/// column (right-aligned).
#[must_use]
pub fn head(caption: &str, headers: &[&str]) -> String {
    let mut out = String::new();
    if !caption.is_empty() {
        out += &el("caption", "", &escape(caption));
    }
    out += "<thead><tr>";
    for h in headers {
        out += &match h.strip_prefix('#') {
            Some(h) => el("th", " scope=\"col\" class=\"num\"", &escape(h)),
            None => el("th", " scope=\"col\"", &escape(h)),
        };
    }
    out + "</tr></thead>"
}

/// A scrollable table: `<div class="table-wrap"><table id=…>` + [`head`] + `rows` (markup of
/// `<tr>`s built here) in its body.
#[must_use]
pub fn table(id: &str, caption: &str, headers: &[&str], rows: &str) -> String {
    el(
        "div",
        " class=\"table-wrap\"",
        &el("table", &attr("id", id), &(head(caption, headers) + &el("tbody", "", rows))),
    )
}
