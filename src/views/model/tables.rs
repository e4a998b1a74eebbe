//! The model page's tables, each one [`Table`] shown on the page (labels, rounded cells with
//! short forms) and exported (CSV, Markdown, embeds: exact values).

use shardcalc_charts::format::{percent, short_count, si, significant, thousands};
use shardcalc_charts::table::Table;
// decimal::shortest, not format!("{x}"): see core::decimal.
use shardcalc_core::decimal::shortest;
use shardcalc_core::flops::{FlopComponent, FlopConvention};
use shardcalc_core::notebook::{NotebookRow, NotebookTables};
use shardcalc_core::report::{FlopsByConvention, FlopsSummary, ParamsReport};
use shardcalc_core::units::Params;

use super::results::exact_params;

/// A parameter count: exact, and shown as an exact integer with its short form.
fn count(p: Params) -> (String, String) {
    (shortest(p.get()), format!("{} ({})", exact_params(p), short_count(p.get())))
}

/// Parameters per component with any (`#params-table`), then the total (marked `total`).
#[must_use]
pub fn params(p: &ParamsReport) -> Table {
    let mut out = Table::labelled(&[
        ("component", ""),
        ("label", "Component"),
        ("total_params", "Total stored (parameters)"),
        ("active_params", "Active per token (parameters)"),
        ("share_of_total", "% of total"),
    ]);
    let total = p.total.get();
    for r in p.breakdown.iter().filter(|r| r.total.get() > 0.0) {
        out.push_shown(vec![
            (serde_id(&r.component), String::new()),
            (r.label.clone(), r.label.clone()),
            count(r.total),
            count(r.active),
            (shortest(r.total.get() / total), percent(r.total.get(), total)),
        ]);
    }
    out.push_shown(vec![
        ("total".into(), String::new()),
        ("Total".into(), "Total".into()),
        count(p.total),
        count(p.active),
        ("1".into(), "100.0%".into()),
    ]);
    out.mark("total");
    out
}

/// Components that are non-zero under some convention, in display order.
fn components(f: &FlopsByConvention) -> Vec<FlopComponent> {
    FlopComponent::ALL
        .into_iter()
        .filter(|c| {
            FlopConvention::ALL
                .iter()
                .any(|conv| f.get(*conv).rows.iter().any(|r| r.component == *c && r.total_tflops > 0.0))
        })
        .collect()
}

/// A summary row's value under one convention: exact and shown.
type SummaryValue = fn(&FlopsSummary) -> (f64, String);

/// TFLOPs per component (`#flops-table`) under every convention (total shown, with forward
/// and backward; `selected`'s column says so), then the totals, recompute, hardware TFLOPs
/// and training FLOPs per token (marked `total`).
#[must_use]
pub fn flops(f: &FlopsByConvention, selected: FlopConvention) -> Table {
    let mut columns: Vec<(String, String)> =
        vec![("component".into(), String::new()), ("label".into(), "Component".into())];
    for c in FlopConvention::ALL {
        let tag = if c == selected { " (selected)" } else { "" };
        columns.push((format!("{}_total_tflops", c.id()), format!("{}{tag}", c.label())));
        columns.push((format!("{}_forward_tflops", c.id()), String::new()));
        columns.push((format!("{}_backward_tflops", c.id()), String::new()));
    }
    let pairs: Vec<(&str, &str)> = columns.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let mut out = Table::labelled(&pairs);
    for component in components(f) {
        let mut row = vec![(serde_id(&component), String::new()), (component.label().into(), component.label().into())];
        for c in FlopConvention::ALL {
            let r = f.get(c).rows.iter().find(|r| r.component == component);
            let (t, fw, bw) = r.map_or((0.0, 0.0, 0.0), |r| (r.total_tflops, r.forward_tflops, r.backward_tflops));
            let shown = format!("{} (fwd {} · bwd {})", significant(t, 4), significant(fw, 3), significant(bw, 3));
            row.extend([(shortest(t), shown), (shortest(fw), String::new()), (shortest(bw), String::new())]);
        }
        out.push_shown(row);
    }
    let summary_rows: [(&str, &str, SummaryValue); 4] = [
        ("total", "Total: model TFLOPs (MFU)", |s| {
            (s.total_tflops_per_device_step, significant(s.total_tflops_per_device_step, 4))
        }),
        ("remat_recompute", "Remat recompute (forward)", |s| {
            (s.remat_recompute_tflops_per_device_step, significant(s.remat_recompute_tflops_per_device_step, 4))
        }),
        ("hardware", "Hardware TFLOPs (HFU)", |s| {
            (s.hardware_tflops_per_device_step, significant(s.hardware_tflops_per_device_step, 4))
        }),
        ("training_flops_per_token", "Training FLOPs per token", |s| {
            (s.training_flops_per_token, format!("{}FLOP", si(s.training_flops_per_token)))
        }),
    ];
    for (key, label, value) in summary_rows {
        let mut row = vec![(key.to_string(), String::new()), (label.to_string(), label.to_string())];
        for c in FlopConvention::ALL {
            let (exact, shown) = value(f.get(c));
            row.extend([(shortest(exact), shown), (String::new(), String::new()), (String::new(), String::new())]);
        }
        out.push_shown(row);
        out.mark("total");
    }
    out
}

/// A notebook value: an exact integer for a parameter count, else four significant digits.
fn value(v: f64, unit: &str) -> (String, String) {
    let shown = if unit == "params" && v.fract() == 0.0 && (0.0..9.0e15).contains(&v) {
        // A non-negative integer below 2^53: exact.
        thousands(v as u64)
    } else {
        significant(v, 4)
    };
    (shortest(v), shown)
}

/// The notebook's rows as printed (`#notebook`: its parameter table, then its FLOPs
/// table), with the correct value and why they differ; wrong rows marked `wrong`.
#[must_use]
pub fn notebook(n: &NotebookTables) -> Table {
    let mut out = Table::labelled(&[
        ("table", ""),
        ("label", "Row"),
        ("unit", ""),
        ("printed", "Notebook prints"),
        ("correct", "Correct"),
        ("discrepancy", "Check"),
    ]);
    let rows: [(&str, &str, &Vec<NotebookRow>); 2] =
        [("params", "Parameters", &n.params), ("flops", "TFLOPs per device per step", &n.flops)];
    for (table, title, rows) in rows {
        for r in rows {
            let check = r.discrepancy.as_ref().map_or_else(|| "✓ correct".to_string(), |why| format!("⚠ wrong: {why}"));
            out.push_shown(vec![
                (table.into(), title.into()),
                (r.label.clone(), r.label.clone()),
                (r.unit.clone(), r.unit.clone()),
                value(r.printed, &r.unit),
                value(r.correct, &r.unit),
                (r.discrepancy.clone().unwrap_or_default(), check),
            ]);
            if r.discrepancy.is_some() {
                out.mark("wrong");
            }
        }
    }
    out
}

/// The snake_case id serde gives an enum value (`routed_experts`).
fn serde_id<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}
