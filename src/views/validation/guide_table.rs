//! The MaxText guide's design points (predicted, with what was assumed) and the
//! published numbers nothing here predicts (with why), as HTML text.

use leptos::prelude::*;
use shardcalc_charts::scatter::chip_name;
use shardcalc_core::decimal::{fixed, shortest, signed};
use shardcalc_core::validation::bundled_table;
use shardcalc_core::validation::PredictionMode;

use super::derived::{guides, Derived};
use super::mesh_text;
use super::runs_table::training_link;
use crate::html_text::{attr, el, escape, table, with_short};

/// `#validation-guide`: every design point in `mode`.
fn guide_html(mode: PredictionMode) -> String {
    let mut body = String::new();
    for g in guides() {
        let (pred, err) = match g.prediction(mode) {
            Ok(c) => (fixed(c.mfu_pct, 1), signed(c.error.mfu_pts, 1)),
            Err(e) => (format!("refused: {e}"), String::new()),
        };
        let link = el(
            "a",
            &(" class=\"open-training\"".to_string() + &attr("href", &training_link(&g.scenario, mode))),
            "Open in Training",
        );
        let cells = el("th", " scope=\"row\"", &with_short(&g.id, &g.statement))
            + &el("td", "", &with_short(&chip_name(&g.chip), &format!("{} chips", g.chips)))
            + &el("td", "", &escape(&format!("{} ({}B)", g.model, fixed(g.params / 1e9, 0))))
            + &el("td", "", &escape(&mesh_text(&g.mesh)))
            + &el("td", " class=\"num\"", &fixed(g.published_mfu_pct, 1))
            + &el("td", " class=\"num\"", &escape(&pred))
            + &el("td", " class=\"num\"", &err)
            + &el("td", " class=\"assumed\"", &escape(&g.assumptions.join("; ")))
            + &el("td", "", &link);
        body += &el("tr", &attr("data-guide", &g.id), &cells);
    }
    let headers =
        ["Point", "Chip", "Model", "Mesh", "#Guide's MFU %", "#Predicted MFU %", "#Error (pts)", "Assumed", "Scenario"];
    table("validation-guide", "", &headers, &body)
}

/// `#validation-unpredicted`: the published numbers no model here predicts.
fn unpredicted_html() -> String {
    let mut body = String::new();
    for p in &bundled_table::bundled().unpredicted {
        let cells = el("th", " scope=\"row\"", &escape(&p.id))
            + &el("td", "", &escape(&format!("{} × {}", p.chips, chip_name(&p.chip))))
            + &el("td", "", &escape(&p.what))
            + &el("td", " class=\"num\"", &escape(&format!("{} {}", shortest(p.value), p.unit)))
            + &el("td", "", &escape(&p.why_not));
        body += &el("tr", &attr("data-point", &p.id), &cells);
    }
    table("validation-unpredicted", "", &["Point", "Chips", "What", "#Value", "Why not predicted"], &body)
}

/// `#validation-guide` and `#validation-unpredicted`.
#[component]
pub fn GuideTables(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    view! {
        <section class="result-section" aria-labelledby="validation-guide-heading">
            <h3 id="validation-guide-heading">"Design points of the MaxText custom-config guide"</h3>
            <p class="note">
                "Not published runs: the guide states an MFU for a model and a mesh and leaves the rest out. What is assumed is listed per point; these never enter the fit or the statistics above."
            </p>
            <div inner_html=move || guide_html(derived.mode.get())></div>
            <h4>"Published numbers nothing here predicts"</h4>
            <div inner_html=unpredicted_html()></div>
        </section>
    }
}
