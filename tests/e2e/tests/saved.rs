//! Saved scenarios in a real browser: save, list, rename, delete, compare; they survive a
//! reload; damaged and old-format entries are recovered or kept, never dropped.
//! Needs `dist/` (`./dev.sh build`).
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

mod support;

use shardcalc_core::permalink;
use shardcalc_core::scenario::{ModelSource, Scenario};
use shardcalc_e2e::Browser;
use support::*;

async fn save_as(browser: &Browser, name: &str) {
    if browser.eval("return document.getElementById('share').open;", vec![]).await != serde_json::json!(true) {
        browser.find("#share summary").await.click().await.expect("open Save & share");
    }
    browser.set_input("#save-name", name).await;
    browser.find("#save-button").await.click().await.expect("click Save");
    wait_for_text_where(browser, "#share-message", "saved", |t| t.contains(&format!("Saved “{name}”"))).await;
}

async fn saved_names(browser: &Browser) -> Vec<String> {
    let names = browser
        .eval("return [...document.querySelectorAll('#saved-table .saved-name')].map(e => e.textContent);", vec![])
        .await;
    serde_json::from_value(names).unwrap()
}

async fn click(browser: &Browser, css: &str) {
    browser.find(css).await.click().await.unwrap_or_else(|e| panic!("click {css}: {e}"));
}

#[tokio::test]
async fn saved_scenarios_survive_reloads_and_damaged_storage() {
    let mut first = Scenario { model: ModelSource::Preset("llama-3-70b".into()), ..Scenario::default() };
    first.workload.seq_len = 8192;
    let browser = Browser::open_path(&format!("index.html{}", fragment(&first))).await;
    browser.wait_for_text("#total-params-value", "70,553,706,496").await;
    save_as(&browser, "seventy at 8k").await;
    let full = full_scenario();
    browser.goto(&format!("index.html{}", fragment(&full))).await;
    browser.wait_for_text("#total-params-value", "684,489,845,504").await;
    save_as(&browser, "deepseek, every section").await;

    // Damage storage the ways it gets damaged: a truncated entry, a newer format, an old bare
    // scenario document, a bare link, and an entry that no longer validates.
    let old = serde_json::to_string(&Scenario::default()).unwrap();
    let link = permalink::encode(&first);
    let mut invalid = first.clone();
    invalid.workload.seq_len = 0;
    let invalid = format!(
        r#"{{"format":1,"name":"needs fixing","saved_at":5,"scenario":{}}}"#,
        serde_json::to_string(&invalid).unwrap()
    );
    browser
        .eval(
            "localStorage.setItem('shardcalc.saved.truncated', '{\"format\":1,\"name\":\"cut');\
             localStorage.setItem('shardcalc.saved.future', '{\"format\":7,\"name\":\"x\"}');\
             localStorage.setItem('shardcalc.saved.old', arguments[0]);\
             localStorage.setItem('shardcalc.saved.link', arguments[1]);\
             localStorage.setItem('shardcalc.saved.invalid', arguments[2]);\
             localStorage.setItem('unrelated', 'not ours');",
            vec![old.into(), link.into(), invalid.into()],
        )
        .await;

    browser.goto("saved.html").await;
    browser.reload().await;
    browser.find("#saved-table").await;
    let names = saved_names(&browser).await;
    assert_eq!(names, ["deepseek, every section", "seventy at 8k", "needs fixing", "recovered link", "recovered old"]);
    let unreadable = browser.text("#unreadable-list").await;
    assert!(unreadable.contains("shardcalc.saved.future") && unreadable.contains("newer shardcalc"), "{unreadable}");
    assert!(unreadable.contains("shardcalc.saved.truncated") && unreadable.contains("not JSON"), "{unreadable}");
    assert!(browser.text("#saved-2-problems").await.contains("workload.seq_len"));

    // The raw text of an unreadable entry downloads as it was.
    browser.capture_downloads().await;
    click(&browser, "#unreadable-1-raw").await;
    let downloads = browser.downloads().await;
    assert_eq!(downloads[0].2, "{\"format\":1,\"name\":\"cut");

    // Compare the two saved ones: both named, the rows that differ marked.
    click(&browser, "#saved-0-compare").await;
    click(&browser, "#saved-1-compare").await;
    let table = browser.text("#compare-table").await;
    assert!(table.contains("deepseek, every section") && table.contains("seventy at 8k"), "{table}");
    assert!(table.contains("684,489,845,504") && table.contains("70,553,706,496"), "{table}");
    let differs = browser
        .eval("return [...document.querySelectorAll('#compare-table tr.differs th')].map(e => e.textContent);", vec![])
        .await;
    let differs: Vec<String> = serde_json::from_value(differs).unwrap();
    for row in ["Model", "Remat", "Devices"] {
        assert!(differs.iter().any(|d| d == row), "{row} is not marked: {differs:?}");
    }
    assert!(!differs.iter().any(|d| d == "Problems"), "both are valid: {differs:?}");
    browser.screenshot("saved-compare").await;

    // Rename, delete (two clicks), delete an unreadable one; all of it survives a reload.
    click(&browser, "#saved-1-rename").await;
    browser.set_input("#saved-1-new-name", "seventy, renamed").await;
    click(&browser, "#saved-1-rename-ok").await;
    wait_for_text_where(&browser, "#saved-message", "renamed", |t| t.contains("Renamed")).await;
    let position = saved_names(&browser).await.iter().position(|n| n == "deepseek, every section").unwrap();
    click(&browser, &format!("#saved-{position}-delete")).await;
    click(&browser, &format!("#saved-{position}-delete-confirm")).await;
    click(&browser, "#unreadable-1-delete").await;
    browser.reload().await;
    browser.find("#saved-table").await;
    let names = saved_names(&browser).await;
    assert_eq!(names, ["seventy, renamed", "needs fixing", "recovered link", "recovered old"]);
    let unreadable = browser.text("#unreadable-list").await;
    assert!(unreadable.contains("future") && !unreadable.contains("truncated"), "{unreadable}");
    let unrelated = browser.eval("return localStorage.getItem('unrelated');", vec![]).await;
    assert_eq!(unrelated, "not ours");

    // "Open in Model" loads the saved scenario on the model page; one that does not validate
    // opens with its problem at the field.
    click(&browser, "#saved-0-open-model").await;
    browser.wait_for_text("#total-params-value", "70,553,706,496").await;
    assert_eq!(browser.input_value("#workload-seq_len").await, "8192");
    browser.goto("saved.html").await;
    click(&browser, "#saved-1-open-model").await;
    wait_for_text_where(&browser, "#workload-seq_len-error", "the problem at its field", |t| {
        t.contains("workload.seq_len")
    })
    .await;
    browser.assert_no_console_errors().await;
    browser.close().await;
}
