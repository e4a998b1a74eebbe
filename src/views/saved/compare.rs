//! Saved scenarios side by side: the inputs that tell them apart and the key numbers every
//! page can compute (the model sections of the report), one column per scenario.

use leptos::prelude::*;
use shardcalc_charts::format::{si, significant, thousands};
use shardcalc_charts::table::Table;
use shardcalc_core::hardware::query::ChipSource;
use shardcalc_core::report::evaluate_model;
use shardcalc_core::scenario::{ModelSource, Scenario};

use crate::components::DataTable;

/// The serde name of a value (`save_matmuls`, `six_nd`).
fn serde_id<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// One row per quantity, one column per scenario (after the quantity's name).
#[must_use]
pub fn compare_table(scenarios: &[(String, Scenario)]) -> Table {
    let mut columns = vec!["quantity".to_string()];
    columns.extend(scenarios.iter().map(|(name, _)| name.clone()));
    let mut table = Table::new(columns);
    let reports: Vec<_> = scenarios.iter().map(|(_, s)| evaluate_model(s)).collect();
    let mut row = |label: &str, cell: &dyn Fn(&Scenario, usize) -> String| {
        let mut cells = vec![label.to_string()];
        cells.extend(scenarios.iter().enumerate().map(|(i, (_, s))| cell(s, i)));
        table.push(cells);
    };
    let computed = |i: usize, f: &dyn Fn(&shardcalc_core::report::Report) -> String| match reports.get(i) {
        Some(Ok(r)) => f(r),
        _ => "—".to_string(),
    };
    row("Model", &|s, _| s.model.resolve().map_or_else(|e| e.to_string(), |m| m.name));
    row("Model source", &|s, _| match &s.model {
        ModelSource::Preset(id) => format!("preset {id}"),
        ModelSource::Custom(_) => "custom".into(),
    });
    row("Total parameters", &|_, i| {
        computed(i, &|r| r.params.total.exact().map_or_else(|| si(r.params.total.get()), thousands))
    });
    row("Active parameters", &|_, i| {
        computed(i, &|r| r.params.active.exact().map_or_else(|| si(r.params.active.get()), thousands))
    });
    row("Weights in bf16 (GB)", &|_, i| computed(i, &|r| significant(r.params.total.get() * 2.0 / 1e9, 4)));
    row("Sequence length (tokens)", &|s, _| thousands(s.workload.seq_len));
    row("Batch per device (sequences)", &|s, _| shardcalc_core::decimal::shortest(s.workload.per_device_batch));
    row("Gradient accumulation", &|s, _| thousands(s.workload.grad_accum));
    row("Remat", &|s, _| serde_id(&s.workload.remat));
    row("FLOP convention", &|s, _| s.conventions.flops.label().to_string());
    row("TFLOPs per device-step", &|s, i| {
        computed(i, &|r| significant(r.flops.get(s.conventions.flops).total_tflops_per_device_step, 4))
    });
    row("Training FLOPs per token", &|s, i| {
        computed(i, &|r| format!("{}FLOP", si(r.flops.get(s.conventions.flops).training_flops_per_token)))
    });
    row("Chip", &|s, _| match s.hardware.as_ref().map(|h| &h.chip) {
        None => "—".to_string(),
        Some(ChipSource::Preset(id)) => id.clone(),
        Some(ChipSource::Custom(c)) => format!("custom: {}", c.name),
    });
    row("Devices", &|s, _| {
        s.hardware.as_ref().and_then(|h| h.topology.as_ref()).map_or_else(
            || "—".to_string(),
            |t| {
                let sizes: Vec<String> = t.axes.iter().map(|a| a.size.to_string()).collect();
                let product = t.axes.iter().try_fold(1u64, |acc, a| acc.checked_mul(a.size));
                format!("{} ({})", product.map_or_else(|| "too many".to_string(), thousands), sizes.join("×"))
            },
        )
    });
    row("Training", &|s, _| {
        s.training.as_ref().map_or_else(
            || "—".to_string(),
            |t| {
                format!(
                    "{} tokens per sequence, global batch {}",
                    thousands(t.seq_len),
                    serde_json::to_string(&t.global_batch).unwrap_or_default()
                )
            },
        )
    });
    row("Serving", &|s, _| {
        s.inference.as_ref().map_or_else(
            || "—".to_string(),
            |i| format!("prompt {} + output {} tokens", thousands(i.prompt_len), thousands(i.output_len)),
        )
    });
    row("Problems", &|s, _| s.validate().map_or_else(|e| e.to_string(), |_| "none".to_string()));
    // The rows whose values differ, marked for the page.
    let differs: Vec<bool> = table
        .rows
        .iter()
        .map(|row| {
            let values = row.get(1..).unwrap_or_default();
            values.iter().any(|v| Some(v) != values.first())
        })
        .collect();
    table.classes = differs.into_iter().map(|d| if d { "differs".to_string() } else { String::new() }).collect();
    table
}

/// The comparison of `scenarios` (name, scenario): `#compare-table`, the rows whose values
/// differ marked, and its CSV and Markdown downloads (`compare`).
#[component]
pub fn Comparison(
    /// The scenarios to compare, in column order.
    scenarios: Signal<Vec<(String, Scenario)>>,
) -> impl IntoView {
    let table = Memo::new(move |_| scenarios.with(|s| compare_table(s)));
    view! {
        <section class="result-section" aria-labelledby="compare-heading">
            <h3 id="compare-heading">"Side by side"</h3>
            <DataTable id="compare-table" table=table caption="Rows whose values differ are marked." row_headers=true exports="compare" />
        </section>
    }
}
