//! What the background worker does with a request (`src/bin/worker.rs` runs it for every
//! message): import a config, render a catalog chart as SVG, import a MaxText command line
//! (with MaxText's bundled base.yml and model files: core's `maxtext-configs`), compare a
//! MaxText log with the plan, or run the serving search under targets. Compiled into the worker by
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
        Request::MaxText { text, link } => maxtext_run(&text, &link),
        Request::MaxTextLog { text, link } => maxtext_log(&text, &link),
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

fn failed(e: &ImportError) -> Reply {
    match e {
        ImportError::Field(invalid) => Reply::Failed(invalid.0.iter().map(ToString::to_string).collect()),
        other => Reply::Failed(vec![other.to_string()]),
    }
}

/// Whether `text` is a YAML config (`key: value` lines) rather than a command line.
fn is_yaml_config(text: &str) -> bool {
    let lines = || text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'));
    lines().all(|l| !l.contains('=') || l.contains(": ")) && lines().any(|l| l.contains(": "))
}

/// A pasted MaxText command line, script or config as a scenario on the page's hardware.
fn maxtext_run(text: &str, link: &str) -> Reply {
    use shardcalc_core::maxtext::{import_run, CommandLine, Configs, HardwareArgs};
    if text.len() > MAX_CONFIG_BYTES {
        return Reply::Failed(vec![format!(
            "The text is {} bytes; the limit is {MAX_CONFIG_BYTES} bytes.",
            text.len()
        )]);
    }
    let shown = match shardcalc_core::permalink::decode(link) {
        Ok(s) => shardcalc_core::view::training::with_defaults(&s),
        Err(e) => return Reply::Failed(e.0.iter().map(ToString::to_string).collect()),
    };
    let (cmd, base) = if is_yaml_config(text) {
        (CommandLine::default(), Some(text))
    } else {
        match CommandLine::parse_text(text) {
            Ok(c) => (c, None),
            Err(e) => return failed(&e),
        }
    };
    // The page's chip and slice, unless the run names its own (compile_topology).
    let hw = match (&shown.hardware, cmd.get("compile_topology")) {
        (Some(h), None) => {
            let topology = h.topology.as_ref().map(shardcalc_core::hardware::shape::shape_of);
            HardwareArgs {
                chip: match &h.chip {
                    shardcalc_core::hardware::query::ChipSource::Preset(id) => Some(id.clone()),
                    shardcalc_core::hardware::query::ChipSource::Custom(_) => None,
                },
                topology: topology.as_ref().map(|(shape, _)| shape.clone()),
                slices: topology.map(|(_, slices)| slices),
            }
        }
        _ => HardwareArgs::default(),
    };
    let run = match import_run(&cmd, base, &hw, Configs::available()) {
        Ok(run) => run,
        Err(e) => return failed(&e),
    };
    let k = &run.keys;
    let mut notes = vec![format!(
        "Read {} key(s) ({} devices, {} slice(s)); {} warning(s), {} unknown, {} ignored.",
        k.read.len(),
        run.devices,
        run.slices,
        k.warnings.len(),
        k.unknown.len(),
        k.ignored.len()
    )];
    notes.extend(k.warnings.iter().map(|w| format!("warning: {w}")));
    notes.extend(k.unknown.iter().map(|u| format!("unknown to MaxText: {}={}", u.key, u.value)));
    notes.extend(k.read.iter().map(|r| format!("read: {}={} → {}", r.key, r.value, r.sets)));
    notes.extend(k.ignored.iter().map(|i| format!("ignored: {}={}", i.key, i.value)));
    Reply::Run { link: shardcalc_core::permalink::encode(&run.scenario), notes }
}

/// A pasted MaxText log against the plan of the page's scenario: the explicit mesh when
/// one is explored, else the search's best (the report's `training`).
fn maxtext_log(text: &str, link: &str) -> Reply {
    use shardcalc_charts::table::Table;
    use shardcalc_core::maxtext::log::MaxTextLog;
    use shardcalc_core::maxtext::log_file::{compare, ParsedLog};
    if text.len() > MAX_CONFIG_BYTES * 16 {
        return Reply::Failed(vec![format!(
            "The log is {} bytes; the limit is {} bytes.",
            text.len(),
            MAX_CONFIG_BYTES * 16
        )]);
    }
    let log = match ParsedLog::parse(text) {
        Ok(log) => log,
        Err(e) => return failed(&e),
    };
    let shown = match shardcalc_core::permalink::decode(link) {
        Ok(s) => shardcalc_core::view::training::with_defaults(&s),
        Err(e) => return Reply::Failed(e.0.iter().map(ToString::to_string).collect()),
    };
    let report = match shardcalc_core::report::evaluate(&shown) {
        Ok(r) => r,
        Err(e) => return Reply::Failed(e.0.iter().map(ToString::to_string).collect()),
    };
    let (Some(predicted), Some(plan)) = (MaxTextLog::of(&shown, &report), report.training.as_ref()) else {
        return Reply::Failed(vec!["The scenario has no training plan to compare with.".into()]);
    };
    let Some(c) = compare(log, &predicted, &plan.breakdown) else {
        return Reply::Failed(vec!["The log has no step to compare.".into()]);
    };
    let num = |x: f64| shardcalc_core::decimal::shortest((x * 1000.0).round() / 1000.0);
    let mut terms = Table::new(["quantity", "unit", "measured", "predicted", "roofline", "error %"]);
    for t in &c.terms {
        terms.push([
            t.quantity.clone(),
            t.unit.clone(),
            num(t.measured),
            num(t.predicted),
            t.roofline.map(num).unwrap_or_default(),
            format!("{:+.1}", t.error_pct),
        ]);
    }
    let mut breakdown = Table::new(["term", "predicted s", "% of measured"]);
    for b in &c.breakdown {
        breakdown.push([b.term.clone(), num(b.seconds), format!("{:.1}", b.of_measured_pct)]);
    }
    let steps = c.measured.steps.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    let mut notes =
        vec![format!("Measured: the median of step(s) {steps}, against the plan of {} devices.", plan.devices)];
    notes.extend(c.notes.iter().cloned());
    Reply::Compared { terms: Box::new(terms), breakdown: Box::new(breakdown), notes }
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
