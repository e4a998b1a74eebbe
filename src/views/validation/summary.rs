//! Headline cards (the held-back error of the prediction shown, and of the other one) and
//! the statistics per chip generation and side of the split.

use leptos::prelude::*;
use shardcalc_charts::scatter::chip_name;
use shardcalc_core::validation::fit::Split;
use shardcalc_core::validation::table::{generations, group_stats, GroupStats};
use shardcalc_core::validation::PredictionMode;

use super::derived::{rows, Derived};

fn held_back(mode: PredictionMode) -> GroupStats {
    group_stats(rows(), None, Some(Split::HeldBack), mode)
}

/// The headline numbers: held-back median and p90 absolute MFU error, and step-time error,
/// of the prediction shown; the other prediction's median for comparison.
#[component]
pub fn ValidationCards(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let shown = Memo::new(move |_| held_back(derived.mode.get()));
    let other = Memo::new(move |_| {
        let other = match derived.mode.get() {
            PredictionMode::Ideal => PredictionMode::Calibrated,
            PredictionMode::Calibrated => PredictionMode::Ideal,
        };
        (other, held_back(other))
    });
    view! {
        <div class="cards" id="validation-headline">
            <div class="card" id="card-held-back-mfu">
                <h3>"Held-back median |MFU error|"</h3>
                <p class="value" id="card-held-back-mfu-value">{move || format!("{:.1} points", shown.with(|g| g.stats.median_abs_mfu_pts))}</p>
                <p class="detail">{move || {
                    let (mode, g) = other.get();
                    format!("p90 {:.1} points; {}: {:.1}", shown.with(|g| g.stats.p90_abs_mfu_pts), mode.label(), g.stats.median_abs_mfu_pts)
                }}</p>
            </div>
            <div class="card" id="card-held-back-step">
                <h3>"Held-back median |step-time error|"</h3>
                <p class="value" id="card-held-back-step-value">{move || format!("{:.1}%", shown.with(|g| g.stats.median_abs_step_pct))}</p>
                <p class="detail">{move || format!("p90 {:.1}%; {} runs the fit never saw", shown.with(|g| g.stats.p90_abs_step_pct), shown.with(|g| g.stats.count))}</p>
            </div>
            <div class="card" id="card-bias">
                <h3>"Mean MFU error, held back"</h3>
                <p class="value" id="card-bias-value">{move || format!("{:+.1} points", shown.with(|g| g.stats.mean_mfu_pts))}</p>
                <p class="detail">"Positive: the prediction is optimistic."</p>
            </div>
        </div>
    }
}

/// Median and p90 absolute errors per chip generation, held back and fitted, for the
/// prediction shown.
#[component]
pub fn SummaryTable(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let body = move || {
        let mode = derived.mode.get();
        {
            let rows = rows();
            let mut chips: Vec<Option<String>> = generations(rows).into_iter().map(Some).collect();
            chips.push(None);
            chips
                .into_iter()
                .flat_map(|chip| [(chip.clone(), Some(Split::HeldBack)), (chip.clone(), Some(Split::Fit)), (chip, None)])
                .map(|(chip, split)| {
                    let g = group_stats(rows, chip.as_deref(), split, mode);
                    let name = chip.as_deref().map_or_else(|| "All chips".to_string(), chip_name);
                    let side = split.map_or("both", Split::label);
                    let total = split.is_none();
                    view! {
                        <tr class:total=total>
                            <th scope="row">{name}</th>
                            <td>{side}</td>
                            <td class="num">{g.stats.count}</td>
                            <td class="num">{format!("{:.1}", g.stats.median_abs_mfu_pts)}</td>
                            <td class="num">{format!("{:.1}", g.stats.p90_abs_mfu_pts)}</td>
                            <td class="num">{format!("{:.1}", g.stats.median_abs_step_pct)}</td>
                            <td class="num">{format!("{:.1}", g.stats.p90_abs_step_pct)}</td>
                            <td class="num">{format!("{:+.1}", g.stats.mean_mfu_pts)}</td>
                        </tr>
                    }
                })
                .collect_view()
        }
    };
    view! {
        <section class="result-section" aria-labelledby="validation-summary-heading">
            <h3 id="validation-summary-heading">"Error per chip generation"</h3>
            <div class="table-wrap">
                <table id="validation-summary">
                    <caption>{move || format!(
                        "{} prediction against the measurements. MFU errors in percentage points (today's MaxText FLOP convention), step-time errors in % of the measured step; p90 is the nearest-rank 90th percentile.",
                        derived.mode.get().label()
                    )}</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Chip"</th>
                            <th scope="col">"Runs"</th>
                            <th scope="col" class="num">"n"</th>
                            <th scope="col" class="num">"Median |MFU err|"</th>
                            <th scope="col" class="num">"p90 |MFU err|"</th>
                            <th scope="col" class="num">"Median |step err| %"</th>
                            <th scope="col" class="num">"p90 |step err| %"</th>
                            <th scope="col" class="num">"Mean MFU err"</th>
                        </tr>
                    </thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        </section>
    }
}
