//! The predicted-vs-measured scatter and the residuals by chip, in the prediction shown.

use leptos::prelude::*;
use shardcalc_charts::residuals::validation_residuals;
use shardcalc_charts::scatter::validation_scatter;

use super::derived::{table, Derived};
use crate::components::ChartCanvas;

/// Both charts (canvases `#chart-validation-scatter` and `#chart-validation-residuals`;
/// the charts catalog builds the same ones from a scenario).
#[component]
pub fn ValidationCharts(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let scatter = Memo::new(move |_| Some(validation_scatter(table(), derived.mode.get())));
    let residuals = Memo::new(move |_| Some(validation_residuals(table(), derived.mode.get())));
    let scatter_caption = Signal::derive(move || {
        format!(
            "Each published run: measured MFU across, predicted ({}) up. On the solid line the prediction is exact; the dashed lines are ±5 points. Filled: the roofline, or the calibration fitted on every run (in sample); open: the calibration fitted without the run's chip generation (held back).",
            derived.mode.get().label().to_lowercase()
        )
    });
    let residual_caption = Signal::derive(move || {
        "Predicted − measured MFU per run, one column per chip generation, in the table's order; above zero the prediction is optimistic. Filled in sample, open held back.".to_string()
    });
    view! {
        <section class="result-section" aria-labelledby="validation-charts-heading">
            <h3 id="validation-charts-heading">"Predicted vs measured"</h3>
            <ChartCanvas id="chart-validation-scatter" chart=scatter caption=scatter_caption />
            <ChartCanvas id="chart-validation-residuals" chart=residuals caption=residual_caption />
        </section>
    }
}
