//! What one case must satisfy.
//!
//! Invalid scenarios: `validate` and `evaluate` return the same non-empty list of errors,
//! each naming a field that exists in the scenario document. Valid scenarios: the report
//! survives a JSON round trip, every number in it is finite and non-negative (serde_json
//! writes NaN and infinities as `null`, so no `null` but where the format allows one), the
//! totals add up, FLOPs per token do not depend on the batch, and every series and cache
//! size is finite. Either way, the formulas that
//! assume a valid model are also run on the invalid one: meaningless numbers are fine
//! there, a panic is not. A valid scenario's `training` and `inference` sections, and
//! their bands, are checked by `planning.rs`; there `evaluate` may fail, but only on a
//! plan, naming a field of a section.

use super::planning;
use super::scenarios::Case;
use serde_json::Value;
use shardcalc_core::error::Invalid;
use shardcalc_core::flops::{
    attention_crossover, flops_vs_seq_len, training_flops, FlopConvention, RematPolicy, Workload, MAX_SEQ_LEN,
};
use shardcalc_core::hardware::query::ChipSource;
use shardcalc_core::kv_cache::{kv_bytes_per_sequence, kv_bytes_per_token};
use shardcalc_core::model::{Attention, LayerKind, LocalAttention, MlpKind, ModelConfig, NormKind};
use shardcalc_core::notebook::notebook_tables;
use shardcalc_core::params::count_params;
use shardcalc_core::report::{evaluate, FlopsSummary, Report};
use shardcalc_core::scenario::{ModelSource, Scenario};

/// Report keys whose value may be `null`.
const NULLABLE: &[&str] = &["discrepancy"];

/// How many coverage classes [`classes`] reports.
const MODEL_CLASSES: usize = 34;
/// With the sections' ([`planning::CLASS_NAMES`]).
pub const CLASS_COUNT: usize = MODEL_CLASSES + planning::CLASS_NAMES.len();

/// How a case ended.
pub enum Outcome {
    /// Valid; the bit set of the [`classes`] it covered.
    Valid(u64),
    /// Rejected with field errors.
    Rejected,
}

/// Run every check on one case.
pub fn check(case: &Case) -> Result<Outcome, String> {
    match &case.json {
        None => check_scenario(&case.scenario, case, false),
        Some(text) => match Scenario::from_json(text) {
            Ok(s) => check_scenario(&s, case, true),
            Err(e) if e.0.len() == 1 && e.0[0].field == "scenario" && !e.0[0].message.is_empty() => {
                Ok(Outcome::Rejected)
            }
            Err(e) => Err(format!("from_json failed without naming `scenario`: {e:?}")),
        },
    }
}

fn check_scenario(s: &Scenario, case: &Case, from_text: bool) -> Result<Outcome, String> {
    let verdict = s.validate();
    let evaluated = evaluate(s);
    scenario_round_trip(s, verdict.is_ok())?;
    if verdict.is_err() {
        if let Ok(m) = s.model.resolve() {
            run_unchecked(&m, &s.workload, case);
        }
    }
    match (verdict, evaluated) {
        (Err(e), Err(e2)) => {
            if e != e2 {
                return Err(format!("validate and evaluate disagree: {e} vs {e2}"));
            }
            errors_name_fields(s, &e)?;
            Ok(Outcome::Rejected)
        }
        (Ok(m), Ok(report)) => {
            check_report(&report, &m, s)?;
            check_series(&m, s, case)?;
            let plans = planning::check_sections(&m, s, Some(&report))?;
            Ok(Outcome::Valid(class_bits(&m, s, from_text) | plans << MODEL_CLASSES))
        }
        (Ok(m), Err(e)) => {
            planning::evaluate_failed(s, &e)?;
            check_series(&m, s, case)?;
            let plans = planning::check_sections(&m, s, None)?;
            Ok(Outcome::Valid(class_bits(&m, s, from_text) | plans << MODEL_CLASSES))
        }
        (Err(e), Ok(_)) => Err(format!("invalid ({e}) but evaluate succeeded")),
    }
}

/// The formulas that assume a valid model, on an invalid one: the results are not checked.
fn run_unchecked(m: &ModelConfig, w: &Workload, case: &Case) {
    let _ = count_params(m);
    for c in FlopConvention::ALL {
        let _ = training_flops(m, w, c);
        let _ = flops_vs_seq_len(m, &case.seq_lens, c);
    }
    let _ = notebook_tables(m, w);
    let _ = attention_crossover(m, FlopConvention::MaxText);
    let _ = kv_bytes_per_sequence(m, case.context, case.dtype);
    let _ = kv_bytes_per_token(m, case.dtype);
}

/// A scenario serializes, parses back equal, and keeps its verdict.
fn scenario_round_trip(s: &Scenario, valid: bool) -> Result<(), String> {
    let text = serde_json::to_string(s).map_err(|e| format!("scenario does not serialize: {e}"))?;
    match Scenario::from_json(&text) {
        Ok(back) if valid && back != *s => Err(format!("scenario changed in a JSON round trip: {text}")),
        // An invalid value JSON cannot hold (NaN or an infinity, written `null`, reads back
        // as an absent option) may make the scenario valid: then it did not survive the trip.
        Ok(back) if back.validate().is_ok() != valid && (valid || back == *s) => Err(format!(
            "verdict changed in a JSON round trip: valid {valid} ({:?}), now {:?}",
            s.validate().err(),
            back.validate().err()
        )),
        Ok(_) => Ok(()),
        // NaN and infinities serialize as `null`, which does not parse as a number.
        Err(e) if valid => Err(format!("valid scenario does not parse back: {e}")),
        Err(_) => Ok(()),
    }
}

/// Every error names a field that the scenario document (or its model) has.
fn errors_name_fields(s: &Scenario, e: &Invalid) -> Result<(), String> {
    if e.0.is_empty() {
        return Err("validation failed with no error".into());
    }
    let doc = serde_json::to_value(s).map_err(|e| e.to_string())?;
    let model = s.model.resolve().ok().and_then(|m| serde_json::to_value(m).ok());
    for err in &e.0 {
        if err.message.trim().is_empty() {
            return Err(format!("empty message for {}", err.field));
        }
        // `a.b[1].c` is the JSON pointer `/a/b/1/c`.
        let pointer = |path: &str| format!("/{}", path.replace('[', ".").replace(']', "").replace('.', "/"));
        let exists = match err.field.split_once('.') {
            Some(("model", rest)) if matches!(s.model, ModelSource::Preset(_)) && rest == "preset" => true,
            Some(("model", rest)) => model.as_ref().is_some_and(|m| m.pointer(&pointer(rest)).is_some()),
            // A field left at its default may be omitted from the document (an empty
            // `inference.sharding.d_axes`): its object is enough.
            _ => {
                let p = pointer(&err.field);
                doc.pointer(&p).is_some()
                    || p.rsplit_once('/').is_some_and(|(parent, _)| doc.pointer(parent).is_some_and(Value::is_object))
            }
        };
        if !exists {
            return Err(format!("error names no field of the scenario: {err}"));
        }
    }
    Ok(())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Scan JSON text without allocating: outside strings a `-` (but an exponent's) starts a
/// negative number, and a `null` whose key is not in [`NULLABLE`] is a NaN or an infinity
/// that serde_json wrote as `null`.
fn scan_numbers(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    let (mut in_string, mut escaped) = (false, false);
    // The last string seen: the key, when a value follows.
    let mut last = (0, 0);
    for (i, &c) in bytes.iter().enumerate() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    in_string = false;
                    last.1 = i;
                }
                _ => {}
            }
            continue;
        }
        let problem = match c {
            b'"' => {
                in_string = true;
                last.0 = i + 1;
                None
            }
            b'-' if !matches!(i.checked_sub(1).map(|p| bytes[p]), Some(b'e' | b'E')) => Some("a negative number"),
            b'n' if !NULLABLE.contains(&&text[last.0..last.1]) => Some("null (NaN or infinity?)"),
            _ => None,
        };
        if let Some(problem) = problem {
            let around = String::from_utf8_lossy(&bytes[i.saturating_sub(120)..(i + 10).min(bytes.len())]);
            return Err(format!("{problem} at byte {i}: ...{around}"));
        }
    }
    Ok(())
}

/// Where two JSON values first differ.
fn first_difference(a: &Value, b: &Value, path: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x.iter().find(|(k, v)| y.get(*k) != Some(*v)).map_or_else(
            || path.to_owned(),
            |(k, v)| first_difference(v, y.get(k).unwrap_or(&Value::Null), &format!("{path}.{k}")),
        ),
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .position(|(v, w)| v != w)
            .map_or_else(|| path.to_owned(), |i| first_difference(&x[i], &y[i], &format!("{path}[{i}]"))),
        _ => format!("{path}: {a} became {b}"),
    }
}

fn check_report(report: &Report, m: &ModelConfig, s: &Scenario) -> Result<(), String> {
    // The model's sections: no negative number and no null. The planning sections may
    // hold negatives (memory headroom when it does not fit): `planning.rs` checks them.
    let model_part = Report {
        inference: None,
        hardware: None,
        collectives: Vec::new(),
        roofline: None,
        training: None,
        ..report.clone()
    };
    let model_text = serde_json::to_string(&model_part).map_err(|e| format!("report does not serialize: {e}"))?;
    scan_numbers(&model_text).map_err(|e| format!("report: {e}"))?;
    let text = serde_json::to_string(report).map_err(|e| format!("report does not serialize: {e}"))?;
    let back: Report = serde_json::from_str(&text).map_err(|e| format!("report does not parse back: {e}"))?;
    if back != *report {
        let (a, b) = (serde_json::to_value(report), serde_json::to_value(&back));
        let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());
        return Err(format!("report changed in a JSON round trip: {}", first_difference(&a, &b, "report")));
    }

    let p = &report.params;
    if p.active.get() > p.total.get() * (1.0 + 1e-12) || p.total_without_mtp.get() > p.total.get() {
        return Err(format!(
            "params: active {:?} / without MTP {:?} exceed total {:?}",
            p.active, p.total_without_mtp, p.total
        ));
    }
    let rows: f64 = p.breakdown.iter().map(|r| r.total.get()).sum();
    if !close(rows, p.total.get()) {
        return Err(format!("params: rows sum to {rows}, total is {:?}", p.total));
    }
    let f = &report.flops;
    for (name, c) in [("maxtext", &f.maxtext), ("notebook", &f.notebook), ("six_nd", &f.six_nd), ("book", &f.book)] {
        flops_add_up(c).map_err(|e| format!("flops.{name}: {e}"))?;
    }
    // FLOPs per token do not depend on how many sequences a step has.
    let mut one = s.workload.clone();
    one.per_device_batch = 1.0;
    one.grad_accum = 1;
    let expected = training_flops(m, &one, s.conventions.flops).per_token().get();
    let headline = match s.conventions.flops {
        FlopConvention::MaxText => &f.maxtext,
        FlopConvention::Notebook => &f.notebook,
        FlopConvention::SixNd => &f.six_nd,
        FlopConvention::Book => &f.book,
    };
    if !close(headline.training_flops_per_token, expected) {
        return Err(format!(
            "FLOPs per token depend on the batch: {} at batch {} x {} vs {expected} at 1 x 1",
            headline.training_flops_per_token, s.workload.per_device_batch, s.workload.grad_accum
        ));
    }
    Ok(())
}

fn flops_add_up(c: &FlopsSummary) -> Result<(), String> {
    let rows: f64 = c.rows.iter().map(|r| r.total_tflops).sum();
    let parts = c.learnable_tflops_per_device_step + c.attention_tflops_per_device_step;
    if !close(rows, c.total_tflops_per_device_step) || !close(parts, c.total_tflops_per_device_step) {
        return Err(format!(
            "total {} vs rows {rows} vs learnable + attention {parts}",
            c.total_tflops_per_device_step
        ));
    }
    if c.hardware_tflops_per_device_step < c.total_tflops_per_device_step {
        return Err("hardware FLOPs below model FLOPs".into());
    }
    Ok(())
}

fn check_series(m: &ModelConfig, s: &Scenario, case: &Case) -> Result<(), String> {
    let convention = s.conventions.flops;
    for p in flops_vs_seq_len(m, &case.seq_lens, convention) {
        let parts = [p.attention_dot, p.attention_projections, p.mlp, p.unembedding];
        if parts.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return Err(format!("flops_vs_seq_len at {}: {p:?}", p.seq_len));
        }
    }
    let crossover = attention_crossover(m, convention);
    if let Some(t) = crossover {
        let at = |t: u64| flops_vs_seq_len(m, &[t], convention)[0];
        let (hi, lo) = (at(t), at(t - 1));
        if t == 0 || hi.attention_dot <= hi.mlp || (t > 1 && lo.attention_dot > lo.mlp) {
            return Err(format!("attention_crossover {t}: {lo:?} / {hi:?}"));
        }
    }
    // It is the *first* length where attention overtakes: no shorter length may, among the
    // powers of two and the chunk boundaries (where chunked attention per token peaks).
    let before = crossover.unwrap_or((1 << 30) + 1);
    let mut shorter: Vec<u64> = (0..=30).map(|p| 1 << p).filter(|&t| t < before).collect();
    if let Some(LocalAttention::Chunked { chunk }) = local_attention(m) {
        shorter.extend((1..=64).map(|k| k * chunk).filter(|&t| t < before));
    }
    if let Some(p) = flops_vs_seq_len(m, &shorter, convention).iter().find(|p| p.attention_dot > p.mlp) {
        return Err(format!("attention_crossover says {crossover:?}, but attention already overtakes at {p:?}"));
    }
    let kv = kv_bytes_per_sequence(m, case.context, case.dtype).get();
    let per_token = kv_bytes_per_token(m, case.dtype).get();
    if !kv.is_finite() || kv < 0.0 || !per_token.is_finite() || per_token <= 0.0 {
        return Err(format!("KV cache at context {}: {kv} bytes, {per_token} per token", case.context));
    }
    Ok(())
}

/// What the local layers do, when the model has any.
fn local_attention(m: &ModelConfig) -> Option<LocalAttention> {
    m.layout.pattern.contains(&LayerKind::Local).then_some(m.layout.local).flatten()
}

/// The coverage class names, in bit order: the model's, then the sections'.
pub fn class_names() -> Vec<&'static str> {
    let s = Scenario::default();
    let m = s.model.resolve().expect("the default scenario's preset exists");
    let mut names: Vec<&str> = classes(&m, &s, false).map(|(name, _)| name).to_vec();
    names.extend(planning::CLASS_NAMES);
    names
}

/// Which coverage classes a valid scenario falls in, as a bit set.
fn class_bits(m: &ModelConfig, s: &Scenario, from_text: bool) -> u64 {
    classes(m, s, from_text).iter().enumerate().filter(|(_, (_, on))| *on).fold(0, |bits, (i, _)| bits | 1 << i)
}

/// Every coverage class with whether this valid scenario falls in it.
fn classes(m: &ModelConfig, s: &Scenario, from_text: bool) -> [(&'static str, bool); MODEL_CLASSES] {
    let gqa = match &m.attention {
        Attention::Gqa(a) => Some((a.num_heads, a.num_kv_heads)),
        Attention::Mla(_) => None,
    };
    let (moe_layers, _) = m.moe_and_dense_layers();
    let moe = m.moe.as_ref();
    let mtp = m.mtp.as_ref().filter(|x| x.depth > 0);
    let local = local_attention(m);
    let (w, convention) = (&s.workload, s.conventions.flops);
    [
        ("preset", matches!(s.model, ModelSource::Preset(_))),
        ("custom", matches!(s.model, ModelSource::Custom(_))),
        ("mha", gqa.is_some_and(|(n, k)| n == k)),
        ("gqa", gqa.is_some_and(|(n, k)| k != n && k != 1)),
        ("mqa", gqa.is_some_and(|(n, k)| k == 1 && n > 1)),
        ("mla", gqa.is_none()),
        ("mla_q_lora", matches!(&m.attention, Attention::Mla(a) if a.q_lora_rank.is_some())),
        ("dense", moe.is_none()),
        ("moe", moe_layers > 0),
        ("moe_shared", moe.is_some_and(|x| x.shared_experts > 0)),
        ("moe_dense_first", moe.is_some_and(|x| x.first_dense_layers > 0)),
        ("moe_interleaved", moe.is_some_and(|x| x.every > 1)),
        ("sliding_window", matches!(local, Some(LocalAttention::SlidingWindow { .. }))),
        ("chunked", matches!(local, Some(LocalAttention::Chunked { .. }))),
        ("mixed_pattern", local.is_some() && m.layout.pattern.contains(&LayerKind::Global)),
        ("mtp", mtp.is_some()),
        ("mtp_copies", mtp.is_some_and(|x| x.stores_embedding_copies)),
        ("tied", m.embeddings.tied),
        ("learned_positions", m.embeddings.learned_positions > 0),
        ("layer_norm", m.norm.kind == NormKind::Layer),
        ("plain_mlp", m.mlp.kind == MlpKind::Plain),
        ("mlp_bias", m.mlp.bias),
        ("fractional_batch", w.per_device_batch.fract() != 0.0),
        ("tiny_batch", w.per_device_batch < 1e-5),
        ("max_seq_len", w.seq_len == MAX_SEQ_LEN),
        ("remat_save_matmuls", w.remat == RematPolicy::SaveMatmuls),
        ("remat_full", w.remat == RematPolicy::Full),
        ("conv_maxtext", convention == FlopConvention::MaxText),
        ("conv_notebook", convention == FlopConvention::Notebook),
        ("conv_six_nd", convention == FlopConvention::SixNd),
        ("conv_book", convention == FlopConvention::Book),
        ("from_json_text", from_text),
        ("custom_chip", s.hardware.as_ref().is_some_and(|h| matches!(h.chip, ChipSource::Custom(_)))),
        (
            "unidirectional_axis",
            s.hardware
                .as_ref()
                .and_then(|h| h.topology.as_ref())
                .is_some_and(|t| t.axes.iter().any(|a| a.unidirectional)),
        ),
    ]
}

#[test]
fn the_number_scan_finds_negatives_and_non_finite_numbers() {
    for ok in [r#"{"a":1e-5,"b":"-x null","discrepancy":null,"c":[0,2.5E-7]}"#, "[]"] {
        assert_eq!(scan_numbers(ok), Ok(()), "{ok}");
    }
    let nan = serde_json::to_string(&[("total", f64::NAN)]).unwrap();
    let infinite = serde_json::to_string(&serde_json::json!({"flops": {"rows": [f64::INFINITY]}})).unwrap();
    for bad in [r#"{"a":-1}"#, r#"{"a":[1,-0.5]}"#, r#"{"a":"\"","b":null}"#, &nan, &infinite] {
        assert!(scan_numbers(bad).is_err(), "{bad}");
    }
}
