//! The roofline of the op (book 1.1): which resource binds, the time on each, the
//! intensity against the chip's critical intensity, the batch at which a matmul turns
//! compute-bound, MXU padding waste, and the chart.

use leptos::prelude::*;
use shardcalc_charts::format::{percent, significant, thousands};
use shardcalc_charts::roofline_chart;
use shardcalc_core::hardware::query::RooflineQuery;
use shardcalc_core::report_hardware::RooflineReport;
use shardcalc_core::roofline::Resource;

use super::derived::Derived;
use super::units::{bytes, intensity, seconds};
use super::{csv, html};
use crate::components::{Figure, SceneChart, TableExports};

/// Display name of a resource.
#[must_use]
pub fn resource_name(r: Resource) -> &'static str {
    match r {
        Resource::Compute => "compute",
        Resource::Hbm => "HBM bandwidth",
        Resource::Ici => "ICI / NVLink",
        Resource::Dcn => "DCN / scale-out",
        Resource::Host => "host PCIe",
    }
}

/// A dimension: grouped digits when whole (`8,192`), else four significant digits.
fn count(x: f64) -> String {
    if x.fract() == 0.0 && (0.0..9e15).contains(&x) {
        // Whole and below 2^53: exact.
        thousands(x as u64)
    } else {
        significant(x, 4)
    }
}

/// Key numbers and the per-resource table of `r`, as HTML.
#[must_use]
pub fn roofline_html(r: &RooflineReport) -> String {
    let v = html::value;
    let mut items = vec![
        format!(
            "Bound by {}: {} with perfect overlap, {} with none",
            v("roofline-bound", resource_name(r.bound), true),
            v("roofline-time", &seconds(r.time_s.get()), true),
            v("roofline-upper-time", &seconds(r.upper_time_s.get()), false)
        ),
        format!(
            "{} FLOPs, {} through HBM: intensity {} FLOP/B against the chip's critical {}",
            v("roofline-flops", &significant(r.flops.get(), 4), false),
            v("roofline-hbm-bytes", &bytes(r.hbm_bytes.get()), false),
            v("roofline-intensity", &r.intensity.map_or_else(|| "n/a".into(), |i| intensity(i.get())), true),
            v("roofline-critical-intensity", &intensity(r.critical_intensity_hbm.get()), false)
        ),
    ];
    if let Some(m) = &r.matmul {
        let exact = m
            .critical_batch
            .map_or_else(|| "never (activations alone outrun compute)".to_string(), |b| significant(b, 4));
        items.push(format!(
            "Compute-bound above a batch of {} tokens (exact, book Solution 2.4); {} for B ≪ D, F (peak × weight bytes / (2 × HBM bandwidth), book 1.1.2)",
            v("roofline-critical-batch", &exact, true),
            v("roofline-critical-batch-approx", &significant(m.critical_batch_approx, 4), false)
        ));
        if let Some(p) = m.mxu {
            items.push(format!(
                "MXU {0}×{0}: padded to B {1}, D {2}, F {3}; utilization {4}, padding waste {5} (D and F pad to the MXU side, B to 8 rows)",
                // Not `{}` of the f64: see shardcalc_core::decimal.
                shardcalc_core::decimal::shortest(p.mxu_size),
                count(p.padded_b),
                count(p.padded_d),
                count(p.padded_f),
                v("roofline-mxu-utilization", &percent(p.utilization, 1.0), true),
                v("roofline-mxu-waste", &percent(1.0 - p.utilization, 1.0), true)
            ));
        }
    }
    let mut out: String = items.iter().map(|i| format!("<li>{i}</li>")).collect();
    out = format!("<ul class=\"key-numbers\">{out}</ul>");
    let t = &r.times;
    let lower = r.time_s.get();
    let rows: Vec<html::Row> = [
        (Resource::Compute, t.compute_s.get()),
        (Resource::Hbm, t.hbm_s.get()),
        (Resource::Ici, t.ici_s.get()),
        (Resource::Dcn, t.dcn_s.get()),
        (Resource::Host, t.host_s.get()),
    ]
    .into_iter()
    .map(|(res, s)| {
        let share = if lower > 0.0 { percent(s, lower) } else { "n/a".to_string() };
        html::row(resource_name(res), vec![html::num(seconds(s)), html::num(share)]).class_if(res == r.bound, "bound")
    })
    .collect();
    out += &html::table(
        "roofline-table",
        "Time on each resource at its peak (the bound in bold)",
        &["Resource", "#Time", "#of the bound"],
        &rows,
    );
    out
}

/// Results and chart of the roofline op.
#[component]
pub fn RooflineSection(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let roofline = derived.roofline;
    let body = move || {
        roofline.with(|r| match r {
            Some(Ok(r)) => roofline_html(r),
            Some(Err(e)) => format!("<p class=\"field-error\" id=\"roofline-error\">{}</p>", html::escape(e)),
            None => String::new(),
        })
    };
    let figure = Memo::new(move |_| {
        derived.chip.with(|chip| {
            let chip = chip.as_ref()?;
            derived.roofline_query.with(|q| {
                let (op, dtype) = match q.as_ref()? {
                    RooflineQuery::Matmul(m) => (m.op_cost(), m.compute),
                    RooflineQuery::Op(op) => (op.clone(), op.dtype),
                };
                let c = roofline_chart(chip, Some(&op), dtype);
                let ridges: Vec<String> = c.roofs.iter().map(|r| format!("{} {}", r.name, intensity(r.ridge))).collect();
                let caption = format!(
                    "Log-log. Each channel's roof rises with intensity up to its ridge point, the chip's critical intensity in FLOP/B: {}. The op is plotted against every channel it moves bytes over.",
                    ridges.join("; ")
                );
                Some(Figure { scene: c.scene(), caption })
            })
        })
    });
    let csv_text = Signal::derive(move || {
        roofline.with(|r| r.as_ref().and_then(|r| r.as_ref().ok()).map(csv::roofline).unwrap_or_default())
    });
    view! {
        <section class="result-section" aria-labelledby="roofline-heading">
            <h3 id="roofline-heading">"Roofline"</h3>
            <div inner_html=body></div>
            <div class="actions"><TableExports name="roofline" table=csv_text /></div>
            <SceneChart id="chart-roofline" figure=figure />
        </section>
    }
}
