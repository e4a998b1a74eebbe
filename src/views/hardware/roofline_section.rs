//! The roofline of the op (book 1.1): which resource binds, the time on each, the
//! intensity against the chip's critical intensity, the batch at which a matmul turns
//! compute-bound, MXU padding waste, and the chart.

use leptos::prelude::*;
use shardcalc_charts::format::{percent, significant};
use shardcalc_charts::{roofline_chart, Chart};
use shardcalc_core::hardware::query::RooflineQuery;
use shardcalc_core::roofline::Resource;

use super::csv;
use super::derived::Derived;
use super::units::{bytes, intensity, seconds};
use crate::components::{ChartCanvas, CsvButton};

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

/// Results and chart of the roofline op.
#[component]
pub fn RooflineSection(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let report = Memo::new(move |_| derived.roofline.with(|r| r.as_ref().and_then(|r| r.as_ref().ok().cloned())));
    let error = move || derived.roofline.with(|r| r.as_ref().and_then(|r| r.as_ref().err().cloned()));
    let chart = Memo::new(move |_| {
        let chip = derived.resolved.with(|r| r.as_ref().ok().map(|hw| hw.chip.clone()))?;
        derived.roofline_query.with(|q| {
            let (op, dtype) = match q.as_ref()? {
                RooflineQuery::Matmul(m) => (m.op_cost(), m.compute),
                RooflineQuery::Op(op) => (op.clone(), op.dtype),
            };
            Some(Chart::Roofline(roofline_chart(&chip, Some(&op), dtype)))
        })
    });
    let text = move |f: fn(&shardcalc_core::report_hardware::RooflineReport) -> String| {
        move || report.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let matmul_lines = move || {
        report.with(|r| {
            let m = r.as_ref()?.matmul.as_ref()?;
            let exact = m.critical_batch.map_or_else(|| "never (activations alone outrun compute)".to_string(), |b| significant(b, 4));
            let mxu = m.mxu.map(|p| {
                view! {
                    <li>
                        "MXU " {format!("{0}×{0}", p.mxu_size)} ": padded to B " {significant(p.padded_b, 6)} ", D " {significant(p.padded_d, 6)} ", F " {significant(p.padded_f, 6)}
                        "; utilization " <strong id="roofline-mxu-utilization">{percent(p.utilization, 1.0)}</strong>
                        ", padding waste " <strong id="roofline-mxu-waste">{percent(1.0 - p.utilization, 1.0)}</strong>
                        " (D and F pad to the MXU side, B to 8 rows)"
                    </li>
                }
            });
            Some(view! {
                <li>"Compute-bound above a batch of " <strong id="roofline-critical-batch">{exact}</strong> " tokens (exact, book Solution 2.4); "
                    <span id="roofline-critical-batch-approx">{significant(m.critical_batch_approx, 4)}</span> " for B ≪ D, F (peak × weight bytes / (2 × HBM bandwidth), book 1.1.2)"</li>
                {mxu}
            })
        })
    };
    let rows = move || {
        report.with(|r| {
            let r = r.as_ref()?;
            let t = &r.times;
            let all = [
                (Resource::Compute, t.compute_s.get()),
                (Resource::Hbm, t.hbm_s.get()),
                (Resource::Ici, t.ici_s.get()),
                (Resource::Dcn, t.dcn_s.get()),
                (Resource::Host, t.host_s.get()),
            ];
            let lower = r.time_s.get();
            Some(
                all.into_iter()
                    .map(|(res, s)| {
                        view! {
                            <tr class:bound=res == r.bound>
                                <th scope="row">{resource_name(res)}</th>
                                <td class="num">{seconds(s)}</td>
                                <td class="num">{if lower > 0.0 { percent(s, lower) } else { "n/a".to_string() }}</td>
                            </tr>
                        }
                    })
                    .collect_view(),
            )
        })
    };
    let csv_text = Signal::derive(move || report.with(|r| r.as_ref().map(csv::roofline).unwrap_or_default()));
    let caption = Signal::derive(move || {
        chart.with(|c| match c {
            Some(Chart::Roofline(c)) => {
                let ridges: Vec<String> = c.roofs.iter().map(|r| format!("{} {}", r.name, intensity(r.ridge))).collect();
                format!(
                    "Log-log. Each channel's roof rises with intensity until its ridge point, the chip's critical intensity (FLOP/B): {}. The op is plotted against every channel it moves bytes over.",
                    ridges.join("; ")
                )
            }
            _ => String::new(),
        })
    });
    view! {
        <section class="result-section" aria-labelledby="roofline-heading">
            <h3 id="roofline-heading">"Roofline"</h3>
            <p class="field-error" id="roofline-error">{error}</p>
            <ul class="key-numbers">
                <li>"Bound by " <strong id="roofline-bound">{text(|r| resource_name(r.bound).to_string())}</strong>
                    ": " <strong id="roofline-time">{text(|r| seconds(r.time_s.get()))}</strong> " with perfect overlap, "
                    <span id="roofline-upper-time">{text(|r| seconds(r.upper_time_s.get()))}</span> " with none"</li>
                <li><span id="roofline-flops">{text(|r| significant(r.flops.get(), 4))}</span> " FLOPs, "
                    <span id="roofline-hbm-bytes">{text(|r| bytes(r.hbm_bytes.get()))}</span> " through HBM: intensity "
                    <strong id="roofline-intensity">{text(|r| r.intensity.map(|i| intensity(i.get())).unwrap_or_else(|| "n/a".into()))}</strong>
                    " FLOP/B against the chip's "
                    <span id="roofline-critical-intensity">{text(|r| intensity(r.critical_intensity_hbm.get()))}</span></li>
                {matmul_lines}
            </ul>
            <div class="table-wrap">
                <table id="roofline-table">
                    <caption>"Time on each resource at its peak (the bound in bold)"</caption>
                    <thead><tr><th scope="col">"Resource"</th><th scope="col" class="num">"Time"</th><th scope="col" class="num">"of the bound"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <div class="actions"><CsvButton name="roofline" csv=csv_text /></div>
            <ChartCanvas id="chart-roofline" chart=chart caption=caption />
        </section>
    }
}
