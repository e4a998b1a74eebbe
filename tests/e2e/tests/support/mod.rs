//! Helpers shared by the share, embed, saved and offline browser tests (`mod support;`).
#![allow(dead_code)]

use std::time::{Duration, Instant};

use serde_json::Value;
use shardcalc_core::permalink;
use shardcalc_core::scenario::Scenario;
use shardcalc_e2e::{workspace_root, Browser, TIMEOUT};

/// The full scenario of `core/tests/roundtrip/full-scenario.json`: every section set, a custom
/// model (DeepSeek-V3 with MTP), nothing at its default.
pub fn full_scenario() -> Scenario {
    let text = std::fs::read_to_string(workspace_root().join("core/tests/roundtrip/full-scenario.json"))
        .expect("read core/tests/roundtrip/full-scenario.json");
    let s = Scenario::from_json(&text).expect("the fixture reads");
    s.validate().expect("the fixture validates");
    s
}

/// `#s=<link>` of a scenario.
pub fn fragment(s: &Scenario) -> String {
    format!("#s={}", permalink::encode(s))
}

/// The scenario in the page's URL fragment.
pub async fn scenario_in_page(browser: &Browser) -> Scenario {
    let hash = browser.eval("return location.hash;", vec![]).await;
    let hash = hash.as_str().unwrap_or_default();
    let link = hash.strip_prefix("#s=").unwrap_or_else(|| panic!("no #s= in {hash:?}"));
    permalink::decode(link).unwrap_or_else(|e| panic!("the page's link does not decode: {e}"))
}

/// Polls `probe` (a script returning a value) until `accept` holds; fails with the last value.
pub async fn wait_for(browser: &Browser, script: &str, what: &str, accept: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let value = browser.eval(script, vec![]).await;
        if accept(&value) {
            return value;
        }
        assert!(Instant::now() < deadline, "{what}: still {value} after {TIMEOUT:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Polls until the element's text satisfies `accept`.
pub async fn wait_for_text_where(browser: &Browser, css: &str, what: &str, accept: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let text = browser.text(css).await;
        if accept(&text) {
            return text;
        }
        assert!(Instant::now() < deadline, "{css}: {what}; it shows {text:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The value at a field's path in the scenario document: the field id with dashes as dots
/// (`model-attention-num_heads` → `model.attention.num_heads`), looking inside the model's
/// `custom` object for model fields.
pub fn value_at(doc: &Value, id: &str) -> Option<Value> {
    let parts: Vec<&str> = id.split('-').collect();
    let walk = |parts: &[&str]| -> Option<Value> {
        let mut v = doc;
        for p in parts {
            v = match v {
                Value::Object(m) => m.get(*p)?,
                Value::Array(items) => items.get(p.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        (!v.is_object() && !v.is_array()).then(|| v.clone())
    };
    walk(&parts).or_else(|| match parts.split_first() {
        Some((&"model", rest)) => {
            let mut with_custom = vec!["model", "custom"];
            with_custom.extend_from_slice(rest);
            walk(&with_custom)
        }
        _ => None,
    })
}

/// Whether a field's shown value is the document's value.
pub fn same_value(expected: &Value, shown: &Value) -> bool {
    match (expected, shown) {
        (Value::Bool(b), Value::Bool(c)) => b == c,
        (Value::Number(n), Value::String(text)) => {
            let (Some(x), Ok(y)) = (n.as_f64(), text.trim().replace(',', "").parse::<f64>()) else { return false };
            x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
        }
        (Value::String(a), Value::String(b)) => a == b,
        // An absent optional value: an empty field, or the "none" choice of a select.
        (Value::Null, Value::String(b)) => b.is_empty() || b == "none",
        _ => false,
    }
}

/// Every field of the page's view with an id (`input`, `select`, `textarea`): `[id, value]`,
/// the value a checkbox's `checked` for checkboxes.
pub async fn page_fields(browser: &Browser) -> Vec<(String, Value)> {
    let script = "return [...document.querySelectorAll('.view input[id], .view select[id], .view textarea[id]')]\
        .filter(e => e.type !== 'file' && e.type !== 'radio')\
        .map(e => [e.id, e.type === 'checkbox' ? e.checked : e.value]);";
    let fields = browser.eval(script, vec![]).await;
    fields
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|f| (f[0].as_str().unwrap_or_default().to_string(), f[1].clone()))
        .collect()
}

/// Elements that are rendered (have a box) but are neither `css`, inside it, nor around it.
pub async fn visible_outside(browser: &Browser, css: &str) -> Vec<String> {
    let script = "const target = document.querySelector(arguments[0]);\
        if (!target) return ['no ' + arguments[0]];\
        return [...document.body.querySelectorAll('*')].filter(e => {\
          if (e === target || target.contains(e) || e.contains(target)) return false;\
          if (e.tagName === 'SCRIPT' || e.tagName === 'NOSCRIPT') return false;\
          const r = e.getBoundingClientRect();\
          return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';\
        }).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : ''));";
    let list = browser.eval(script, vec![serde_json::json!(css)]).await;
    list.as_array().cloned().unwrap_or_default().iter().filter_map(|v| v.as_str().map(str::to_string)).collect()
}

/// The root `*.html` pages of `dist/` (one per view).
pub fn dist_pages() -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(shardcalc_e2e::dist_dir())
        .expect("read dist/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".html"))
        .collect();
    pages.sort();
    pages
}

/// XSS payloads: each would run script if it were ever parsed as HTML.
pub const PAYLOADS: [&str; 3] =
    ["<img src=x onerror=\"window.__xss=1\">", "<script>window.__xss=2</script>", "\"><svg onload=window.__xss=3>"];

/// Fails if any payload ran or left an element behind.
pub async fn assert_no_markup_from_payloads(browser: &Browser) {
    let script = "return { ran: window.__xss === undefined ? null : window.__xss,\
        imgs: document.querySelectorAll('img').length,\
        svgs: [...document.querySelectorAll('svg')].filter(s => s.getAttribute('onload')).length,\
        scripts: [...document.querySelectorAll('script')].filter(s => s.textContent.includes('__xss')).length };";
    let found = browser.eval(script, vec![]).await;
    assert_eq!(found, serde_json::json!({"ran": null, "imgs": 0, "svgs": 0, "scripts": 0}), "a payload became markup");
}
