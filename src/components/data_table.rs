//! One component for every result table: a [`Table`] as HTML, its column labels as the
//! header and its cells as the page shows them (or as exported, in an embed). Numeric columns
//! are right-aligned (`class="num"`). When the table changes, only the cells whose text
//! changed are rewritten (rows are keyed by position and shape), so a repaint after an input
//! change touches a few text nodes, not the whole table.

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

/// Which column a row starts a group in (heading rows), and what a row shows.
#[derive(Clone, PartialEq)]
struct Shape {
    columns: usize,
    /// The group heading before each row, when the table is grouped and the row starts one.
    headings: Vec<Option<String>>,
    numeric: Vec<bool>,
}

fn shape(t: &Table, group_by: Option<usize>) -> Shape {
    let headings = (0..t.rows.len())
        .map(|r| {
            let g = group_by?;
            let this = t.cell(r, g);
            (r == 0 || t.cell(r - 1, g) != this).then(|| this.to_string())
        })
        .collect();
    Shape {
        columns: t.columns.len(),
        headings,
        numeric: (0..t.columns.len()).map(|c| t.is_numeric_column(c)).collect(),
    }
}

/// The table `id`, with its caption.
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
    let shape = Memo::new(move |_| table.with(|t| shape(t, group_by)));
    let shown = move |c: usize| group_by != Some(c) && (exact || table.with(|t| t.is_shown(c)));
    let header = move || {
        let columns = shape.with(|s| s.columns);
        let mut cells: Vec<AnyView> = (0..columns)
            .filter(|c| shown(*c))
            .map(|c| {
                let label = table.with(|t| {
                    if exact {
                        t.columns.get(c).cloned().unwrap_or_default()
                    } else {
                        t.label(c).to_string()
                    }
                });
                let num = shape.with(|s| s.numeric.get(c).copied().unwrap_or(false));
                view! { <th scope="col" class:num=num>{label}</th> }.into_any()
            })
            .collect();
        if action.is_some() {
            cells.push(view! { <th></th> }.into_any());
        }
        cells
    };
    let visible = move || shape.with(|s| (0..s.columns).filter(|c| shown(*c)).count() + usize::from(action.is_some()));
    let table_id = id.clone();
    // The first column shown heads its row.
    let head = move || shape.with(|s| (0..s.columns).find(|c| shown(*c)));
    let row = move |r: usize| {
        let columns = shape.with_untracked(|s| s.columns);
        let heading = shape.with_untracked(|s| s.headings.get(r).cloned().flatten());
        let heading = heading.map(|_| {
            let text = move || shape.with(|s| s.headings.get(r).cloned().flatten().unwrap_or_default());
            view! { <tr class="group"><th scope="colgroup" colspan=move || visible().to_string()>{text}</th></tr> }
        });
        let cells = (0..columns)
            .filter(|c| shown(*c))
            .map(|c| {
                let text = move || {
                    table.with(|t| if exact { t.cell(r, c).to_string() } else { t.shown_cell(r, c).to_string() })
                };
                let num = move || shape.with(|s| s.numeric.get(c).copied().unwrap_or(false));
                let cell_id = move || {
                    let ids = cell_ids.filter(|ids| ids.value == c)?;
                    Some(table.with(|t| {
                        let key = t.cell(r, ids.key);
                        format!("{}{}", ids.prefix, key.strip_prefix(ids.strip).unwrap_or(key).replace('.', "-"))
                    }))
                };
                if row_headers && Some(c) == head() {
                    view! { <th scope="row" id=cell_id class:num=num>{text}</th> }.into_any()
                } else if table.with_untracked(|t| t.is_link(c)) && !exact {
                    // A row without a target (an empty cell) shows no link: a link must have a name.
                    let link = move || {
                        let href = table.with(|t| t.cell(r, c).to_string());
                        (!href.is_empty()).then(|| view! { <a href=href>{text}</a> })
                    };
                    view! { <td id=cell_id>{link}</td> }.into_any()
                } else {
                    view! { <td id=cell_id class:num=num>{text}</td> }.into_any()
                }
            })
            .collect_view();
        let button = action.map(|a| {
            view! {
                <td>
                    <button type="button" class="small" id=format!("{}-{}-{r}", table_id, a.stem) on:click=move |_| a.on.run(r)>
                        {a.label}
                    </button>
                </td>
            }
        });
        let row_id = move || {
            let ids = row_ids?;
            Some(match ids.key {
                Some(key) => table.with(|t| format!("{}{}", ids.prefix, t.cell(r, key).replace('.', "-"))),
                None => format!("{}{r}", ids.prefix),
            })
        };
        let class = move || table.with(|t| t.classes_of(r).to_string());
        view! {
            {heading}
            <tr id=row_id class=class>{cells}{button}</tr>
        }
    };
    // Rows are kept while the table keeps its shape there: its column count and whether a
    // heading comes before it.
    let keys = move || {
        shape.with(|s| {
            (0..s.headings.len())
                .map(|r| (r, s.columns, s.headings.get(r).is_some_and(Option::is_some)))
                .collect::<Vec<_>>()
        })
    };
    let html = view! {
        <table id=id>
            {(!caption.is_empty()).then(|| view! { <caption>{caption}</caption> })}
            <thead><tr>{header}</tr></thead>
            <tbody>
                <For each=keys key=|k| *k let:k>
                    {row(k.0)}
                </For>
            </tbody>
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
