//! What a valid scenario's `training` and `inference` sections must satisfy: the training
//! planner (in the scenario's prediction mode) and the serving model either plan, with
//! every number finite, or fail with errors on a field of the section, the hardware or
//! the model (a mesh that does not multiply to the chip count, heads that TP does not
//! divide, ...; memory that does not fit is a plan that says so, not an error). Every plan
//! gets its bands (`validation::bands`), which must be finite, bracket the number shown
//! and equal it.

use serde::Serialize;
use serde_json::Value;
use shardcalc_core::error::Invalid;
use shardcalc_core::inference::InferenceReport;
use shardcalc_core::model::ModelConfig;
use shardcalc_core::report::Report;
use shardcalc_core::scenario::inference_report;
use shardcalc_core::scenario::training_report;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::training::TrainingReport;
use shardcalc_core::validation::bands::{serving_bands, training_bands, Band};
use shardcalc_core::validation::PredictionMode;

/// The coverage classes [`check_sections`] reports, in bit order (after the model's).
/// (A valid scenario whose serving plan fails is rare, since validation checks the
/// section against the topology; it is allowed, with named fields, but not a class.)
pub const CLASS_NAMES: [&str; 10] = [
    "training_planned",
    "training_searched",
    "training_does_not_fit",
    "training_unplannable",
    "training_banded",
    "inference_planned",
    "serving_banded",
    "calibrated",
    "serving_searched",
    "serving_search_feasible",
];

/// Keys whose value may be `null` in a section's report (absent budget, price, DCN axis,
/// search, ...).
const NULLABLE: [&str; 12] = [
    "token_budget",
    "steps",
    "days",
    "chip_hours",
    "price_per_chip_hour_usd",
    "cost_usd",
    "dcn",
    "compute_bound_fsdp",
    "axis",
    "largest_loss",
    "dtype",
    "search",
];

fn bit(name: &str) -> u64 {
    CLASS_NAMES.iter().position(|n| *n == name).map_or(0, |i| 1 << i)
}

/// Every number finite; `null` only under [`NULLABLE`] keys.
fn finite(v: &Value, key: &str, path: &str) -> Result<(), String> {
    match v {
        Value::Null if NULLABLE.contains(&key) => Ok(()),
        Value::Null => Err(format!("{path} is null (NaN or infinite)")),
        Value::Number(n) if n.as_f64().is_some_and(f64::is_finite) => Ok(()),
        Value::Number(n) => Err(format!("{path} = {n}")),
        Value::Array(a) => a.iter().enumerate().try_for_each(|(i, x)| finite(x, key, &format!("{path}[{i}]"))),
        Value::Object(o) => o.iter().try_for_each(|(k, x)| finite(x, k, &format!("{path}.{k}"))),
        _ => Ok(()),
    }
}

fn finite_section(name: &str, r: &impl Serialize) -> Result<(), String> {
    let v = serde_json::to_value(r).map_err(|e| format!("{name} does not serialize: {e}"))?;
    finite(&v, name, name)
}

/// A planning error names a field of the scenario's sections (or its model).
fn names_a_section(e: &Invalid, what: &str) -> Result<(), String> {
    if e.0.is_empty() {
        return Err(format!("{what} failed with no error"));
    }
    for err in &e.0 {
        let ok = ["training", "inference", "hardware", "model", "workload"].iter().any(|p| {
            err.field == *p || err.field.starts_with(&format!("{p}.")) || err.field.starts_with(&format!("{p}["))
        });
        if !ok || err.message.trim().is_empty() {
            return Err(format!("{what} failed on no field of the scenario: {err}"));
        }
    }
    Ok(())
}

/// Equal to a millionth, relative to the larger or to the smallest normal `f64`: subnormal
/// numbers carry fewer digits (a cost at a price of 5e-324 $/chip-hour is about 4e-318 $,
/// with five significant digits left), so two orders of the same product differ there by
/// more than 1e-6 relative (case 100769 of seed 0x5eed0007).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(f64::MIN_POSITIVE)
}

/// A band is finite and non-negative, brackets its value (and its spread), the value is the
/// one shown in `mode`, and equals `shown` (the number the report shows).
fn check_band(name: &str, b: &Band, mode: PredictionMode, shown: f64) -> Result<(), String> {
    let all = [b.value, b.ideal, b.calibrated, b.low, b.high];
    let spread_ok =
        b.spread.is_none_or(|(lo, hi)| lo.is_finite() && hi.is_finite() && b.low <= lo && lo <= hi && hi <= b.high);
    let chosen = if mode == PredictionMode::Ideal { b.ideal } else { b.calibrated };
    if !all.iter().all(|x| x.is_finite() && *x >= 0.0)
        || b.low > b.value
        || b.value > b.high
        || !spread_ok
        || b.value != chosen
    {
        return Err(format!("band {name}: {b:?}"));
    }
    if !close(b.value, shown) {
        return Err(format!("band {name}: value {:e} but the report shows {shown:e}: {b:?}", b.value));
    }
    Ok(())
}

fn check_training(m: &ModelConfig, s: &Scenario, r: &TrainingReport) -> Result<u64, String> {
    finite_section("training", r)?;
    let mut bits = bit("training_planned");
    if r.search.is_some() {
        bits |= bit("training_searched");
    }
    if !r.memory.fits {
        bits |= bit("training_does_not_fit");
    }
    let hw = s.validate_hardware().ok().flatten().ok_or("a plan without hardware")?;
    // Every plan that succeeded has finite bands, whatever the inputs (a 1.5 B/s link derated
    // to 0.25 B/s included: `collectives::MIN_LINK`).
    let b = match training_bands(m, &hw, s, r) {
        Ok(b) => b,
        Err(e) => return Err(format!("no bands for a plan that succeeded: {e}")),
    };
    let mode = s.conventions.prediction;
    check_band("training.step_time_s", &b.step_time_s, mode, r.step_time_s.get())?;
    check_band("training.mfu", &b.mfu, mode, r.mfu)?;
    check_band("training.tokens_per_s", &b.tokens_per_s, mode, r.tokens_per_s)?;
    if let (Some(band), Some(d)) = (&b.days, r.days) {
        check_band("training.days", band, mode, d)?;
    }
    if let (Some(band), Some(c)) = (&b.cost_usd, r.cost_usd) {
        check_band("training.cost_usd", band, mode, c)?;
    }
    Ok(bits | bit("training_banded"))
}

fn check_inference(m: &ModelConfig, s: &Scenario, r: &InferenceReport) -> Result<u64, String> {
    finite_section("inference", r)?;
    let b = serving_bands(m, s)
        .map_err(|e| format!("no serving bands for a plan that succeeded: {e}"))?
        .ok_or("no serving bands for an `inference` section")?;
    let mode = s.conventions.prediction;
    check_band("inference.decode_step_s", &b.decode_step_s, mode, r.decode.step.step_time_s.get())?;
    check_band("inference.tokens_per_s", &b.tokens_per_s, mode, r.decode.tokens_per_s)?;
    check_band("inference.tokens_per_s_per_chip", &b.tokens_per_s_per_chip, mode, r.decode.tokens_per_s_per_chip)?;
    check_band("inference.ttft_s", &b.ttft_s, mode, r.prefill.ttft_s.get())?;
    if let (Some(band), Some(c)) = (&b.decode_usd_per_million_tokens, &r.cost) {
        check_band("inference.cost", band, mode, c.decode_usd_per_million_tokens)?;
    }
    let mut bits = bit("inference_planned") | bit("serving_banded");
    if let Some(x) = &r.search {
        bits |= bit("serving_searched");
        if x.best.is_some() {
            bits |= bit("serving_search_feasible");
        }
    }
    Ok(bits)
}

/// Check the sections of a valid scenario: from `report` when `evaluate` succeeded, else
/// (it failed on a plan) each planned on its own. The coverage bits of [`CLASS_NAMES`].
pub fn check_sections(m: &ModelConfig, s: &Scenario, report: Option<&Report>) -> Result<u64, String> {
    let mut bits = if s.conventions.prediction == PredictionMode::Calibrated { bit("calibrated") } else { 0 };
    let mut unplannable = false;
    let training = match report {
        Some(rep) => Ok(rep.training.clone()),
        None => s.validate_hardware().and_then(|hw| training_report(m, hw.as_ref(), s)),
    };
    match training {
        Ok(Some(r)) => bits |= check_training(m, s, &r)?,
        Ok(None) => {}
        Err(e) => {
            names_a_section(&e, "the training plan")?;
            bits |= bit("training_unplannable");
            unplannable = true;
        }
    }
    let inference = match report {
        Some(rep) => Ok(rep.inference.clone()),
        None => inference_report(m, s),
    };
    match inference {
        Ok(Some(r)) => bits |= check_inference(m, s, &r)?,
        Ok(None) => {}
        Err(e) => {
            names_a_section(&e, "the serving plan")?;
            unplannable = true;
        }
    }
    if report.is_none() && !unplannable {
        return Err("evaluate failed, but every section plans on its own".into());
    }
    Ok(bits)
}

/// `evaluate` failed on a valid scenario: only a plan may make it fail.
pub fn evaluate_failed(s: &Scenario, e: &Invalid) -> Result<(), String> {
    if s.training.is_none() && s.inference.is_none() && s.hardware.is_none() {
        return Err(format!("valid but evaluate failed: {e}"));
    }
    names_a_section(e, "evaluate")
}
