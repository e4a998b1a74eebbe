//! The model view of the release bundle in dist/, driven in headless Chromium like a person
//! would: pick a preset, type, import a config, break a field, reload the permalink.
//! Needs `trunk build --release` first; `./dev.sh test` does both.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use std::time::{Duration, Instant};

use shardcalc_charts::format::significant;
use shardcalc_core::import::detect_and_import;
use shardcalc_core::permalink;
use shardcalc_core::report::evaluate;
use shardcalc_core::scenario::{ModelSource, Scenario};
use shardcalc_e2e::{workspace_root, Browser, TIMEOUT};

/// Fields compared between the page and the page reloaded from its permalink.
const FIELDS: &[&str] = &[
    "#model-name",
    "#model-d_model",
    "#model-num_layers",
    "#model-vocab_size",
    "#model-attention-num_heads",
    "#model-attention-num_kv_heads",
    "#model-attention-head_dim",
    "#model-mlp-d_ff",
    "#workload-per_device_batch",
    "#workload-seq_len",
    "#workload-grad_accum",
];

/// Outputs compared between the two pages.
const OUTPUTS: &[&str] = &[
    "#total-params-value",
    "#active-params-value",
    "#weights-bf16-value",
    "#tflops-value",
    "#flops-per-token-value",
    "#crossover-value",
];

/// TFLOPs per device-step as the page prints them, computed by core.
fn tflops(s: &Scenario) -> String {
    let report = evaluate(s).expect("a valid scenario");
    significant(report.flops.maxtext.total_tflops_per_device_step, 4)
}

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

async fn wait_for_hash(browser: &Browser, expected: &str) {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let hash = browser.eval("return location.hash;", vec![]).await;
        if hash.as_str() == Some(expected) {
            return;
        }
        assert!(Instant::now() < deadline, "the URL fragment is still {hash}, expected {expected}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn input_values(browser: &Browser) -> Vec<String> {
    let mut out = Vec::new();
    for css in FIELDS {
        out.push(browser.input_value(css).await);
    }
    out
}

async fn output_texts(browser: &Browser) -> Vec<String> {
    let mut out = Vec::new();
    for css in OUTPUTS {
        out.push(browser.text(css).await);
    }
    out
}

#[tokio::test]
async fn model_view_end_to_end() {
    let browser = Browser::open().await;
    browser.wait_for_text("#total-params-value", "8,030,261,248").await;

    // A preset, then a sequence length typed key by key.
    browser.find("#preset").await.select_by_value("llama-3-70b").await.expect("choose Llama 3 70B");
    browser.wait_for_text("#total-params-value", "70,553,706,496").await;
    browser.set_input("#workload-seq_len", "8192").await;
    let mut seventy = Scenario { model: ModelSource::Preset("llama-3-70b".into()), ..Scenario::default() };
    seventy.workload.seq_len = 8192;
    browser.wait_for_text("#tflops-value", &tflops(&seventy)).await;
    browser.client().set_window_size(1400, 2400).await.expect("resize");
    browser.eval("document.activeElement.blur(); window.scrollTo(0, 0);", vec![]).await;
    browser.screenshot("model-view-desktop").await;

    // Import the Llama 3 8B config.json through the paste box.
    let fixture = std::fs::read_to_string(workspace_root().join("core/tests/fixtures/hf-llama-3-8b.json"))
        .expect("read the fixture");
    browser.set_input("#import-text", &fixture).await;
    browser.find("#import-button").await.click().await.expect("click Import");
    browser.wait_for_text("#total-params-value", "8,030,261,248").await;

    // The link holds the imported model with the workload typed earlier...
    let imported = detect_and_import(&fixture).expect("the fixture imports").config;
    let mut eight = Scenario { model: ModelSource::Custom(Box::new(imported)), ..Scenario::default() };
    eight.workload.seq_len = 8192;
    browser.wait_for_text("#tflops-value", &tflops(&eight)).await;
    let fragment = format!("#s={}", permalink::encode(&eight));
    wait_for_hash(&browser, &fragment).await;

    // ...and a fresh browser on that link shows the same inputs and outputs.
    let reloaded = Browser::open_path(&format!("/{fragment}")).await;
    reloaded.wait_for_text("#total-params-value", "8,030,261,248").await;
    assert_eq!(input_values(&reloaded).await, input_values(&browser).await);
    assert_eq!(output_texts(&reloaded).await, output_texts(&browser).await);
    reloaded.assert_only_local_requests().await;
    reloaded.assert_no_console_errors().await;
    reloaded.close().await;

    // An invalid field: the message names it, the results say they are stale.
    browser.set_input("#model-attention-num_kv_heads", "5").await;
    wait_until(&browser, "#model-attention-num_kv_heads-error", "a message naming num_kv_heads", |t| {
        t.contains("model.attention.num_kv_heads") && t.contains("must divide")
    })
    .await;
    assert!(browser.text("#stale-note").await.contains("last valid inputs"));
    assert_eq!(browser.text("#total-params-value").await, "8,030,261,248");
    browser.eval("document.getElementById('model-attention-num_kv_heads').scrollIntoView();", vec![]).await;
    browser.screenshot("model-view-invalid").await;

    // Narrow screens stack the columns.
    browser.client().set_window_size(420, 1600).await.expect("resize");
    browser.eval("window.scrollTo(0, 0);", vec![]).await;
    browser.screenshot("model-view-narrow").await;

    browser.assert_only_local_requests().await;
    browser.assert_no_console_errors().await;
    browser.close().await;
}
