//! The calibration's parameters as the bundled data states them, the split and the
//! objective of the fit, and the held-back residual range the bands use.

use leptos::prelude::*;
use shardcalc_core::decimal::{fixed, signed};
use shardcalc_core::validation::calibration;

use crate::html_text::{attr, el, escape, table, with_short};

/// The note and `#validation-calibration` (one row per parameter with its value and
/// meaning) as HTML text.
fn calibration_html() -> String {
    let Some(f) = calibration::bundled_file() else {
        return el("p", " class=\"note\"", "The bundled calibration could not be read.");
    };
    let about = format!(
        "Split: {}. Objective: {}. On the held-back runs the calibrated step time is {}% to {}% off the measured one (10th to 90th percentile): the band around calibrated numbers on the training and serving pages.",
        f.split,
        f.objective,
        signed(f.residuals.step_pct_p10, 1),
        signed(f.residuals.step_pct_p90, 1)
    );
    let mut body = String::new();
    for p in &f.parameters {
        let cells = el("th", " scope=\"row\"", &with_short(&p.label, &p.id))
            + &el("td", " class=\"num\"", &fixed(p.value, 3))
            + &el("td", "", &escape(&p.meaning));
        body += &el("tr", &attr("data-parameter", &p.id), &cells);
    }
    el("p", " class=\"note\"", &escape(&about))
        + &table(
            "validation-calibration",
            "Each parameter scales one rate of the roofline (core/data/calibration.json).",
            &["Parameter", "#Value", "What it scales, and why"],
            &body,
        )
}

/// `#validation-calibration`: one row per parameter with its value and meaning.
#[component]
pub fn CalibrationPanel() -> impl IntoView {
    view! {
        <section class="result-section" aria-labelledby="validation-calibration-heading">
            <h3 id="validation-calibration-heading">"The calibration"</h3>
            <div inner_html=calibration_html()></div>
        </section>
    }
}
