//! Where the step goes (issue 16): the sentence that lists the step's terms from the
//! largest, each citing its formula's source (`#training-step-explanation`, core's
//! `step_explanation`), the chart of every term beside the step time and its roofline
//! (`#chart-training-step`), and the table of exact seconds with what each term counts and
//! its source (`#training-step-terms`, CSV and Markdown).

use leptos::prelude::*;
use shardcalc_core::training::explain::step_explanation;

use super::charts::{chart, Which};
use super::derived::{plans_table, Derived};
use super::tables;
use crate::components::{ChartCanvas, DataTable, TableExports};

/// The explanation, the term chart and the term table of the shown (and explored) plan.
#[component]
pub fn StepTerms(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let explanation = move || derived.with_shown(|r| r.map(step_explanation).unwrap_or_default());
    let chart = chart(derived, Which::Step);
    let table = plans_table(derived, tables::step_terms);
    view! {
        <section class="result-section" aria-labelledby="training-step-heading">
            <h3 id="training-step-heading">"Where the step goes"</h3>
            <p class="binding" id="training-step-explanation">{explanation}</p>
            <ChartCanvas
                id="chart-training-step"
                chart=chart
                caption="Every term of the step, in seconds: the device's kernels (matmuls, attention, HBM-bound work), the optimizer update, waiting for the slowest slice, the communication not hidden behind compute per kind of parallelism, the pipeline bubble and exposed host offload. They add up to the step time; the ideal roofline below it is the bound no run beats.".to_string()
            />
            <div class="table-wrap">
                <DataTable id="training-step-terms" table=table />
            </div>
            <TableExports name="training-step-terms" table=table />
        </section>
    }
}
