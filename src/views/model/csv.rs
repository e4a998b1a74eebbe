//! The result tables as [`Table`]s (exact values), for "Download CSV", "Download Markdown"
//! and embeds.

use shardcalc_charts::table::Table;
// decimal::shortest, not format!("{x}"): see core::decimal.
use shardcalc_core::decimal;
use shardcalc_core::flops::{FlopComponent, FlopConvention};
use shardcalc_core::notebook::NotebookTables;
use shardcalc_core::report::{FlopsByConvention, ParamsReport};

/// Parameters per component: exact integers where exact.
#[must_use]
pub fn params(p: &ParamsReport) -> Table {
    let number = decimal::shortest;
    let mut out = Table::new(["component", "label", "total_params", "active_params"]);
    for r in &p.breakdown {
        out.push([serde_id(&r.component), r.label.clone(), number(r.total.get()), number(r.active.get())]);
    }
    out.push(["total".into(), "Total".into(), number(p.total.get()), number(p.active.get())]);
    out
}

/// TFLOPs per component under every convention (forward, backward, total).
#[must_use]
pub fn flops(f: &FlopsByConvention) -> Table {
    let mut header = vec!["component".to_string(), "label".to_string()];
    for c in FlopConvention::ALL {
        for part in ["forward", "backward", "total"] {
            header.push(format!("{}_{part}_tflops", c.id()));
        }
    }
    let mut out = Table::new(header);
    for component in FlopComponent::ALL {
        let mut row = vec![serde_id(&component), component.label().to_string()];
        for c in FlopConvention::ALL {
            let s = f.get(c);
            let r = s.rows.iter().find(|r| r.component == component);
            for v in [r.map(|r| r.forward_tflops), r.map(|r| r.backward_tflops), r.map(|r| r.total_tflops)] {
                row.push(decimal::shortest(v.unwrap_or(0.0)));
            }
        }
        out.push(row);
    }
    out
}

/// The notebook's rows as printed, with the correct value and why they differ.
#[must_use]
pub fn notebook(n: &NotebookTables) -> Table {
    let mut out = Table::new(["table", "label", "unit", "printed", "correct", "discrepancy"]);
    for (table, rows) in [("params", &n.params), ("flops", &n.flops)] {
        for r in rows {
            out.push([
                table.to_string(),
                r.label.clone(),
                r.unit.clone(),
                decimal::shortest(r.printed),
                decimal::shortest(r.correct),
                r.discrepancy.clone().unwrap_or_default(),
            ]);
        }
    }
    out
}

/// The snake_case id serde gives an enum value (`routed_experts`).
fn serde_id<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}
