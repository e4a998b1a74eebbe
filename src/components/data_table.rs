//! One component for every result table: a [`Table`] as HTML, its column labels as the
//! header and its cells as the page shows them (or as exported, in an embed). Numeric columns
//! are right-aligned (`class="num"`). When the table changes, its rows are rebuilt in place, by
//! position: a text node is rewritten only where its text changed, but every attribute of a
//! rebuilt row is set again (erased attributes, [`DataTable`]); a filter that only marks rows
//! sets their classes and rebuilds nothing.

use leptos::prelude::*;
use shardcalc_charts::table::Table;

use super::table_exports::TableExports;

/// Cells with ids: the cell of column `value` gets the id `prefix` + the row's cell in
/// column `key`, without `strip` at its start, with dots as dashes (`row-decode-step_time_s`
/// for the key `inference.decode.step_time_s`).
#[derive(Clone, Copy)]
pub struct CellIds {
    /// The column holding each row's key.
    pub key: usize,
    /// The column whose cells get the ids.
    pub value: usize,
    /// What the ids start with.
    pub prefix: &'static str,
    /// What the keys start with and the ids leave out.
    pub strip: &'static str,
}

/// Ids on rows: `prefix` + the row's cell in column `key` with dots as dashes
/// (`spec-hbm-bandwidth`), or + the row's index when `key` is `None` (`collective-result-0`).
#[derive(Clone, Copy)]
pub struct RowIds {
    /// The column holding each row's key, or `None` for the row's index.
    pub key: Option<usize>,
    /// What the ids start with.
    pub prefix: &'static str,
}

/// A button at the end of every row: `#<id>-<stem>-<row>`, calling `on` with the row.
#[derive(Clone, Copy)]
pub struct RowAction {
    /// The button's text.
    pub label: &'static str,
    /// What its id says after the table's (`explore`).
    pub stem: &'static str,
    /// What a click does, given the row's index.
    pub on: Callback<usize>,
}

/// How a table is rendered: the props of [`DataTable`] that are not the table.
#[derive(Clone, Copy)]
struct Layout {
    group_by: Option<usize>,
    cell_ids: Option<CellIds>,
    row_ids: Option<RowIds>,
    action: Option<RowAction>,
    row_headers: bool,
    exact: bool,
}

impl Layout {
    /// The columns shown: not the grouping column, and (unless exact) only labelled ones.
    fn columns(&self, t: &Table) -> Vec<usize> {
        (0..t.columns.len()).filter(|c| self.group_by != Some(*c) && (self.exact || t.is_shown(*c))).collect()
    }

    /// The header row's cells.
    fn header(&self, t: &Table) -> Vec<AnyView> {
        let mut cells: Vec<AnyView> = self
            .columns(t)
            .into_iter()
            .map(|c| {
                let label =
                    if self.exact { t.columns.get(c).cloned().unwrap_or_default() } else { t.label(c).to_string() };
                view! { <th scope="col" class:num=t.is_numeric_column(c)>{label}</th> }.into_any()
            })
            .collect();
        if self.action.is_some() {
            cells.push(view! { <th></th> }.into_any());
        }
        cells
    }

    /// Every row, each preceded by its group's heading row where a group starts.
    fn rows(&self, t: &Table, table_id: &str, classes: Memo<Vec<String>>) -> Vec<AnyView> {
        let columns = self.columns(t);
        let numeric: Vec<bool> = columns.iter().map(|c| t.is_numeric_column(*c)).collect();
        let width = (columns.len() + usize::from(self.action.is_some())).to_string();
        let mut out = Vec::with_capacity(t.rows.len());
        for r in 0..t.rows.len() {
            if let Some(g) = self.group_by {
                let this = t.cell(r, g);
                if r == 0 || t.cell(r - 1, g) != this {
                    let heading = this.to_string();
                    let width = width.clone();
                    out.push(
                        view! { <tr class="group"><th scope="colgroup" colspan=width>{heading}</th></tr> }.into_any(),
                    );
                }
            }
            let cells: Vec<AnyView> = columns
                .iter()
                .zip(&numeric)
                .map(|(&c, &num)| {
                    let text = if self.exact { t.cell(r, c).to_string() } else { t.shown_cell(r, c).to_string() };
                    let id = self.cell_ids.filter(|ids| ids.value == c).map(|ids| {
                        let key = t.cell(r, ids.key);
                        format!("{}{}", ids.prefix, key.strip_prefix(ids.strip).unwrap_or(key).replace('.', "-"))
                    });
                    if self.row_headers && Some(&c) == columns.first() {
                        // The first column shown heads its row.
                        view! { <th scope="row" id=id class:num=num>{text}</th> }.into_any()
                    } else if t.is_link(c) && !self.exact {
                        // A row without a target (an empty cell) shows no link: a link must have a name.
                        let href = t.cell(r, c).to_string();
                        let link = (!href.is_empty()).then(|| view! { <a href=href>{text}</a> });
                        view! { <td id=id>{link}</td> }.into_any()
                    } else {
                        view! { <td id=id class:num=num>{text}</td> }.into_any()
                    }
                })
                .collect();
            let button = self.action.map(|a| {
                view! {
                    <td>
                        <button type="button" class="small" id=format!("{table_id}-{}-{r}", a.stem) on:click=move |_| a.on.run(r)>
                            {a.label}
                        </button>
                    </td>
                }
            });
            let row_id = self.row_ids.map(|ids| match ids.key {
                Some(key) => format!("{}{}", ids.prefix, t.cell(r, key).replace('.', "-")),
                None => format!("{}{r}", ids.prefix),
            });
            let class = move || classes.with(|c| c.get(r).cloned().unwrap_or_default());
            out.push(view! { <tr id=row_id class=class>{cells}{button}</tr> }.into_any());
        }
        out
    }
}

/// The table `id`, with its caption. Rendered from the table as a whole whenever anything but
/// its rows' classes changes; the rows and cells already on the page are kept and their text
/// is rewritten where it changed (Leptos rebuilds a list of views of the same kind in place,
/// by position). A change of classes alone (a filter marking rows) sets just those classes.
#[component]
pub fn DataTable(
    /// Element id of the `<table>`.
    #[prop(into)]
    id: String,
    /// The table.
    #[prop(into)]
    table: Signal<Table>,
    /// A caption.
    #[prop(optional)]
    caption: &'static str,
    /// Group the rows under heading rows by this column's cells (the column itself is not
    /// shown).
    #[prop(optional)]
    group_by: Option<usize>,
    /// Ids on one column's cells.
    #[prop(optional)]
    cell_ids: Option<CellIds>,
    /// Ids on the rows.
    #[prop(optional)]
    row_ids: Option<RowIds>,
    /// A button on every row.
    #[prop(optional)]
    action: Option<RowAction>,
    /// The first column as row headers (`<th scope="row">`).
    #[prop(optional)]
    row_headers: bool,
    /// Cells as exported instead of as shown (an embed of the table).
    #[prop(optional)]
    exact: bool,
    /// The table in a scrollable `div.table-wrap`, with its downloads under it
    /// ([`TableExports`] of this name).
    #[prop(optional)]
    exports: Option<&'static str>,
) -> impl IntoView {
    let layout = Layout { group_by, cell_ids, row_ids, action, row_headers, exact };
    let table_id = id.clone();
    // The rows' classes apart from the rest: a filter that only marks rows (the Validation
    // page's) sets those classes and rebuilds nothing. A rebuild is costly: with
    // `--cfg erase_components` (.cargo/config.toml) an element's attributes are a
    // `Vec<AnyAttribute>`, whose rebuild in tachys 0.2 removes and sets every attribute again,
    // changed or not (1,800 DOM writes per filter change, 19-24 ms; docs/browser-bench.md).
    let classes = Memo::new(move |_| table.with(|t| t.classes.clone()));
    let body = Memo::new(move |_| {
        let mut t = table.get();
        t.classes.clear();
        t
    });
    let html = view! {
        <table id=id>
            {(!caption.is_empty()).then(|| view! { <caption>{caption}</caption> })}
            <thead><tr>{move || body.with(|t| layout.header(t))}</tr></thead>
            <tbody>{move || body.with(|t| layout.rows(t, &table_id, classes))}</tbody>
        </table>
    };
    // Type-erased: an embed of the exports shows this component again.
    match exports {
        Some(name) => view! {
            <div class="table-wrap">{html}</div>
            <div class="actions"><TableExports name=name table=table /></div>
        }
        .into_any(),
        None => html.into_any(),
    }
}
