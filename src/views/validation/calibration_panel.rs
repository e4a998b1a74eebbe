//! The calibration's parameters as the bundled data states them, the split and the
//! objective of the fit, and the held-back residual range the bands use.

use leptos::prelude::*;
use shardcalc_core::validation::calibration;

/// `#validation-calibration`: one row per parameter with its value and meaning.
#[component]
pub fn CalibrationPanel() -> impl IntoView {
    let file = calibration::bundled_file();
    let rows = file
        .map(|f| {
            f.parameters
                .iter()
                .map(|p| {
                    view! {
                        <tr data-parameter=p.id.clone()>
                            <th scope="row">{p.label.clone()} <span class="short">{p.id.clone()}</span></th>
                            <td class="num">{format!("{:.3}", p.value)}</td>
                            <td>{p.meaning.clone()}</td>
                        </tr>
                    }
                })
                .collect_view()
        });
    let about = file.map(|f| {
        format!(
            "Split: {}. Objective: {}. On the held-back runs the calibrated step time is {:+.1}% to {:+.1}% off the measured one (10th to 90th percentile): the band around calibrated numbers on the training and serving pages.",
            f.split, f.objective, f.residuals.step_pct_p10, f.residuals.step_pct_p90
        )
    });
    view! {
        <section class="result-section" aria-labelledby="validation-calibration-heading">
            <h3 id="validation-calibration-heading">"The calibration"</h3>
            <p class="note">{about.unwrap_or_else(|| "The bundled calibration could not be read.".into())}</p>
            <div class="table-wrap">
                <table id="validation-calibration">
                    <caption>"Each parameter scales one rate of the roofline (core/data/calibration.json)."</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Parameter"</th>
                            <th scope="col" class="num">"Value"</th>
                            <th scope="col">"What it scales, and why"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </section>
    }
}
