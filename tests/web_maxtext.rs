//! The training page's MaxText paste boxes in headless Chromium (wasm-bindgen-test):
//! `cargo test -p shardcalc --target wasm32-unknown-unknown --test web_maxtext`.
//! The page is the training view as shipped (the boxes are part of it); the worker's requests
//! are answered in-process (the e2e tests load the real worker).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use leptos::prelude::*;
use shardcalc::views::training::TrainingView;
use shardcalc::views::View;
use shardcalc::App;
use shardcalc_core::scenario::Sections;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

mod support;
use support::{fire, sleep, Page};

async fn open() -> Page {
    shardcalc::worker_client::answer_locally(shardcalc::worker_handler::answer);
    Page::mount(
        || {
            view! { <App url_sync=false sections=Sections::TRAINING view=View::Training><TrainingView /></App> }
                .into_any()
        },
        2,
    )
    .await
}

/// Waits until the text of `selector` contains `needle` (replies come asynchronously).
async fn wait_for_text(page: &Page, selector: &str, needle: &str) {
    for _ in 0..250 {
        if page.exists(selector) && page.text(selector).contains(needle) {
            return;
        }
        sleep(20).await;
    }
    panic!(
        "{selector} never showed {needle:?}: {}",
        if page.exists(selector) { page.text(selector) } else { "(absent)".into() }
    );
}

fn paste(page: &Page, selector: &str, text: &str) {
    let area: HtmlTextAreaElement = page.find(selector);
    area.set_value(text);
    fire(&area, "input");
}

const COMMAND: &str = "export LIBTPU_INIT_ARGS=\"--xla_tpu_enable_async_collective_fusion=true\"\n\
    python3 -m MaxText.train src/maxtext/configs/base.yml model_name=llama3-8b \\\n    \
    per_device_batch_size=2 ici_fsdp_parallelism=-1 ici_tensor_parallelism=2 remat_policy=minimal \\\n    \
    sa_block_q=1024 no_such_key=1";

fn value(page: &Page, selector: &str) -> String {
    page.find::<HtmlInputElement>(selector).value()
}

/// The text of each cell of the row of `table` whose first cell is `first`.
fn row(page: &Page, table: &str, first: &str) -> Vec<String> {
    let rows = page.all(&format!("{table} tbody tr"));
    for i in 0..rows.length() {
        let Some(tr) = rows.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) else { continue };
        let cells = tr.query_selector_all("td, th").unwrap();
        let texts: Vec<String> =
            (0..cells.length()).filter_map(|j| cells.item(j)).map(|c| c.text_content().unwrap_or_default()).collect();
        if texts.first().is_some_and(|t| t.trim() == first) {
            return texts;
        }
    }
    panic!("{table} has no row {first:?}: {}", page.text(table));
}

/// The number in a cell (`1.1`, `3723.636`).
fn number(cell: &str) -> f64 {
    cell.trim().replace(',', "").parse().unwrap_or_else(|_| panic!("{cell:?} is not a number"))
}

/// Pastes [`COMMAND`] and waits for the page to load its run.
async fn use_command(page: &Page) {
    paste(page, "#maxtext-command", COMMAND);
    page.click("#maxtext-apply").await;
    wait_for_text(page, "#maxtext-result", "Read ").await;
    page.settle().await;
}

#[wasm_bindgen_test]
async fn a_pasted_maxtext_command_becomes_the_scenario() {
    let page = open().await;
    let before = (value(&page, "#training-seq_len"), page.find::<HtmlSelectElement>("#training-remat").value());
    use_command(&page).await;
    let result = page.text("#maxtext-result");
    assert!(result.contains("64 devices"), "the page's v5p 4x4x4: {result}");
    assert!(result.contains("sa_block_q"), "a key that may change performance is a warning: {result}");
    assert!(result.contains("unknown to MaxText: no_such_key=1"), "{result}");
    // The run's own mesh is explored: FSDP over the rest of the 64 devices (64 / TP 2), TP 2.
    assert_eq!(value(&page, "#training-mesh-fsdp"), "32");
    assert_eq!(value(&page, "#training-mesh-tp"), "2");
    // base.yml's max_target_length, the command's remat_policy.
    let after = (value(&page, "#training-seq_len"), page.find::<HtmlSelectElement>("#training-remat").value());
    assert_eq!(after, ("2048".to_string(), "minimal".to_string()));
    assert_ne!(before, after, "the page's defaults were 4096 and full");
    // per_device_batch_size=2 on 64 devices: 128 sequences of 2048 tokens, 262,144 tokens.
    let batch = value(&page, "#training-global_batch");
    match page.find::<HtmlSelectElement>("#training-global_batch-unit").value().as_str() {
        "sequences" => assert_eq!(batch, "128"),
        unit => assert_eq!((unit, batch.as_str()), ("tokens", "262144")),
    }
}

#[wasm_bindgen_test]
async fn a_pasted_log_is_measured_against_the_plan() {
    let page = open().await;
    use_command(&page).await;
    // Step 0 (compilation) is left out: the measured step is the median of 1.0, 1.2 and 1.1 s.
    paste(
        &page,
        "#maxtext-log",
        "completed step: 0, seconds: 75.000, loss: 11.0\n\
         completed step: 1, seconds: 1.000, loss: 9.0\n\
         completed step: 2, seconds: 1.200, loss: 8.8\n\
         completed step: 3, seconds: 1.100, loss: 8.7\n",
    );
    page.click("#maxtext-compare").await;
    wait_for_text(&page, "#maxtext-terms", "seconds per step").await;
    // Columns: quantity, unit, measured, predicted, roofline, error %.
    let seconds = row(&page, "#maxtext-terms", "seconds per step");
    assert_eq!(number(&seconds[2]), 1.1, "{seconds:?}");
    let predicted = number(&seconds[3]);
    assert!(predicted > 0.0 && number(&seconds[4]) <= predicted, "the roofline bounds the prediction: {seconds:?}");
    let error = number(&seconds[5]);
    assert!((error - 100.0 * (predicted - 1.1) / 1.1).abs() < 0.1, "{seconds:?}");
    // The log has no Tokens/s: measured from its step time. Each device takes 2 sequences of
    // 2048 tokens per step (per_device_batch_size=2, max_target_length 2048): 4096 / 1.1 s.
    let tokens = row(&page, "#maxtext-terms", "tokens/s per device");
    assert_eq!(number(&tokens[2]), 3723.636, "4096 / 1.1 = 3723.636…: {tokens:?}");
    assert!((number(&tokens[3]) - 4096.0 / predicted).abs() < 0.01 * 4096.0 / predicted, "{tokens:?}");
    assert!(page.text("#maxtext-terms").contains("MFU"));
    // The predicted step term by term, and what is left of the measured 1.1 s.
    assert!(page.text("#maxtext-breakdown").contains("matmul_s"));
    let left = row(&page, "#maxtext-breakdown", "unexplained_s (measured − predicted)");
    assert!((number(&left[1]) - (1.1 - predicted)).abs() < 0.002, "{left:?} against {predicted}");
    let notes = page.text("#maxtext-compare-notes");
    assert!(notes.contains("step(s) 1, 2, 3") && notes.contains("64 devices"), "{notes}");
}

#[wasm_bindgen_test]
async fn bad_pastes_say_why_and_change_nothing() {
    let page = open().await;
    let seq = page.find::<HtmlInputElement>("#training-seq_len").value();
    page.click("#maxtext-apply").await;
    wait_for_text(&page, "#maxtext-result", "Paste a MaxText command line").await;
    paste(&page, "#maxtext-command", "model_name=llama3-8b ici_fsdp_parallelism=-1 ici_data_parallelism=-1");
    page.click("#maxtext-apply").await;
    wait_for_text(&page, "#maxtext-result", "at most one ici axis may be -1").await;
    assert_eq!(page.attr("#maxtext-result", "role"), "alert");
    assert!(page.text("#maxtext-result").starts_with("Nothing changed:"), "{}", page.text("#maxtext-result"));
    assert_eq!(page.find::<HtmlInputElement>("#training-seq_len").value(), seq);
    paste(&page, "#maxtext-log", "no step here");
    page.click("#maxtext-compare").await;
    wait_for_text(&page, "#maxtext-compare-result", "completed step").await;
}
