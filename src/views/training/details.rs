//! The plans in detail: the best and the explored mesh side by side, memory per device by
//! component and communication per kind of parallelism (tables and CSV).

use leptos::prelude::*;
use shardcalc_charts::format::{grouped, significant};
use shardcalc_charts::training::{breakdown_rows, mesh_label};
use shardcalc_core::training::TrainingReport;

use super::csv;
use super::derived::{text_of, Derived};
use super::headline::{bottleneck_label, placement_text, seconds};
use super::html;
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
    ("GB per device", |r| {
        format!(
            "{} of {}",
            significant(r.memory.per_device_bytes.get() / 1e9, 4),
            significant(r.memory.capacity_bytes.get() / 1e9, 3)
        )
    }),
    ("fits", |r| if r.memory.fits { "yes".into() } else { "no".into() }),
    ("binds", |r| bottleneck_label(r.bound.resource).into()),
    ("days for the budget", |r| r.days.map(|d| significant(d, 4)).unwrap_or_default()),
];

/// The section's heading and both plans side by side (`#training-compare`), as HTML text, after why the explored mesh
/// cannot be planned (`#training-explored-error`) when it cannot.
fn compare_html(derived: &Derived) -> String {
    let mut out = String::from("<h3 id=\"training-details-heading\">Best and explored mesh</h3>");
    derived.explored.with(|e| {
        if let Some(Err(err)) = e {
            out += &format!("<div class=\"field-error\"><p id=\"training-explored-error\">Your mesh cannot be planned: {}</p></div>", html::escape(&err.to_string()));
        }
    });
    derived.with_plans(|b, e| {
        let rows = breakdown_rows(b, e);
        let mut headers = vec![""];
        headers.extend(rows.iter().map(|(l, _)| l.as_str()));
        html::open_table(&mut out, "training-compare", &headers);
        for (name, f) in &METRICS {
            out.push_str("<tr>");
            html::element(&mut out, "th", "", "", name);
            for (_, r) in &rows {
                html::cell(&mut out, &f(r), false);
            }
            out.push_str("</tr>");
        }
        html::close_table(&mut out);
        out
    })
}

/// The comparison as CSV.
fn compare_csv(derived: &Derived) -> String {
    derived.with_plans(|b, e| {
        let rows = breakdown_rows(b, e);
        let mut header = vec!["metric"];
        header.extend(rows.iter().map(|(l, _)| l.as_str()));
        let body: Vec<Vec<String>> = METRICS
            .iter()
            .map(|(name, f)| std::iter::once((*name).to_string()).chain(rows.iter().map(|(_, r)| f(r))).collect())
            .collect();
        csv::table(&header, &body)
    })
}

/// Communication per step of both plans (`#training-communication`) under its heading, as
/// HTML text.
fn communication_html(derived: &Derived) -> String {
    derived.with_plans(|b, e| {
        let mut out = String::from("<h4>Communication per step</h4>");
        html::open_table(
            &mut out,
            "training-communication",
            &["Plan", "Kind", "Physical axes", "GB per step", "Time", "Exposed", ""],
        );
        for (label, r) in breakdown_rows(b, e) {
            for c in &r.communication {
                out.push_str("<tr>");
                html::cell(&mut out, &label, false);
                html::cell(&mut out, c.parallelism.label(), false);
                html::cell(&mut out, &c.axes.join(" × "), false);
                html::cell(&mut out, &significant(c.bytes_per_step.get() / 1e9, 4), true);
                html::cell(&mut out, &seconds(c.time_s.get()), true);
                html::cell(&mut out, &seconds(c.exposed_s.get()), true);
                html::cell(&mut out, if c.critical_path { "critical path" } else { "overlapped" }, false);
                out.push_str("</tr>");
            }
        }
        html::close_table(&mut out);
        out
    })
}

/// The comparison, memory and communication tables and the JSON download.
#[component]
pub fn Details(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let text = |f: fn(&Derived) -> String| text_of(derived, f);
    let memory_csv = Signal::derive(text(|d| d.with_plans(|b, e| csv::memory(&breakdown_rows(b, e)))));
    let comm_csv = Signal::derive(text(|d| d.with_plans(|b, e| csv::communication(&breakdown_rows(b, e)))));
    view! {
        <section class="result-section" aria-labelledby="training-details-heading">
            <div inner_html=text(compare_html)></div>
            <CsvButton name="training-compare" csv=Signal::derive(text(compare_csv)) />
            <div inner_html=text(communication_html)></div>
            <div class="actions">
                <CsvButton name="training-communication" csv=comm_csv />
                <CsvButton name="training-memory" csv=memory_csv />
            </div>
        </section>
    }
}
