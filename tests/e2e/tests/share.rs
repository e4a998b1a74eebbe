//! Issue 6 in a real browser: a permalink restores every field; every export (PNG, SVG,
//! CSV, Markdown, JSON) is produced and parses; a scenario file opens, and a bad one is
//! refused with a message; payloads in a link, a file or a name stay text.
//! Needs `dist/` (`./dev.sh build`).
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

mod support;

use serde_json::Value;
use shardcalc_charts::catalog;
use shardcalc_charts::table::Table;
use shardcalc_core::scenario::{ModelSource, Scenario};
use shardcalc_e2e::Browser;
use support::*;

/// Every page opened on a link with every section set shows the link's value in every field
/// whose id names a path of the document, and writes back the same link (no section lost).
#[tokio::test]
async fn a_permalink_restores_every_field_on_every_page() {
    let s = full_scenario();
    let doc = serde_json::to_value(&s).unwrap();
    let mut checked_any_page = false;
    for page in dist_pages() {
        let browser = Browser::open_path(&format!("{page}{}", fragment(&s))).await;
        browser.find(".view").await;
        // Let the view render and the URL sync run once (it rewrites after 200 ms).
        tokio::time::sleep(std::time::Duration::from_millis(600)).await;
        let fields = page_fields(&browser).await;
        let mut matched = Vec::new();
        let mut wrong = Vec::new();
        for (id, shown) in &fields {
            let Some(expected) = value_at(&doc, id) else { continue };
            if same_value(&expected, shown) {
                matched.push(id.clone());
            } else {
                wrong.push(format!("#{id} shows {shown}, the link says {expected}"));
            }
        }
        assert!(wrong.is_empty(), "{page}: {wrong:#?}");
        if page == "index.html" {
            assert!(matched.len() >= 20, "{page}: only {} fields checked: {matched:?}", matched.len());
            // The convention is a radio group.
            let book = browser.eval("return document.getElementById('convention-book').checked;", vec![]).await;
            assert_eq!(book, Value::Bool(true));
        }
        checked_any_page |= !matched.is_empty();
        assert_eq!(scenario_in_page(&browser).await, s, "{page} changed the scenario in its link");
        browser.assert_no_console_errors().await;
        browser.close().await;
    }
    assert!(checked_any_page);
}

/// PNG and SVG of a chart, CSV and Markdown of a table, and the scenario as JSON: produced,
/// parsed, and equal to what the shared code makes of the same scenario.
#[tokio::test]
async fn every_export_is_produced_and_parses() {
    let mut s = Scenario { model: ModelSource::Preset("llama-3-70b".into()), ..Scenario::default() };
    s.workload.seq_len = 8192;
    let browser = Browser::open_path(&format!("index.html{}", fragment(&s))).await;
    browser.wait_for_text("#total-params-value", "70,553,706,496").await;
    browser.find("#chart-params[data-draws]").await;
    browser.capture_downloads().await;
    let buttons = [
        "#chart-params-png",
        "#chart-params-svg",
        "#params-csv",
        "#params-md",
        "#flops-md",
        "#chart-flops-svg",
        "#chart-seq-len-svg",
    ];
    for (i, button) in buttons.into_iter().enumerate() {
        browser.find(button).await.click().await.unwrap_or_else(|e| panic!("click {button}: {e}"));
        browser.wait_for_downloads(i + 1).await;
    }
    browser.find("#share summary").await.click().await.expect("open Save & share");
    browser.find("#download-json").await.click().await.expect("click Download JSON");
    let downloads = browser.downloads().await;
    let names: Vec<&str> = downloads.iter().map(|d| d.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "shardcalc-chart-params.png",
            "shardcalc-chart-params.svg",
            "shardcalc-params.csv",
            "shardcalc-params.md",
            "shardcalc-flops.md",
            "shardcalc-chart-flops.svg",
            "shardcalc-chart-seq-len.svg",
            "shardcalc-scenario.json"
        ]
    );

    // PNG: a data URL whose bytes are a PNG of the chart's size.
    let (_, mime, url) = &downloads[0];
    assert_eq!(mime, "image/png");
    let png = decode_base64(url.split_once("base64,").expect("a base64 data URL").1);
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let chart = catalog::build("params", &s).unwrap();
    let width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
    let height = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
    assert_eq!((width, height), chart.size());

    // SVG: byte for byte what `shardcalc chart --chart params` writes for this scenario (and
    // below, the other two charts).
    let (_, mime, svg) = &downloads[1];
    assert_eq!(mime, "image/svg+xml");
    assert_eq!(svg, &shardcalc_charts::svg::to_svg(&chart).unwrap());

    // CSV and Markdown: the same table.
    let csv = Table::from_csv(&downloads[2].2).expect("the CSV parses");
    assert_eq!(csv.columns, ["component", "label", "total_params", "active_params", "share_of_total"]);
    let total = csv.rows.iter().find(|r| r[0] == "total").expect("a total row");
    assert_eq!(total[2], "70553706496");
    let md = &downloads[3].2;
    assert_eq!(downloads[3].1, "text/markdown");
    assert_eq!(md, &csv.to_markdown());
    assert_eq!(md.lines().count(), csv.rows.len() + 2);
    assert!(downloads[4].2.starts_with("| component | label | maxtext\\_total\\_tflops"), "{}", downloads[4].2);

    for (download, name) in downloads[5..7].iter().zip(["flops", "seq-len"]) {
        let cli = shardcalc_charts::svg::to_svg(&catalog::build(name, &s).unwrap()).unwrap();
        assert_eq!(download.2, cli, "{name}: the page's SVG is the CLI's");
    }

    // JSON: the page's scenario, which reads back as itself.
    let (_, mime, json) = &downloads[7];
    assert_eq!(mime, "application/json");
    assert_eq!(Scenario::from_json(json).expect("the JSON reads"), s);
    browser.assert_no_console_errors().await;
    browser.close().await;
}

/// A scenario file opens; a broken one, an oversized one and one that is not a scenario are
/// refused with a message naming the problem, and the page keeps its scenario.
#[tokio::test]
async fn scenario_files_open_and_bad_ones_say_why() {
    let dir = std::env::temp_dir().join(format!("shardcalc-e2e-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let full = full_scenario();
    let good = write("good.json", &serde_json::to_string_pretty(&full).unwrap());
    let typo = write(
        "typo.json",
        r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":8},"hardwre":{}}"#,
    );
    let broken = write("broken.json", "{\"model\": ");
    let huge = write("huge.json", &" ".repeat(300_000));
    let mut bad_hw = full.clone();
    if let Some(t) = bad_hw.hardware.as_mut().and_then(|h| h.topology.as_mut()) {
        t.axes[0].size = 0;
    }
    let bad_hw = write("bad-hardware.json", &serde_json::to_string(&bad_hw).unwrap());
    let mut bad_seq = full.clone();
    bad_seq.workload.seq_len = 0;
    let bad_seq = write("bad-seq.json", &serde_json::to_string(&bad_seq).unwrap());

    let browser = Browser::open_path("index.html").await;
    browser.wait_for_text("#total-params-value", "8,030,261,248").await;
    browser.find("#share summary").await.click().await.expect("open Save & share");

    open(&browser, &good).await;
    wait_for_text_where(&browser, "#share-message", "opened", |t| t.contains("Opened good.json")).await;
    browser.wait_for_text("#total-params-value", "684,489,845,504").await;
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    assert_eq!(scenario_in_page(&browser).await, full, "every section of the file is in the page's link");

    for (path, expect) in [
        (typo, "unknown field `hardwre`"),
        (broken, "EOF while parsing"),
        (huge, "at most 262144 bytes"),
        (bad_hw, "hardware.topology.axes[0].size"),
    ] {
        open(&browser, &path).await;
        let text = wait_for_text_where(&browser, "#share-message", "a refusal", |t| t.contains(expect)).await;
        assert!(!text.starts_with("Opened"), "{path}: {text}");
        assert_eq!(scenario_in_page(&browser).await, full, "{path} changed the page");
    }

    // Problems only in the form's fields: loaded, shown at the field, the results keep the
    // last valid inputs, and the file's other sections are kept for when it is fixed.
    open(&browser, &bad_seq).await;
    wait_for_text_where(&browser, "#share-message", "loaded with problems", |t| t.contains("workload.seq_len")).await;
    wait_for_text_where(&browser, "#workload-seq_len-error", "the field's message", |t| t.contains("workload.seq_len"))
        .await;
    browser.set_input("#workload-seq_len", "4096").await;
    wait_for(&browser, "return location.hash;", "the fixed scenario in the link", |_| true).await;
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let mut fixed = full.clone();
    fixed.workload.seq_len = 4096;
    assert_eq!(scenario_in_page(&browser).await, fixed);
    browser.assert_no_console_errors().await;
    browser.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

async fn open(browser: &Browser, path: &str) {
    let input = browser.find("#open-json").await;
    input.send_keys(path).await.unwrap_or_else(|e| panic!("choose {path}: {e}"));
}

/// Payloads in the link (model name, preset id, embed name) and in an opened file render as
/// text: nothing runs, no element is made from them.
#[tokio::test]
async fn payloads_in_links_and_files_stay_text() {
    let mut s = full_scenario();
    let mut model = s.model.resolve().unwrap();
    model.name = PAYLOADS.join(" ");
    s.model = ModelSource::Custom(Box::new(model));
    let browser = Browser::open_path(&format!("index.html{}", fragment(&s))).await;
    browser.wait_for_text("#total-params-value", "684,489,845,504").await;
    assert_eq!(browser.input_value("#model-name").await, PAYLOADS.join(" "));
    assert_no_markup_from_payloads(&browser).await;

    // An unknown preset id made of markup: the notice quotes it as text.
    let bad = format!(
        "1.{}",
        base64url(
            format!(
                r#"{{"model":{{"preset":"{}"}},"workload":{{"per_device_batch":1,"seq_len":8}}}}"#,
                PAYLOADS[1].replace('"', "\\\"")
            )
            .as_bytes()
        )
    );
    // Pasted into the address bar of the open page (hashchange): refused, the page unchanged.
    browser.goto(&format!("index.html#s={bad}")).await;
    wait_for_text_where(&browser, "#notice", "the refusal quoting the id", |t| {
        t.contains("<script>window.__xss=2</script>")
    })
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    assert_eq!(browser.text("#total-params-value").await, "684,489,845,504");
    assert_eq!(scenario_in_page(&browser).await, s, "the address bar is back to the page's link");
    assert_no_markup_from_payloads(&browser).await;
    // Opened fresh.
    browser.goto("saved.html").await;
    browser.goto(&format!("index.html#s={bad}")).await;
    wait_for_text_where(&browser, "#notice", "the refusal quoting the id", |t| {
        t.contains("<script>window.__xss=2</script>")
    })
    .await;
    assert_no_markup_from_payloads(&browser).await;

    // The same in an opened file, and as a saved name.
    let path = std::env::temp_dir().join(format!("shardcalc-e2e-xss-{}.json", std::process::id()));
    std::fs::write(
        &path,
        serde_json::to_string(&s)
            .unwrap()
            .replace(r#""version":1"#, &format!(r#""version":1,"{}":1"#, PAYLOADS[2].replace('"', "\\\""))),
    )
    .unwrap();
    browser.find("#share summary").await.click().await.expect("open Save & share");
    browser.find("#open-json").await.send_keys(&path.display().to_string()).await.expect("choose the file");
    wait_for_text_where(&browser, "#share-message", "a refusal naming the key", |t| t.contains("svg onload")).await;
    browser.set_input("#save-name", PAYLOADS[0]).await;
    browser.find("#save-button").await.click().await.expect("save");
    wait_for_text_where(&browser, "#share-message", "saved", |t| t.contains(PAYLOADS[0])).await;
    assert_no_markup_from_payloads(&browser).await;
    browser.goto("saved.html").await;
    wait_for_text_where(&browser, "#saved-0-name", "the saved name", |t| t == PAYLOADS[0]).await;
    assert_no_markup_from_payloads(&browser).await;
    let _ = std::fs::remove_file(&path);
    browser.close().await;
}

fn base64url(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..=chunk.len() {
            out.push(char::from(A[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text.bytes().filter(|b| *b != b'=').map(value).collect();
    clean
        .chunks(4)
        .flat_map(|g| {
            let n = g.iter().enumerate().fold(0u32, |acc, (i, v)| acc | u32::from(*v) << (18 - 6 * i));
            n.to_be_bytes().into_iter().skip(1).take(g.len() - 1)
        })
        .collect()
}
