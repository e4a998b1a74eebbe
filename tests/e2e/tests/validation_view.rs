//! The validation page of the release bundle in dist/ (`validation.html`), in headless
//! Chromium: the held-back error, the filters, the prediction switch (which goes into the
//! link), a run's link to the training page, screenshots. Needs `dist/` (`./dev.sh build`).
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use std::time::{Duration, Instant};

use shardcalc_core::permalink;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::validation::PredictionMode;
use shardcalc_core::view::validation::evaluate;
use shardcalc_e2e::{Browser, TIMEOUT};

/// The headline as core states it for `mode`.
fn held_back_median(mode: PredictionMode) -> String {
    let mut s = Scenario::default();
    s.conventions.prediction = mode;
    format!("{:.1} points", evaluate(&s).held_back.stats.median_abs_mfu_pts)
}

/// Polls until the URL fragment holds a scenario whose prediction mode is `mode`.
async fn wait_for_mode_in_url(browser: &Browser, mode: PredictionMode) -> String {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let hash = browser.eval("return location.hash;", vec![]).await;
        let hash = hash.as_str().unwrap_or_default().to_string();
        let decoded = hash.strip_prefix("#s=").and_then(|p| permalink::decode(p).ok());
        if decoded.is_some_and(|s| s.conventions.prediction == mode) {
            return hash;
        }
        assert!(Instant::now() < deadline, "the URL fragment {hash:?} does not say {mode:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn validation_view_end_to_end() {
    let browser = Browser::open_path("/validation.html").await;
    browser.wait_for_text("#validation-count", "Showing 51 of 51 runs.").await;
    // The calibrated prediction is the default headline (issue 16).
    browser.wait_for_text("#card-held-back-mfu-value", &held_back_median(PredictionMode::Calibrated)).await;
    let calibrated_chart = browser.canvas_data_url("#chart-validation-scatter").await;

    // Filters.
    browser.find("#validation-filter-chip").await.select_by_value("tpu-v5e").await.expect("choose v5e");
    browser.wait_for_text("#validation-count", "Showing 24 of 51 runs.").await;
    browser.find("#validation-filter-split").await.select_by_value("held_back").await.expect("choose held back");
    browser.wait_for_text("#validation-count", "Showing 12 of 51 runs.").await;
    browser.find("#validation-filter-chip").await.select_by_value("").await.expect("all chips");
    browser.find("#validation-filter-split").await.select_by_value("").await.expect("both sides");
    browser.wait_for_text("#validation-count", "Showing 51 of 51 runs.").await;

    // The switch: numbers, the chart and the link follow.
    browser.find("#prediction-ideal").await.click().await.expect("click ideal");
    browser.wait_for_text("#card-held-back-mfu-value", &held_back_median(PredictionMode::Ideal)).await;
    let fragment = wait_for_mode_in_url(&browser, PredictionMode::Ideal).await;
    assert_ne!(browser.canvas_data_url("#chart-validation-scatter").await, calibrated_chart, "the scatter is redrawn");
    browser.find("#prediction-calibrated").await.click().await.expect("click calibrated");
    browser.wait_for_text("#card-held-back-mfu-value", &held_back_median(PredictionMode::Calibrated)).await;
    wait_for_mode_in_url(&browser, PredictionMode::Calibrated).await;

    // A run opens as a scenario on the training page: its own mesh, the mode chosen.
    let href =
        browser.find("#run-v5e-readme-64b-32xv5e-256 a").await.attr("href").await.expect("read href").expect("a link");
    let s = permalink::decode(href.strip_prefix("training.html#s=").expect("training.html")).expect("a scenario");
    let mesh = s.training.as_ref().and_then(|t| t.mesh).expect("an explicit mesh");
    assert_eq!((mesh.dp, mesh.fsdp, mesh.tp), (32, 256, 1));
    assert_eq!(s.conventions.prediction, PredictionMode::Calibrated);

    browser.client().set_window_size(1400, 2600).await.expect("resize");
    browser.eval("document.activeElement.blur(); window.scrollTo(0, 0);", vec![]).await;
    browser.screenshot("validation-view-desktop").await;
    browser.eval("document.getElementById('validation-runs').scrollIntoView();", vec![]).await;
    browser.screenshot("validation-view-runs").await;
    browser.eval("document.getElementById('validation-calibration').scrollIntoView();", vec![]).await;
    browser.screenshot("validation-view-calibration").await;
    browser.eval("document.getElementById('serving-validation-heading').scrollIntoView();", vec![]).await;
    browser.screenshot("validation-view-serving").await;
    browser.client().set_window_size(420, 1600).await.expect("resize");
    browser.eval("window.scrollTo(0, 0);", vec![]).await;
    browser.screenshot("validation-view-narrow").await;
    browser.assert_only_local_requests().await;
    browser.assert_no_console_errors().await;
    browser.close().await;

    // The link keeps the mode (the roofline's, which is not the default).
    let reloaded = Browser::open_path(&format!("/validation.html{fragment}")).await;
    reloaded.wait_for_text("#card-held-back-mfu-value", &held_back_median(PredictionMode::Ideal)).await;
    let checked = reloaded.eval("return document.getElementById('prediction-ideal').checked;", vec![]).await;
    assert_eq!(checked.as_bool(), Some(true));
    reloaded.assert_no_console_errors().await;
    reloaded.close().await;
}
