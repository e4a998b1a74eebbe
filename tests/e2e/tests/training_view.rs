//! The training page of the release bundle in dist/ (`training.html`), driven in headless
//! Chromium like a person would: pick a preset and a chip, change the batch and the
//! topology, read the best mesh and step time, break a field, reload the link.
//! Needs `scripts/build-pages.sh` (or `./dev.sh build`) first; `./dev.sh test` does both.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use std::time::{Duration, Instant};

use shardcalc_charts::format::{significant, thousands};
use shardcalc_charts::training::{mesh_label, time_unit, TrainingInputs};
use shardcalc_core::hardware::query::{ChipSource, HardwareSection};
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::scenario::{ModelSource, Scenario};
use shardcalc_core::training::section::{GlobalBatch, TrainingSection};
use shardcalc_core::training::TrainingReport;
use shardcalc_e2e::{Browser, TIMEOUT};

/// Outputs compared between the page and the page reloaded from its link.
const OUTPUTS: &[&str] = &[
    "#training-mesh-value",
    "#training-memory-value",
    "#training-step-time-value",
    "#training-tokens-per-s-value",
    "#training-mfu-value",
    "#training-days-value",
    "#training-binding",
];

/// The page's best plan for a scenario, from the same code the page runs.
fn best(s: &Scenario) -> TrainingReport {
    TrainingInputs::of(s).and_then(|i| i.best()).expect("plans")
}

/// Seconds as the headline prints them.
fn seconds(s: f64) -> String {
    let (div, unit) = time_unit(s);
    format!("{} {unit}", significant(s / div, 3))
}

fn scenario(preset: &str, chip: &str, shape: &[u64], tokens: f64) -> Scenario {
    let training = TrainingSection { global_batch: GlobalBatch::Tokens(tokens), ..TrainingSection::default() };
    Scenario {
        model: ModelSource::Preset(preset.into()),
        hardware: Some(HardwareSection {
            chip: ChipSource::Preset(chip.into()),
            topology: Some(Topology::tpu_slice(shape, 1)),
        }),
        training: Some(training),
        ..Scenario::default()
    }
}

/// Polls until `probe` accepts the text at `css`.
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

async fn outputs(browser: &Browser) -> Vec<String> {
    let mut out = Vec::new();
    for css in OUTPUTS {
        out.push(browser.text(css).await);
    }
    out
}

async fn choose(browser: &Browser, css: &str, value: &str) {
    browser.find(css).await.select_by_value(value).await.unwrap_or_else(|e| panic!("choose {value} in {css}: {e}"));
}

#[tokio::test]
async fn training_view_end_to_end() {
    let browser = Browser::open_path("/training.html").await;
    browser.client().set_window_size(1400, 2400).await.expect("resize");
    // The defaults: LLaMA 3 8B on a TPU v5p 4×4×4.
    let default = best(&Scenario::default());
    browser.wait_for_text("#training-mesh-value", &mesh_label(&default.mesh.degrees)).await;
    assert_eq!(browser.text("#training-binding").await, default.thresholds.explanation);

    // A preset and a chip.
    choose(&browser, "#preset", "llama-3-70b").await;
    let s = scenario("llama-3-70b", "tpu-v5p", &[4, 4, 4], 1_048_576.0);
    browser.wait_for_text("#training-mesh-value", &mesh_label(&best(&s).mesh.degrees)).await;
    choose(&browser, "#hw-chip", "tpu-v4").await;
    let v4 = best(&scenario("llama-3-70b", "tpu-v4", &[4, 4, 4], 1_048_576.0));
    browser.wait_for_text("#training-step-time-value", &seconds(v4.step_time_s.get())).await;
    choose(&browser, "#hw-chip", "tpu-v5p").await;

    // The book's chapter 6: a full pod and a 4M-token batch.
    browser.set_input("#hw-shape", "16x20x28").await;
    let pod_1m = best(&scenario("llama-3-70b", "tpu-v5p", &[16, 20, 28], 1_048_576.0));
    browser.wait_for_text("#training-step-time-value", &seconds(pod_1m.step_time_s.get())).await;
    browser.set_input("#training-global_batch", "4194304").await;
    let pod = best(&scenario("llama-3-70b", "tpu-v5p", &[16, 20, 28], 4_194_304.0));
    browser.wait_for_text("#training-mesh-value", &mesh_label(&pod.mesh.degrees)).await;
    browser.wait_for_text("#training-step-time-value", &seconds(pod.step_time_s.get())).await;
    assert_ne!(seconds(pod.step_time_s.get()), seconds(pod_1m.step_time_s.get()));
    assert_eq!(browser.text("#training-binding").await, pod.thresholds.explanation);
    let evaluated = pod.search.as_ref().map_or(0, |s| s.evaluated);
    let size = format!("{} configurations", thousands(evaluated));
    wait_until(&browser, "#training-search-stats", "the search's size", |t| t.contains(&size)).await;
    let pareto_drawn = browser.canvas_data_url("#chart-training-pareto").await;
    assert!(pareto_drawn.starts_with("data:image/png"), "{pareto_drawn}");
    browser.eval("document.activeElement.blur(); window.scrollTo(0, 0);", vec![]).await;
    browser.screenshot("training-view-desktop").await;
    browser.eval("document.getElementById('chart-training-step').scrollIntoView();", vec![]).await;
    browser.screenshot("training-view-charts").await;

    // The link holds all of it: a fresh browser on it shows the same plan.
    let hash = browser.eval("return location.hash;", vec![]).await;
    let hash = hash.as_str().expect("a fragment").to_string();
    assert!(hash.starts_with("#s=1."), "{hash}");

    // The charts on their canvases are the catalog's charts of the page's scenario, and
    // "Download SVG" gives the CLI's file (`shardcalc chart --chart <name>`) byte for byte.
    let page_scenario = shardcalc_core::permalink::decode(hash.trim_start_matches("#s=")).expect("the link decodes");
    browser.capture_downloads().await;
    for name in ["training-step", "training-memory", "training-mfu", "training-pareto"] {
        let chart = shardcalc_charts::catalog::build(name, &page_scenario).expect("the catalog builds it");
        let label = browser
            .eval(
                "return document.getElementById(arguments[0]).getAttribute('aria-label');",
                vec![format!("chart-{name}").into()],
            )
            .await;
        assert_eq!(label.as_str(), Some(chart.title()), "{name}");
        browser
            .find(&format!("#chart-{name}-svg"))
            .await
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {name}'s SVG: {e}"));
    }
    let deadline = Instant::now() + TIMEOUT;
    let downloads = loop {
        let d = browser.downloads().await;
        if d.len() == 4 || Instant::now() > deadline {
            break d;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(downloads.len(), 4, "four SVG downloads: {:?}", downloads.iter().map(|d| &d.0).collect::<Vec<_>>());
    for name in ["training-step", "training-memory", "training-mfu", "training-pareto"] {
        let file = format!("shardcalc-chart-{name}.svg");
        let d = downloads.iter().find(|d| d.0 == file).unwrap_or_else(|| panic!("no {file}"));
        assert_eq!(d.1, "image/svg+xml");
        let cli =
            shardcalc_charts::svg::to_svg(&shardcalc_charts::catalog::build(name, &page_scenario).unwrap()).unwrap();
        assert_eq!(d.2, cli, "{name}: the page's SVG is the CLI's");
    }
    let reloaded = Browser::open_path(&format!("/training.html{hash}")).await;
    reloaded.wait_for_text("#training-mesh-value", &mesh_label(&pod.mesh.degrees)).await;
    assert_eq!(outputs(&reloaded).await, outputs(&browser).await);
    reloaded.assert_only_local_requests().await;
    reloaded.assert_no_console_errors().await;
    reloaded.close().await;

    // A field that does not read: the message is next to it, the plan stays, the page lives.
    browser.set_input("#training-seq_len", "-4096").await;
    wait_until(&browser, "#training-seq_len-error", "a message naming the field", |t| t.contains("training.seq_len"))
        .await;
    assert_eq!(browser.text("#training-mesh-value").await, mesh_label(&pod.mesh.degrees));
    // An explored mesh that conflicts with the model: TP 3 on LLaMA 3 70B (64 heads, F = 28,672).
    browser.find("#training-explore-start").await.click().await.expect("explore");
    browser.set_input("#training-mesh-tp", "3").await;
    wait_until(&browser, "#training-conflicts", "the conflict summary", |t| t.contains("explored mesh")).await;
    browser.eval("document.getElementById('training-explore').scrollIntoView();", vec![]).await;
    browser.screenshot("training-view-invalid").await;
    browser.set_input("#training-seq_len", "4096").await;
    wait_until(&browser, "#training-seq_len-error", "no message", str::is_empty).await;

    // Narrow screens stack the columns.
    browser.client().set_window_size(420, 1600).await.expect("resize");
    browser.eval("window.scrollTo(0, 0);", vec![]).await;
    browser.screenshot("training-view-narrow").await;

    browser.assert_only_local_requests().await;
    browser.assert_no_console_errors().await;
    browser.close().await;
}
