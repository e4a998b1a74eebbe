//! The result tables as CSV text (RFC 4180 quoting), for "Download CSV".

use shardcalc_core::flops::{FlopComponent, FlopConvention};
use shardcalc_core::notebook::NotebookTables;
use shardcalc_core::report::{FlopsByConvention, ParamsReport};


/// One CSV field, quoted when it contains a comma, quote or line break.
#[must_use]
pub fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn line(fields: &[String]) -> String {
    let mut out = fields.iter().map(|f| field(f)).collect::<Vec<_>>().join(",");
    out.push_str("\r\n");
    out
}

/// Parameters per component: exact integers where exact.
#[must_use]
pub fn params(p: &ParamsReport) -> String {
    let number = |x: f64| format!("{x}");
    let mut out = line(&["component".into(), "label".into(), "total_params".into(), "active_params".into()]);
    for r in &p.breakdown {
        out += &line(&[
            serde_id(&r.component),
            r.label.clone(),
            number(r.total.get()),
            number(r.active.get()),
        ]);
    }
    out += &line(&["total".into(), "Total".into(), number(p.total.get()), number(p.active.get())]);
    out
}

/// TFLOPs per component under every convention (forward, backward, total).
#[must_use]
pub fn flops(f: &FlopsByConvention) -> String {
    let mut header = vec!["component".to_string(), "label".to_string()];
    for c in FlopConvention::ALL {
        for part in ["forward", "backward", "total"] {
            header.push(format!("{}_{part}_tflops", c.id()));
        }
    }
    let mut out = line(&header);
    for component in FlopComponent::ALL {
        let mut row = vec![serde_id(&component), component.label().to_string()];
        for c in FlopConvention::ALL {
            let s = f.get(c);
            let r = s.rows.iter().find(|r| r.component == component);
            for v in [r.map(|r| r.forward_tflops), r.map(|r| r.backward_tflops), r.map(|r| r.total_tflops)] {
                row.push(format!("{}", v.unwrap_or(0.0)));
            }
        }
        out += &line(&row);
    }
    out
}

/// The notebook's rows as printed, with the correct value and why they differ.
#[must_use]
pub fn notebook(n: &NotebookTables) -> String {
    let mut out = line(&["table".into(), "label".into(), "unit".into(), "printed".into(), "correct".into(), "discrepancy".into()]);
    for (table, rows) in [("params", &n.params), ("flops", &n.flops)] {
        for r in rows {
            out += &line(&[
                table.into(),
                r.label.clone(),
                r.unit.clone(),
                format!("{}", r.printed),
                format!("{}", r.correct),
                r.discrepancy.clone().unwrap_or_default(),
            ]);
        }
    }
    out
}

/// The snake_case id serde gives an enum value (`routed_experts`).
fn serde_id<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
