//! Every view as a user goes through them, in headless Chromium on the release bundle in
//! dist/: the model page edited with the keyboard alone (Tab to a field, type, Tab), a preset
//! picked, a field typed; then every other view reached through the header's links (one of
//! them with Tab and Enter), the scenario carried in the link's fragment, a result read on
//! each and checked against core; on each page every field has an accessible name, every
//! chart is an image with a name, nothing is logged as an error; a screenshot of each view
//! (`target/screenshots/view-<id>.png`, and `view-<id>-charts.png` scrolled to its first chart;
//! listed in the README). Needs `dist/` (`./dev.sh build`).
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

mod support;

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use shardcalc_charts::format::{significant, thousands};
use shardcalc_charts::training::{mesh_label, TrainingInputs};
use shardcalc_core::permalink;
use shardcalc_core::report::evaluate;
use shardcalc_core::scenario::{ModelSource, Scenario};
use shardcalc_e2e::Browser;
use support::{scenario_in_page, wait_for, wait_for_text_where};

/// Total parameters and TFLOPs per device-step as the model page prints them.
fn model_outputs(s: &Scenario) -> (String, String) {
    let report = evaluate(s).expect("a valid scenario");
    let total = report.params.total.exact().expect("an exact count");
    (thousands(total), significant(report.flops.maxtext.total_tflops_per_device_step, 4))
}

/// Presses each key (down, then up), as a keyboard does, on whatever has the focus.
async fn press(browser: &Browser, keys: &[char]) {
    let mut actions = KeyActions::new("keyboard".into());
    for &k in keys {
        actions = actions.then(KeyAction::Down { value: k }).then(KeyAction::Up { value: k });
    }
    browser.client().perform_actions(actions).await.expect("press keys");
}

/// Ctrl+A: selects the whole text of the focused field.
async fn select_all(browser: &Browser) {
    let ctrl = char::from(Key::Control);
    let actions = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: ctrl })
        .then(KeyAction::Down { value: 'a' })
        .then(KeyAction::Up { value: 'a' })
        .then(KeyAction::Up { value: ctrl });
    browser.client().perform_actions(actions).await.expect("Ctrl+A");
}

async fn focused_id(browser: &Browser) -> String {
    let id = browser.eval("return document.activeElement ? document.activeElement.id : '';", vec![]).await;
    id.as_str().unwrap_or_default().to_string()
}

/// Presses Tab until `#id` has the focus (failing after `at_most` presses); returns the ids
/// focused on the way, in order.
async fn tab_to(browser: &Browser, id: &str, at_most: usize) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..at_most {
        press(browser, &[char::from(Key::Tab)]).await;
        let now = focused_id(browser).await;
        seen.push(now.clone());
        if now == id {
            return seen;
        }
    }
    panic!("#{id} not reached after {at_most} Tab presses; focus went through {seen:?}");
}

/// Fields without an accessible name (a `<label for>`, a wrapping `<label>`, `aria-label`,
/// or `aria-labelledby` naming elements with text), buttons and links without text, and
/// charts that are not `role="img"` with a name.
const ACCESSIBILITY_SCRIPT: &str = r"
const text = (e) => (e ? e.textContent.trim() : '');
const named = (e) => {
  if ((e.getAttribute('aria-label') || '').trim()) return true;
  const by = (e.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
  if (by.length && by.some((i) => text(document.getElementById(i)))) return true;
  if (e.id && [...document.querySelectorAll('label')].some((l) => l.htmlFor === e.id && text(l))) return true;
  return !!e.closest('label') && text(e.closest('label')) !== '';
};
const describe = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.type ? '[' + e.type + ']' : '');
const problems = [];
for (const e of document.querySelectorAll('input, select, textarea')) {
  if (e.type === 'hidden') continue;
  if (!named(e)) problems.push('field without a label: ' + describe(e));
}
for (const e of document.querySelectorAll('button, a[href], summary')) {
  if (!text(e) && !(e.getAttribute('aria-label') || '').trim()) problems.push('control without text: ' + describe(e));
}
for (const e of document.querySelectorAll('canvas, .scene-chart, .svg-chart')) {
  if (e.getAttribute('role') !== 'img') problems.push('chart without role=img: ' + describe(e));
  if (!(e.getAttribute('aria-label') || '').trim()) problems.push('chart without a name: ' + describe(e));
}
const ids = [...document.querySelectorAll('[id]')].map((e) => e.id);
const dup = ids.filter((id, i) => ids.indexOf(id) !== i);
if (dup.length) problems.push('duplicate ids: ' + [...new Set(dup)].join(', '));
if (!document.querySelector('nav[aria-label] a[aria-current=page]')) problems.push('no current page in the navigation');
return { problems, fields: document.querySelectorAll('input, select, textarea').length, charts: document.querySelectorAll('canvas, .scene-chart, .svg-chart').length };
";

/// Checks the page's accessible names, that it logged no error, and saves `view-<id>.png`.
async fn check_page(browser: &Browser, id: &str) {
    let found = browser.eval(ACCESSIBILITY_SCRIPT, vec![]).await;
    let problems = found["problems"].as_array().cloned().unwrap_or_default();
    assert!(problems.is_empty(), "{id}: {problems:#?}");
    println!("{id}: {} fields, {} charts, every one named", found["fields"], found["charts"]);
    browser.assert_no_console_errors().await;
    browser.eval("if (document.activeElement) document.activeElement.blur(); window.scrollTo(0, 0);", vec![]).await;
    browser.screenshot(&format!("view-{id}")).await;
    // The first chart, scrolled to the top of the window (pages without charts: none).
    let chart = "const c = document.querySelector('.view figure.chart');\
        if (c) c.scrollIntoView({ block: 'start' }); return !!c;";
    if browser.eval(chart, vec![]).await == serde_json::json!(true) {
        browser.screenshot(&format!("view-{id}-charts")).await;
    }
}

/// The accessibility check can fail: a field without a label and a chart without a role or
/// a name, added to the page, are both reported.
async fn accessibility_check_can_fail(browser: &Browser) {
    let add = "const v = document.querySelector('.view');\
        v.insertAdjacentHTML('beforeend', '<div id=\"probe\"><input id=\"probe-field\"><canvas></canvas></div>');";
    browser.eval(add, vec![]).await;
    let found = browser.eval(ACCESSIBILITY_SCRIPT, vec![]).await;
    browser.eval("document.getElementById('probe').remove();", vec![]).await;
    let problems = found["problems"].to_string();
    for expected in
        ["field without a label: input#probe-field", "chart without role=img: canvas", "chart without a name: canvas"]
    {
        assert!(problems.contains(expected), "{expected} not reported: {problems}");
    }
}

/// Clicks the header's link to the view `id` and waits for its page (a new document).
async fn follow_nav(browser: &Browser, id: &str, file: &str) {
    browser.find(&format!("#nav-{id}")).await.click().await.unwrap_or_else(|e| panic!("click #nav-{id}: {e}"));
    wait_for_page(browser, file).await;
}

async fn wait_for_page(browser: &Browser, file: &str) {
    let script = "return location.pathname.split('/').pop() + '|' + !!document.querySelector('a[aria-current=page]');";
    wait_for(browser, script, &format!("the page {file}"), |v| v.as_str() == Some(&format!("{file}|true"))).await;
}

/// The scenario in the `#nav-model` link (rebuilt from the page's scenario at once, unlike
/// the address bar, which follows 200 ms later).
async fn scenario_in_nav(browser: &Browser) -> Scenario {
    let href = browser.eval("return document.getElementById('nav-model').getAttribute('href');", vec![]).await;
    let href = href.as_str().unwrap_or_default().to_string();
    let link = href.split_once("#s=").map(|(_, l)| l).unwrap_or_else(|| panic!("no #s= in {href}"));
    permalink::decode(link).unwrap_or_else(|e| panic!("{href}: {e}"))
}

#[tokio::test]
async fn every_view_as_a_user_goes_through_them() {
    let browser = Browser::open_path("/index.html").await;
    browser.client().set_window_size(1280, 1000).await.expect("resize");
    browser.wait_for_text("#total-params-value", "8,030,261,248").await;
    let (_, tflops_4k) = model_outputs(&Scenario::default());
    browser.wait_for_text("#tflops-value", &tflops_4k).await;

    // Keyboard only: Tab from the top of the fresh page to the sequence length, type, Tab on.
    let path = tab_to(&browser, "workload-seq_len", 120).await;
    assert!(path.first().is_some_and(|id| id.starts_with("nav-")), "the header's links come first: {path:?}");
    select_all(&browser).await;
    press(&browser, &['8', '1', '9', '2']).await;
    press(&browser, &[char::from(Key::Tab)]).await;
    assert_ne!(focused_id(&browser).await, "workload-seq_len", "Tab moved on");
    assert_eq!(browser.input_value("#workload-seq_len").await, "8192");
    let mut s = Scenario::default();
    s.workload.seq_len = 8192;
    let (_, tflops_8k) = model_outputs(&s);
    assert_ne!(tflops_8k, tflops_4k);
    browser.wait_for_text("#tflops-value", &tflops_8k).await;

    // A preset, then a field typed: LLaMA 3 70B with a wider model.
    browser.find("#preset").await.select_by_value("llama-3-70b").await.expect("choose LLaMA 3 70B");
    browser.wait_for_text("#total-params-value", "70,553,706,496").await;
    browser.set_input("#model-d_model", "8320").await;
    let deadline = std::time::Instant::now() + shardcalc_e2e::TIMEOUT;
    let scenario = loop {
        let s = scenario_in_nav(&browser).await;
        let d_model = s.validate().ok().map(|m| m.d_model);
        if d_model == Some(8320) {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "the link never held d_model 8320: {d_model:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(matches!(scenario.model, ModelSource::Custom(_)), "an edited preset is a custom model");
    assert_eq!(scenario.workload.seq_len, 8192, "the preset kept the workload typed before");
    let (total, tflops) = model_outputs(&scenario);
    assert_ne!(total, "70,553,706,496");
    browser.wait_for_text("#total-params-value", &total).await;
    browser.wait_for_text("#tflops-value", &tflops).await;
    check_page(&browser, "model").await;

    // Hardware, by its link: the scenario comes along in the fragment.
    follow_nav(&browser, "hardware", "hardware.html").await;
    let carried = scenario_in_page(&browser).await;
    assert_eq!((&carried.model, carried.workload.seq_len), (&scenario.model, 8192), "the link carried the scenario");
    wait_for_text_where(&browser, "#spec-chip", "a chip", |t| t.starts_with("TPU")).await;
    wait_for_text_where(&browser, "#collective-result-0", "a collective's time", |t| t.contains('s')).await;
    check_page(&browser, "hardware").await;

    // Training: the best mesh for the edited model, as core finds it.
    follow_nav(&browser, "training", "training.html").await;
    let carried = scenario_in_page(&browser).await;
    assert_eq!(carried.model, scenario.model, "the link carried the model");
    let best = TrainingInputs::of(&carried).and_then(|i| i.best()).expect("a plan");
    browser.wait_for_text("#training-mesh-value", &mesh_label(&best.mesh.degrees)).await;
    check_page(&browser, "training").await;

    // Serving: a decode step for the same model.
    follow_nav(&browser, "serving", "serving.html").await;
    assert_eq!(scenario_in_page(&browser).await.model, scenario.model, "the link carried the model");
    wait_for_text_where(&browser, "#serving-step-value", "a decode step", |t| t.ends_with(" ms") || t.ends_with(" s"))
        .await;
    check_page(&browser, "serving").await;

    // Validation, by keyboard: on the fresh page, Tab to its link and press Enter.
    browser.reload().await;
    wait_for_page(&browser, "serving.html").await;
    tab_to(&browser, "nav-validation", 10).await;
    press(&browser, &[char::from(Key::Enter)]).await;
    wait_for_page(&browser, "validation.html").await;
    browser.wait_for_text("#validation-count", "Showing 51 of 51 runs.").await;
    assert_eq!(scenario_in_page(&browser).await.model, scenario.model, "the link carried the model");
    check_page(&browser, "validation").await;

    // Saved: nothing saved in this fresh profile.
    follow_nav(&browser, "saved", "saved.html").await;
    wait_for_text_where(&browser, "#saved-empty", "the empty list", |t| t.contains("Nothing is saved")).await;
    accessibility_check_can_fail(&browser).await;
    check_page(&browser, "saved").await;

    // Back to the model page: the same model and outputs as when we left.
    follow_nav(&browser, "model", "index.html").await;
    browser.wait_for_text("#total-params-value", &total).await;
    browser.wait_for_text("#tflops-value", &tflops).await;
    assert_eq!(browser.input_value("#model-d_model").await, "8320");
    assert_eq!(browser.input_value("#workload-seq_len").await, "8192");

    browser.assert_only_local_requests().await;
    browser.assert_no_console_errors().await;
    browser.close().await;
}

/// A page's own defaults (the hardware page's v5e 8×4, the training page's v5p 4×4×4) are
/// shown but not passed on: a page only visited leaves the scenario as it came, so the next
/// page shows its own defaults; once the user edits something, what the page shows is passed on.
#[tokio::test]
async fn a_page_s_defaults_stay_on_that_page_until_edited() {
    let browser = Browser::open_path("/hardware.html").await;
    wait_for_text_where(&browser, "#spec-chip", "the hardware page's default chip", |t| t.contains("v5e")).await;
    wait_for_text_where(&browser, "#collective-result-0", "a collective's time", |t| t.contains('s')).await;
    let shared = scenario_in_nav(&browser).await;
    assert_eq!(shared, Scenario::default(), "the hardware page's defaults are not in its links");

    // Training, reached from the unedited hardware page: its own default chip, not the v5e.
    follow_nav(&browser, "training", "training.html").await;
    let chip = wait_for(
        &browser,
        "return document.getElementById('hw-chip')?.value ?? '';",
        "the training page's chip",
        |v| v.as_str().is_some_and(|s| !s.is_empty()),
    )
    .await;
    assert_eq!(chip.as_str(), Some("tpu-v5p"), "the training page shows its own default chip");
    let best = TrainingInputs::of(&Scenario::default()).and_then(|i| i.best()).expect("a plan");
    browser.wait_for_text("#training-mesh-value", &mesh_label(&best.mesh.degrees)).await;

    // An edit on the training page (another chip): from now on the page passes on what it shows.
    browser.find("#hw-chip").await.select_by_value("tpu-v4").await.expect("choose TPU v4");
    wait_for(
        &browser,
        "return document.getElementById('nav-model').getAttribute('href');",
        "the link to carry the edit",
        |v| {
            v.as_str()
                .and_then(|h| h.split_once("#s="))
                .and_then(|(_, l)| permalink::decode(l).ok())
                .is_some_and(|s| s.training.is_some())
        },
    )
    .await;
    let shared = scenario_in_nav(&browser).await;
    let chip = shared.hardware.as_ref().map(|h| h.chip.clone());
    assert_eq!(
        chip,
        Some(shardcalc_core::hardware::query::ChipSource::Preset("tpu-v4".into())),
        "the edited chip is passed on"
    );
    follow_nav(&browser, "hardware", "hardware.html").await;
    wait_for_text_where(&browser, "#spec-chip", "the edited chip on the hardware page", |t| t.contains("v4")).await;
    browser.assert_no_console_errors().await;
    browser.close().await;
}
