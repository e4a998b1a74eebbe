//! `bench-browser [LOADS] [CHANGES] [SEARCHES]`: the browser budgets of issues 7, 16 and 18,
//! measured on the release build in `dist/` in headless Chromium (`./dev.sh bench` runs it
//! after the core benchmarks):
//!
//! - **first result painted**: navigation start (`performance.timeOrigin`) to the first frame
//!   in which the page's headline result is on screen and every chart of the view is drawn
//!   (canvases' and SVG charts' `data-draws` ≥ 1, scene charts holding their `<svg>`), timed
//!   after that frame; over LOADS loads per page (default 20; the first is cold, the rest come
//!   from the browser's cache, as a reload on localhost does);
//! - **input → repaint**: a field's value set and its `input` (or `change`) event dispatched,
//!   to every effect run (Leptos's microtasks, the DOM, the tables, every chart redrawn) plus a
//!   forced style and layout (`update`, compared with the 16 ms budget), and to the end of the
//!   next animation frame (`frame`, which adds the wait for the display's next 16.7 ms tick);
//!   over CHANGES changes per field (default 50), alternating two values so every change
//!   redraws, after 4 changes not counted; with `BENCH_DOM_KINDS=1` in the environment, also
//!   the most frequent kinds of DOM mutation a change makes (`td@class`: an attribute set on a
//!   `td`), which keeping the records costs the page a little time;
//! - **the training search** (issue 16): LLaMA 3 70B, 4,194,304 tokens of 4096 per step, on a
//!   TPU v5p 16×20×28 pod (8,960 chips), calibrated, as the training page runs it: the page's
//!   own `performance.now()` around core's search (`#training-search-stats`'s
//!   `data-search-ms`), over SEARCHES searches (default 30, after 2 not counted), each started
//!   by switching the batch's unit (tokens ↔ sequences: the same batch, so the same search);
//!   budget 50 ms;
//! - **the serving search under targets** (issue 17, budget 100 ms): on `serving.html`, the
//!   search started (every catalog chip, LLaMA 3-8B at 10 requests per second under a 2 s
//!   TTFT p99 and a 50 ms TPOT), then the request rate alternated CHANGES times; each change
//!   is searched by the background worker: its own milliseconds (`data-search-ms`, timed in
//!   the worker), and the edit to the next animation frame after the answer is on the page,
//!   with the configurations the search evaluated;
//! - **size**: each page's wasm + JS + CSS, gzip -9, as `scripts/size-report.sh` counts it.
//!
//! `bench-browser [LOADS] [CHANGES] [SEARCHES]` prints Markdown tables and writes them to
//! `target/bench/browser.md`. A benchmark: it reports
//! and never fails on slow numbers (`./dev.sh test` enforces the size limit).

use std::fmt::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use shardcalc_e2e::{dist_dir, target_dir, workspace_root, Browser};

/// Budgets of issue 7 (time) and issue 18 (size: 350,000 bytes gzip per page).
const REPAINT_BUDGET_MS: f64 = 16.0;
/// Issue 17: the serving search for the catalog's chips.
const SERVING_SEARCH_BUDGET_MS: f64 = 100.0;
const FIRST_RESULT_BUDGET_MS: f64 = 300.0;
const SIZE_BUDGET_GZIP: u64 = 350_000;
/// Issue 16: the exhaustive training search for LLaMA 3 70B on 8,960 TPU v5p.
const SEARCH_BUDGET_MS: f64 = 50.0;

/// A page, the element whose text is its first result, and the fields timed on it:
/// `(element id, other value, event)`; each change alternates the field's own value and the other.
struct Page {
    file: &'static str,
    result: &'static str,
    fields: &'static [(&'static str, &'static str, &'static str)],
}

const PAGES: &[Page] = &[
    Page {
        file: "index.html",
        result: "#total-params-value",
        fields: &[("workload-seq_len", "8192", "input"), ("model-d_model", "4160", "input")],
    },
    Page {
        file: "hardware.html",
        result: "#collective-result-0",
        fields: &[("collective-0-array_bytes", "16 MB", "input")],
    },
    Page {
        file: "training.html",
        result: "#training-mesh-value",
        fields: &[("training-global_batch", "2097152", "input")],
    },
    Page {
        file: "serving.html",
        result: "#serving-step-value",
        fields: &[("inference-batch", "64", "input"), ("inference-prompt_len", "2048", "input")],
    },
    Page {
        file: "validation.html",
        result: "#card-held-back-mfu-value",
        fields: &[("validation-filter-chip", "tpu-v5e", "change")],
    },
    // Nothing to edit on an empty list: its first result is the list (or its "nothing saved").
    Page { file: "saved.html", result: "#saved-empty, #saved-table", fields: &[] },
];

/// Installed on every new document: from navigation start, checks at each animation frame
/// whether the result is shown and the charts drawn, and records `performance.now()` once the
/// frame that first shows them is done (a message posted from the frame's callback).
const PAINT_PROBE: &str = r"
(() => {
  const specs = __SPECS__;
  const file = location.pathname.split('/').pop() || 'index.html';
  const sel = specs[file];
  if (!sel) return;
  const b = window.__bench = { result: null, all: null, fcp: null, charts: 0 };
  const after = (f) => { const c = new MessageChannel(); c.port1.onmessage = () => f(performance.now()); c.port2.postMessage(0); };
  const shown = () => { const e = document.querySelector(sel); return !!e && e.textContent.trim() !== ''; };
  const charts = () => [...document.querySelectorAll('.view canvas, .view .svg-chart, .view .scene-chart')];
  const drawn = (e) => e.classList.contains('scene-chart') ? !!e.querySelector('svg') : Number(e.dataset.draws || 0) > 0;
  let asked = 0;
  const frame = () => {
    if (shown()) {
      if (asked < 1) { asked = 1; after((t) => { b.result = t; }); }
      const list = charts();
      if (asked < 2 && list.every(drawn)) { asked = 2; b.charts = list.length; after((t) => { b.all = t; }); }
    }
    if (asked < 2 && performance.now() < 30000) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.name === 'first-contentful-paint') b.fcp = e.startTime; })
    .observe({ type: 'paint', buffered: true });
})();
";

/// Reads the probe's record, with the first contentful paint from the performance timeline.
const READ_PROBE: &str = "const b = window.__bench; if (!b) return null;\
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];\
    return Object.assign({}, b, { fcp: fcp ? fcp.startTime : b.fcp });";

/// Times `values.length` changes of field `id`: `{ rows: [[update ms, frame ms, charts
/// redrawn, DOM mutations in the view], ...], kinds }`, `kinds` counting the mutations of the
/// changes after the first 4 by kind (`td@class`: an attribute set on a `td`; `td text`: a text
/// node's data under a `td`; `tbody +tr -tr`: children added or removed).
const CHANGE_SCRIPT: &str = r"
const [id, values, kind, keep, done] = [arguments[0], arguments[1], arguments[2], arguments[3], arguments[arguments.length - 1]];
const el = document.getElementById(id);
if (!el) { done('no #' + id); return; }
const charts = () => [...document.querySelectorAll('.view canvas, .view .svg-chart, .view .scene-chart')]
  .map((e) => e.classList.contains('scene-chart') ? e.innerHTML : (e.dataset.draws || '0'));
let mutated = 0;
const kinds = {};
const kind_of = (m) => {
  const tag = (n) => (n && n.nodeName || '').toLowerCase();
  if (m.type === 'attributes') return tag(m.target) + '@' + m.attributeName;
  if (m.type === 'characterData') return tag(m.target.parentNode) + ' text';
  const list = (l, sign) => [...new Set([...l].map((n) => sign + tag(n)))].join(' ');
  return (tag(m.target) + ' ' + list(m.addedNodes, '+') + ' ' + list(m.removedNodes, '-')).trim();
};
// With `keep`, records are kept while a change is timed and sorted by kind after it (the
// callback runs inside the timed window, and keeping them costs the page a little time).
let records = [];
const observer = new MutationObserver((r) => { mutated += r.length; if (keep) records.push(r); });
const count_kinds = () => {
  if (i >= 4) for (const r of records) for (const m of r) { const k = kind_of(m); kinds[k] = (kinds[k] || 0) + 1; }
  records = [];
};
observer.observe(document.querySelector('.view'), { subtree: true, childList: true, characterData: true, attributes: true });
const out = [];
let i = 0;
const next = () => {
  if (i >= values.length) { observer.disconnect(); done({ rows: out, kinds }); return; }
  const before = charts();
  mutated = 0;
  const t0 = performance.now();
  el.value = values[i];
  el.dispatchEvent(new Event(kind, { bubbles: true }));
  const c = new MessageChannel();
  c.port1.onmessage = () => {
    void document.body.offsetHeight;
    const t1 = performance.now();
    requestAnimationFrame(() => {
      const d = new MessageChannel();
      d.port1.onmessage = () => {
        const t2 = performance.now();
        const now = charts();
        const late = observer.takeRecords();
        mutated += late.length;
        if (keep) records.push(late);
        count_kinds();
        out.push([t1 - t0, t2 - t0, now.filter((x, j) => x !== before[j]).length, mutated]);
        i += 1;
        next();
      };
      d.port2.postMessage(0);
    });
  };
  c.port2.postMessage(0);
};
next();
";

/// Sets the training page to issue 16's reference search: LLaMA 3 70B, a TPU v5p
/// 16×20×28 pod (the page's default chip), 4,194,304 tokens of 4096 per step; returns the
/// search's statistics line once every effect has run.
const SEARCH_SETUP: &str = r"
const done = arguments[arguments.length - 1];
const set = (id, v, kind) => {
  const e = document.getElementById(id);
  if (!e) return false;
  e.value = v;
  e.dispatchEvent(new Event(kind, { bubbles: true }));
  return true;
};
const ok = set('preset', 'llama-3-70b', 'change') && set('hw-shape', '16x20x28', 'input')
  && set('training-global_batch', '4194304', 'input') && set('training-seq_len', '4096', 'input');
const c = new MessageChannel();
c.port1.onmessage = () => {
  const stats = document.getElementById('training-search-stats');
  done(ok && stats ? stats.textContent : 'missing field');
};
c.port2.postMessage(0);
";

/// Runs `arguments[0]` searches, each started by switching the batch's unit (the same batch,
/// so the same search): `[search ms, statistics line]` each.
const SEARCH_RUNS: &str = r"
const [n, done] = [arguments[0], arguments[arguments.length - 1]];
const unit = document.getElementById('training-global_batch-unit');
const stats = document.getElementById('training-search-stats');
if (!unit || !stats) { done('missing field'); return; }
const out = [];
let i = 0;
const next = () => {
  if (i >= n) { done(out); return; }
  unit.value = unit.value === 'tokens' ? 'sequences' : 'tokens';
  unit.dispatchEvent(new Event('change', { bubbles: true }));
  const c = new MessageChannel();
  c.port1.onmessage = () => {
    out.push([Number(stats.dataset.searchMs), stats.textContent]);
    i += 1;
    setTimeout(next, 0);
  };
  c.port2.postMessage(0);
};
next();
";

/// Changes the input `arguments[0]` to each of `arguments[1]` and waits for the serving
/// search's next answer each time (`#serving-search-stats`' `data-seq`): `[worker ms, the page's
/// ms from asking to the answer, edit to the frame after the answer, configurations
/// evaluated]` per change.
const SERVING_SEARCH_SCRIPT: &str = r"
const [id, values, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const el = document.getElementById(id);
const stats = document.getElementById('serving-search-stats');
if (!el || !stats) { done('no #' + id + ' or no search'); return; }
const seq = () => Number(stats.dataset.seq || 0);
const out = [];
let i = 0;
const next = () => {
  if (i >= values.length) { done(out); return; }
  const before = seq();
  const t0 = performance.now();
  const observer = new MutationObserver(() => {
    if (seq() <= before) return;
    observer.disconnect();
    requestAnimationFrame(() => {
      const m = /([0-9,]+) configurations evaluated/.exec(stats.textContent);
      out.push([Number(stats.dataset.searchMs), Number(stats.dataset.shownMs), performance.now() - t0,
        m ? Number(m[1].replace(/,/g, '')) : 0]);
      i += 1;
      next();
    });
  });
  observer.observe(stats, { attributes: true });
  el.value = values[i];
  el.dispatchEvent(new Event('input', { bubbles: true }));
};
next();
";

/// The whole numbers in `text`, thousands separators removed, in order.
fn numbers(text: &str) -> Vec<u64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == ',')).filter_map(|w| w.replace(',', "").parse().ok()).collect()
}

/// Times issue 16's reference search `runs` times (after 2 not counted) on the training page:
/// (search ms sorted, meshes, configurations timed), or why not.
async fn search_timing(browser: &Browser, runs: usize) -> Result<(Vec<f64>, u64, u64), String> {
    browser.goto("training.html").await;
    let wait = Instant::now() + Duration::from_secs(30);
    while browser.eval("return !!(window.__bench && window.__bench.all !== null);", vec![]).await != json!(true)
        && Instant::now() < wait
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stats = browser.client().execute_async(SEARCH_SETUP, vec![]).await.map_err(|e| e.to_string())?;
    let stats = stats.as_str().unwrap_or_default().to_string();
    if !stats.contains("configurations") {
        return Err(format!("no search: {stats:?}"));
    }
    let rows = browser.client().execute_async(SEARCH_RUNS, vec![json!(runs + 2)]).await.map_err(|e| e.to_string())?;
    let rows: Vec<&Vec<Value>> = rows.as_array().ok_or("no runs")?.iter().skip(2).filter_map(Value::as_array).collect();
    let times = sorted(rows.iter().filter_map(|r| r.first().and_then(Value::as_f64)).collect());
    // "Searched M meshes × ...: C configurations timed in T ms here; F fit in HBM.": the same
    // every run but for T.
    let without_time = |line: &str| {
        let (head, tail) = (line.split(" in ").next(), line.split(" ms here").nth(1));
        (head.unwrap_or_default().to_string(), tail.unwrap_or_default().to_string())
    };
    let line = rows.last().and_then(|r| r.get(1)).and_then(Value::as_str).unwrap_or_default();
    if rows.iter().any(|r| r.get(1).and_then(Value::as_str).map(without_time) != Some(without_time(line))) {
        eprintln!("bench-browser: the search's statistics changed between runs");
    }
    let n = numbers(&without_time(line).0);
    let (meshes, evaluated) = (n.first().copied().unwrap_or(0), n.last().copied().unwrap_or(0));
    Ok((times, meshes, evaluated))
}

/// Waits until the serving search has answered at least `n` times.
async fn search_answered(browser: &Browser, n: u64) -> bool {
    let wait = Instant::now() + Duration::from_secs(60);
    while Instant::now() < wait {
        let seq = browser
            .eval(
                "const s = document.getElementById('serving-search-stats'); return s ? Number(s.dataset.seq || 0) : 0;",
                vec![],
            )
            .await;
        if seq.as_u64().unwrap_or(0) >= n {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// The serving search on a fresh `serving.html`: (first answer ms from the click, including
/// the worker's start; rows of [`SERVING_SEARCH_SCRIPT`]).
async fn serving_search_timing(browser: &Browser, changes: usize) -> Option<(f64, Vec<Vec<f64>>)> {
    browser.goto("serving.html").await;
    let wait = Instant::now() + Duration::from_secs(30);
    while browser.eval("return !!(window.__bench && window.__bench.all !== null);", vec![]).await != json!(true)
        && Instant::now() < wait
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let clicked = Instant::now();
    browser.eval("document.getElementById('serving-search-start').click(); return 0;", vec![]).await;
    if !search_answered(browser, 1).await {
        eprintln!("bench-browser: the serving search never answered");
        return None;
    }
    let cold = clicked.elapsed().as_secs_f64() * 1e3;
    // The targets, each searched once before timing.
    for (id, value, n) in [("inference-targets-ttft_p99_s", "2", 2), ("inference-targets-tpot_s", "0.05", 3)] {
        browser
            .eval(
                "const e = document.getElementById(arguments[0]); e.value = arguments[1]; e.dispatchEvent(new Event('input', { bubbles: true })); return 0;",
                vec![json!(id), json!(value)],
            )
            .await;
        if !search_answered(browser, n).await {
            return None;
        }
    }
    let values: Vec<&str> = (0..changes + 4).map(|i| if i % 2 == 0 { "12" } else { "10" }).collect();
    let rows = browser
        .client()
        .execute_async(SERVING_SEARCH_SCRIPT, vec![json!("inference-request_rate"), json!(values)])
        .await;
    match rows {
        Ok(Value::Array(rows)) => Some((
            cold,
            rows.iter()
                .skip(4)
                .filter_map(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_f64).collect())
                .collect(),
        )),
        other => {
            eprintln!("bench-browser: serving search: {other:?}");
            None
        }
    }
}

/// The `q`-quantile (nearest rank) of sorted `xs`.
fn quantile(xs: &[f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * xs.len() as f64).ceil() as usize).clamp(1, xs.len());
    xs[rank - 1]
}

/// Milliseconds, rounded to `decimals`, or "–" without a measurement.
fn ms(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:.decimals$} ms")
    } else {
        "–".into()
    }
}

fn sorted(mut xs: Vec<f64>) -> Vec<f64> {
    xs.sort_by(f64::total_cmp);
    xs
}

fn arg(n: usize, default: usize) -> usize {
    std::env::args().nth(n).and_then(|a| a.parse().ok()).unwrap_or(default)
}

/// Loads `page` `loads` times; returns (result ms, result+charts ms, FCP ms, charts) per load.
async fn first_results(browser: &Browser, page: &Page, loads: usize) -> Vec<(f64, Option<f64>, Option<f64>, u64)> {
    let mut out = Vec::new();
    for _ in 0..loads {
        browser.goto(page.file).await;
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut drawn_at = None;
        loop {
            let b = browser.eval(READ_PROBE, vec![]).await;
            // The browser reports its first contentful paint once the frame is presented,
            // which can come after the probe's record: wait up to 2 s more for it.
            if !b["all"].is_null() && drawn_at.is_none() {
                drawn_at = Some(Instant::now());
            }
            let fcp_or_late = !b["fcp"].is_null() || drawn_at.is_some_and(|t| t.elapsed() > Duration::from_secs(2));
            let done = (!b["all"].is_null() && fcp_or_late) || (Instant::now() > deadline && !b["result"].is_null());
            if done {
                if let Some(result) = b["result"].as_f64() {
                    out.push((result, b["all"].as_f64(), b["fcp"].as_f64(), b["charts"].as_u64().unwrap_or(0)));
                }
                break;
            }
            if Instant::now() > deadline {
                eprintln!("bench-browser: {}: no result within 30 s ({b})", page.file);
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    out
}

/// One field's changes, measured (after 4 not counted).
struct Changes {
    /// The field's own value (the changes alternate it with the other).
    base: String,
    /// Input event to every output updated, plus style and layout, ms, sorted.
    update: Vec<f64>,
    /// Input event to the end of the next animation frame, ms, sorted.
    frame: Vec<f64>,
    /// Fewest charts redrawn in one change.
    redrawn: u64,
    /// Fewest DOM mutations in one change.
    mutations: u64,
    /// The most frequent kinds of DOM mutation, per change (`td@class 9, td text 4`), with
    /// `BENCH_DOM_KINDS` set; empty without.
    kinds: String,
}

/// Times `changes` changes of one field of kind `kind` (`input` or `change`), alternating its
/// value with `other`.
async fn changes_of(browser: &Browser, id: &str, other: &str, kind: &str, changes: usize) -> Option<Changes> {
    let base = browser
        .eval("const e = document.getElementById(arguments[0]); return e ? e.value : null;", vec![json!(id)])
        .await;
    let base = base.as_str()?.to_string();
    if base == other {
        eprintln!("bench-browser: #{id} already holds {other}; its changes would change nothing");
        return None;
    }
    let values: Vec<&str> = (0..changes + 4).map(|i| if i % 2 == 0 { other } else { base.as_str() }).collect();
    let keep = std::env::var_os("BENCH_DOM_KINDS").is_some();
    let args = vec![json!(id), json!(values), json!(kind), json!(keep)];
    let result = browser.client().execute_async(CHANGE_SCRIPT, args).await;
    let (times, kinds) = match result {
        Ok(Value::Object(o)) => match (o.get("rows"), o.get("kinds")) {
            (Some(Value::Array(rows)), Some(Value::Object(kinds))) => (rows.clone(), kinds.clone()),
            _ => {
                eprintln!("bench-browser: #{id}: {o:?}");
                return None;
            }
        },
        other => {
            eprintln!("bench-browser: #{id}: {other:?}");
            return None;
        }
    };
    let rows: Vec<&Vec<Value>> = times.iter().skip(4).filter_map(Value::as_array).collect();
    let update = sorted(rows.iter().filter_map(|r| r.first().and_then(Value::as_f64)).collect());
    let frame = sorted(rows.iter().filter_map(|r| r.get(1).and_then(Value::as_f64)).collect());
    let redrawn = rows.iter().filter_map(|r| r.get(2).and_then(Value::as_u64)).min().unwrap_or(0);
    let mutations = rows.iter().filter_map(|r| r.get(3).and_then(Value::as_u64)).min().unwrap_or(0);
    let mut kinds: Vec<(String, f64)> =
        kinds.into_iter().filter_map(|(k, n)| Some((k, n.as_f64()? / rows.len().max(1) as f64))).collect();
    kinds.sort_by(|a, b| b.1.total_cmp(&a.1));
    let kinds = kinds.iter().take(4).map(|(k, n)| format!("{k} {n:.0}")).collect::<Vec<_>>().join(", ");
    Some(Changes { base, update, frame, redrawn, mutations, kinds })
}

/// `page -> wasm+js+css gzip bytes`, from `scripts/size-report.sh`.
fn sizes() -> Vec<(String, u64)> {
    let out = Command::new("bash").arg("scripts/size-report.sh").current_dir(workspace_root()).output();
    let Ok(out) = out else { return Vec::new() };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut page = String::new();
    let mut sizes = Vec::new();
    for line in text.lines() {
        if let Some(p) = line.strip_suffix(" loads (bytes):") {
            page = p.to_string();
        } else if let Some(rest) = line.trim_start().strip_prefix("total wasm+js+css") {
            let numbers: Vec<u64> = rest.split_whitespace().filter_map(|w| w.parse().ok()).collect();
            if let Some(gz) = numbers.get(1) {
                sizes.push((page.clone(), *gz));
            }
        }
    }
    sizes
}

fn shell(cmd: &str) -> String {
    Command::new("sh")
        .args(["-c", cmd])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "within"
    } else {
        "OVER"
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let (loads, changes, searches) = (arg(1, 20), arg(2, 50), arg(3, 30));
    let specs: serde_json::Map<String, Value> = PAGES.iter().map(|p| (p.file.to_string(), json!(p.result))).collect();
    let probe = PAINT_PROBE.replace("__SPECS__", &Value::Object(specs).to_string());
    // Starts on a blank page, so that the first load of index.html is cold too.
    let browser = Browser::open_url("about:blank").await;
    browser.run_on_every_new_document(&probe).await;

    let mut md = String::new();
    let date = shell("date -u '+%Y-%m-%d %H:%M UTC'");
    let cpu = shell("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2");
    let cores = shell("nproc");
    let load = shell("cut -d' ' -f1-3 /proc/loadavg");
    let chromium = shell("${CHROMIUM:-/usr/bin/chromium} --version");
    let _ = writeln!(md, "Browser budgets (issues 7 and 18), {date}: {chromium} headless, {cores} cores ({}), load average {load}; release build in dist/.\n", cpu.trim());

    let _ = writeln!(md, "First result painted (navigation start to the later of: the end of the first frame showing the headline with every chart drawn, and the browser's first contentful paint; {loads} loads, the first cold; budget {FIRST_RESULT_BUDGET_MS} ms):\n");
    let _ = writeln!(md, "| page | charts | cold load | median | p95 | frame with result and charts, median | first contentful paint, median | budget |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---|");
    let pages: Vec<&Page> = PAGES.iter().filter(|p| dist_dir().join(p.file).is_file()).collect();
    for page in PAGES.iter().filter(|p| !dist_dir().join(p.file).is_file()) {
        eprintln!("bench-browser: dist/{} is missing; not measured", page.file);
    }
    for page in pages.iter().copied() {
        let runs = first_results(&browser, page, loads).await;
        let Some(&cold) = runs.first() else {
            let _ = writeln!(md, "| {} | | no result | | | | | |", page.file);
            continue;
        };
        // On screen: the frame that holds the result, or the first contentful paint if the
        // browser presented it later (the body is empty until the wasm renders the view, so
        // the first contentful paint is the view's first frame).
        let painted = |r: &(f64, Option<f64>, Option<f64>, u64)| r.1.unwrap_or(r.0).max(r.2.unwrap_or(0.0));
        let shown = sorted(runs.iter().map(painted).collect());
        let in_dom = sorted(runs.iter().map(|r| r.1.unwrap_or(r.0)).collect());
        let fcp = sorted(runs.iter().filter_map(|r| r.2).collect());
        let p95 = quantile(&shown, 0.95);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            page.file,
            cold.3,
            ms(painted(&cold), 0),
            ms(quantile(&shown, 0.5), 0),
            ms(p95, 0),
            ms(quantile(&in_dom, 0.5), 0),
            ms(quantile(&fcp, 0.5), 0),
            verdict(p95 < FIRST_RESULT_BUDGET_MS)
        );
        println!("{}: first result median {:.0} ms, p95 {p95:.0} ms", page.file, quantile(&shown, 0.5));
    }

    let _ = writeln!(md, "\nInput → repaint ({changes} changes per field; `update` = input event to every output, table and chart updated plus style and layout, compared with the {REPAINT_BUDGET_MS} ms budget, its minimum the cost on an idle core; `frame` = to the end of the next animation frame):\n");
    let _ = writeln!(md, "| page | field | charts redrawn per change | DOM changes per change | most frequent (BENCH_DOM_KINDS) | update min | update p50 | update p95 | frame p50 | frame p95 | budget |");
    let _ = writeln!(md, "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|");
    for page in pages.iter().copied().filter(|p| !p.fields.is_empty()) {
        browser.goto(page.file).await;
        // Let the first result and the charts settle before typing.
        let wait = Instant::now() + Duration::from_secs(30);
        while browser.eval("return !!(window.__bench && window.__bench.all !== null);", vec![]).await != json!(true)
            && Instant::now() < wait
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for &(id, other, kind) in page.fields {
            let Some(Changes { base, update, frame, redrawn, mutations, kinds }) =
                changes_of(&browser, id, other, kind, changes).await
            else {
                let _ = writeln!(md, "| {} | #{id} | | | | not measured | | | | | |", page.file);
                continue;
            };
            let p95 = quantile(&update, 0.95);
            let _ = writeln!(
                md,
                "| {} | #{id}: {} ↔ {other} | {redrawn} | {mutations} | {kinds} | {} | {} | {} | {} | {} | {} |",
                page.file,
                if base.is_empty() { "(all)" } else { base.as_str() },
                ms(update.first().copied().unwrap_or(f64::NAN), 1),
                ms(quantile(&update, 0.5), 1),
                ms(p95, 1),
                ms(quantile(&frame, 0.5), 1),
                ms(quantile(&frame, 0.95), 1),
                verdict(p95 < REPAINT_BUDGET_MS)
            );
            println!("{} #{id}: update p50 {:.1} ms, p95 {p95:.1} ms", page.file, quantile(&update, 0.5));
        }
    }
    if dist_dir().join("training.html").is_file() {
        let _ = writeln!(md, "\nThe training search in Chromium (issue 16's reference: LLaMA 3 70B, 4,194,304 tokens of 4096 per step, TPU v5p 16×20×28 = 8,960 chips, calibrated, every ZeRO stage, schedule and remat policy; the page's `performance.now()` around core's search, {searches} searches, each started by switching the batch's unit; budget {SEARCH_BUDGET_MS} ms):\n");
        let _ = writeln!(md, "| case | meshes | configurations timed | min | p50 | p95 | budget |");
        let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|---|");
        match search_timing(&browser, searches).await {
            Ok((times, meshes, evaluated)) => {
                let p95 = quantile(&times, 0.95);
                let _ = writeln!(
                    md,
                    "| llama-3-70b, v5p 16x20x28, 4M tokens | {meshes} | {evaluated} | {} | {} | {} | {} |",
                    ms(times.first().copied().unwrap_or(f64::NAN), 1),
                    ms(quantile(&times, 0.5), 1),
                    ms(p95, 1),
                    verdict(p95 < SEARCH_BUDGET_MS)
                );
                println!(
                    "training search: {evaluated} configurations, p50 {:.1} ms, p95 {p95:.1} ms",
                    quantile(&times, 0.5)
                );
            }
            Err(e) => {
                let _ = writeln!(md, "| llama-3-70b, v5p 16x20x28, 4M tokens | | not measured: {e} | | | | |");
            }
        }
    }
    if pages.iter().any(|p| p.file == "serving.html") {
        let _ = writeln!(md, "\nThe serving search under targets in the background worker (every catalog chip, LLaMA 3-8B at 10 ↔ 12 requests/s, TTFT p99 ≤ 2 s, TPOT ≤ 50 ms, the book's 7,680 + 512 tokens; {changes} searches, each after the request rate changed; `worker` = the search itself, timed in the worker; `on screen` = the edit to the frame after the answer is shown; budget {SERVING_SEARCH_BUDGET_MS} ms for the search):\n");
        let _ = writeln!(md, "| configurations evaluated | first answer (worker started) | worker min | worker p50 | worker p95 | on screen p50 | on screen p95 | budget |");
        let _ = writeln!(md, "|---:|---:|---:|---:|---:|---:|---:|---|");
        match serving_search_timing(&browser, changes).await {
            Some((cold, rows)) if !rows.is_empty() => {
                let worker = sorted(rows.iter().filter_map(|r| r.first().copied()).collect());
                let screen = sorted(rows.iter().filter_map(|r| r.get(2).copied()).collect());
                let evaluated = rows.iter().filter_map(|r| r.get(3).copied()).fold(0.0, f64::max);
                let p95 = quantile(&worker, 0.95);
                let _ = writeln!(
                    md,
                    "| {evaluated:.0} | {} | {} | {} | {} | {} | {} | {} |",
                    ms(cold, 0),
                    ms(worker.first().copied().unwrap_or(f64::NAN), 1),
                    ms(quantile(&worker, 0.5), 1),
                    ms(p95, 1),
                    ms(quantile(&screen, 0.5), 1),
                    ms(quantile(&screen, 0.95), 1),
                    verdict(p95 < SERVING_SEARCH_BUDGET_MS)
                );
                println!(
                    "serving search: {evaluated:.0} configurations, worker p50 {:.1} ms, p95 {p95:.1} ms",
                    quantile(&worker, 0.5)
                );
            }
            _ => {
                let _ = writeln!(md, "| not measured | | | | | | | |");
            }
        }
    }
    let errors = browser.console_errors().await;
    browser.close().await;

    let _ = writeln!(
        md,
        "\nShipped wasm + JS + CSS per page, gzip -9 (scripts/size-report.sh; budget {SIZE_BUDGET_GZIP} B):\n"
    );
    let _ = writeln!(md, "| page | gzip bytes | budget |");
    let _ = writeln!(md, "|---|---:|---|");
    for (page, gz) in sizes() {
        let _ = writeln!(md, "| {page} | {gz} | {} |", verdict(gz <= SIZE_BUDGET_GZIP));
    }
    if !errors.is_empty() {
        let _ = writeln!(md, "\nThe pages logged errors during the run: {errors:?}");
    }

    println!("\n{md}");
    let dir = target_dir().join("bench");
    let path = dir.join("browser.md");
    match std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, &md)) {
        Ok(()) => println!("written to {}", path.display()),
        Err(e) => eprintln!("bench-browser: cannot write {}: {e}", path.display()),
    }
}
