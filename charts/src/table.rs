//! A result table as data: column names and rows of cell text, and how the page shows them.
//! One [`Table`] is rendered three ways, so they cannot disagree: as CSV and Markdown (the
//! column keys and the exact cells: full-precision numbers in SI units), and as the page's
//! HTML table (`DataTable` in the app: the column labels and the cells as shown, e.g.
//! `850 ms` for `0.85`). A column without a label is exported but not shown on the page; a
//! link column's exact cells are addresses the page shows as links with the shown text; a
//! row's classes mark it on the page only (the bound resource, a held-back run).

use std::fmt::Write as _;

/// Longest CSV text [`Table::from_csv`] reads, in bytes.
pub const MAX_CSV_BYTES: usize = 4 * 1024 * 1024;

/// A table: `columns` names each column; every row has one cell per column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    /// Column names (the CSV header).
    pub columns: Vec<String>,
    /// Rows of cells, each as long as `columns` (shorter rows are padded when written).
    pub rows: Vec<Vec<String>>,
    /// Column headers as the page shows them (empty: the column names; an empty label hides
    /// the column on the page).
    pub labels: Vec<String>,
    /// Cells as the page shows them, by row and column (missing: the exact cell).
    pub shown: Vec<Vec<String>>,
    /// Columns whose exact cells are addresses, shown on the page as links.
    pub links: Vec<usize>,
    /// Classes of each row on the page (space-separated; missing: none).
    pub classes: Vec<String>,
}

impl Table {
    /// An empty table with these columns.
    #[must_use]
    pub fn new<S: Into<String>>(columns: impl IntoIterator<Item = S>) -> Self {
        Self { columns: columns.into_iter().map(Into::into).collect(), ..Self::default() }
    }

    /// An empty table of `(name, label)` columns: names for the exports, labels for the page
    /// (an empty label: exported only).
    #[must_use]
    pub fn labelled(columns: &[(&str, &str)]) -> Self {
        Self {
            columns: columns.iter().map(|(c, _)| (*c).to_string()).collect(),
            labels: columns.iter().map(|(_, l)| (*l).to_string()).collect(),
            ..Self::default()
        }
    }

    /// Appends a row, shown as exported.
    pub fn push<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    /// Appends a row of `(exact, shown)` cells.
    pub fn push_shown(&mut self, cells: Vec<(String, String)>) {
        let (exact, shown) = cells.into_iter().unzip();
        self.shown.resize(self.rows.len(), Vec::new());
        self.rows.push(exact);
        self.shown.push(shown);
    }

    /// Marks the last row with `class` on the page (nothing when there is no row).
    pub fn mark(&mut self, class: &str) {
        let Some(last) = self.rows.len().checked_sub(1) else { return };
        self.classes.resize(self.rows.len(), String::new());
        if let Some(c) = self.classes.get_mut(last) {
            if !c.is_empty() {
                c.push(' ');
            }
            c.push_str(class);
        }
    }

    /// The classes of row `r` on the page ("" for none).
    #[must_use]
    pub fn classes_of(&self, r: usize) -> &str {
        self.classes.get(r).map_or("", String::as_str)
    }

    /// Whether column `c` holds addresses shown as links.
    #[must_use]
    pub fn is_link(&self, c: usize) -> bool {
        self.links.contains(&c)
    }

    /// The page's header of column `i`.
    #[must_use]
    pub fn label(&self, i: usize) -> &str {
        self.labels.get(i).or(self.columns.get(i)).map_or("", String::as_str)
    }

    /// Whether the page shows column `i`.
    #[must_use]
    pub fn is_shown(&self, i: usize) -> bool {
        !self.label(i).is_empty()
    }

    /// The exact cell at row `r`, column `c` ("" when missing).
    #[must_use]
    pub fn cell(&self, r: usize, c: usize) -> &str {
        self.rows.get(r).and_then(|row| row.get(c)).map_or("", String::as_str)
    }

    /// The cell at row `r`, column `c` as the page shows it.
    #[must_use]
    pub fn shown_cell(&self, r: usize, c: usize) -> &str {
        self.shown.get(r).and_then(|row| row.get(c)).map_or_else(|| self.cell(r, c), String::as_str)
    }

    /// Whether the table has no rows.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows padded or cut to the number of columns.
    fn padded_rows(&self) -> impl Iterator<Item = Vec<&str>> + '_ {
        let n = self.columns.len();
        self.rows.iter().map(move |row| (0..n).map(|i| row.get(i).map_or("", String::as_str)).collect())
    }

    /// RFC 4180 CSV: a header line, then one line per row, CRLF line ends; a field is quoted
    /// when it holds a comma, a quote or a line break.
    #[must_use]
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let mut line = |cells: &[&str]| {
            let quoted: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
            out.push_str(&quoted.join(","));
            out.push_str("\r\n");
        };
        line(&self.columns.iter().map(String::as_str).collect::<Vec<_>>());
        for row in self.padded_rows() {
            line(&row);
        }
        out
    }

    /// A GitHub-flavoured Markdown table: numeric columns right-aligned, every character
    /// Markdown or HTML would interpret (`| \ < > & * _ ` [ ] ~`) backslash-escaped, line
    /// breaks inside a cell turned into spaces.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let cells = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
        out.push_str(&cells(self.columns.iter().map(|c| markdown_cell(c)).collect()));
        let align = (0..self.columns.len())
            .map(|i| if self.is_numeric_column(i) { "---:".to_string() } else { "---".to_string() })
            .collect();
        out.push_str(&cells(align));
        for row in self.padded_rows() {
            out.push_str(&cells(row.iter().map(|c| markdown_cell(c)).collect()));
        }
        out
    }

    /// Whether every non-empty cell of column `i` is a number (and at least one is).
    #[must_use]
    pub fn is_numeric_column(&self, i: usize) -> bool {
        let mut any = false;
        for row in &self.rows {
            match row.get(i).map(|c| c.trim()) {
                None | Some("") => {}
                Some(c) if looks_numeric(c) => any = true,
                Some(_) => return false,
            }
        }
        any
    }

    /// Reads RFC 4180 CSV (quoted fields with `""` escapes, CRLF or LF line ends); the first
    /// line is the header.
    ///
    /// # Errors
    /// Text over [`MAX_CSV_BYTES`], an unterminated quote, text after a closing quote, or no
    /// header line.
    pub fn from_csv(text: &str) -> Result<Self, String> {
        if text.len() > MAX_CSV_BYTES {
            return Err(format!("CSV is {} bytes; the limit is {MAX_CSV_BYTES} bytes", text.len()));
        }
        let mut records: Vec<Vec<String>> = Vec::new();
        let mut record: Vec<String> = Vec::new();
        let mut field = String::new();
        let mut chars = text.chars().peekable();
        let mut line = 1usize;
        let mut at_field_start = true;
        while let Some(c) = chars.next() {
            match c {
                '"' if at_field_start => {
                    loop {
                        match chars.next() {
                            Some('"') if chars.peek() == Some(&'"') => {
                                chars.next();
                                field.push('"');
                            }
                            Some('"') => break,
                            Some(ch) => {
                                if ch == '\n' {
                                    line += 1;
                                }
                                field.push(ch);
                            }
                            None => return Err(format!("CSV line {line}: a quoted field is not closed")),
                        }
                    }
                    match chars.peek() {
                        None | Some(',' | '\r' | '\n') => {}
                        Some(other) => return Err(format!("CSV line {line}: {other:?} after a closing quote")),
                    }
                    at_field_start = false;
                }
                ',' => {
                    record.push(std::mem::take(&mut field));
                    at_field_start = true;
                }
                '\r' if chars.peek() == Some(&'\n') => {}
                '\n' | '\r' => {
                    record.push(std::mem::take(&mut field));
                    records.push(std::mem::take(&mut record));
                    at_field_start = true;
                    line += 1;
                }
                other => {
                    field.push(other);
                    at_field_start = false;
                }
            }
        }
        if !field.is_empty() || !record.is_empty() {
            record.push(field);
            records.push(record);
        }
        let mut records = records.into_iter();
        let columns = records.next().ok_or_else(|| "CSV has no header line".to_string())?;
        Ok(Self { columns, rows: records.collect(), ..Self::default() })
    }
}

/// Whether `cell` is a decimal number as the tables write them (`-1.5`, `4096`, `1e+300`,
/// `NaN`/`inf` excluded): sign, digits with at most one point, optional exponent. Checked by
/// hand rather than with `str::parse::<f64>`, which links an exact float parser and its tables
/// into every page (about 4 KB of gzipped wasm) just to right-align a column.
#[must_use]
pub fn looks_numeric(cell: &str) -> bool {
    let body = cell.strip_prefix(['-', '+']).unwrap_or(cell);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (body.get(..i).unwrap_or(""), body.get(i + 1..)),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = !(int.is_empty() && frac.is_empty()) && digits(int) && digits(frac);
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

/// One CSV field, quoted when it contains a comma, quote or line break.
#[must_use]
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// One Markdown table cell: special characters escaped, line breaks as spaces.
#[must_use]
pub fn markdown_cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '|' | '<' | '>' | '&' | '*' | '_' | '`' | '[' | ']' | '~' => {
                let _ = write!(out, "\\{c}");
            }
            '\r' | '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new(["component", "label", "total_params"]);
        t.push(["embedding", "Embedding, \"tied\"", "525336576"]);
        t.push(["mlp", "MLP\nline two", "5637144576"]);
        t.push(["attention", "a | b <script>", ""]);
        t
    }

    #[test]
    fn csv_round_trips_through_the_parser() {
        let t = sample();
        let csv = t.to_csv();
        assert!(csv.starts_with("component,label,total_params\r\n"));
        assert!(csv.contains("\"Embedding, \"\"tied\"\"\""));
        assert_eq!(Table::from_csv(&csv).unwrap(), t);
        // LF line ends and a missing final line end read the same.
        assert_eq!(Table::from_csv(csv.replace("\r\n", "\n").trim_end()).unwrap(), t);
    }

    #[test]
    fn markdown_escapes_and_aligns() {
        let md = sample().to_markdown();
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[0], "| component | label | total\\_params |");
        assert_eq!(lines[1], "| --- | --- | ---: |");
        assert_eq!(lines[3], "| mlp | MLP line two | 5637144576 |");
        assert_eq!(lines[4], "| attention | a \\| b \\<script\\> |  |");
        assert_eq!(lines.len(), 5);
    }

    #[test]
    fn the_page_shows_labels_and_shown_cells_the_exports_keys_and_exact_cells() {
        let mut t = Table::labelled(&[("step_time_s", "Step time"), ("unit", "")]);
        t.push_shown(vec![("0.85".into(), "850 ms".into()), ("s".into(), "s".into())]);
        t.push(["1.5", "s"]);
        assert_eq!(t.to_csv(), "step_time_s,unit\r\n0.85,s\r\n1.5,s\r\n");
        assert_eq!((t.label(0), t.is_shown(1)), ("Step time", false));
        assert_eq!((t.shown_cell(0, 0), t.shown_cell(1, 0), t.cell(0, 0)), ("850 ms", "1.5", "0.85"));
        assert_eq!(Table::new(["a"]).label(0), "a");
        t.mark("bound");
        t.mark("flag");
        assert_eq!((t.classes_of(0), t.classes_of(1)), ("", "bound flag"));
    }

    #[test]
    fn short_rows_are_padded() {
        let mut t = Table::new(["a", "b"]);
        t.push(["1"]);
        assert_eq!(t.to_csv(), "a,b\r\n1,\r\n");
        assert_eq!(t.to_markdown(), "| a | b |\n| ---: | --- |\n| 1 |  |\n");
    }

    #[test]
    fn bad_csv_is_refused_with_the_line() {
        assert!(Table::from_csv("a,b\n\"x,1").unwrap_err().contains("line 2"));
        assert!(Table::from_csv("a\n\"x\"y").unwrap_err().contains("after a closing quote"));
        assert!(Table::from_csv("").unwrap_err().contains("header"));
        assert!(Table::from_csv(&"x".repeat(MAX_CSV_BYTES + 1)).unwrap_err().contains("limit"));
    }

    #[test]
    fn arbitrary_text_never_panics() {
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..5000 {
            let text: String = (0..(state % 40))
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    ['a', ',', '"', '\r', '\n', 'é', '|'][(state % 7) as usize]
                })
                .collect();
            if let Ok(t) = Table::from_csv(&text) {
                let _ = (t.to_csv(), t.to_markdown());
            }
        }
    }

    #[test]
    fn numeric_cells_are_what_f64_parsing_accepts_for_table_numbers() {
        for yes in ["0", "-1.5", "4096", "1e+300", "2.5E-7", ".5", "5.", "+3"] {
            assert!(looks_numeric(yes), "{yes}");
            assert!(yes.parse::<f64>().is_ok(), "{yes}");
        }
        for no in ["", "-", ".", "e5", "1e", "1.2.3", "NaN", "inf", "12 GB", "0x10", "1,000"] {
            assert!(!looks_numeric(no), "{no}");
        }
    }
}
