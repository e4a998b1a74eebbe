//! Component tests of the serving view, in headless Chromium (`cargo test -p shardcalc --target
//! wasm32-unknown-unknown --test web_serving`): mount it, edit inputs the way a person would,
//! check the numbers against core and the charts redrawn, refuse bad text next to its field
//! while the page lives on.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use leptos::prelude::*;
use shardcalc::views::serving::rows::{seconds, show, Unit};
use shardcalc::views::serving::ServingView;
use shardcalc::App;
use shardcalc_core::inference::InferenceReport;
use shardcalc_core::scenario::{inference_report, with_serving_defaults, Scenario, Sections};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

wasm_bindgen_test_configure!(run_in_browser);

mod support;
use support::{fire, Page};

/// The serving page.
async fn open() -> Page {
    Page::mount(|| view! { <App url_sync=false sections=Sections::INFERENCE><ServingView /></App> }.into_any(), 1).await
}

/// The report core gives for `s`.
fn plan(s: &Scenario) -> InferenceReport {
    let m = s.validate().expect("a valid scenario");
    inference_report(&m, s).expect("a plan").expect("an inference section")
}

/// The default scenario as the serving page fills it.
fn default_serving() -> Scenario {
    with_serving_defaults(&Scenario::default())
}

const CHARTS: [&str; 4] =
    ["#chart-serving-pareto", "#chart-serving-breakdown", "#chart-serving-kv-memory", "#chart-serving-ratio"];

#[wasm_bindgen_test]
async fn mounts_with_the_book_s_workload_and_core_s_numbers() {
    let page = open().await;
    let r = plan(&default_serving());
    assert_eq!(page.text("#serving-step-value"), seconds(r.decode.step.step_time_s.get()));
    assert_eq!(page.text("#serving-throughput-value"), show(r.decode.tokens_per_s_per_chip, Unit::TokensPerS));
    assert_eq!(page.text("#serving-kv-value"), show(r.kv_bytes_per_token.get(), Unit::Bytes));
    assert_eq!(page.find::<HtmlInputElement>("#inference-prompt_len").value(), "7680");
    assert_eq!(page.find::<HtmlInputElement>("#inference-batch").value(), "32");
    assert!(page.text("#hw-summary").contains("TPU v5e"), "{}", page.text("#hw-summary"));
    // No topology: the smallest v5e slice that fits LLaMA 3-8B with 32 caches of 8k.
    assert!(page.text("#row-serving-topology").contains("the smallest slice that fits"));
    assert_eq!(page.text("#row-max_batch"), format!("{} sequences", r.max_batch));
    assert!(!page.exists("#stale-note") && !page.exists("#serving-error"));
    for c in CHARTS {
        assert!(page.draws(c) >= 1, "{c} was not drawn");
    }
    assert!(page.text("#serving-table").contains("decode.step_time_s"));
    // "Download SVG" is rendered by the background worker with the CLI's code (the e2e tests
    // compare the downloaded file with the CLI's byte for byte); here: the charts draw as SVG.
    let name = shardcalc_core::presets::get("llama-3-8b").unwrap().config.name;
    for chart in [
        shardcalc_charts::serving::pareto_chart(&name, &r),
        shardcalc_charts::serving::step_breakdown_chart(&name, &r),
        shardcalc_charts::serving::kv_memory_chart(&name, &r),
    ] {
        let chart = shardcalc_charts::Chart::Xy(chart);
        let cli = shardcalc_charts::svg::to_svg(&chart).unwrap();
        assert!(cli.starts_with("<svg") && cli.contains(chart.title()), "{}", chart.title());
    }
}

#[wasm_bindgen_test]
async fn llama_3_70b_int8_on_a_v5e_4x2_then_a_bigger_batch() {
    let page = open().await;
    page.choose("#preset", "llama-3-70b").await;
    page.type_into("#hw-shape", "4x2").await;
    page.choose("#inference-dtypes-weights", "int8").await;
    page.choose("#inference-dtypes-kv", "int8").await;
    let mut s = default_serving();
    s.model = shardcalc_core::scenario::ModelSource::Preset("llama-3-70b".into());
    s.hardware = Some(shardcalc_core::hardware::query::HardwareSection {
        chip: shardcalc_core::hardware::query::ChipSource::Preset("tpu-v5e".into()),
        topology: Some(shardcalc_core::hardware::topology::Topology::tpu_slice(&[4, 2], 1)),
    });
    if let Some(i) = s.inference.as_mut() {
        i.dtypes.weights = shardcalc_core::dtype::DType::Int8;
        i.dtypes.kv = shardcalc_core::dtype::DType::Int8;
    }
    // Book 8.1: about 17 ms per step on the roofline, bound by loading the weights; the
    // page's headline is the calibrated prediction, slower.
    let mut roofline = s.clone();
    roofline.conventions.prediction = shardcalc_core::efficiency::PredictionMode::Ideal;
    let ideal = plan(&roofline).decode.step.step_time_s.get();
    assert!((ideal - 0.017).abs() < 0.0005, "{ideal}");
    let r = plan(&s);
    let step = r.decode.step.step_time_s.get();
    assert!(step > ideal, "{step} {ideal}");
    assert_eq!(page.text("#serving-step-value"), seconds(step));
    assert!(
        page.text("#serving-step-detail").starts_with("bound by weight loading"),
        "{}",
        page.text("#serving-step-detail")
    );
    let draws: Vec<u32> = CHARTS.iter().map(|c| page.draws(c)).collect();
    page.type_into("#inference-batch", "8").await;
    if let Some(i) = s.inference.as_mut() {
        i.batch = Some(8);
    }
    let r8 = plan(&s);
    assert_eq!(page.text("#serving-step-value"), seconds(r8.decode.step.step_time_s.get()));
    assert_ne!(r8.decode.step.step_time_s, r.decode.step.step_time_s);
    // The pareto marker, breakdown marker and ratio chart move with the batch.
    for (c, before) in CHARTS.iter().zip(draws) {
        if *c != "#chart-serving-kv-memory" {
            assert!(page.draws(c) > before, "{c} was not redrawn");
        }
    }
}

#[wasm_bindgen_test]
async fn refused_text_stays_with_its_message_and_the_page_lives() {
    let page = open().await;
    let before = page.text("#serving-step-value");
    for (field, junk, says) in [
        ("#inference-batch", "abc", "inference.batch: is not a number"),
        ("#inference-batch", "0", "inference.batch: must be at least 1"),
        ("#inference-prompt_len", "-3", "inference.prompt_len: must not be negative"),
        ("#inference-output_len", "1e400", "inference.output_len"),
        ("#inference-prefill-mfu", "1.5", "inference.prefill.mfu"),
        ("#inference-reserved_hbm_fraction", "NaN", "inference.reserved_hbm_fraction"),
        ("#inference-speculative-draft_len", "100", "inference.speculative.draft_len"),
        ("#hw-shape", "4x4x4x4x4", "at most four axes"),
    ] {
        page.type_into(field, junk).await;
        let error = page.text(&format!("{field}-error"));
        assert!(error.contains(says), "{field} = {junk:?}: {error:?}");
        assert_eq!(page.find::<HtmlInputElement>(field).value(), junk, "the text stays");
        assert!(page.exists("#stale-note"), "{field}: results marked as the last valid ones");
        assert_eq!(page.text("#serving-step-value"), before, "the last valid plan stays");
    }
    // Fixing the batch clears its message; a new value recomputes.
    page.type_into("#inference-batch", "4").await;
    assert_eq!(page.text("#inference-batch-error"), "");
    assert_ne!(page.text("#serving-step-value"), before);
}

#[wasm_bindgen_test]
async fn cross_field_conflicts_are_explained() {
    let page = open().await;
    // A v5e has no fp8 peak: refused at the compute format, naming the chip.
    page.choose("#inference-dtypes-compute", "fp8").await;
    let e = page.text("#inference-dtypes-compute-error");
    assert!(e.contains("inference.dtypes.compute") && e.contains("no published fp8 peak"), "{e}");
    // Mesh axes need a topology; naming an axis the topology lacks is refused at the field.
    page.type_into("#hw-shape", "2x4").await;
    page.type_into("#inference-sharding-model_axes", "x, q").await;
    let e = page.text("#inference-sharding-model_axes-error");
    assert!(e.contains("no topology axis is named \"q\""), "{e}");
    page.type_into("#inference-sharding-model_axes", "x").await;
    assert_eq!(page.text("#inference-sharding-model_axes-error"), "");
    // 4 replicas of 2 chips: the table says so.
    assert_eq!(page.text("#row-serving-replicas"), "4");
    // Removing the topology while an axis is named is refused at the topology.
    page.type_into("#hw-shape", "").await;
    assert!(page.text("#hw-shape-error").contains("needs a `hardware.topology`"), "{}", page.text("#hw-shape-error"));
}

#[wasm_bindgen_test]
async fn speculative_decoding_and_price_add_their_numbers() {
    let page = open().await;
    assert!(!page.exists("#serving-speculative"));
    // The catalog prices the v5e (book 8.1), so cost shows from the start.
    let r = plan(&default_serving());
    let catalog = show(r.cost.as_ref().unwrap().decode_usd_per_million_tokens, Unit::Usd);
    assert_eq!(page.text("#serving-cost-value"), catalog);
    page.type_into("#inference-speculative-draft_len", "4").await;
    assert!(
        page.text("#serving-speculative-value").contains("tokens/step"),
        "{}",
        page.text("#serving-speculative-value")
    );
    // (1 − 0.8⁵) / 0.2 = 3.36 accepted tokens per step.
    assert_eq!(page.text("#row-speculative-expected_tokens_per_step"), "3.362 tokens");
    page.choose("#inference-speculative-draft", "llama-3-8b").await;
    assert!(page.text("#row-speculative-draft_step_s").ends_with("ms"));
    page.type_into("#inference-price_per_chip_hour_usd", "2.4").await;
    assert!(page.text("#serving-cost-value").starts_with('$'), "{}", page.text("#serving-cost-value"));
    assert_ne!(page.text("#serving-cost-value"), catalog, "the price typed replaces the catalog's");
    page.type_into("#inference-speculative-draft_len", "").await;
    assert!(!page.exists("#serving-speculative"));
}

/// Milliseconds from typing into `css` until every memo, the table and the charts are updated.
#[wasm_bindgen_test]
async fn input_to_repaint_is_timed() {
    let page = open().await;
    let perf = web_sys::window().unwrap().performance().unwrap();
    let mut times = Vec::new();
    for i in 0..20 {
        let value = if i % 2 == 0 { "64" } else { "32" };
        let t0 = perf.now();
        page.type_into("#inference-batch", value).await;
        times.push(perf.now() - t0);
    }
    times.sort_by(f64::total_cmp);
    let (p50, p95) = (times[times.len() / 2], times[times.len() * 95 / 100]);
    wasm_bindgen_test::console_log!(
        "serving: batch typed -> cards, table and 4 charts updated: p50 {p50:.1} ms, p95 {p95:.1} ms"
    );
    // Generous: this runs in a debug build.
    assert!(p95 < 3000.0, "p95 {p95} ms");
    assert_eq!(page.draws("#chart-serving-pareto"), 21);
}

/// Every text input of the form takes garbage without killing the page, and the results
/// follow the inputs again once the text is restored.
#[wasm_bindgen_test]
async fn every_field_survives_garbage() {
    let page = open().await;
    page.choose("#preset", "mixtral-8x7b").await;
    page.type_into("#hw-shape", "4x4").await;
    page.choose("#inference-sharding-weights", "weight_stationary_2d").await;
    // Speculative decoding on, so that its acceptance and cost ratio are shown too.
    page.type_into("#inference-speculative-draft_len", "4").await;
    let inputs = page.all(".serving input[type=text]");
    // Chip shape and slices, 4 workload, D, model and expert axes (2D, MoE), 3 prefill, 3
    // speculative, price, reserved HBM.
    assert_eq!(inputs.length(), 17, "text inputs");
    for i in 0..inputs.length() {
        let input: HtmlInputElement = inputs.item(i).unwrap().unchecked_into();
        let original = input.value();
        for junk in [
            "",
            "abc",
            "-3",
            "1e400",
            "NaN",
            "0",
            "0.5",
            "999999999999",
            "18446744073709551616",
            "1e15",
            "x, q",
            "4x4x4x4x4",
        ] {
            input.set_value(junk);
            fire(&input, "input");
            leptos::task::tick().await;
        }
        input.set_value(&original);
        fire(&input, "input");
        leptos::task::tick().await;
    }
    assert!(!page.exists("#stale-note"), "every field restored: {}", page.text("#serving-headline"));
    let before = page.text("#serving-step-value");
    page.type_into("#inference-batch", "7").await;
    assert_ne!(page.text("#serving-step-value"), before);
    // The format lists are DType::ALL, in order.
    let select: HtmlSelectElement = page.find("#inference-dtypes-kv");
    let values: Vec<String> = (0..select.length())
        .filter_map(|i| select.item(i))
        .map(|o| o.get_attribute("value").unwrap_or_default())
        .collect();
    let names: Vec<&str> = shardcalc_core::dtype::DType::ALL.iter().map(|d| d.name()).collect();
    assert_eq!(values, names);
}

/// Issue 8: the decode step, throughput, cost and TTFT cards carry their band, with the
/// calibrated value as the headline writes it and the roofline-to-calibrated range around
/// it; a loading-bound decode step names HBM, which nothing calibrates; the prediction
/// switch moves the headline to the calibrated number, which the band names.
#[wasm_bindgen_test]
async fn headline_bands_name_the_calibrated_value_and_follow_the_switch() {
    use shardcalc_core::validation::bands::serving_bands;
    use shardcalc_core::validation::PredictionMode;
    let page = open().await;
    let s = default_serving();
    let m = s.validate().unwrap();
    let b = serving_bands(&m, &s).unwrap().unwrap();
    let step = page.text("#serving-step-band");
    assert!(step.starts_with(&format!("calibrated {} (", seconds(b.decode_step_s.calibrated))), "{step}");
    assert!(b.decode_step_s.low <= b.decode_step_s.calibrated && b.decode_step_s.calibrated <= b.decode_step_s.high);
    assert!(step.contains(&seconds(b.decode_step_s.low)) && step.contains(&seconds(b.decode_step_s.high)), "{step}");
    assert!(step.contains(&format!("dominant: {}", b.decode_step_s.dominant.label())), "{step}");
    let throughput = page.text("#serving-throughput-band");
    assert!(
        throughput.contains(&format!("calibrated {}", show(b.tokens_per_s_per_chip.calibrated, Unit::TokensPerS))),
        "{throughput}"
    );
    let ttft = page.text("#serving-ttft-band");
    assert!(ttft.contains(&format!("calibrated {}", seconds(b.ttft_s.calibrated))), "{ttft}");
    // The catalog prices the v5e, so cost has its band too.
    let cost = b.decode_usd_per_million_tokens.as_ref().unwrap();
    assert!(page.text("#serving-cost-band").contains(&format!("calibrated {}", show(cost.calibrated, Unit::Usd))));
    assert!(!page.exists("#serving-kv-band"), "KV bytes are not calibrated: no band");

    page.find::<HtmlElement>("#prediction-calibrated").click();
    leptos::task::tick().await;
    leptos::task::tick().await;
    let mut cal = s.clone();
    cal.conventions.prediction = PredictionMode::Calibrated;
    let r = plan(&cal);
    let shown = page.text("#serving-ttft-value");
    assert_eq!(shown, seconds(r.prefill.ttft_s.get()));
    assert!(
        page.text("#serving-ttft-band").starts_with(&format!("calibrated {shown} (")),
        "{}",
        page.text("#serving-ttft-band")
    );
    assert!(page.text("#serving-ttft-band").contains(&format!("roofline {};", seconds(b.ttft_s.ideal))));
}

/// A weight-loading-bound decode step (batch 1): its band says HBM bandwidth dominates
/// (serving's calibration derates it, `efficiency::serving`).
#[wasm_bindgen_test]
async fn a_loading_bound_step_s_band_says_hbm_dominates() {
    let page = open().await;
    page.type_into("#inference-batch", "1").await;
    let band = page.text("#serving-step-band");
    assert!(band.contains("dominant: HBM bandwidth"), "{band}");
}
