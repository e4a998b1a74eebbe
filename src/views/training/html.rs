//! Read-only results as HTML text, shown with `inner_html` (as on the hardware page; the
//! escaping is [`crate::html_text`]'s).
//!
//! Why: every `view!` tree is its own monomorphised rendering code, 2-6 KB gzip per
//! table; the same table written as text costs a few hundred bytes, and replacing a
//! table's rows with one `inner_html` is cheaper than diffing hundreds of nodes on every
//! input change (docs/size.md, "Training page, session 13"). Every piece of text goes
//! through [`escape`]; element ids stay stable for tests and embeds.

pub use crate::html_text::escape;

/// Appends `<tag id=".." class="..">text</tag>` (escaped; no attribute when empty).
pub fn element(out: &mut String, tag: &str, id: &str, class: &str, text: &str) {
    out.push('<');
    out.push_str(tag);
    if !id.is_empty() {
        out.push_str(" id=\"");
        out.push_str(&escape(id));
        out.push('"');
    }
    if !class.is_empty() {
        out.push_str(" class=\"");
        out.push_str(class);
        out.push('"');
    }
    out.push('>');
    out.push_str(&escape(text));
    out.push_str("</");
    out.push_str(tag);
    out.push('>');
}

/// Opens a scrollable table `id` with its column headers (a header cell per entry).
pub fn open_table(out: &mut String, id: &str, headers: &[&str]) {
    out.push_str("<div class=\"table-wrap\"><table id=\"");
    out.push_str(&escape(id));
    out.push_str("\"><thead><tr>");
    for h in headers {
        element(out, "th", "", "", h);
    }
    out.push_str("</tr></thead><tbody>");
}

/// Closes what [`open_table`] opened.
pub fn close_table(out: &mut String) {
    out.push_str("</tbody></table></div>");
}

/// A cell: `<td>` (or `<td class="num">` when `num`).
pub fn cell(out: &mut String, text: &str, num: bool) {
    element(out, "td", "", if num { "num" } else { "" }, text);
}
