//! The validation view (issue 8): how far the training planner is from published runs.
//! The prediction switch (`conventions.prediction`), headline errors, the error per chip
//! generation, the predicted-vs-measured scatter and the residuals by chip, every run
//! (filterable, CSV, each opening its scenario on the training page), the calibration's
//! parameters, and the guide's design points. Everything comes from
//! `shardcalc_core::validation`: the rows from its bundled table (computed natively by
//! the same code, kept current by its tests), so the page carries no training planner.
//!
//! Element ids: `#prediction-mode` (`#prediction-ideal`, `#prediction-calibrated`),
//! `#validation-headline` (cards `#card-held-back-mfu`, `#card-held-back-step`,
//! `#card-bias`, values `#<card>-value`), `#validation-summary`,
//! `#chart-validation-scatter`, `#chart-validation-residuals`, `#validation-filter-chip`,
//! `#validation-filter-model`, `#validation-filter-split`, `#validation-count`,
//! `#validation-runs` (rows `tr[data-run]`, every run, those the filters leave out `hidden`;
//! links `a.open-training`),
//! `#validation-runs-csv`, `#validation-calibration` (rows `tr[data-parameter]`),
//! `#validation-guide`, `#validation-unpredicted`.

mod calibration_panel;
mod charts;
pub mod csv;
mod derived;
mod guide_table;
pub mod runs_table;
mod summary;

pub use derived::Derived;

use leptos::prelude::*;
use shardcalc_core::training::mesh::{Mesh, Parallelism};

use crate::components::PredictionSwitch;
use crate::state::use_app_state;

/// `dp=2 fsdp=16 tp=4`: the axes of degree > 1.
#[must_use]
pub fn mesh_text(m: &Mesh) -> String {
    let parts: Vec<String> =
        Parallelism::ALL.iter().filter(|p| m.degree(**p) > 1).map(|p| format!("{}={}", p.id(), m.degree(*p))).collect();
    if parts.is_empty() {
        "1 device".into()
    } else {
        parts.join(" ")
    }
}

/// What binds the predicted step: `compute`, `communication (fsdp)`, `memory`, ...
#[must_use]
pub fn bound_text(c: &shardcalc_core::validation::table::PredictionCell) -> String {
    use shardcalc_core::training::step::Bottleneck;
    let what = match c.bound {
        Bottleneck::Compute => "compute",
        Bottleneck::Communication => "communication",
        Bottleneck::PipelineBubble => "pipeline bubble",
        Bottleneck::HostOffload => "host offload",
        Bottleneck::Memory => "memory",
    };
    match c.bound_axis {
        Some(a) => format!("{what} ({})", a.id()),
        None => what.to_string(),
    }
}

/// The validation page's panel.
#[component]
pub fn ValidationView() -> impl IntoView {
    let state = use_app_state();
    let derived = Derived::new(state);
    view! {
        <div class="validation">
            <h2>"Predicted vs measured"</h2>
            <p class="intro">
                "Published MaxText training runs (TPU v4, v5e, v5p, 2023; H100, 2024), each planned on its own mesh and remat policy, against the step time and MFU their published TFLOP/s imply. The roofline runs every matmul at peak and every overlapped collective for free; the calibration scales those rates by five fractions fitted on every other run and tested on the rest. Each run opens as a scenario on the training page."
            </p>
            <PredictionSwitch />
            <summary::ValidationCards derived=derived />
            <summary::SummaryTable derived=derived />
            <charts::ValidationCharts derived=derived />
            <runs_table::RunsTable derived=derived />
            <calibration_panel::CalibrationPanel />
            <guide_table::GuideTables derived=derived />
        </div>
    }
}
