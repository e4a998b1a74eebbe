//! The hardware & collectives page of the release bundle in dist/, driven in headless
//! Chromium like a person would: pick a chip, edit a custom chip's field, break it, reload
//! the permalink. Needs `scripts/build-pages.sh` first; `./dev.sh test` does both.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use std::time::{Duration, Instant};

use shardcalc_core::hardware::query::ChipSource;
use shardcalc_core::permalink;
use shardcalc_e2e::{Browser, TIMEOUT};

/// Polls until `probe` returns true for the element text at `css`.
async fn wait_until(browser: &Browser, css: &str, what: &str, probe: impl Fn(&str) -> bool) {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let text = browser.text(css).await;
        if probe(&text) {
            return;
        }
        assert!(Instant::now() < deadline, "{css}: {what}; it shows {text:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Polls until the URL fragment holds a scenario for which `probe` is true; returns it.
async fn wait_for_link(
    browser: &Browser,
    what: &str,
    probe: impl Fn(&shardcalc_core::scenario::Scenario) -> bool,
) -> String {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let hash = browser.eval("return location.hash;", vec![]).await;
        let hash = hash.as_str().unwrap_or_default().to_string();
        if let Some(s) = hash.strip_prefix("#s=").and_then(|p| permalink::decode(p).ok()) {
            if probe(&s) {
                return hash;
            }
        }
        assert!(Instant::now() < deadline, "the link never held {what}: {hash}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn scroll_to(browser: &Browser, id: &str) {
    browser.eval("document.getElementById(arguments[0]).scrollIntoView();", vec![serde_json::json!(id)]).await;
}

#[tokio::test]
async fn hardware_view_end_to_end() {
    let browser = Browser::open_path("/hardware.html").await;
    browser.client().set_window_size(1400, 2000).await.expect("resize");
    // The book's v5e: Pop Quiz 2's AllGather (3 hops of 8.4 MB at 45 GB/s, ~560 µs).
    wait_until(&browser, "#spec-chip", "the v5e", |t| t.starts_with("TPU v5e")).await;
    wait_until(&browser, "#collective-result-0", "559 µs", |t| t.contains("559 µs")).await;
    assert!(browser.text("#spec-hbm-bandwidth").await.contains("820.0 GB/s"), "the book's other HBM figure is shown");
    browser.eval("document.activeElement.blur(); window.scrollTo(0, 0);", vec![]).await;
    browser.screenshot("hardware-view-desktop").await;

    // Pick Trillium: its ICI ridge with one axis is MaxText's ~5100.
    browser.find("#hw-chip").await.select_by_value("tpu-v6e").await.expect("choose TPU v6e");
    wait_until(&browser, "#spec-chip", "Trillium", |t| t.starts_with("TPU v6e (Trillium)")).await;
    wait_until(&browser, "#intensity-table", "5,111", |t| t.contains("5,111")).await;
    let chart_before = browser.eval("return document.getElementById('chart-roofline').innerHTML;", vec![]).await;

    // A custom chip: double the HBM bandwidth; the HBM ridge halves (920e12 / 3.2e12 = 287.5).
    browser.find("#chip-customize").await.click().await.expect("click customize");
    browser.set_input("#chip-hbm-bandwidth", "3200").await;
    wait_until(&browser, "#intensity-table", "287.5", |t| t.contains("287.5")).await;
    wait_until(&browser, "#spec-hbm-bandwidth", "edited", |t| t.contains("edited in shardcalc")).await;
    let chart_after = browser.eval("return document.getElementById('chart-roofline').innerHTML;", vec![]).await;
    assert_ne!(chart_before, chart_after, "the roofline chart follows the chip");
    let hash = wait_for_link(&browser, "the edited chip", |s| {
        matches!(s.hardware.as_ref().map(|h| &h.chip), Some(ChipSource::Custom(c)) if c.hbm.bandwidth.get() == 3.2e12)
    })
    .await;

    // Text that does not read: a message at the field, the results keep the last valid chip.
    browser.set_input("#chip-hbm-bandwidth", "lots").await;
    wait_until(&browser, "#chip-hbm-bandwidth-error", "a message", |t| t.contains("not a number")).await;
    assert!(browser.text("#intensity-table").await.contains("287.5"));
    scroll_to(&browser, "chip-hbm-bandwidth").await;
    browser.screenshot("hardware-view-invalid").await;

    // The charts, scrolled into view.
    scroll_to(&browser, "roofline-heading").await;
    browser.screenshot("hardware-view-roofline").await;
    scroll_to(&browser, "chart-collective-times").await;
    browser.screenshot("hardware-view-collectives").await;

    // The link reopens the same custom chip.
    let reloaded = Browser::open_path(&format!("/hardware.html{hash}")).await;
    wait_until(&reloaded, "#spec-chip", "the custom chip", |t| t.starts_with("TPU v6e (Trillium) (edited)")).await;
    wait_until(&reloaded, "#intensity-table", "287.5", |t| t.contains("287.5")).await;
    assert_eq!(reloaded.input_value("#chip-hbm-bandwidth").await, "3200");
    reloaded.assert_only_local_requests().await;
    reloaded.assert_no_console_errors().await;
    reloaded.close().await;

    // The model page's link carries the hardware along.
    let href = browser.eval("return document.getElementById('nav-model').getAttribute('href');", vec![]).await;
    assert!(href.as_str().is_some_and(|h| h.starts_with("index.html#s=1.")), "{href}");

    browser.assert_only_local_requests().await;
    browser.assert_no_console_errors().await;
    browser.close().await;
}
