//! The serving page of the release bundle in dist/, driven in headless Chromium: LLaMA 3-70B
//! with int8 weights and KV on a TPU v5e 4x2 (book 8.1), checked against core; a new batch;
//! a refused value; the permalink reloaded; the input-to-repaint time measured.
//! Needs `scripts/build-pages.sh` (or `./dev.sh build`) first.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use std::time::{Duration, Instant};

use serde_json::json;
use shardcalc_charts::format::significant;
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::query::{ChipSource, HardwareSection};
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::scenario::inference_report;
use shardcalc_core::scenario::with_serving_defaults;
use shardcalc_core::scenario::{ModelSource, Scenario};
use shardcalc_e2e::{Browser, TIMEOUT};

/// Seconds as the page prints them (`src/views/serving/rows.rs`, `seconds`), for the
/// millisecond range these steps fall in.
fn ms(seconds: f64) -> String {
    assert!((1e-3..1.0).contains(&seconds), "{seconds} s is not in the millisecond range");
    format!("{} ms", significant(seconds * 1e3, 4))
}

/// The book's chapter 8 setup at `batch`.
fn llama_70b_int8_4x2(batch: u64) -> Scenario {
    let mut s =
        with_serving_defaults(&Scenario { model: ModelSource::Preset("llama-3-70b".into()), ..Scenario::default() });
    s.hardware = Some(HardwareSection {
        chip: ChipSource::Preset("tpu-v5e".into()),
        topology: Some(Topology::tpu_slice(&[4, 2], 1)),
    });
    if let Some(i) = s.inference.as_mut() {
        i.dtypes.weights = DType::Int8;
        i.dtypes.kv = DType::Int8;
        i.batch = Some(batch);
    }
    s
}

fn step_s(s: &Scenario) -> f64 {
    let m = s.validate().expect("valid");
    let r = inference_report(&m, s).expect("a plan").expect("inference");
    r.decode.step.step_time_s.get()
}

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

async fn choose(browser: &Browser, css: &str, value: &str) {
    browser.find(css).await.select_by_value(value).await.unwrap_or_else(|e| panic!("choose {value} in {css}: {e}"));
}

/// Times typing each of `values` into `#id` until every effect has run (a macrotask after
/// the input event, so all of Leptos's microtasks, the table and the canvases are done).
const TIMING_SCRIPT: &str = r"
const [id, values, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const el = document.getElementById(id);
const channel = new MessageChannel();
const times = [];
let i = 0, t0 = 0;
channel.port1.onmessage = () => {
  times.push(performance.now() - t0);
  i += 1;
  next();
};
function next() {
  if (i >= values.length) { done(times); return; }
  t0 = performance.now();
  el.value = values[i];
  el.dispatchEvent(new Event('input', { bubbles: true }));
  channel.port2.postMessage(0);
}
next();
";

#[tokio::test]
async fn serving_view_end_to_end() {
    let browser = Browser::open_path("/serving.html").await;
    wait_until(&browser, "#serving-step-value", "a decode step", |t| t.ends_with(" s") || t.ends_with("ms")).await;

    // LLaMA 3-70B, int8 weights and KV, bf16 FLOPs, batch 32 at 8k context on a v5e 4x2.
    choose(&browser, "#preset", "llama-3-70b").await;
    browser.set_input("#hw-shape", "4x2").await;
    choose(&browser, "#inference-dtypes-weights", "int8").await;
    choose(&browser, "#inference-dtypes-kv", "int8").await;
    let book = llama_70b_int8_4x2(32);
    // Book 8.1: "our step time is about 17ms" (17.3 ms exactly from its inputs): the
    // roofline. The page's headline is the calibrated prediction, core's number too.
    let mut roofline = book.clone();
    roofline.conventions.prediction = shardcalc_core::efficiency::PredictionMode::Ideal;
    let ideal = step_s(&roofline);
    assert!((ideal - 0.017).abs() < 0.0005, "core's roofline gives {ideal} s");
    let step = step_s(&book);
    assert!(step > ideal, "calibrated {step} s is not slower than the roofline {ideal} s");
    browser.wait_for_text("#serving-step-value", &ms(step)).await;
    assert!(browser.text("#serving-step-detail").await.starts_with("bound by weight loading"));
    browser.wait_for_text("#row-kv_bytes_per_token", "163,840 B").await;
    let pareto = browser.canvas_data_url("#chart-serving-pareto").await;

    // A bigger batch: a longer step, more tokens per chip, the charts redrawn.
    browser.set_input("#inference-batch", "43").await;
    let bigger = step_s(&llama_70b_int8_4x2(43));
    assert!(bigger > step);
    browser.wait_for_text("#serving-step-value", &ms(bigger)).await;
    assert_ne!(browser.canvas_data_url("#chart-serving-pareto").await, pareto);

    browser.client().set_window_size(1400, 2600).await.expect("resize");
    browser.eval("document.activeElement.blur(); window.scrollTo(0, 0);", vec![]).await;
    browser.screenshot("serving-view-desktop").await;
    browser.eval("document.getElementById('serving-charts-heading').scrollIntoView();", vec![]).await;
    browser.screenshot("serving-view-charts").await;

    // A refused value (typed key by key, so every prefix is refused too): the message is at
    // the field, the results stay and say so.
    browser.set_input("#inference-batch", "-8").await;
    wait_until(&browser, "#inference-batch-error", "a message naming inference.batch", |t| {
        t.contains("inference.batch") && t.contains("must not be negative")
    })
    .await;
    assert!(browser.text("#stale-note").await.contains("last valid inputs"));
    assert_eq!(browser.text("#serving-step-value").await, ms(bigger));
    browser.set_input("#inference-batch", "43").await;
    wait_until(&browser, "#inference-batch-error", "no message", str::is_empty).await;

    // The link reproduces the page.
    let hash = browser.eval("return location.hash;", vec![]).await;
    let hash = hash.as_str().unwrap_or_default().to_string();
    assert!(hash.starts_with("#s="), "{hash}");
    let reloaded = Browser::open_path(&format!("/serving.html{hash}")).await;
    reloaded.wait_for_text("#serving-step-value", &ms(bigger)).await;
    assert_eq!(reloaded.input_value("#inference-batch").await, "43");
    assert_eq!(reloaded.input_value("#hw-shape").await, "4x2");
    reloaded.assert_only_local_requests().await;
    reloaded.assert_no_console_errors().await;
    reloaded.close().await;

    // Input to repaint, release build: every card, the table and (for the batch) the 4 charts.
    // Two cores shared with other builds: the minimum is the cost, the spread is the machine.
    for (id, a, b) in [("inference-batch", "16", "43"), ("inference-price_per_chip_hour_usd", "1", "2")] {
        let values: Vec<String> = (0..40).map(|i| if i % 2 == 0 { a.to_string() } else { b.to_string() }).collect();
        let times =
            browser.client().execute_async(TIMING_SCRIPT, vec![json!(id), json!(values)]).await.expect("timing");
        let mut times: Vec<f64> =
            times.as_array().expect("times").iter().filter_map(serde_json::Value::as_f64).collect();
        times.sort_by(f64::total_cmp);
        let (min, p50, p95) = (times[0], times[times.len() / 2], times[times.len() * 95 / 100]);
        println!("serving: #{id} typed -> page updated (release): min {min:.1} ms, p50 {p50:.1} ms, p95 {p95:.1} ms");
        assert!(p50 < 500.0, "#{id}: p50 {p50} ms");
    }
    browser.wait_for_text("#serving-step-value", &ms(bigger)).await;

    browser.assert_only_local_requests().await;
    browser.assert_no_console_errors().await;
    browser.close().await;
}
