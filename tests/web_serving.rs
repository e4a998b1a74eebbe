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

const CHARTS: [&str; 6] = [
    "#chart-serving-pareto",
    "#chart-serving-breakdown",
    "#chart-serving-kv-memory",
    "#chart-serving-concurrency-throughput",
    "#chart-serving-concurrency-latency",
    "#chart-serving-ratio",
];

/// Whether the element at `css` is hidden (cards a report does not have stay in the page).
fn hidden(page: &Page, css: &str) -> bool {
    page.find::<HtmlElement>(css).hidden()
}

/// Waits until the search has answered `n` times (the worker answers on the event loop).
async fn search_answers(page: &Page, n: u32) {
    for _ in 0..600 {
        if page.exists("#serving-search-stats")
            && page.attr("#serving-search-stats", "data-seq").parse().unwrap_or(0) >= n
        {
            page.settle().await;
            return;
        }
        support::sleep(50).await;
    }
    panic!("the search did not answer {n} times: {}", page.text("#serving-search-error"));
}

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
    // The pareto marker, breakdown marker, the concurrency charts' batch and the ratio chart
    // move with the batch.
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
    assert!(hidden(&page, "#serving-speculative"));
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
    assert!(hidden(&page, "#serving-speculative"));
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
    // Chip shape and slices, 3 workload, the rate and 3 targets (no traffic rows yet), the
    // token budget, D, model and expert axes (2D, MoE), 2 prefill, the prefill slice, prompts
    // per pass and price, the KV link's bandwidth and latency, 3 speculative, price, reserved
    // HBM.
    assert_eq!(inputs.length(), 25, "text inputs");
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

/// The traffic mix as rows: two output lengths, one weighted 3:1, give E[G] = (3·512 + 1024)/4
/// = 640 tokens; text that does not read stays in its cell with the field's message, the
/// mix keeping its last valid lengths; removing a row recomputes.
#[wasm_bindgen_test]
async fn a_traffic_mix_is_edited_as_rows() {
    use shardcalc_charts::format::significant;
    let page = open().await;
    assert!(
        page.text("#inference-traffic-output-hint").contains("G = 512"),
        "{}",
        page.text("#inference-traffic-output-hint")
    );
    assert!(hidden(&page, "#inference-traffic-output"), "no rows: a fixed length");
    page.click("#inference-traffic-output-add").await;
    page.click("#inference-traffic-output-add").await;
    assert_eq!(page.find::<HtmlInputElement>("#inference-traffic-output-0-tokens").value(), "512");
    assert_eq!(page.find::<HtmlInputElement>("#inference-traffic-output-1-tokens").value(), "1024");
    let weight: HtmlInputElement = page.find("#inference-traffic-output-0-weight");
    weight.set_value("3");
    fire(&weight, "change");
    page.settle().await;
    assert_eq!(page.text("#inference-traffic-output-0-share"), "75.0%");
    assert_eq!(page.text("#inference-traffic-output-1-share"), "25.0%");
    let mean = format!("E[G] = {} tokens", significant(640.0, 4));
    assert!(page.text("#inference-traffic-summary").contains(&mean), "{}", page.text("#inference-traffic-summary"));
    let tokens: HtmlInputElement = page.find("#inference-traffic-output-1-tokens");
    tokens.set_value("abc");
    fire(&tokens, "change");
    page.settle().await;
    let e = page.text("#inference-traffic-output-error");
    assert!(e.contains("inference.traffic.output") && e.contains("length 2: tokens is not a number"), "{e}");
    assert_eq!(tokens.value(), "abc", "the text stays");
    assert!(page.text("#inference-traffic-summary").contains(&mean), "the last valid mix stays");
    page.click("#inference-traffic-output-0-remove").await;
    assert_eq!(page.text("#inference-traffic-output-error"), "");
    assert!(page.text("#inference-traffic-summary").contains(&format!("E[G] = {} tokens", significant(1024.0, 4))));
    page.click("#inference-traffic-output-0-remove").await;
    assert!(hidden(&page, "#inference-traffic-output"), "no rows again: the fixed G");
}

/// A request rate and a TTFT target: the co-located servers (continuous batching, queueing)
/// and the disaggregated pools are core's, the queueing model is stated, and the concurrency
/// charts mark the operating point.
#[wasm_bindgen_test]
async fn a_request_rate_sizes_both_deployments_with_queueing() {
    let page = open().await;
    assert!(
        hidden(&page, "#serving-colocated") && hidden(&page, "#serving-disagg") && hidden(&page, "#serving-queueing")
    );
    let draws = page.draws("#chart-serving-concurrency-latency");
    page.type_into("#inference-request_rate", "4").await;
    page.type_into("#inference-targets-ttft_p99_s", "3").await;
    let mut s = default_serving();
    if let Some(i) = s.inference.as_mut() {
        i.request_rate = Some(4.0);
        i.targets.ttft_p99_s = Some(3.0);
    }
    let r = plan(&s);
    let d = r.continuous_batching.at_request_rate.as_ref().unwrap().deployment.as_ref().unwrap();
    assert!(!hidden(&page, "#serving-colocated"));
    let v = page.text("#serving-colocated-value");
    assert!(v.starts_with(&format!("{} × ", d.servers)) && v.ends_with(&seconds(d.point.ttft.p99_s)), "{v}");
    let g = r.disaggregation.deployment.as_ref().unwrap();
    assert!(page.text("#serving-disagg-value").starts_with(&g.ratio), "{}", page.text("#serving-disagg-value"));
    assert!(page.text("#serving-disagg-detail").contains(&seconds(r.disaggregation.kv_transfer_s.get())));
    assert_eq!(page.text("#serving-ratio-value"), g.ratio);
    assert!(page.text("#serving-queueing").contains("M/G/1"));
    assert_eq!(page.text("#row-disaggregation-deployment-ttft-p99_s"), seconds(g.ttft.p99_s));
    assert!(page.draws("#chart-serving-concurrency-latency") > draws, "the targets and the rate's point are drawn");
}

/// The search, run by the worker's code (here on the page's thread): the explanation and the
/// ranked rows are core's; opening the cheapest applies its chip and mesh.
#[wasm_bindgen_test]
async fn the_search_finds_ranks_and_opens_a_deployment() {
    shardcalc::worker_client::answer_locally(shardcalc::worker_handler::answer);
    let page = open().await;
    assert!(page.exists("#serving-search-off"));
    page.type_into("#inference-prompt_len", "2048").await;
    page.click("#serving-search-start").await;
    page.type_into("#inference-search-chips", "tpu-v5e, h100-sxm").await;
    page.type_into("#inference-targets-tpot_s", "0.05").await;
    let mut s = default_serving();
    for (path, text) in [
        ("inference.prompt_len", "2048"),
        ("inference.search", "true"),
        ("inference.search.chips", "tpu-v5e, h100-sxm"),
        ("inference.targets.tpot_s", "0.05"),
    ] {
        shardcalc_core::field::apply(&mut s, path, text).unwrap();
    }
    let expected = shardcalc_core::view::serving::search(&s).unwrap().unwrap();
    search_answers(&page, 1).await;
    for _ in 0..100 {
        if page.text("#serving-search-explanation") == expected.explanation {
            break;
        }
        support::sleep(50).await;
    }
    assert_eq!(page.text("#serving-search-explanation"), expected.explanation);
    assert!(page
        .text("#serving-search-stats")
        .contains(&format!("{} configurations", shardcalc_charts::format::thousands(expected.evaluated))));
    assert_eq!(page.count("#serving-search-ranked tbody tr") as usize, expected.ranked.len());
    assert!(page.draws("#chart-serving-search-pareto") >= 1);
    let best = expected.best.as_ref().unwrap();
    page.click("#serving-search-ranked-open-0").await;
    assert!(
        page.text("#serving-search-opened").starts_with("Opened ranked row 1"),
        "{}",
        page.text("#serving-search-opened")
    );
    let chip = shardcalc_core::hardware::catalog::get(&best.decode.chip).unwrap();
    assert!(page.text("#hw-summary").contains(&chip.name), "{}", page.text("#hw-summary"));
    assert!(
        page.text("#row-serving-topology").starts_with(&best.decode.topology),
        "{}",
        page.text("#row-serving-topology")
    );
}

/// A TPU v4 has no public price: the cost says so, the price field says so beside it, and a
/// typed price brings the cost back.
#[wasm_bindgen_test]
async fn a_chip_without_a_public_price_says_so_and_takes_one() {
    let page = open().await;
    assert!(page.text("#inference-price-source").contains("(catalog)"), "{}", page.text("#inference-price-source"));
    page.choose("#hw-chip", "tpu-v4").await;
    assert!(
        page.text("#inference-price-source").contains("no public price"),
        "{}",
        page.text("#inference-price-source")
    );
    assert_eq!(page.text("#serving-cost-value"), "no price");
    page.type_into("#inference-price_per_chip_hour_usd", "3.22").await;
    assert!(
        page.text("#inference-price-source").contains("$3.22 per chip-hour (typed)"),
        "{}",
        page.text("#inference-price-source")
    );
    assert!(page.text("#serving-cost-value").starts_with('$'));
}

/// DeepSeek-V3: its experts and its latent cache get their cards, and data-parallel attention
/// can be chosen beside the expert axes.
#[wasm_bindgen_test]
async fn deepseek_shows_its_experts_and_latent_cache() {
    let page = open().await;
    assert!(hidden(&page, "#serving-moe") && hidden(&page, "#serving-mla"));
    page.choose("#preset", "deepseek-v3").await;
    assert!(!hidden(&page, "#serving-moe") && !hidden(&page, "#serving-mla"));
    assert!(page.text("#serving-moe-value").contains("of 256 experts touched"), "{}", page.text("#serving-moe-value"));
    assert!(page.text("#serving-mla-value").contains("less than MHA"), "{}", page.text("#serving-mla-value"));
    assert!(page.exists("#inference-sharding-dense"));
    assert!(page.exists("#row-mla-kv_bytes_per_token") && page.exists("#row-moe-load_imbalance"));
}

/// Prefill on H100s beside decode on the v5e: the prefill pool is the H100's, priced from the
/// catalog beside its field; a scale-up KV link between two chip types is refused at its field.
#[wasm_bindgen_test]
async fn a_prefill_pool_on_another_chip() {
    let page = open().await;
    page.choose("#inference-prefill-chip", "h100-sxm").await;
    assert!(
        page.text("#row-disaggregation-prefill_pool-chip").starts_with("h100-sxm"),
        "{}",
        page.text("#row-disaggregation-prefill_pool-chip")
    );
    assert!(
        page.text("#inference-prefill-price-source").contains("H100"),
        "{}",
        page.text("#inference-prefill-price-source")
    );
    page.choose("#inference-kv_transfer-network", "scale_up").await;
    let e = page.text("#inference-kv_transfer-network-error");
    assert!(e.contains("needs both pools on one chip type"), "{e}");
    page.choose("#inference-kv_transfer-network", "scale_out").await;
    assert_eq!(page.text("#inference-kv_transfer-network-error"), "");
}
