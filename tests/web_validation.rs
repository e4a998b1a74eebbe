//! The validation page's components in headless Chromium (wasm-bindgen-test):
//! `cargo test -p shardcalc --target wasm32-unknown-unknown --test web_validation`.
//! The page mounts in its own container, removed at the end.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use leptos::prelude::*;
use shardcalc::views::validation::{csv, ValidationView};
use shardcalc::App;
use shardcalc_core::permalink;
use shardcalc_core::scenario::Sections;
use shardcalc_core::validation::bundled_table;
use shardcalc_core::validation::fit::Split;
use shardcalc_core::validation::table::group_stats;
use shardcalc_core::validation::PredictionMode;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

mod support;
use support::Page;

/// The validation page.
async fn open() -> Page {
    Page::mount(|| view! { <App url_sync=false sections=Sections::NONE><ValidationView /></App> }.into_any(), 1).await
}

fn held_back_median(mode: PredictionMode) -> String {
    let rows = &bundled_table::bundled().runs;
    format!("{:.1} points", group_stats(rows, None, Some(Split::HeldBack), mode).stats.median_abs_mfu_pts)
}

/// Every run is a row; the headline is core's held-back median; the roofline is the default.
#[wasm_bindgen_test]
async fn shows_every_run_and_the_held_back_error() {
    let page = open().await;
    assert_eq!(page.count("#validation-runs tbody tr[data-run]:not([hidden])"), 51);
    assert_eq!(page.text("#validation-count"), "Showing 51 of 51 runs.");
    assert!(page.find::<HtmlInputElement>("#prediction-ideal").checked());
    assert_eq!(page.text("#card-held-back-mfu-value"), held_back_median(PredictionMode::Ideal));
    assert_eq!(page.count("#validation-calibration tbody tr[data-parameter]"), 5);
    assert_eq!(page.count("#validation-guide tbody tr"), bundled_table::bundled().guides.len() as u32);
    assert!(page.count("#validation-unpredicted tbody tr") >= 7);
    assert!(page.draws("#chart-validation-scatter") >= 1 && page.draws("#chart-validation-residuals") >= 1);
}

/// The switch writes `conventions.prediction`: the numbers, the charts and the links follow.
#[wasm_bindgen_test]
async fn the_switch_changes_numbers_charts_and_links() {
    let page = open().await;
    let before = page.draws("#chart-validation-scatter");
    page.click("#prediction-calibrated").await;
    assert_eq!(page.text("#card-held-back-mfu-value"), held_back_median(PredictionMode::Calibrated));
    assert!(page.text("#validation-summary caption").starts_with("Calibrated"));
    assert!(page.draws("#chart-validation-scatter") > before, "the scatter is redrawn");
    let link: HtmlElement = page.find("tr[data-run='v5p-readme-32b-1xv5p-128'] a.open-training");
    let href = link.get_attribute("href").unwrap();
    let payload = href.strip_prefix("training.html#s=").expect("a training-page link");
    let s = permalink::decode(payload).unwrap();
    assert_eq!(s.conventions.prediction, PredictionMode::Calibrated);
    let mesh = s.training.as_ref().and_then(|t| t.mesh).unwrap();
    assert_eq!((mesh.fsdp, mesh.tp, mesh.dp), (16, 4, 1), "the run's own mesh");
    page.click("#prediction-ideal").await;
    assert_eq!(page.text("#card-held-back-mfu-value"), held_back_median(PredictionMode::Ideal));
}

/// Filters by chip, model and split; the CSV holds the rows shown with exact numbers.
#[wasm_bindgen_test]
async fn filters_and_csv() {
    let page = open().await;
    let first: HtmlElement = page.find("#validation-runs tbody tr[data-run]");
    page.choose("#validation-filter-chip", "tpu-v4").await;
    assert!(first.is_connected(), "a filter hides rows, it does not rebuild the table");
    assert_eq!(page.count("#validation-runs tbody tr[data-run]:not([hidden])"), 6);
    assert_eq!(page.text("#validation-count"), "Showing 6 of 51 runs.");
    page.choose("#validation-filter-split", "held_back").await;
    assert_eq!(page.count("#validation-runs tbody tr[data-run]:not([hidden])"), 3);
    page.choose("#validation-filter-chip", "").await;
    page.choose("#validation-filter-split", "").await;
    let model = bundled_table::bundled().runs.last().unwrap().model.clone();
    page.choose("#validation-filter-model", &model).await;
    assert_eq!(page.count("#validation-runs tbody tr[data-run]:not([hidden])"), 5, "the five A3 runs");

    let rows: Vec<_> = bundled_table::bundled().runs.iter().collect();
    let text = csv::runs(&rows).to_csv();
    assert_eq!(text.lines().count(), 52);
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "calibrated_mfu_pct").unwrap();
    let first: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
    let value: f64 = first[col].parse().unwrap();
    assert_eq!(value, rows[0].calibrated.as_ref().unwrap().mfu_pct, "exact, not rounded");
    assert!(page.find::<HtmlElement>("#validation-runs-csv").text_content().unwrap().contains("CSV"));
}

/// The tables are HTML text: every text and attribute value is escaped.
#[wasm_bindgen_test]
fn html_text_escapes_text_and_attributes() {
    use shardcalc::html_text::{attr, escape, table, with_short};
    assert_eq!(escape("a<b>&\"c\""), "a&lt;b&gt;&amp;&quot;c&quot;");
    assert_eq!(attr("data-run", "x\"><script>"), " data-run=\"x&quot;&gt;&lt;script&gt;\"");
    assert_eq!(with_short("1 < 2", "a&b"), "1 &lt; 2 <span class=\"short\">a&amp;b</span>");
    assert_eq!(with_short("x", ""), "x");
    assert_eq!(
        table("t<", "c&", &["#n", "name"], "<tr></tr>"),
        "<div class=\"table-wrap\"><table id=\"t&lt;\"><caption>c&amp;</caption><thead><tr>\
         <th scope=\"col\" class=\"num\">n</th><th scope=\"col\">name</th></tr></thead>\
         <tbody><tr></tr></tbody></table></div>"
    );
}
