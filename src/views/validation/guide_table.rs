//! The MaxText guide's design points (predicted, with what was assumed) and the
//! published numbers nothing here predicts (with why).

use leptos::prelude::*;
use shardcalc_charts::scatter::chip_name;
use shardcalc_core::validation::bundled_table;

use super::derived::{guides, Derived};
use super::mesh_text;
use super::runs_table::training_link;

/// `#validation-guide` and `#validation-unpredicted`.
#[component]
pub fn GuideTables(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let guide_rows = move || {
        let mode = derived.mode.get();
        {
            guides()
                .iter()
                .map(|g| {
                    let (pred, err) = match g.prediction(mode) {
                        Ok(c) => (format!("{:.1}", c.mfu_pct), format!("{:+.1}", c.error.mfu_pts)),
                        Err(e) => (format!("refused: {e}"), String::new()),
                    };
                    view! {
                        <tr data-guide=g.id.clone()>
                            <th scope="row">{g.id.clone()} <span class="short">{g.statement.clone()}</span></th>
                            <td>{chip_name(&g.chip)} <span class="short">{format!("{} chips", g.chips)}</span></td>
                            <td>{format!("{} ({:.0}B)", g.model, g.params / 1e9)}</td>
                            <td>{mesh_text(&g.mesh)}</td>
                            <td class="num">{format!("{:.1}", g.published_mfu_pct)}</td>
                            <td class="num">{pred}</td>
                            <td class="num">{err}</td>
                            <td class="assumed">{g.assumptions.join("; ")}</td>
                            <td><a class="open-training" href=training_link(&g.scenario, mode)>"Open in Training"</a></td>
                        </tr>
                    }
                })
                .collect_view()
        }
    };
    let unpredicted = bundled_table::bundled()
        .unpredicted
        .iter()
        .map(|p| {
            view! {
                <tr data-point=p.id.clone()>
                    <th scope="row">{p.id.clone()}</th>
                    <td>{format!("{} × {}", p.chips, chip_name(&p.chip))}</td>
                    <td>{p.what.clone()}</td>
                    <td class="num">{format!("{} {}", p.value, p.unit)}</td>
                    <td>{p.why_not.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="result-section" aria-labelledby="validation-guide-heading">
            <h3 id="validation-guide-heading">"Design points of the MaxText custom-config guide"</h3>
            <p class="note">
                "Not published runs: the guide states an MFU for a model and a mesh and leaves the rest out. What is assumed is listed per point; these never enter the fit or the statistics above."
            </p>
            <div class="table-wrap">
                <table id="validation-guide">
                    <thead>
                        <tr>
                            <th scope="col">"Point"</th>
                            <th scope="col">"Chip"</th>
                            <th scope="col">"Model"</th>
                            <th scope="col">"Mesh"</th>
                            <th scope="col" class="num">"Guide's MFU %"</th>
                            <th scope="col" class="num">"Predicted MFU %"</th>
                            <th scope="col" class="num">"Error (pts)"</th>
                            <th scope="col">"Assumed"</th>
                            <th scope="col">"Scenario"</th>
                        </tr>
                    </thead>
                    <tbody>{guide_rows}</tbody>
                </table>
            </div>
            <h4>"Published numbers nothing here predicts"</h4>
            <div class="table-wrap">
                <table id="validation-unpredicted">
                    <thead>
                        <tr>
                            <th scope="col">"Point"</th>
                            <th scope="col">"Chips"</th>
                            <th scope="col">"What"</th>
                            <th scope="col" class="num">"Value"</th>
                            <th scope="col">"Why not predicted"</th>
                        </tr>
                    </thead>
                    <tbody>{unpredicted}</tbody>
                </table>
            </div>
        </section>
    }
}
