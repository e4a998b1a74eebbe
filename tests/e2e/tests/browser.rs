//! The release bundle in dist/, driven in headless Chromium like a person would.
//! Needs `trunk build --release` first; `./dev.sh test` does both.

use shardcalc_core::placeholder_describe;
use shardcalc_e2e::Browser;

#[tokio::test]
async fn page_computes_with_core_and_stays_on_localhost() {
    let browser = Browser::open().await;

    let initial: f64 = browser
        .input_value("#seq-len")
        .await
        .parse()
        .expect("a number in #seq-len");
    browser
        .wait_for_text("#result", &placeholder_describe(initial))
        .await;
    let chart_before = browser.canvas_data_url("#chart").await;

    // Typed key by key: a controlled input that resets the caret would yield "88221".
    browser.set_input("#seq-len", "12288").await;
    browser
        .wait_for_text("#result", &placeholder_describe(12288.0))
        .await;
    assert_ne!(
        browser.canvas_data_url("#chart").await,
        chart_before,
        "the chart was not redrawn"
    );

    browser.assert_only_local_requests().await;
    browser.assert_no_console_errors().await;
    let shot = browser.screenshot("placeholder").await;
    eprintln!("screenshot: {}", shot.display());
    browser.close().await;
}
