//! The plans in detail: the best and the explored mesh side by side, memory per device by
//! component and communication per kind of parallelism (tables and CSV).

use leptos::prelude::*;
use shardcalc_charts::format::{grouped, significant};
use shardcalc_charts::training::{breakdown_rows, mesh_label};
use shardcalc_core::training::TrainingReport;

use super::csv;
use super::derived::Derived;
use super::headline::{bottleneck_label, placement_text, seconds};
use crate::components::CsvButton;

type Metric = (&'static str, fn(&TrainingReport) -> String);

const METRICS: [Metric; 12] = [
    ("mesh", |r| mesh_label(&r.mesh.degrees)),
    ("placement", placement_text),
    ("microbatches", |r| r.microbatches.to_string()),
    ("remat", |r| r.remat.clone()),
    ("step time", |r| seconds(r.step_time_s.get())),
    ("tokens per second", |r| grouped(r.tokens_per_s, 0)),
    ("MFU", |r| format!("{}%", significant(100.0 * r.mfu, 3))),
    ("HFU", |r| format!("{}%", significant(100.0 * r.hfu, 3))),
    ("GB per device", |r| format!("{} of {}", significant(r.memory.per_device_bytes.get() / 1e9, 4), significant(r.memory.capacity_bytes.get() / 1e9, 3))),
    ("fits", |r| if r.memory.fits { "yes".into() } else { "no".into() }),
    ("binds", |r| bottleneck_label(r.bound.resource).into()),
    ("days for the budget", |r| r.days.map(|d| significant(d, 4)).unwrap_or_default()),
];

/// Both plans, side by side.
#[component]
fn Compare(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let plans = Memo::new(move |_| (derived.best_ok(), derived.explored_ok()));
    let header = move || {
        plans.with(|(b, e)| breakdown_rows(b.as_ref(), e.as_ref()).into_iter().map(|(l, _)| view! { <th>{l}</th> }).collect_view())
    };
    let body = move || {
        plans.with(|(b, e)| {
            let rows = breakdown_rows(b.as_ref(), e.as_ref());
            METRICS
                .iter()
                .map(|(name, f)| {
                    let cells = rows.iter().map(|(_, r)| view! { <td>{f(r)}</td> }).collect_view();
                    view! { <tr><th scope="row">{*name}</th>{cells}</tr> }
                })
                .collect_view()
        })
    };
    let csv_text = Signal::derive(move || {
        plans.with(|(b, e)| {
            let rows = breakdown_rows(b.as_ref(), e.as_ref());
            let mut header = vec!["metric"];
            header.extend(rows.iter().map(|(l, _)| l.as_str()));
            let body: Vec<Vec<String>> = METRICS
                .iter()
                .map(|(name, f)| std::iter::once((*name).to_string()).chain(rows.iter().map(|(_, r)| f(r))).collect())
                .collect();
            csv::table(&header, &body)
        })
    });
    view! {
        <div class="table-wrap">
            <table id="training-compare">
                <thead><tr><th></th>{header}</tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
        <CsvButton name="training-compare" csv=csv_text />
    }
}

/// The comparison, memory and communication tables and the JSON download.
#[component]
pub fn Details(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let plans = Memo::new(move |_| (derived.best_ok(), derived.explored_ok()));
    let memory_csv = Signal::derive(move || plans.with(|(b, e)| csv::memory(&breakdown_rows(b.as_ref(), e.as_ref()))));
    let comm_csv = Signal::derive(move || plans.with(|(b, e)| csv::communication(&breakdown_rows(b.as_ref(), e.as_ref()))));
    let explored_error = move || {
        derived.explored.with(|e| match e {
            Some(Err(err)) => Some(view! { <p class="field-error" id="training-explored-error">{format!("Your mesh cannot be planned: {err}")}</p> }),
            _ => None,
        })
    };
    let comm_rows = move || {
        plans.with(|(b, e)| {
            breakdown_rows(b.as_ref(), e.as_ref())
                .into_iter()
                .flat_map(|(label, r)| {
                    r.communication
                        .iter()
                        .map(|c| {
                            view! {
                                <tr>
                                    <td>{label.clone()}</td>
                                    <td>{c.parallelism.label()}</td>
                                    <td>{c.axes.join(" × ")}</td>
                                    <td class="num">{significant(c.bytes_per_step.get() / 1e9, 4)}</td>
                                    <td class="num">{seconds(c.time_s.get())}</td>
                                    <td class="num">{seconds(c.exposed_s.get())}</td>
                                    <td>{if c.critical_path { "critical path" } else { "overlapped" }}</td>
                                </tr>
                            }
                        })
                        .collect::<Vec<_>>()
                })
                .collect_view()
        })
    };
    view! {
        <section class="result-section" aria-labelledby="training-details-heading">
            <h3 id="training-details-heading">"Best and explored mesh"</h3>
            {explored_error}
            <Compare derived=derived />
            <h4>"Communication per step"</h4>
            <div class="table-wrap">
                <table id="training-communication">
                    <thead>
                        <tr><th>"Plan"</th><th>"Kind"</th><th>"Physical axes"</th><th>"GB per step"</th><th>"Time"</th><th>"Exposed"</th><th>""</th></tr>
                    </thead>
                    <tbody>{comm_rows}</tbody>
                </table>
            </div>
            <div class="actions">
                <CsvButton name="training-communication" csv=comm_csv />
                <CsvButton name="training-memory" csv=memory_csv />
            </div>
        </section>
    }
}
