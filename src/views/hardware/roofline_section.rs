//! The roofline of the op (book 1.1): which resource binds, the time on each, the
//! intensity against the chip's critical intensity, the batch at which a matmul turns
//! compute-bound, MXU padding waste, and the chart.

use leptos::prelude::*;
use shardcalc_charts::roofline_chart;
use shardcalc_core::roofline::query::RooflineQuery;

use super::derived::Derived;
use super::tables;
use super::units::intensity;
use crate::components::{CellIds, DataTable, Figure, RowIds, SceneChart};

/// `#roofline-op` (value cells `#roofline-<quantity>`: `#roofline-bound`,
/// `#roofline-intensity`, `#roofline-critical_batch_approx`, ...), `#roofline-table` (rows
/// `#roofline-time-<resource>`, the bound marked), their exports, `#roofline-error` when the
/// op does not evaluate, and the chart `#chart-roofline`.
#[component]
pub fn RooflineSection(
    /// The page's memos.
    derived: Derived,
) -> impl IntoView {
    let roofline = derived.roofline;
    let op = Memo::new(move |_| {
        roofline.with(|r| r.as_ref().and_then(|r| r.as_ref().ok()).map(tables::roofline_op).unwrap_or_default())
    });
    let times = Memo::new(move |_| {
        roofline.with(|r| r.as_ref().and_then(|r| r.as_ref().ok()).map(tables::roofline_times).unwrap_or_default())
    });
    let error =
        move || super::problem("roofline-error", roofline.with(|r| r.as_ref().and_then(|r| r.as_ref().err().cloned())));
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
    view! {
        <section class="result-section" aria-labelledby="roofline-heading">
            <h3 id="roofline-heading">"Roofline"</h3>
            {error}
            <DataTable
                id="roofline-op"
                table=op
                caption="The op on one chip"
                row_headers=true
                cell_ids=CellIds { key: 0, value: 2, prefix: "roofline-", strip: "" }
                exports="roofline-op"
            />
            <DataTable
                id="roofline-table"
                table=times
                caption="Time on each resource at its peak (the bound marked)"
                row_headers=true
                row_ids=RowIds { key: Some(0), prefix: "roofline-time-" }
                exports="roofline"
            />
            <SceneChart id="chart-roofline" figure=figure />
        </section>
    }
}
