//! Offline hosting: every page served from a sub-path under the strict Content-Security-Policy
//! header works and requests nothing outside its origin; the single-file build works opened
//! from `file://` and requests nothing at all. Needs `dist/` (`./dev.sh build`) and
//! `dist-offline/shardcalc.html` (`./dev.sh offline`).
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

mod support;

use shardcalc_core::scenario::{ModelSource, Scenario};
use shardcalc_e2e::{workspace_root, Browser, ServeOptions};
use support::*;

/// The policy of issue 6, sent as a header (each page also carries it, and more, as a meta tag).
const POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

fn seventy() -> Scenario {
    Scenario { model: ModelSource::Preset("llama-3-70b".into()), ..Scenario::default() }
}

#[tokio::test]
async fn every_page_works_from_a_sub_path_under_the_policy() {
    let options = ServeOptions {
        prefix: "/tools/shardcalc/".into(),
        headers: vec![("Content-Security-Policy".into(), POLICY.into())],
    };
    let browser = Browser::open_with(options, &format!("index.html{}", fragment(&seventy()))).await;
    browser.wait_for_text("#total-params-value", "70,553,706,496").await;
    browser.find("#chart-seq-len[data-draws]").await;
    let origin = browser.origin();

    // The console check below sees policy violations: an inline script is refused and logged.
    browser
        .eval("const s = document.createElement('script'); s.textContent = 'window.__inline = 1'; document.head.append(s);", vec![])
        .await;
    assert_eq!(browser.eval("return window.__inline === undefined;", vec![]).await, true);
    let logged = browser.console_errors().await;
    assert!(logged.iter().any(|e| e.contains("Content Security Policy")), "{logged:?}");

    // Every page, reached through the navigation (relative links under the sub-path).
    for page in dist_pages() {
        let id = if page == "index.html" { "model".to_string() } else { page.trim_end_matches(".html").to_string() };
        browser.find(&format!("#nav-{id}")).await.click().await.unwrap_or_else(|e| panic!("go to {page}: {e}"));
        browser.find(&format!("#panel-{id}")).await;
        let url = browser.eval("return location.pathname;", vec![]).await;
        assert_eq!(url, format!("/tools/shardcalc/{page}"));
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        // A page keeps the scenario as it came: the sections it fills in with its own defaults
        // (the hardware page's chip, roofline op and collectives) are not passed on unedited.
        assert_eq!(scenario_in_page(&browser).await, seventy(), "{page} keeps the scenario");
        browser.assert_no_console_errors().await;
    }
    let requests = browser.assert_network_stays_within(&format!("{origin}/tools/shardcalc/")).await;
    assert!(requests.iter().any(|u| u.ends_with(".wasm")), "the network log saw the page load: {requests:?}");
    browser.assert_only_local_requests().await;
    browser.close().await;
}

#[tokio::test]
async fn the_single_file_build_works_from_disk() {
    let file = workspace_root().join("dist-offline/shardcalc.html");
    assert!(file.is_file(), "{} is missing: run ./dev.sh offline", file.display());
    let url = format!("file://{}{}", file.display(), fragment(&seventy()));
    let browser = Browser::open_url(&url).await;
    browser.wait_for_text("#total-params-value", "70,553,706,496").await;
    browser.find("#chart-params[data-draws]").await;

    // Every view is in the file: the navigation switches in place and keeps the scenario.
    browser.find("#nav-saved").await.click().await.expect("go to Saved");
    browser.find("#panel-saved").await;
    browser.find("#saved-empty").await;
    browser.find("#nav-model").await.click().await.expect("back to Model");
    browser.wait_for_text("#total-params-value", "70,553,706,496").await;
    let missing = browser.eval("return document.getElementById('missing-view');", vec![]).await;
    assert!(missing.is_null(), "a view is missing from the single file");

    // An embed from the same file.
    browser
        .goto_url(&format!("file://{}?view=model&embed=seq-len&theme=dark{}", file.display(), fragment(&seventy())))
        .await;
    browser.find("#chart-seq-len[data-draws]").await;
    assert!(visible_outside(&browser, "#chart-seq-len").await.is_empty());

    let requests = browser.assert_network_stays_within("file://").await;
    assert!(requests.iter().all(|u| !u.contains(".wasm")), "the wasm is inlined, not fetched: {requests:?}");
    browser.assert_no_console_errors().await;
    browser.screenshot("single-file-embed").await;
    browser.close().await;
}
