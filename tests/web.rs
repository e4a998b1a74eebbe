//! Component and canvas tests, run in headless Chromium by wasm-bindgen-test-runner:
//! `cargo test -p shardcalc --target wasm32-unknown-unknown` (see .cargo/config.toml).
//!
//! Each test mounts the whole page in its own container (removed again at the end, so element
//! ids stay unique) and drives it the way a person would: typing fires `input` events,
//! choosing fires `change` events.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use leptos::prelude::*;
use shardcalc::views::model::ModelView;
use shardcalc::App;
use shardcalc_charts::format::{significant, thousands};
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::report::evaluate;
use shardcalc_core::scenario::{ModelSource, Scenario, Sections};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlCanvasElement, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

mod support;
use support::{document, fire, sleep};

/// The model page (or another view, [`open_with`]) mounted by [`support::Page`].
type Page = support::Page;

async fn open(url_sync: bool) -> Page {
    open_with(url_sync, || view! { <ModelView /> }.into_any()).await
}

/// The page around another view (or component), settled for two ticks after every action
/// (the drop-down follows a model that is a preset again once the preset's information
/// under it has been rebuilt).
async fn open_with(url_sync: bool, render: fn() -> AnyView) -> Page {
    Page::mount(move || view! { <App url_sync=url_sync sections=Sections::ALL>{render()}</App> }.into_any(), 2).await
}

/// The total parameter count as the page shows it.
fn total(page: &Page) -> String {
    page.text("#total-params-value")
}

fn preset_scenario(id: &str) -> Scenario {
    Scenario { model: ModelSource::Preset(id.into()), ..Scenario::default() }
}

#[wasm_bindgen_test]
async fn default_page_shows_llama_3_8b_exactly() {
    let page = open(false).await;
    assert_eq!(total(&page), "8,030,261,248");
    assert_eq!(page.find::<HtmlInputElement>("#model-d_model").value(), "4096");
    assert_eq!(page.text("#attention-label"), "GQA");
    assert!(!page.exists("#stale-note"));
}

#[wasm_bindgen_test]
async fn picking_a_preset_shows_its_exact_hugging_face_count() {
    let page = open(false).await;
    page.choose("#preset", "llama-3-70b").await;
    assert_eq!(total(&page), "70,553,706,496");
    // The form was rebuilt from the preset.
    assert_eq!(page.find::<HtmlInputElement>("#model-d_model").value(), "8192");
    assert!(page.text("#preset-published").contains("identical"));
    page.choose("#preset", "mixtral-8x7b").await;
    assert_eq!(total(&page), "46,702,792,704");
    assert_eq!(page.text("#active-params-value"), "12,879,925,248");
}

#[wasm_bindgen_test]
async fn invalid_text_is_kept_and_explained_while_the_page_stays_alive() {
    let page = open(false).await;
    let field = "#model-attention-num_kv_heads";
    for (text, expected) in [
        ("abc", "is not a number"),
        ("", "is empty"),
        ("-3", "must not be negative"),
        ("1e400", "too large"),
        ("NaN", "NaN"),
        ("2.5", "whole number"),
        ("5", "must divide attention.num_heads"),
    ] {
        page.type_into(field, text).await;
        let message = page.text("#model-attention-num_kv_heads-error");
        assert!(message.starts_with("model.attention.num_kv_heads: "), "{text:?}: {message}");
        assert!(message.contains(expected), "{text:?}: {message}");
        // The text stays as typed, the results stay at the last valid scenario and say so.
        assert_eq!(page.find::<HtmlInputElement>(field).value(), text);
        assert_eq!(total(&page), "8,030,261,248");
        assert!(page.exists("#stale-note"), "{text:?}: no stale note");
        assert_eq!(page.find::<HtmlElement>(field).get_attribute("aria-invalid").as_deref(), Some("true"));
    }
    // A valid value clears everything and updates the results (MHA: 32 KV heads).
    page.type_into(field, "32").await;
    assert_eq!(page.text("#model-attention-num_kv_heads-error"), "");
    assert!(!page.exists("#stale-note"));
    assert_eq!(page.text("#attention-label"), "MHA");
    assert_ne!(total(&page), "8,030,261,248");
}

#[wasm_bindgen_test]
async fn cross_field_errors_appear_at_the_fields_they_name() {
    let page = open(false).await;
    // A local layer without a window or chunk size.
    page.type_into("#model-layout-pattern", "LLG").await;
    assert!(page.text("#model-layout-local-error").starts_with("model.layout.local: "));
    page.choose("#model-layout-local", "sliding_window").await;
    assert_eq!(page.text("#model-layout-local-error"), "");
    assert_eq!(page.find::<HtmlInputElement>("#model-layout-local-window").value(), "4096");
    assert!(!page.exists("#stale-note"));

    // Top-k above the number of experts.
    page.click("#model-moe").await;
    page.type_into("#model-moe-experts_per_token", "9").await;
    let message = page.text("#model-moe-experts_per_token-error");
    assert!(message.contains("must not exceed moe.num_experts"), "{message}");
    assert!(message.contains("lower it or raise moe.num_experts"), "{message}");
    // The conflict shows at both fields it involves, and both are marked invalid.
    assert_eq!(page.text("#model-moe-num_experts-error"), message);
    for id in ["#model-moe-experts_per_token", "#model-moe-num_experts"] {
        assert_eq!(page.find::<HtmlElement>(id).get_attribute("aria-invalid").as_deref(), Some("true"), "{id}");
    }
    // Switching MoE off drops the hidden field's problem.
    page.click("#model-moe").await;
    assert!(!page.exists("#stale-note"));
}

/// Heads and KV heads: the conflict names both fields and a fix, shows at both, and the error
/// summary's entry moves the focus to the field.
#[wasm_bindgen_test]
async fn conflicts_show_at_every_field_they_name_with_a_fix() {
    let page = open(false).await;
    page.type_into("#model-attention-num_heads", "30").await;
    let at_kv = page.text("#model-attention-num_kv_heads-error");
    assert!(at_kv.starts_with("model.attention.num_kv_heads: must divide attention.num_heads"), "{at_kv}");
    assert!(at_kv.contains("use a divisor such as 6"), "{at_kv}");
    assert_eq!(page.text("#model-attention-num_heads-error"), at_kv);
    // Nothing else claims it (the name field, d_model, ...).
    assert_eq!(page.text("#model-d_model-error"), "");
    assert_eq!(page.text("#model-name-error"), "");
    let link: HtmlElement = page.find(".error-summary a");
    assert_eq!(link.get_attribute("href").as_deref(), Some("#model-attention-num_kv_heads"));
    link.click();
    leptos::task::tick().await;
    let focused = document().active_element().map(|e| e.id()).unwrap_or_default();
    assert_eq!(focused, "model-attention-num_kv_heads");
    page.type_into("#model-attention-num_kv_heads", "6").await;
    assert_eq!(page.text("#model-attention-num_heads-error"), "");
    assert!(!page.exists("#stale-note"));
}

/// A window at least as long as the sequence: a note at both fields, not an error.
#[wasm_bindgen_test]
async fn a_window_covering_the_sequence_is_a_note_not_an_error() {
    let page = open(false).await;
    page.choose("#preset", "gemma-3-27b").await;
    assert_eq!(page.text("#workload-seq_len-note"), "");
    page.type_into("#workload-seq_len", "512").await;
    let note = page.text("#workload-seq_len-note");
    assert!(note.contains("sliding window (1,024 tokens) is at least the sequence length (512 tokens)"), "{note}");
    assert_eq!(page.text("#model-layout-local-window-note"), note);
    assert!(!page.exists("#stale-note"), "a note must not block the results");
    page.type_into("#workload-seq_len", "4096").await;
    assert_eq!(page.text("#workload-seq_len-note"), "");
}

#[wasm_bindgen_test]
async fn the_pattern_and_the_local_count_stay_in_step() {
    let page = open(false).await;
    page.choose("#model-layout-local", "sliding_window").await;
    page.type_into("#model-layout-locals_per_global", "5").await;
    assert_eq!(page.find::<HtmlInputElement>("#model-layout-pattern").value(), "LLLLLG");
    // LGLG repeats LG: one local layer per global one.
    page.type_into("#model-layout-pattern", "LGLG").await;
    assert_eq!(page.find::<HtmlInputElement>("#model-layout-locals_per_global").value(), "1");
    page.type_into("#model-layout-pattern", "LLGLG").await;
    assert_eq!(page.find::<HtmlInputElement>("#model-layout-locals_per_global").value(), "");
    page.type_into("#model-layout-pattern", "LLX").await;
    assert!(page.text("#model-layout-pattern-error").contains("'X' at position 3"));
}

#[wasm_bindgen_test]
async fn switching_the_convention_changes_the_tflops_to_core_s_value() {
    let page = open(false).await;
    let report = evaluate(&preset_scenario("llama-3-8b")).unwrap();
    assert_eq!(page.text("#tflops-value"), significant(report.flops.maxtext.total_tflops_per_device_step, 4));
    let params_draws = page.find::<HtmlElement>("#chart-params").get_attribute("data-draws");
    let flops_draws = page.find::<HtmlElement>("#chart-flops").get_attribute("data-draws");

    page.click("#convention-notebook").await;
    assert_eq!(page.text("#tflops-value"), significant(report.flops.notebook.total_tflops_per_device_step, 4));
    assert_ne!(report.flops.notebook.total_tflops_per_device_step, report.flops.maxtext.total_tflops_per_device_step);
    assert!(page.text("#convention-explanation").contains("no causal halving"));
    // Only the charts whose data changed were redrawn.
    assert_eq!(page.find::<HtmlElement>("#chart-params").get_attribute("data-draws"), params_draws);
    assert_ne!(page.find::<HtmlElement>("#chart-flops").get_attribute("data-draws"), flops_draws);

    page.click("#convention-six_nd").await;
    assert_eq!(page.text("#tflops-value"), significant(report.flops.six_nd.total_tflops_per_device_step, 4));
    assert!(page.text("#chart-seq-len ~ figcaption").contains("ignores dot-product attention"));
}

#[wasm_bindgen_test]
async fn charts_draw_on_their_canvases() {
    let page = open(false).await;
    for id in ["#chart-params", "#chart-flops", "#chart-seq-len"] {
        let canvas: HtmlCanvasElement = page.find(id);
        let blank: HtmlCanvasElement = document().create_element("canvas").unwrap().unchecked_into();
        blank.set_width(canvas.width());
        blank.set_height(canvas.height());
        assert_ne!(canvas.to_data_url().unwrap(), blank.to_data_url().unwrap(), "{id} is blank");
        assert_eq!(canvas.get_attribute("data-draws").as_deref(), Some("1"), "{id}");
    }
    // "Download SVG" (rendered by the background worker with `shardcalc::chart_svg`, the CLI's
    // code; tests/e2e/tests/share.rs compares the downloaded file with the CLI's byte for byte).
    let r = evaluate(&preset_scenario("llama-3-8b")).unwrap();
    let chart = shardcalc_charts::Chart::Bars(shardcalc_charts::param_breakdown(&r.model.name, &r.params));
    let model = shardcalc_core::presets::get("llama-3-8b").unwrap().config;
    let lines =
        shardcalc_charts::Chart::SeqLen(shardcalc_charts::flops_vs_seq_len_chart(&model, FlopConvention::MaxText));
    for chart in [chart, lines] {
        let ours = shardcalc::chart_svg(&chart).unwrap();
        assert!(ours.starts_with("<svg") && ours.trim_end().ends_with("</svg>"));
        assert!(ours.contains(chart.title()), "{}", chart.title());
    }
}

/// The background worker's requests, answered in-process (the wasm tests have no worker
/// script to load; the e2e tests use the real worker).
fn local_worker() {
    shardcalc::worker_client::answer_locally(shardcalc::worker_handler::answer);
}

/// Waits until the text of `selector` contains `needle` (replies come asynchronously).
async fn wait_for_text(page: &Page, selector: &str, needle: &str) {
    for _ in 0..100 {
        if page.text(selector).contains(needle) {
            return;
        }
        sleep(20).await;
    }
    panic!("{selector} never showed {needle:?}: {}", page.text(selector));
}

#[wasm_bindgen_test]
async fn importing_a_config_replaces_the_model_and_bad_ones_do_not() {
    local_worker();
    let page = open(false).await;
    page.choose("#preset", "llama-3-70b").await;
    let area: web_sys::HtmlTextAreaElement = page.find("#import-text");
    area.set_value("{\"model_type\": \"llama\",");
    fire(&area, "input");
    page.click("#import-button").await;
    wait_for_text(&page, "#import-result", "Could not import").await;
    assert_eq!(total(&page), "70,553,706,496");

    area.set_value(include_str!("../core/tests/fixtures/hf-llama-3-8b.json"));
    fire(&area, "input");
    page.click("#import-button").await;
    wait_for_text(&page, "#import-result", "Imported").await;
    assert_eq!(total(&page), "8,030,261,248");
    assert_eq!(page.find::<web_sys::HtmlSelectElement>("#preset").value(), "custom");
}

#[wasm_bindgen_test]
async fn the_url_restores_the_scenario_and_a_bad_one_falls_back() {
    let location = web_sys::window().unwrap().location();
    location.set_hash("s=1.garbage!").unwrap();
    {
        let page = open(true).await;
        assert!(page.text("#notice").contains("could not be read"), "{}", page.text("#notice"));
        assert_eq!(total(&page), "8,030,261,248");
        // The fragment follows the scenario after the debounce.
        sleep(400).await;
        let expected = format!("#s={}", shardcalc_core::permalink::encode(&Scenario::default()));
        assert_eq!(location.hash().unwrap(), expected);
    }
    let mut s = preset_scenario("llama-3-70b");
    s.workload.seq_len = 8192;
    s.conventions.flops = FlopConvention::Book;
    location.set_hash(&format!("s={}", shardcalc_core::permalink::encode(&s))).unwrap();
    let page = open(true).await;
    assert_eq!(total(&page), "70,553,706,496");
    assert_eq!(page.find::<HtmlInputElement>("#workload-seq_len").value(), "8192");
    assert!(page.find::<HtmlInputElement>("#convention-book").checked());
    assert!(!page.exists("#notice"));
    drop(page);
    location.set_hash("").unwrap();
}

/// Milliseconds from typing each of `values` into `selector` (in turn, `rounds` times) until
/// every memo, table and chart has been updated, sorted.
async fn input_to_update_ms(page: &Page, selector: &str, values: [&str; 2], rounds: usize) -> Vec<f64> {
    let perf = web_sys::window().unwrap().performance().unwrap();
    let mut times = Vec::new();
    for i in 0..rounds {
        let value = values[i % 2];
        let t0 = perf.now();
        page.type_into(selector, value).await;
        times.push(perf.now() - t0);
        assert_eq!(page.find::<HtmlInputElement>(selector).value(), value);
    }
    times.sort_by(f64::total_cmp);
    times
}

#[wasm_bindgen_test]
async fn input_to_repaint_is_fast() {
    let page = open(false).await;
    // seq_len redraws one chart (FLOPs per component); d_model redraws all three.
    for (selector, values, charts) in
        [("#workload-seq_len", ["8192", "4096"], 1), ("#model-d_model", ["4160", "4096"], 3)]
    {
        let times = input_to_update_ms(&page, selector, values, 20).await;
        let (p50, p95) = (times[times.len() / 2], times[times.len() * 95 / 100]);
        wasm_bindgen_test::console_log!(
            "input -> DOM and canvases updated ({selector}, {charts} chart(s) redrawn): p50 {p50:.1} ms, p95 {p95:.1} ms"
        );
        // Generous: `./dev.sh test` runs this in an unoptimised debug build.
        assert!(p95 < 1000.0, "{selector}: p95 {p95} ms");
    }
    let expected = evaluate(&preset_scenario("llama-3-8b")).unwrap();
    assert_eq!(page.text("#tflops-value"), significant(expected.flops.maxtext.total_tflops_per_device_step, 4));
    assert_eq!(page.find::<HtmlElement>("#chart-params").get_attribute("data-draws").as_deref(), Some("21"));
}

#[wasm_bindgen_test]
async fn deepseek_v3_shows_mla_moe_mtp_fields_and_the_notebook_s_bugs() {
    let page = open(false).await;
    page.choose("#preset", "deepseek-v3-mtp").await;
    assert_eq!(page.text("#attention-label"), "MLA");
    assert_eq!(page.find::<HtmlInputElement>("#model-attention-kv_lora_rank").value(), "512");
    assert_eq!(page.find::<HtmlInputElement>("#model-attention-q_lora_rank").value(), "1536");
    assert_eq!(page.find::<HtmlInputElement>("#model-moe-num_experts").value(), "256");
    assert_eq!(page.find::<HtmlInputElement>("#model-moe-first_dense_layers").value(), "3");
    assert_eq!(page.find::<HtmlInputElement>("#model-mtp-depth").value(), "1");
    assert!(page.find::<HtmlInputElement>("#model-mtp-stores_embedding_copies").checked());
    let expected = evaluate(&preset_scenario("deepseek-v3-mtp")).unwrap();
    assert_eq!(total(&page), thousands(expected.params.total.exact().unwrap()));
    // The notebook's DeepSeek path: total without the router, a parameter count in a FLOPs row.
    let wrong = page.all("#notebook tr.wrong");
    assert_eq!(wrong.length(), 2);
    assert!(page.text("#notebook").contains("prints the embedding's parameter count"));

    // Back to MHA/GQA: the MLA fields go, the GQA ones come back.
    page.choose("#model-attention-type", "gqa").await;
    assert!(!page.exists("#model-attention-kv_lora_rank"));
    assert_eq!(page.find::<HtmlInputElement>("#model-attention-num_kv_heads").value(), "128");
    assert_eq!(page.text("#attention-label"), "MHA");
}

#[wasm_bindgen_test]
async fn a_config_with_a_huge_prime_head_count_is_refused_not_hanging() {
    local_worker();
    let page = open(false).await;
    let crafted = include_str!("../core/tests/fixtures/hf-llama-3-8b.json")
        .replace("\"num_attention_heads\": 32", "\"num_attention_heads\": 9007199254740881")
        .replace("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 9007199254740880");
    let area: web_sys::HtmlTextAreaElement = page.find("#import-text");
    area.set_value(&crafted);
    fire(&area, "input");
    page.click("#import-button").await;
    wait_for_text(&page, "#import-result", "num_attention_heads: must be at most 16384").await;
    assert_eq!(total(&page), "8,030,261,248");
}

#[wasm_bindgen_test]
async fn a_maxtext_yaml_imports_too() {
    local_worker();
    let page = open(false).await;
    let area: web_sys::HtmlTextAreaElement = page.find("#import-text");
    area.set_value(include_str!("../core/tests/fixtures/maxtext-llama2-7b.yml"));
    fire(&area, "input");
    page.click("#import-button").await;
    wait_for_text(&page, "#import-result", "Imported").await;
    assert_eq!(total(&page), "6,738,415,616", "{}", page.text("#import-result"));
}

#[wasm_bindgen_test]
async fn every_field_survives_garbage() {
    let page = open(false).await;
    page.choose("#preset", "gemma-3-27b").await;
    page.click("#model-moe").await;
    page.type_into("#model-mtp-depth", "1").await;
    let inputs = page.all("form input[type=text]");
    assert!(inputs.length() >= 24, "{} text inputs", inputs.length());
    for i in 0..inputs.length() {
        let input: HtmlInputElement = inputs.item(i).unwrap().unchecked_into();
        let original = input.value();
        for junk in
            ["", "abc", "-3", "1e400", "NaN", "0", "0.5", "999999999999", "18446744073709551616", "1e15", "LLLLL"]
        {
            input.set_value(junk);
            fire(&input, "input");
            leptos::task::tick().await;
        }
        input.set_value(&original);
        fire(&input, "input");
        leptos::task::tick().await;
    }
    // Still alive, current, and following the inputs.
    assert!(!page.exists("#stale-note"), "{}", page.text(".error-summary"));
    let before = page.text("#tflops-value");
    page.type_into("#workload-seq_len", "2048").await;
    assert_ne!(page.text("#tflops-value"), before);
}

#[wasm_bindgen_test]
fn parse_reads_numbers_and_explains_refusals() {
    use shardcalc_core::model::AttentionLayout;
    use shardcalc_core::text::{count as parse_count, pattern as parse_pattern, positive_real as parse_positive_real};
    let locals = |p: &str| AttentionLayout { local: None, pattern: parse_pattern(p).unwrap() }.locals_per_global();
    assert_eq!(parse_count(" 4,096 "), Ok(4096));
    assert_eq!(parse_count("8e3"), Ok(8000));
    assert!(parse_count("8.5").unwrap_err().contains("whole number"));
    assert!(parse_count("99999999999999999999").unwrap_err().contains("too large"));
    assert_eq!(parse_positive_real("0.5"), Ok(0.5));
    // Read as JSON numbers (serde_json, exact): forms people type that JSON spells otherwise.
    for (text, value) in
        [(".5", 0.5), ("+2", 2.0), ("5.", 5.0), ("007.25", 7.25), ("1E3", 1000.0), ("2.5e-1", 0.25), ("1e+2", 100.0)]
    {
        assert_eq!(parse_positive_real(text), Ok(value), "{text}");
    }
    // Exact for what people type: up to 15 significant digits (the pages' serde_json has no
    // float_roundtrip; see the workspace Cargo.toml).
    for (text, value) in
        [("0.1", 0.1), ("0.3", 0.3), ("123456789.012345", 123_456_789.012_345), ("1.5e13", 1.5e13), ("0.000001", 1e-6)]
    {
        assert_eq!(parse_positive_real(text), Ok(value), "{text}");
    }
    for text in ["1e", "e3", ".", "1.2.3", "0x10", "1e3.5", "--1", "1 2"] {
        assert!(parse_positive_real(text).unwrap_err().contains("not a number"), "{text}");
    }
    assert!(parse_positive_real("1e400").unwrap_err().contains("too large"));
    assert!(parse_positive_real("-.5").unwrap_err().contains("greater than 0"));
    assert_eq!(parse_count("1.5e3"), Ok(1500));
    assert!(parse_positive_real("0").unwrap_err().contains("greater than 0"));
    assert!(parse_positive_real("inf").unwrap_err().contains("finite"));
    assert_eq!(parse_pattern("l l g").map(|p| p.len()), Ok(3));
    let lglg = parse_pattern("LGLG").unwrap();
    assert_eq!(shardcalc_core::model::minimal_period(&lglg), 2);
    assert_eq!(locals("LGLG"), Some(1));
    assert_eq!(locals("LLGLG"), None);
    assert_eq!(locals("L"), None);
    assert!(parse_pattern("").is_err());
    assert_eq!(thousands(1234), "1,234");
}

/// The shared chip and topology picker: the page's default shown, a full v5p pod from its
/// shape, a shape the chip refuses explained and kept, a GPU's own default on switching.
#[wasm_bindgen_test]
async fn the_hardware_picker_writes_valid_hardware_only() {
    use shardcalc::components::HardwarePicker;
    // The training page's defaults: a v5p 4x4x4, shown, not written.
    let page = open_with(false, || {
        shardcalc::state::use_app_state().use_defaults(shardcalc_core::view::training::with_defaults);
        view! { <HardwarePicker /> }.into_any()
    })
    .await;
    assert!(page.text("#hw-summary").starts_with("64 devices of TPU v5p"), "{}", page.text("#hw-summary"));
    page.type_into("#hw-shape", "16x20x28").await;
    assert!(page.text("#hw-summary").starts_with("8960 devices"), "{}", page.text("#hw-summary"));
    page.type_into("#hw-shape", "16x20x2x8x3").await;
    assert!(page.text("#hw-shape-error").contains("at most four axes"), "{}", page.text("#hw-shape-error"));
    assert!(page.text("#hw-summary").starts_with("8960 devices"), "the last valid topology stays");
    // The refused text stays in the field, which is marked invalid; the other fields are not.
    assert_eq!(page.find::<HtmlInputElement>("#hw-shape").value(), "16x20x2x8x3");
    assert!(page.find::<HtmlElement>("#hw-shape-field").class_list().contains("invalid"));
    assert_eq!(page.attr("#hw-shape", "aria-invalid"), "true");
    assert!(!page.find::<HtmlElement>("#hw-slices-field").class_list().contains("invalid"));
    page.type_into("#hw-shape", "16x20x28").await;
    assert_eq!(page.text("#hw-shape-error"), "", "a valid shape clears its message");
    assert_eq!(page.attr("#hw-shape", "aria-invalid"), "false");
    page.type_into("#hw-slices", "0").await;
    assert!(page.text("#hw-slices-error").contains("at least 1"));
    assert_eq!(page.find::<HtmlInputElement>("#hw-slices").value(), "0");
    page.type_into("#hw-slices", "2").await;
    assert!(page.text("#hw-summary").starts_with("17920 devices"), "{}", page.text("#hw-summary"));
    // Another TPU keeps the shape and slices; a GPU cannot take a 3-axis slice, so its own
    // default (one NVLink domain) is written into the fields.
    page.choose("#hw-chip", "tpu-v7x").await;
    assert!(page.text("#hw-summary").starts_with("17920 devices of TPU7x"), "{}", page.text("#hw-summary"));
    assert_eq!(page.find::<HtmlInputElement>("#hw-shape").value(), "16x20x28");
    page.type_into("#hw-slices", "0").await;
    page.choose("#hw-chip", "h100-sxm").await;
    assert!(page.text("#hw-summary").starts_with("8 devices of NVIDIA H100"), "{}", page.text("#hw-summary"));
    assert_eq!(page.find::<HtmlInputElement>("#hw-shape").value(), "8");
    assert_eq!(page.find::<HtmlInputElement>("#hw-slices").value(), "1");
    assert_eq!(page.text("#hw-slices-error"), "", "the default slices clear the old message");
    assert_eq!(page.text("#hw-chip-error"), "");
    assert_eq!(page.find::<web_sys::HtmlSelectElement>("#hw-chip").value(), "h100-sxm");
}

/// A preset edited without a new name is shared as "<name> (edited)" (the other pages' chart
/// titles and tables name it so); a name the user typed is kept as typed.
#[wasm_bindgen_test]
async fn an_edited_preset_is_not_shared_under_the_preset_s_name() {
    let page = open(false).await;
    let shared = |page: &Page| {
        let href = page.attr("#nav-training", "href");
        let link = href.split_once("#s=").map(|(_, l)| l.to_string()).unwrap_or_default();
        shardcalc_core::permalink::decode(&link).expect("the link decodes")
    };
    assert_eq!(shared(&page).model, ModelSource::Preset("llama-3-8b".into()));
    let preset = |page: &Page| page.find::<web_sys::HtmlSelectElement>("#preset").value();
    assert_eq!(preset(&page), "llama-3-8b");
    page.type_into("#model-d_model", "4160").await;
    let model = shared(&page).model.resolve().expect("resolves");
    assert_eq!((model.name.as_str(), model.d_model), ("Llama 3 8B (edited)", 4160));
    assert_eq!(preset(&page), "custom", "the drop-down says the model is edited");
    page.type_into("#model-name", "My 8B").await;
    assert_eq!(shared(&page).model.resolve().expect("resolves").name, "My 8B");
    // Back to the preset's numbers: the preset again, by id.
    page.type_into("#model-name", "Llama 3 8B").await;
    page.type_into("#model-d_model", "4096").await;
    assert_eq!(shared(&page).model, ModelSource::Preset("llama-3-8b".into()));
    assert_eq!(preset(&page), "llama-3-8b");
}

/// Re-selecting the custom chip after a catalog chip brings the custom chip back (it stays
/// on offer), with the shape kept where it fits.
#[wasm_bindgen_test]
async fn the_custom_chip_comes_back_when_chosen_again() {
    use shardcalc::components::HardwarePicker;
    use shardcalc_core::hardware::query::{ChipSource, HardwareSection};
    let page = open_with(false, || {
        let state = shardcalc::state::use_app_state();
        let mut chip = shardcalc_core::hardware::catalog::get("tpu-v5e").unwrap();
        chip.id = "my-chip".into();
        chip.name = "My chip".into();
        chip.source = "my measurements".into();
        chip.as_of = "2026-11-26".into();
        let s = Scenario {
            hardware: Some(HardwareSection {
                chip: ChipSource::Custom(Box::new(chip)),
                topology: Some(shardcalc_core::hardware::topology::Topology::tpu_slice(&[4, 4], 1)),
            }),
            ..Scenario::default()
        };
        state.load(s).unwrap();
        view! { <HardwarePicker /> }.into_any()
    })
    .await;
    assert!(page.text("#hw-summary").contains("My chip"), "{}", page.text("#hw-summary"));
    page.choose("#hw-chip", "tpu-v5p").await;
    assert!(page.text("#hw-summary").contains("TPU v5p"), "{}", page.text("#hw-summary"));
    assert!(page.text("#hw-chip").contains("Custom: My chip"), "still on offer");
    page.choose("#hw-chip", "custom").await;
    assert!(page.text("#hw-summary").starts_with("16 devices of My chip"), "{}", page.text("#hw-summary"));
    assert_eq!(page.find::<web_sys::HtmlSelectElement>("#hw-chip").value(), "custom");
}

/// A model edited from a preset is not shown under the preset's name on the other pages:
/// the model page's edit reaches the training page's title as "<name> (edited)".
#[wasm_bindgen_test]
async fn an_edited_preset_keeps_no_preset_name_on_other_views() {
    use shardcalc::views::training::TrainingView;
    let page = open_with(false, || view! { <ModelView /><TrainingView /> }.into_any()).await;
    assert!(page.text("#training-model").starts_with("Llama 3 8B: "), "{}", page.text("#training-model"));
    page.type_into("#model-d_model", "4160").await;
    assert!(page.text("#training-model").starts_with("Llama 3 8B (edited): "), "{}", page.text("#training-model"));
}
