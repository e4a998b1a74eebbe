//! Embed mode: `<page>.html?embed=<name>&theme=light|dark#s=...` renders one chart or one
//! table and nothing else, sized to its frame. Needs `dist/` (`./dev.sh build`).
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

mod support;

use shardcalc_charts::catalog::CHARTS;
use shardcalc_charts::table::Table;
use shardcalc_core::scenario::{ModelSource, Scenario};
use shardcalc_e2e::Browser;
use support::*;

fn seventy() -> Scenario {
    Scenario { model: ModelSource::Preset("llama-3-70b".into()), ..Scenario::default() }
}

/// Every chart of the catalog on the model page, embedded alone: drawn, as wide as the frame,
/// nothing else visible; dark when asked.
#[tokio::test]
async fn each_chart_embeds_alone_and_fills_its_frame() {
    let s = seventy();
    let browser = Browser::open_path("index.html").await;
    browser.client().set_window_size(640, 420).await.expect("resize");
    for (i, chart) in CHARTS.iter().filter(|c| c.view == "model").enumerate() {
        let theme = if i % 2 == 0 { "dark" } else { "light" };
        browser.goto(&format!("index.html?embed={}&theme={theme}{}", chart.name, fragment(&s))).await;
        let canvas = format!("#chart-{}", chart.name);
        browser.find(&format!("{canvas}[data-draws]")).await;
        let outside = visible_outside(&browser, &canvas).await;
        assert!(outside.is_empty(), "{}: also visible: {outside:?}", chart.name);
        let size = browser
            .eval(
                "const c = document.querySelector(arguments[0]); const r = c.getBoundingClientRect();\
                 return [r.width, window.innerWidth, document.documentElement.dataset.theme, document.querySelectorAll('header, footer, nav').length];",
                vec![serde_json::json!(canvas)],
            )
            .await;
        assert_eq!(size[0], size[1], "{}: the canvas is as wide as the frame", chart.name);
        assert_eq!(size[2], theme);
        assert_eq!(size[3], 0, "no header, footer or navigation");
        if i == 0 {
            browser.screenshot(&format!("embed-{}-dark", chart.name)).await;
        }
        browser.assert_no_console_errors().await;
    }
    browser.close().await;
}

/// A table embedded alone (`table-<name>`, even where a chart is called `<name>`) shows the
/// exact values its CSV export holds.
#[tokio::test]
async fn a_table_embeds_alone_with_the_exported_values() {
    let browser = Browser::open_path(&format!("index.html?embed=table-params{}", fragment(&seventy()))).await;
    browser.find("#embed-params tbody tr").await;
    let outside = visible_outside(&browser, "#embed-params").await;
    assert!(outside.is_empty(), "also visible: {outside:?}");
    browser.capture_downloads().await;
    browser.eval("document.getElementById('params-csv').click();", vec![]).await;
    let csv = Table::from_csv(&browser.downloads().await[0].2).expect("the CSV parses");
    let shown = browser
        .eval(
            "return [...document.querySelectorAll('#embed-params tr')].map(r => [...r.cells].map(c => c.textContent));",
            vec![],
        )
        .await;
    let shown: Vec<Vec<String>> = serde_json::from_value(shown).unwrap();
    let mut expected = vec![csv.columns.clone()];
    expected.extend(csv.rows.clone());
    assert_eq!(shown, expected);
    browser.screenshot("embed-params-light").await;
    browser.assert_no_console_errors().await;
    browser.close().await;
}

/// An unknown name, markup included, gets a message listing what the page has, as text.
#[tokio::test]
async fn an_unknown_embed_name_says_what_exists() {
    let payload = "%3Cimg%20src%3Dx%20onerror%3D%22window.__xss%3D1%22%3E";
    let browser = Browser::open_path(&format!("index.html?embed={payload}")).await;
    let text =
        wait_for_text_where(&browser, "#embed-missing", "the message", |t| t.contains("Charts and tables here")).await;
    assert!(text.contains("“<img src=x onerror=\"window.__xss=1\">”"), "{text}");
    for name in ["params", "flops", "seq-len", "table-params", "table-flops", "table-notebook"] {
        assert!(text.contains(name), "{name} missing from {text}");
    }
    assert_no_markup_from_payloads(&browser).await;
    browser.close().await;
}
