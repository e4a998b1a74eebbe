//! The headline cards: the held-back errors of the prediction shown (the calibration's on
//! runs it never saw; the roofline's on every run), and the other prediction's median.

use leptos::prelude::*;
use shardcalc_core::decimal::{fixed, signed};

use super::derived::Derived;

/// `#card-held-back-mfu`, `#card-held-back-step`, `#card-bias` (values `#<card>-value`).
#[component]
pub fn ValidationCards(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let eval = derived.eval;
    let stat = move |f: fn(&shardcalc_core::validation::stats::ErrorStats) -> f64| eval.with(|e| f(&e.held_back.stats));
    view! {
        <div class="cards" id="validation-headline">
            <div class="card" id="card-held-back-mfu">
                <h3>"Held-back median |MFU error|"</h3>
                <p class="value" id="card-held-back-mfu-value">{move || format!("{} points", fixed(stat(|s| s.median_abs_mfu_pts), 1))}</p>
                <p class="detail">{move || eval.with(|e| format!(
                    "p90 {} points; {}: {}",
                    fixed(e.held_back.stats.p90_abs_mfu_pts, 1),
                    e.held_back_other.mode.label(),
                    fixed(e.held_back_other.stats.median_abs_mfu_pts, 1)
                ))}</p>
            </div>
            <div class="card" id="card-held-back-step">
                <h3>"Held-back median |step-time error|"</h3>
                <p class="value" id="card-held-back-step-value">{move || format!("{}%", fixed(stat(|s| s.median_abs_step_pct), 1))}</p>
                <p class="detail">{move || eval.with(|e| format!(
                    "p90 {}%; {} runs, {}",
                    fixed(e.held_back.stats.p90_abs_step_pct, 1),
                    e.held_back.stats.count,
                    e.held_back.basis
                ))}</p>
            </div>
            <div class="card" id="card-bias">
                <h3>"Mean MFU error, held back"</h3>
                <p class="value" id="card-bias-value">{move || format!("{} points", signed(stat(|s| s.mean_mfu_pts), 1))}</p>
                <p class="detail">"Positive: the prediction is optimistic."</p>
            </div>
        </div>
    }
}
