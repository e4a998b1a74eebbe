//! The search under targets as a chart (`inference.search`, computed in
//! `shardcalc_core::inference::search`): cost against latency of the cheapest deployments
//! and the cost–latency Pareto front (no other deployment is both cheaper and faster),
//! co-located and disaggregated apart, the cheapest marked. Cost is US dollars per million
//! output tokens (per hour when the rate is too small to price tokens); latency the mean time
//! to a request's last token, `E[TTFT] + E[G]·TPOT`.

use super::plain;
use crate::format;
use crate::theme;
use crate::xy::{extent, Marker, XyAxis, XyChart, XySeries, XyStyle};
use shardcalc_core::inference::search::{Deployment, DeploymentMode, SearchReport};

/// What the cost axis shows: per million output tokens when every point has it, else per hour.
fn cost_of(search: &SearchReport) -> (fn(&Deployment) -> f64, &'static str) {
    let all = search.pareto.iter().chain(&search.ranked).all(|d| d.usd_per_million_output_tokens.is_some());
    if all {
        (|d| d.usd_per_million_output_tokens.unwrap_or(f64::NAN), "USD per million output tokens (log scale)")
    } else {
        (|d| d.usd_per_hour, "USD per hour (log scale)")
    }
}

fn usd(v: f64) -> String {
    plain(v)
}

fn seconds(v: f64) -> String {
    plain(v)
}

fn series(name: String, color: theme::Rgb, style: XyStyle, points: Vec<(f64, f64)>) -> XySeries {
    XySeries { name, color, points, width: 2, style }
}

/// Cost against latency: the Pareto front as a line, its co-located and disaggregated
/// points, the other ranked rows as dots, the cheapest marked.
#[must_use]
pub fn search_pareto_chart(model: &str, search: &SearchReport) -> XyChart {
    let (cost, label) = cost_of(search);
    let point = |d: &Deployment| (d.latency_s, cost(d));
    let on_front = |d: &Deployment| search.pareto.iter().any(|p| p == d);
    let of_mode = |m: DeploymentMode| search.pareto.iter().filter(|d| d.mode == m).map(point).collect::<Vec<_>>();
    let mut out = vec![
        series("Pareto front".into(), theme::INK, XyStyle::Line, search.pareto.iter().map(point).collect()),
        series("co-located".into(), theme::BLUE, XyStyle::Points, of_mode(DeploymentMode::Colocated)),
        series("disaggregated".into(), theme::ORANGE, XyStyle::Points, of_mode(DeploymentMode::Disaggregated)),
        series(
            format!("other of the cheapest {}", search.ranked.len()),
            theme::GREY,
            XyStyle::Points,
            search.ranked.iter().filter(|d| !on_front(d)).map(point).collect(),
        ),
    ];
    out.retain(|s| !s.points.is_empty());
    let markers: Vec<Marker> = search
        .best
        .iter()
        .map(|b| Marker {
            at: point(b),
            label: format!(
                "cheapest: {} {}, {} s",
                b.decode.chip,
                b.ratio.as_deref().unwrap_or(&b.decode.topology),
                format::significant(b.latency_s, 3)
            ),
            color: theme::GREEN,
        })
        .collect();
    let all = || out.iter().flat_map(|s| s.points.iter().copied()).chain(markers.iter().map(|m| m.at));
    let (x_lo, x_hi) = extent(all().map(|p| p.0), |v| v.is_finite() && v > 0.0).unwrap_or((1.0, 10.0));
    let (y_lo, y_hi) = extent(all().map(|p| p.1), |v| v.is_finite() && v > 0.0).unwrap_or((0.1, 10.0));
    let note = match (&search.impossible, search.pareto.is_empty()) {
        (Some(u), _) => Some(format!("Nothing meets the targets: {}", u.reason)),
        (None, true) => Some("No deployment to show.".into()),
        _ => None,
    };
    XyChart {
        title: format!(
            "Cost vs latency — {model} at {} requests/s: {} of {} configurations meet the targets",
            plain(search.request_rate),
            format::thousands(search.feasible),
            format::thousands(search.evaluated)
        ),
        x: XyAxis::log(
            "mean time to the last token, E[TTFT] + E[G]·TPOT (s, log scale)",
            x_lo,
            x_hi.max(x_lo * 1.5),
            2.0,
            seconds,
        ),
        y: XyAxis::log(label, y_lo, y_hi.max(y_lo * 1.5), 2.0, usd),
        series: out,
        rules: Vec::new(),
        markers,
        note,
    }
    .drawable()
}
