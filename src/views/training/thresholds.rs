//! The book's thresholds for this model, chip, topology and batch (book 5.1–5.2, 6.3,
//! Appendix C), with the sentence saying which one binds.

use leptos::prelude::*;
use shardcalc_charts::format::{grouped, short_count, significant};
use shardcalc_core::training::report::ThresholdsReport;

use super::csv;
use super::derived::{text_of, Derived};
use super::html;
use crate::components::CsvButton;

/// One row: what, the book's formula, the value here.
fn rows(t: &ThresholdsReport) -> Vec<(String, &'static str, String)> {
    let n = t.ici_axes.max(1);
    let mut out = vec![
        (
            "ICI arithmetic intensity α".into(),
            "C / W_ici (one axis, both ways)",
            format!("{} FLOP/byte", grouped(t.alpha, 0)),
        ),
        ("Tokens per device per step".into(), "B / N (per slice)", grouped(t.batch_per_device, 1)),
        (
            "DP / FSDP compute-bound above".into(),
            "α / n_axes · sparsity (5.1.2)",
            format!(
                "{} tokens per device on {n} axes ({} on one)",
                grouped(t.fsdp_critical_batch_all_axes, 0),
                grouped(t.fsdp_critical_batch_one_axis, 0)
            ),
        ),
        (
            "TP compute-bound up to".into(),
            "n_axes · F / α (5.1.3)",
            format!(
                "{} ways on {n} axes ({} on one), F = {}",
                significant(t.tp_max_all_axes, 3),
                significant(t.tp_max_one_axis, 3),
                grouped(t.d_ff, 0)
            ),
        ),
        (
            "Mixed FSDP + TP compute-bound above".into(),
            "4α² / (M_X · M_Y · F) (5.1.4)",
            format!("{} tokens per device", grouped(t.mixed.critical_batch_per_device, 0)),
        ),
        (
            "Best FSDP × TP split".into(),
            "X_opt = √(B · M_X · N / (F · M_Y))",
            if t.mixed.optimal_tp < 1.0 {
                format!(
                    "pure FSDP (X_opt ≈ {} ≥ N = {})",
                    significant(t.mixed.optimal_fsdp, 3),
                    grouped(t.devices_per_slice as f64, 0)
                )
            } else {
                format!("FSDP ≈ {}, TP ≈ {}", significant(t.mixed.optimal_fsdp, 3), significant(t.mixed.optimal_tp, 3))
            },
        ),
    ];
    out.push((
        "FSDP degrees that stay compute-bound".into(),
        "roots of Appendix C's quadratic (6.3)",
        t.mixed.compute_bound_fsdp.map_or_else(
            || "none at this batch".into(),
            |[lo, hi]| format!("{} to {}", grouped(lo.max(0.0), 0), grouped(hi, 0)),
        ),
    ));
    if let Some(d) = &t.dcn {
        out.push((
            "DP over DCN compute-bound above".into(),
            "C / W_dcn per slice (5.1.6)",
            format!(
                "{} tokens per slice (here {} on each of {} slices)",
                grouped(d.critical_batch_per_slice, 0),
                grouped(d.batch_per_slice, 0),
                d.slices
            ),
        ));
    }
    out.push((
        "Largest model pure DP holds".into(),
        "HBM / bytes of state per parameter (5.1.1)",
        format!("{} parameters", short_count(t.max_params_pure_dp)),
    ));
    if t.sparsity > 1.0 {
        out.push(("MoE sparsity".into(), "stored / active parameters", significant(t.sparsity, 3)));
    }
    out
}

/// The heading, the sentence saying which limit binds (`#training-binding`) and the table
/// `#training-thresholds`, as HTML text.
fn table_html(d: &Derived) -> String {
    let (explanation, rows) =
        d.with_shown(|b| b.map(|r| (r.thresholds.explanation.clone(), rows(&r.thresholds))).unwrap_or_default());
    let mut out = String::from("<h3 id=\"training-thresholds-heading\">The book's thresholds for this setup</h3>");
    html::element(&mut out, "p", "training-binding", "binding", &explanation);
    html::open_table(&mut out, "training-thresholds", &["Limit", "Formula (book section)", "Here"]);
    for (what, formula, value) in rows {
        out.push_str("<tr>");
        html::cell(&mut out, &what, false);
        html::cell(&mut out, formula, false);
        html::cell(&mut out, &value, true);
        out.push_str("</tr>");
    }
    html::close_table(&mut out);
    out
}

/// The thresholds table, its CSV, and which limit binds.
#[component]
pub fn Thresholds(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let csv_text = Signal::derive(text_of(derived, |d| {
        d.with_shown(|b| b.map(|r| csv::thresholds(&r.thresholds)).unwrap_or_default())
    }));
    view! {
        <section class="result-section" aria-labelledby="training-thresholds-heading">
            <div inner_html=text_of(derived, table_html)></div>
            <CsvButton name="training-thresholds" csv=csv_text />
        </section>
    }
}
