//! The four charts: the step term by term (shown with its table, [`super::step`]), memory
//! against HBM, MFU against tokens per device, and the search's memory against step time
//! (data from `shardcalc_charts::training`), drawn on canvases by [`ChartCanvas`] like every
//! page's charts. The memos hold the chart kinds themselves (`BarChart`, `XyChart`), not
//! `Chart`, so the page links only their layouts (painted as scenes, without plotters).
//! "Download SVG" comes from the catalog (`training-step`, ...),
//! byte for byte the CLI's `shardcalc chart`.

use leptos::prelude::*;
use shardcalc_charts::bars::BarChart;
use shardcalc_charts::training::{breakdown_rows, mesh_label, mfu, mfu_curves, pareto};
use shardcalc_charts::xy::XyChart;
use shardcalc_charts::ChartError;
use web_sys::HtmlCanvasElement;

use super::derived::Derived;
use crate::components::{ChartCanvas, DrawableChart};

/// The page's two kinds of chart as one type, so [`ChartCanvas`] is compiled once for the
/// four charts (not once per kind; docs/size.md, "Training page, session 13").
#[derive(Clone, PartialEq)]
pub enum TrainingChart {
    /// Step time and memory.
    Bars(BarChart),
    /// MFU against the batch, and the Pareto front.
    Xy(XyChart),
}

impl DrawableChart for TrainingChart {
    fn size(&self) -> (u32, u32) {
        match self {
            Self::Bars(c) => c.size(),
            Self::Xy(c) => c.size(),
        }
    }
    fn title(&self) -> String {
        match self {
            Self::Bars(c) => c.title.clone(),
            Self::Xy(c) => c.title.clone(),
        }
    }
    fn draw_on(&self, canvas: &HtmlCanvasElement) -> Result<(), ChartError> {
        match self {
            Self::Bars(c) => c.draw_on(canvas),
            Self::Xy(c) => c.draw_on(canvas),
        }
    }
}

/// Which of the four charts.
#[derive(Clone, Copy)]
pub(super) enum Which {
    Step,
    Memory,
    Mfu,
    Pareto,
}

/// Chart `which` of the best (and explored) plan; `None` before a plan (and, for the
/// Pareto front, without a search). One function for the four, so the page has one memo
/// closure type (docs/size.md, "Training form, session 14").
fn chart_of(derived: &Derived, which: Which) -> Option<TrainingChart> {
    match which {
        Which::Step | Which::Memory => derived.with_plans(|b, e| {
            let f = if matches!(which, Which::Step) {
                shardcalc_charts::training::step::step_time_chart
            } else {
                shardcalc_charts::training::memory::memory_chart
            };
            b.map(|_| TrainingChart::Bars(f(&breakdown_rows(b, e))))
        }),
        Which::Pareto => derived.with_plans(|b, e| {
            let b = b?;
            let search = b.search.as_ref()?;
            let highlight = e.map(|e| pareto::Highlight {
                name: format!("yours: {}", mesh_label(&e.mesh.degrees)),
                memory_bytes: e.memory.per_device_bytes.get(),
                step_time_s: e.step_time_s.get(),
            });
            Some(TrainingChart::Xy(pareto::pareto_chart(search, b.memory.capacity_bytes.get(), highlight.as_ref())))
        }),
        Which::Mfu => {
            let inputs = derived.inputs.with(|i| i.as_ref().ok().cloned())?;
            derived.with_plans(|b, e| {
                let b = b?;
                let curves = mfu_curves(&inputs, Some(b), e);
                let current = b.global_batch_tokens / b.devices.max(1) as f64;
                Some(TrainingChart::Xy(mfu::mfu_batch_chart(&curves, &b.thresholds, current)))
            })
        }
    }
}

/// Chart `which`'s memo: the one place [`chart_of`] is called, so the page compiles it once.
pub(super) fn chart(derived: Derived, which: Which) -> Memo<Option<TrainingChart>> {
    Memo::new(move |_| chart_of(&derived, which))
}

/// The charts of the best (and explored) plan but the step's ([`super::step`] shows it).
#[component]
pub fn TrainingCharts(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let (memory, mfu_chart, pareto_chart) =
        (chart(derived, Which::Memory), chart(derived, Which::Mfu), chart(derived, Which::Pareto));
    view! {
        <section class="result-section" aria-labelledby="training-charts-heading">
            <h3 id="training-charts-heading">"Charts"</h3>
            <ChartCanvas
                id="chart-training-memory"
                chart=memory
                caption="HBM per device at the peak of a step, by component, against the chip's HBM.".to_string()
            />
            <ChartCanvas
                id="chart-training-mfu"
                chart=mfu_chart
                caption="Each curve keeps its mesh, remat policy and microbatch count and changes only the global batch (doubling from the smallest the mesh can split). Data and fully-sharded parallelism stop being communication-bound past the critical batch (book 5.1).".to_string()
            />
            <ChartCanvas
                id="chart-training-pareto"
                chart=pareto_chart
                caption="Every configuration on the front is the fastest for its memory; the blue points are the fastest that fit.".to_string()
            />
        </section>
    }
}
