//! What the background worker does with a request (`src/bin/worker.rs` runs it for every
//! message): import a config, render a catalog chart as SVG, or run the serving search under
//! targets. Compiled into the worker by
//! `#[path]` and into the lib as `shardcalc::worker_handler`, which the wasm tests run in
//! place of a worker (`crate::worker_client::answer_locally`); pages never link it.

use shardcalc_core::import::{detect_and_import, ImportError};

use crate::worker_protocol::{Reply, Request};

/// Largest config accepted (real ones are a few KB); the page checks it too.
const MAX_CONFIG_BYTES: usize = 1 << 20;

/// The reply to one message; `None` when the message carries no id to answer.
#[must_use]
pub fn answer(text: &str) -> Option<String> {
    let (id, request) = Request::decode(text)?;
    let reply = match request {
        Request::Import { text } => import(&text),
        Request::Svg { name, link } => svg(&name, &link),
        Request::Search { link } => search(&link),
    };
    Some(reply.encode(id))
}

fn import(text: &str) -> Reply {
    if text.len() > MAX_CONFIG_BYTES {
        return Reply::Failed(vec![format!(
            "The config is {} bytes; the limit is {MAX_CONFIG_BYTES} bytes.",
            text.len()
        )]);
    }
    match detect_and_import(text) {
        Ok(imported) => match serde_json::to_string(&imported.config) {
            Ok(model) => {
                Reply::Imported { model, warnings: imported.warnings.iter().map(ToString::to_string).collect() }
            }
            Err(e) => Reply::Failed(vec![format!("The imported model could not be written: {e}")]),
        },
        Err(ImportError::Field(invalid)) => Reply::Failed(invalid.0.iter().map(ToString::to_string).collect()),
        Err(other) => Reply::Failed(vec![other.to_string()]),
    }
}

fn svg(name: &str, link: &str) -> Reply {
    let scenario = match shardcalc_core::permalink::decode(link) {
        Ok(s) => s,
        Err(e) => return Reply::Failed(e.0.iter().map(ToString::to_string).collect()),
    };
    let chart = match shardcalc_charts::catalog::build(name, &scenario) {
        Ok(chart) => chart,
        Err(e) => return Reply::Failed(e.0.iter().map(ToString::to_string).collect()),
    };
    match crate::svg_export::chart_svg(&chart) {
        Ok(svg) => Reply::Svg(svg),
        Err(e) => Reply::Failed(vec![format!("The chart could not be drawn as SVG: {e}")]),
    }
}

/// `performance.now()` in a page or a worker (0 where there is none).
fn now() -> f64 {
    use wasm_bindgen::JsCast;
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or(0.0, |p| p.now())
}

fn search(link: &str) -> Reply {
    let scenario = match shardcalc_core::permalink::decode(link) {
        Ok(s) => s,
        Err(e) => return Reply::Failed(e.0.iter().map(ToString::to_string).collect()),
    };
    let started = now();
    let found = shardcalc_core::view::serving::search(&scenario);
    let ms = now() - started;
    match found {
        Ok(Some(report)) => match serde_json::to_string(&report) {
            Ok(report) => Reply::Searched { ms, report },
            Err(e) => Reply::Failed(vec![format!("The search's report could not be written: {e}")]),
        },
        Ok(None) => Reply::Failed(vec!["inference.search: the scenario asks for no search".into()]),
        Err(e) => Reply::Failed(e.0.iter().map(ToString::to_string).collect()),
    }
}
