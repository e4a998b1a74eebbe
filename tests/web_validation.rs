//! The validation page's components in headless Chromium (wasm-bindgen-test):
//! `cargo test -p shardcalc --target wasm32-unknown-unknown --test web_validation`.
//! The page mounts in its own container, removed at the end. Expected numbers come from
//! core's evaluation of the page (`shardcalc_core::view::validation`) and its bundled tables.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use leptos::prelude::*;
use shardcalc::views::validation::{tables, ValidationView};
use shardcalc::App;
use shardcalc_core::permalink;
use shardcalc_core::scenario::{Scenario, Sections};
use shardcalc_core::validation::bundled_table;
use shardcalc_core::validation::fit::Split;
use shardcalc_core::validation::{bundled_serving, PredictionMode};
use shardcalc_core::view::validation::evaluate;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

mod support;
use support::Page;

/// The validation page.
async fn open() -> Page {
    Page::mount(|| view! { <App url_sync=false sections=Sections::NONE><ValidationView /></App> }.into_any(), 1).await
}

/// The headline as core states it for `mode`.
fn held_back_median(mode: PredictionMode) -> String {
    let mut s = Scenario::default();
    s.conventions.prediction = mode;
    format!("{:.1} points", evaluate(&s).held_back.stats.median_abs_mfu_pts)
}

/// The scenario a link in the page opens (`<page>#s=...`).
fn linked(href: &str, page: &str) -> Scenario {
    let payload = href.strip_prefix(page).and_then(|h| h.strip_prefix("#s=")).unwrap_or_else(|| panic!("{href}"));
    permalink::decode(payload).unwrap()
}

/// Every run is a row; the headline is core's held-back median (the calibration's, the
/// default); the splits, the calibration and the serving runs are all there.
#[wasm_bindgen_test]
async fn shows_every_run_the_splits_and_the_held_back_error() {
    let page = open().await;
    assert_eq!(page.count("#validation-runs tbody tr:not(.filtered-out)"), 51);
    assert_eq!(page.text("#validation-count"), "Showing 51 of 51 runs.");
    assert!(page.find::<HtmlInputElement>("#prediction-calibrated").checked());
    assert_eq!(page.text("#card-held-back-mfu-value"), held_back_median(PredictionMode::Calibrated));
    assert!(page.text("#card-held-back-step").contains("leave one chip generation out"));
    // Three splits, each pooled over its folds (marked total) with whether it meets the goal.
    assert_eq!(page.count("#validation-splits tbody tr.total"), 3);
    let splits = page.text("#validation-splits");
    assert!(splits.contains("leave one model family out") && splits.contains("tpu-v5e") && splits.contains("met"));
    // One row per fitted parameter of the bundled file (five since the one sustained fraction).
    let parameters = shardcalc_core::validation::calibration::bundled_file().unwrap().parameters.len() as u32;
    assert_eq!(parameters, 5);
    assert_eq!(page.count("#validation-calibration tbody tr"), parameters, "the physical parameters");
    assert!(page.exists("#parameter-straggler"));
    assert_eq!(page.count("#validation-guide tbody tr"), bundled_table::bundled().guides.len() as u32);
    // What nothing predicts (the Ironwood guide's measured changes are case studies now).
    let unpredicted = bundled_table::bundled().unpredicted.len() as u32;
    assert!(unpredicted >= 1);
    assert_eq!(page.count("#validation-unpredicted tbody tr"), unpredicted);
    let cases = shardcalc_core::validation::case_studies::CASES.len() as u32;
    assert_eq!(page.count("#validation-case-studies tbody tr"), cases, "the Ironwood guide's case studies");
    assert!(page.draws("#chart-validation-scatter") >= 1 && page.draws("#chart-validation-residuals") >= 1);
    // The serving validation: every run, its sides and groups, its scatter.
    let serving = bundled_serving::bundled();
    assert_eq!(page.count("#serving-validation-runs tbody tr"), serving.rows.len() as u32);
    assert_eq!(page.count("#serving-validation-sides tbody tr"), 3);
    assert_eq!(page.count("#serving-validation-groups tbody tr"), serving.groups.len() as u32);
    assert!(page.draws("#chart-validation-serving") >= 1);
}

/// The switch writes `conventions.prediction`: the numbers, the charts and the links follow.
#[wasm_bindgen_test]
async fn the_switch_changes_numbers_charts_and_links() {
    let page = open().await;
    let before = page.draws("#chart-validation-scatter");
    let serving_before = page.draws("#chart-validation-serving");
    page.click("#prediction-ideal").await;
    assert_eq!(page.text("#card-held-back-mfu-value"), held_back_median(PredictionMode::Ideal));
    assert!(page.draws("#chart-validation-scatter") > before, "the scatter is redrawn");
    assert!(page.draws("#chart-validation-serving") > serving_before, "the serving scatter is redrawn");
    let s = linked(&page.attr("#run-v5p-readme-32b-1xv5p-128 a", "href"), "training.html");
    assert_eq!(s.conventions.prediction, PredictionMode::Ideal);
    let mesh = s.training.as_ref().and_then(|t| t.mesh).unwrap();
    assert_eq!((mesh.fsdp, mesh.tp, mesh.dp), (16, 4, 1), "the run's own mesh");
    page.click("#prediction-calibrated").await;
    assert_eq!(page.text("#card-held-back-mfu-value"), held_back_median(PredictionMode::Calibrated));
    let s = linked(&page.attr("#run-v5p-readme-32b-1xv5p-128 a", "href"), "training.html");
    assert_eq!(s.conventions.prediction, PredictionMode::Calibrated);
}

/// Each serving run links to its own scenario on the Serving page, in the mode shown.
#[wasm_bindgen_test]
async fn serving_runs_open_on_the_serving_page() {
    let page = open().await;
    let serving = bundled_serving::bundled();
    let row = serving.rows.iter().find(|r| r.scenario.is_some()).unwrap();
    let href = page.attr(&format!("#serving-run-{} a", row.id.replace('.', "-")), "href");
    let s = linked(&href, "serving.html");
    assert_eq!(s.conventions.prediction, PredictionMode::Calibrated);
    let mut want = row.scenario.clone().unwrap();
    want.conventions.prediction = PredictionMode::Calibrated;
    assert_eq!(s, want, "the run's own model, chips, formats, lengths and batch");
    assert!(s.inference.is_some());
}

/// Filters by chip, model and side of the interleaved split; the exports hold the rows
/// shown, with exact numbers.
#[wasm_bindgen_test]
async fn filters_and_csv() {
    let page = open().await;
    let first: HtmlElement = page.find("#validation-runs tbody tr");
    page.choose("#validation-filter-chip", "tpu-v4").await;
    assert!(first.is_connected(), "a filter rewrites cells, it does not rebuild the table");
    assert_eq!(page.count("#validation-runs tbody tr:not(.filtered-out)"), 6);
    assert_eq!(page.text("#validation-count"), "Showing 6 of 51 runs.");
    page.choose("#validation-filter-split", "held_back").await;
    // The interleaved split holds back every other group of near-duplicates: two v4 runs.
    let held = bundled_table::bundled().runs.iter().filter(|r| r.chip == "tpu-v4" && r.split == Split::HeldBack);
    assert_eq!(page.count("#validation-runs tbody tr:not(.filtered-out)"), held.count() as u32);
    assert_eq!(page.count("#validation-runs tbody tr:not(.filtered-out)"), 2);
    page.choose("#validation-filter-chip", "").await;
    page.choose("#validation-filter-split", "").await;
    let model = bundled_table::bundled().runs.last().unwrap().model.clone();
    page.choose("#validation-filter-model", &model).await;
    assert_eq!(page.count("#validation-runs tbody tr:not(.filtered-out)"), 5, "the five A3 runs");

    let table = bundled_table::bundled();
    let rows: Vec<_> = table.runs.iter().collect();
    let text = tables::runs(table, &rows, PredictionMode::Calibrated).to_csv();
    assert_eq!(text.lines().count(), 52);
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let first: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
    let cell = |name: &str| first[header.iter().position(|h| *h == name).unwrap()].parse::<f64>().unwrap();
    assert_eq!(cell("calibrated_mfu_pct"), rows[0].calibrated.as_ref().unwrap().mfu_pct, "exact, not rounded");
    let held = table.split(shardcalc_core::validation::splits::SplitKind::LeaveChipOut).unwrap();
    let want = held.prediction_of(&rows[0].id).unwrap().as_ref().unwrap().mfu_pct;
    assert_eq!(cell("held_back_chip_out_mfu_pct"), want);
    assert!(page.find::<HtmlElement>("#validation-runs-csv").text_content().unwrap().contains("CSV"));
}
