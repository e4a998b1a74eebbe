//! The exports and "Save & share" in the browser (wasm-bindgen-test, headless Chromium):
//! `cargo test -p shardcalc --target wasm32-unknown-unknown --test web_exports`.
//!
//! Their buttons are HTML text handled by one delegated handler (`src/delegated.rs`), so
//! these tests click them as a person does and check the files offered (captured by
//! replacing `HTMLAnchorElement.prototype.click`, as the e2e tests do), the messages, and the
//! embed of one table or chart.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use leptos::prelude::*;
use shardcalc::components::{CellIds, ChartCanvas, DataTable, RowAction, RowIds, TableExports};
use shardcalc::embed::{Embed, EmbedMissing};
use shardcalc::App;
use shardcalc_charts::table::Table;
use shardcalc_charts::Chart;
use shardcalc_core::scenario::{ModelSource, Scenario, Sections};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::HtmlInputElement;

wasm_bindgen_test_configure!(run_in_browser);

mod support;
use support::{document, fire, sleep, Page};

/// From now on, downloads are recorded instead of offered (and earlier ones forgotten).
fn capture_downloads() {
    js_sys::eval(
        "window.__downloads = []; window.__blobs = new Map();\
         if (!window.__create) window.__create = URL.createObjectURL.bind(URL);\
         URL.createObjectURL = (b) => { const u = window.__create(b); window.__blobs.set(u, b); return u; };\
         HTMLAnchorElement.prototype.click = function () { window.__downloads.push({ name: this.download, href: this.href }); };",
    )
    .unwrap();
}

/// The files offered since [`capture_downloads`]: `(name, type, text)`; `text` is the URL
/// itself for `data:` downloads.
async fn downloads() -> Vec<(String, String, String)> {
    let promise = js_sys::eval(
        "Promise.all(window.__downloads.map(async (d) => { const b = window.__blobs.get(d.href);\
         return b ? [d.name, b.type, await b.text()] : [d.name, d.href.split(';')[0].replace('data:', ''), d.href]; }))",
    )
    .unwrap();
    let list = JsFuture::from(js_sys::Promise::from(promise)).await.unwrap();
    js_sys::Array::from(&list)
        .iter()
        .map(|d| {
            let d = js_sys::Array::from(&d);
            let part = |i| d.get(i).as_string().unwrap_or_default();
            (part(0), part(1), part(2))
        })
        .collect()
}

fn sample() -> Table {
    let mut t = Table::new(["component", "params"]);
    t.push(["embedding <&>", "525336576"]);
    t.push(["total", "8030261248"]);
    t
}

/// Waits until `selector` exists and its text contains `needle` (replies come later).
async fn wait_for_text(page: &Page, selector: &str, needle: &str) -> String {
    for _ in 0..150 {
        if page.exists(selector) && page.text(selector).contains(needle) {
            return page.text(selector);
        }
        sleep(20).await;
    }
    let shown = if page.exists(selector) { page.text(selector) } else { "(absent)".into() };
    panic!("{selector} never showed {needle:?}: {shown}");
}

/// "Download CSV" and "Download Markdown" offer the table: its column names and exact cells.
#[wasm_bindgen_test]
async fn table_downloads_carry_the_table() {
    let page = Page::mount(|| view! { <TableExports name="sample" table=sample() /> }.into_any(), 1).await;
    assert_eq!(page.text("#table-sample button.csv"), "Download CSV");
    assert_eq!(page.text("#sample-md"), "Download Markdown");
    capture_downloads();
    for id in ["#sample-csv", "#sample-md"] {
        page.click(id).await;
    }
    let got = downloads().await;
    let expected = [
        ("shardcalc-sample.csv", "text/csv", sample().to_csv()),
        ("shardcalc-sample.md", "text/markdown", sample().to_markdown()),
    ];
    assert_eq!(got.len(), expected.len(), "{got:?}");
    for (g, (name, mime, text)) in got.iter().zip(expected) {
        assert_eq!((g.0.as_str(), g.1.as_str(), g.2.as_str()), (name, mime, text.as_str()));
    }
}

/// A component unmounted takes its handler with it; one mounted later under the same name
/// downloads its own data.
#[wasm_bindgen_test]
async fn a_remounted_table_downloads_its_own_data() {
    let table = |column: &str, cell: &str| {
        let mut t = Table::new([column]);
        t.push([cell]);
        t
    };
    let first = Page::mount(move || view! { <TableExports name="again" table=table("x", "1") /> }.into_any(), 1).await;
    drop(first);
    let page = Page::mount(move || view! { <TableExports name="again" table=table("y", "2") /> }.into_any(), 1).await;
    capture_downloads();
    page.click("#again-csv").await;
    let got = downloads().await;
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].2, "y\r\n2\r\n", "CSV lines end in CRLF (RFC 4180)");
}

/// One table, rendered on the page: labels and cells as shown, columns without a label left
/// out, rows grouped under headings, ids on a column's cells, a button per row; a change
/// rewrites only the cells that changed.
#[wasm_bindgen_test]
async fn a_data_table_shows_the_cells_as_shown_and_follows_changes() {
    let clicked = RwSignal::new(None::<usize>);
    let table = RwSignal::new(Table::default());
    let make = |step: &str| {
        let mut t = Table::labelled(&[("group", ""), ("key", "Key"), ("step_time_s", "Step time"), ("unit", "")]);
        t.push_shown(vec![
            ("Decode".into(), "Decode".into()),
            ("decode.step".into(), "decode.step".into()),
            (step.into(), format!("{step} s")),
            ("s".into(), "s".into()),
        ]);
        t.push(["Prefill", "prefill.ttft", "2", "s"]);
        t
    };
    table.set(make("0.5"));
    let page = Page::mount(
        move || {
            let ids = CellIds { key: 1, value: 2, prefix: "row-", strip: "" };
            let action = RowAction { label: "Go", stem: "go", on: Callback::new(move |i| clicked.set(Some(i))) };
            view! { <DataTable id="t" table=table group_by=0 cell_ids=ids action=action /> }.into_any()
        },
        1,
    )
    .await;
    let headers: Vec<String> =
        (0..page.count("#t thead th")).map(|i| page.text(&format!("#t thead th:nth-child({})", i + 1))).collect();
    assert_eq!(headers, ["Key", "Step time", ""]);
    assert_eq!(page.count("#t tr.group"), 2, "a heading per group");
    assert_eq!(page.text("#t tr.group"), "Decode");
    assert_eq!(page.text("#row-decode-step"), "0.5 s");
    assert_eq!(page.text("#row-prefill-ttft"), "2");
    assert_eq!(page.attr("#row-prefill-ttft", "class"), "num");
    let cell: web_sys::Node = page.find("#row-decode-step");
    table.set(make("0.25"));
    page.settle().await;
    assert_eq!(page.text("#row-decode-step"), "0.25 s");
    assert!(cell.is_same_node(Some(&page.find::<web_sys::Node>("#row-decode-step"))), "the same cell, rewritten");
    page.click("#t-go-1").await;
    assert_eq!(clicked.get_untracked(), Some(1));
}

/// A new table whose rows differ only in their classes (the Validation page's filter marking
/// rows) sets those classes and writes nothing else: rebuilding the rows would set every one of
/// their attributes again (erased attributes, docs/browser-bench.md: 1,801 DOM writes per filter
/// change before).
#[wasm_bindgen_test]
async fn a_change_of_row_classes_alone_writes_only_those_classes() {
    let make = |marked: bool| {
        let mut t = Table::labelled(&[("run", "Run"), ("mfu", "MFU")]);
        t.push(["a", "51.5"]);
        if marked {
            t.mark("filtered-out");
        }
        t.push(["b", "40.2"]);
        t
    };
    let table = RwSignal::new(make(false));
    let page = Page::mount(
        move || {
            let ids = RowIds { key: Some(0), prefix: "run-" };
            view! { <DataTable id="c" table=table row_headers=true row_ids=ids /> }.into_any()
        },
        1,
    )
    .await;
    js_sys::eval(
        "window.__writes = []; window.__observer = new MutationObserver((r) => window.__writes.push(...r));\
         window.__observer.observe(document.getElementById('c'), { subtree: true, childList: true, characterData: true, attributes: true });",
    )
    .unwrap();
    let writes = || {
        let list = js_sys::eval(
            "window.__writes.push(...window.__observer.takeRecords());\
             const w = window.__writes.map((m) => [m.type, m.target.nodeName.toLowerCase(), m.attributeName || ''].join(' '));\
             window.__writes = []; w",
        )
        .unwrap();
        js_sys::Array::from(&list).iter().map(|w| w.as_string().unwrap_or_default()).collect::<Vec<_>>()
    };
    table.set(make(true));
    page.settle().await;
    assert_eq!(writes(), ["attributes tr class"]);
    assert_eq!(page.attr("#run-a", "class"), "filtered-out");
    assert_eq!(page.text("#run-a th"), "a");
    // Anything else still rebuilds the rows, text rewritten where it changed.
    table.update(|t| t.rows[1][1] = "41.0".into());
    page.settle().await;
    assert_eq!(page.text("#run-b td"), "41.0");
    assert!(writes().contains(&"characterData #text ".to_string()));
    js_sys::eval("window.__observer.disconnect()").unwrap();
}

/// A link column shows each row's target as a link named by its shown text; a row without
/// a target shows an empty cell, not a link without a name.
#[wasm_bindgen_test]
async fn a_link_column_links_only_rows_with_a_target() {
    let mut t = Table::labelled(&[("run", "Run"), ("link", "Scenario")]);
    t.links.push(1);
    t.push_shown(vec![("a".into(), "a".into()), ("training.html#s=x".into(), "Open".into())]);
    t.push_shown(vec![("b".into(), "b".into()), (String::new(), String::new())]);
    let table = RwSignal::new(t);
    let page = Page::mount(move || view! { <DataTable id="l" table=table /> }.into_any(), 1).await;
    assert_eq!(page.count("#l tbody a"), 1, "only the row with a target links");
    assert_eq!(page.attr("#l tbody a", "href"), "training.html#s=x");
    assert_eq!(page.text("#l tbody a"), "Open");
    assert_eq!(page.count("#l tbody tr"), 2);
}

/// `?embed=table-<name>` renders that table (exact cells, escaped) and marks it the embed
/// target; other tables and charts render no table and are not targets.
#[wasm_bindgen_test]
async fn an_embedded_table_shows_its_cells() {
    let page = Page::mount(
        || {
            provide_context(Embed::from_query("?embed=table-sample"));
            view! {
                <TableExports name="sample" table=sample() />
                <TableExports name="other" table=sample() />
                <EmbedMissing />
            }
            .into_any()
        },
        1,
    )
    .await;
    assert_eq!(page.count(".embed-target"), 1);
    assert!(page.exists("#table-sample > .embed-target.embed-table #embed-sample"));
    assert!(!page.exists("#embed-other"));
    let rows = page.all("#embed-sample tr");
    let mut shown = Vec::new();
    for i in 0..rows.length() {
        let row: web_sys::Element = rows.item(i).unwrap().unchecked_into();
        let cells = row.query_selector_all("th, td").unwrap();
        shown.push(
            (0..cells.length()).map(|j| cells.item(j).unwrap().text_content().unwrap_or_default()).collect::<Vec<_>>(),
        );
    }
    let t = sample();
    let mut expected = vec![t.columns.clone()];
    expected.extend(t.rows.clone());
    assert_eq!(shown, expected);
    assert_eq!(page.attr("#embed-sample th:nth-child(2)", "class"), "num");
    assert!(!page.exists("#embed-missing"), "the target is on the page");
}

/// An embed name that is not on the page lists the ones that are.
#[wasm_bindgen_test]
async fn a_missing_embed_lists_what_is_there() {
    let page = Page::mount(
        || {
            provide_context(Embed::from_query("?embed=nothing"));
            view! {
                <TableExports name="sample" table=sample() />
                <EmbedMissing />
            }
            .into_any()
        },
        1,
    )
    .await;
    assert_eq!(page.count(".embed-target"), 0);
    assert_eq!(
        page.text("#embed-missing"),
        "Nothing called “nothing” to embed on this page. Charts and tables here: table-sample."
    );
}

fn params_chart() -> Chart {
    shardcalc_charts::catalog::build("params", &Scenario::default()).unwrap()
}

/// "Download PNG" offers the canvas; "Download SVG" the worker's SVG of the catalog chart
/// (the CLI's, byte for byte); a chart the catalog does not know says why under its caption.
#[wasm_bindgen_test]
async fn chart_downloads_and_their_failure() {
    shardcalc::worker_client::answer_locally(shardcalc::worker_handler::answer);
    let page = Page::mount(
        || {
            let chart = Memo::new(|_| Some(params_chart()));
            view! {
                <App url_sync=false sections=Sections::ALL>
                    <ChartCanvas id="chart-params" chart=chart caption="Parameters".to_string() />
                    <ChartCanvas id="chart-unknown" chart=chart caption="Not in the catalog".to_string() />
                </App>
            }
            .into_any()
        },
        2,
    )
    .await;
    assert_eq!(page.draws("#chart-params"), 1);
    assert_eq!(page.text("#chart-params-png"), "Download PNG");
    assert!(!page.exists("figure.embed-target"), "no embed");
    capture_downloads();
    page.click("#chart-params-png").await;
    page.click("#chart-params-svg").await;
    let mut got = downloads().await;
    for _ in 0..100 {
        if got.len() >= 2 {
            break;
        }
        sleep(20).await;
        got = downloads().await;
    }
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!((got[0].0.as_str(), got[0].1.as_str()), ("shardcalc-chart-params.png", "image/png"));
    assert!(got[0].2.starts_with("data:image/png;base64,"));
    assert_eq!((got[1].0.as_str(), got[1].1.as_str()), ("shardcalc-chart-params.svg", "image/svg+xml"));
    assert_eq!(got[1].2, shardcalc::chart_svg(&params_chart()).unwrap());

    page.click("#chart-unknown-svg").await;
    let text = wait_for_text(&page, "#chart-unknown-export-error", "SVG export failed: ").await;
    assert!(text.len() > "SVG export failed: ".len(), "{text}");
    assert_eq!(page.attr("#chart-unknown-export-error", "role"), "alert");
    // Under the caption, before the buttons.
    assert!(page.exists("#chart-unknown + figcaption + p#chart-unknown-export-error + .actions #chart-unknown-svg"));
    assert!(!page.exists("#chart-params-export-error"));
}

/// `?embed=<chart>` marks that chart's figure as the embed target, and only it.
#[wasm_bindgen_test]
async fn an_embedded_chart_is_the_target() {
    let page = Page::mount(
        || {
            provide_context(Embed::from_query("?embed=chart-params"));
            let chart = Memo::new(|_| Some(params_chart()));
            view! {
                <ChartCanvas id="chart-params" chart=chart caption="Parameters".to_string() />
                <ChartCanvas id="chart-other" chart=chart caption="Other".to_string() />
                <TableExports name="params" table=sample() />
            }
            .into_any()
        },
        2,
    )
    .await;
    assert_eq!(page.count(".embed-target"), 1);
    assert!(page.exists("figure.chart.embed-target > #chart-params"));
    assert!(!page.exists("#embed-params"), "the table of the same name is not embedded");
}

/// "Save & share": the placeholder is the model's name; "Download JSON" offers the page's
/// scenario; saving says so; a file opens, and one that is not a scenario is refused.
#[wasm_bindgen_test]
async fn share_bar_saves_downloads_and_opens() {
    let page =
        Page::mount(|| view! { <App url_sync=false sections=Sections::ALL><p>"view"</p></App> }.into_any(), 2).await;
    assert_eq!(page.text("#share summary"), "Save & share");
    let name: HtmlInputElement = page.find("#save-name");
    assert_eq!(name.placeholder(), "Llama 3 8B");

    capture_downloads();
    page.click("#download-json").await;
    let got = downloads().await;
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!((got[0].0.as_str(), got[0].1.as_str()), ("shardcalc-scenario.json", "application/json"));
    assert_eq!(Scenario::from_json(&got[0].2).unwrap(), Scenario::default());

    assert!(!page.exists("#share-message"));
    page.type_into("#save-name", "web_exports test <b>").await;
    page.click("#save-button").await;
    assert_eq!(page.text("#share-message"), "Saved “web_exports test <b>” in this browser. The Saved page lists it.");
    assert_eq!(page.attr("#share-message", "class"), "share-message ok");
    assert_eq!(page.attr("#share-message", "role"), "status");
    assert!(!page.exists("#share-message b"));
    for entry in shardcalc::share::storage::list().unwrap() {
        if entry.name() == "web_exports test <b>" {
            shardcalc::share::storage::remove(&entry.key).unwrap();
        }
    }

    // A file holding a 70B scenario, then one that is not JSON.
    let mut s = Scenario { model: ModelSource::Preset("llama-3-70b".into()), ..Scenario::default() };
    s.workload.seq_len = 2048;
    choose_file("seventy.json", &serde_json::to_string(&s).unwrap());
    wait_for_text(&page, "#share-message", "Opened seventy.json.").await;
    assert_eq!(page.attr("#share-message", "class"), "share-message ok");
    for _ in 0..50 {
        if name.placeholder() == "Llama 3 70B" {
            break;
        }
        sleep(20).await;
    }
    assert_eq!(name.placeholder(), "Llama 3 70B", "the placeholder follows the model");
    choose_file("notes.json", "{\"model\": ");
    let text = wait_for_text(&page, "#share-message", "notes.json is not a shardcalc scenario").await;
    assert!(text.contains("EOF while parsing"), "{text}");
    assert_eq!(page.attr("#share-message", "class"), "share-message field-error");
    assert_eq!(page.count("#share-message"), 1);
}

/// Puts a file named `name` holding `text` in `#open-json` and fires `change`, as choosing
/// it does.
fn choose_file(name: &str, text: &str) {
    let input: HtmlInputElement = document().get_element_by_id("open-json").unwrap().unchecked_into();
    let set = js_sys::Function::new_with_args(
        "input, name, text",
        "const t = new DataTransfer(); t.items.add(new File([text], name, { type: 'application/json' })); input.files = t.files;",
    );
    set.call3(&wasm_bindgen::JsValue::NULL, &input, &name.into(), &text.into()).unwrap();
    fire(&input, "change");
}
