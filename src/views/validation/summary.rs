//! Headline cards (the held-back error of the prediction shown, and of the other one) and
//! the statistics per chip generation and side of the split.

use leptos::prelude::*;
use shardcalc_charts::scatter::chip_name;
use shardcalc_core::validation::fit::Split;
use shardcalc_core::validation::table::{generations, group_stats, GroupStats};
use shardcalc_core::validation::PredictionMode;

use shardcalc_core::decimal::{fixed, signed};

use super::derived::{rows, Derived};
use crate::html_text::{el, escape, table};

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
                <p class="value" id="card-held-back-mfu-value">{move || format!("{} points", fixed(shown.with(|g| g.stats.median_abs_mfu_pts), 1))}</p>
                <p class="detail">{move || {
                    let (mode, g) = other.get();
                    format!("p90 {} points; {}: {}", fixed(shown.with(|g| g.stats.p90_abs_mfu_pts), 1), mode.label(), fixed(g.stats.median_abs_mfu_pts, 1))
                }}</p>
            </div>
            <div class="card" id="card-held-back-step">
                <h3>"Held-back median |step-time error|"</h3>
                <p class="value" id="card-held-back-step-value">{move || format!("{}%", fixed(shown.with(|g| g.stats.median_abs_step_pct), 1))}</p>
                <p class="detail">{move || format!("p90 {}%; {} runs the fit never saw", fixed(shown.with(|g| g.stats.p90_abs_step_pct), 1), shown.with(|g| g.stats.count))}</p>
            </div>
            <div class="card" id="card-bias">
                <h3>"Mean MFU error, held back"</h3>
                <p class="value" id="card-bias-value">{move || format!("{} points", signed(shown.with(|g| g.stats.mean_mfu_pts), 1))}</p>
                <p class="detail">"Positive: the prediction is optimistic."</p>
            </div>
        </div>
    }
}

/// `#validation-summary` as HTML text: median and p90 absolute errors per chip generation,
/// held back, fitted and both, for the prediction `mode`.
#[must_use]
pub fn summary_html(mode: PredictionMode) -> String {
    let all = rows();
    let mut chips: Vec<Option<String>> = generations(all).into_iter().map(Some).collect();
    chips.push(None);
    let mut body = String::new();
    for chip in chips {
        for split in [Some(Split::HeldBack), Some(Split::Fit), None] {
            let g = group_stats(all, chip.as_deref(), split, mode);
            let name = chip.as_deref().map_or_else(|| "All chips".to_string(), chip_name);
            let s = &g.stats;
            let mut cells =
                el("th", " scope=\"row\"", &escape(&name)) + &el("td", "", &escape(split.map_or("both", Split::label)));
            let numbers = [
                s.count.to_string(),
                fixed(s.median_abs_mfu_pts, 1),
                fixed(s.p90_abs_mfu_pts, 1),
                fixed(s.median_abs_step_pct, 1),
                fixed(s.p90_abs_step_pct, 1),
                signed(s.mean_mfu_pts, 1),
            ];
            for n in numbers {
                cells += &el("td", " class=\"num\"", &n);
            }
            body += &el("tr", if split.is_none() { " class=\"total\"" } else { "" }, &cells);
        }
    }
    let caption = format!(
        "{} prediction against the measurements. MFU errors in percentage points (today's MaxText FLOP convention), step-time errors in % of the measured step; p90 is the nearest-rank 90th percentile.",
        mode.label()
    );
    table(
        "validation-summary",
        &caption,
        &[
            "Chip",
            "Runs",
            "#n",
            "#Median |MFU err|",
            "#p90 |MFU err|",
            "#Median |step err| %",
            "#p90 |step err| %",
            "#Mean MFU err",
        ],
        &body,
    )
}

/// Median and p90 absolute errors per chip generation, held back and fitted, for the
/// prediction shown (`#validation-summary`, rewritten as text when the prediction changes).
#[component]
pub fn SummaryTable(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    view! {
        <section class="result-section" aria-labelledby="validation-summary-heading">
            <h3 id="validation-summary-heading">"Error per chip generation"</h3>
            <div inner_html=move || summary_html(derived.mode.get())></div>
        </section>
    }
}
