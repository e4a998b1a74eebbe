//! The training page's MaxText paste boxes in headless Chromium (wasm-bindgen-test):
//! `cargo test -p shardcalc --target wasm32-unknown-unknown --test web_maxtext`.
//! The worker's requests are answered in-process (the e2e tests load the real worker).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use leptos::prelude::*;
use shardcalc::views::training::maxtext_paste::MaxTextPaste;
use shardcalc::views::training::TrainingView;
use shardcalc::views::View;
use shardcalc::App;
use shardcalc_core::scenario::Sections;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlInputElement, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

mod support;
use support::{fire, sleep, Page};

async fn open() -> Page {
    shardcalc::worker_client::answer_locally(shardcalc::worker_handler::answer);
    Page::mount(
        || {
            view! { <App url_sync=false sections=Sections::TRAINING view=View::Training><TrainingView /><MaxTextPaste /></App> }
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

#[wasm_bindgen_test]
async fn a_pasted_maxtext_command_becomes_the_scenario_and_a_log_is_compared() {
    let page = open().await;
    paste(&page, "#maxtext-command", COMMAND);
    page.click("#maxtext-apply").await;
    wait_for_text(&page, "#maxtext-result", "Read ").await;
    let result = page.text("#maxtext-result");
    assert!(result.contains("64 devices"), "the page's v5p 4x4x4: {result}");
    assert!(result.contains("sa_block_q"), "a key that may change performance is a warning: {result}");
    assert!(result.contains("unknown to MaxText: no_such_key=1"), "{result}");
    page.settle().await;
    // The run's own mesh is explored: FSDP over the rest of the 64 devices, TP 2.
    for (id, want) in [("#training-mesh-fsdp", "32"), ("#training-mesh-tp", "2")] {
        assert_eq!(page.find::<HtmlInputElement>(id).value(), want, "{id}");
    }
    assert_eq!(page.find::<HtmlInputElement>("#training-seq_len").value(), "2048", "base.yml's max_target_length");

    paste(
        &page,
        "#maxtext-log",
        "completed step: 0, seconds: 75.000, TFLOP/s/device: 5.000, Tokens/s/device: 50.000, total_weights: 1, loss: 11.0\n\
         completed step: 1, seconds: 1.500, TFLOP/s/device: 200.000, Tokens/s/device: 2730.000, total_weights: 1, loss: 9.0\n",
    );
    page.click("#maxtext-compare").await;
    wait_for_text(&page, "#maxtext-terms", "seconds per step").await;
    let terms = page.text("#maxtext-terms");
    for quantity in ["TFLOP/s per device", "tokens/s per device", "MFU"] {
        assert!(terms.contains(quantity), "{quantity}: {terms}");
    }
    assert!(page.text("#maxtext-breakdown").contains("matmul_s"));
    assert!(page.text("#maxtext-compare-notes").contains("step(s) 1"), "{}", page.text("#maxtext-compare-notes"));
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
    assert_eq!(page.find::<HtmlInputElement>("#training-seq_len").value(), seq);
    paste(&page, "#maxtext-log", "no step here");
    page.click("#maxtext-compare").await;
    wait_for_text(&page, "#maxtext-compare-result", "completed step").await;
}
