//! The search's trade-off: HBM per device against step time for the fastest
//! configurations and the Pareto front (no other configuration that fits is both
//! faster and smaller), with the HBM capacity marked.

use shardcalc_core::training::report::{SearchReport, SearchRow};

use super::{time_unit, training_series};
use crate::format::{significant, thousands};
use crate::theme;
use crate::xy::{Rule, XyAxis, XyChart, XyStyle};

/// A configuration to highlight (the explored mesh): legend text, bytes, seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Highlight {
    /// Legend text.
    pub name: String,
    /// HBM per device, bytes.
    pub memory_bytes: f64,
    /// Seconds per step.
    pub step_time_s: f64,
}

/// Memory (GB) against step time for `search`'s Pareto front and fastest rows, plus
/// `highlight`, with `hbm_bytes` as a vertical rule.
#[must_use]
pub fn pareto_chart(search: &SearchReport, hbm_bytes: f64, highlight: Option<&Highlight>) -> XyChart {
    let all =
        search.pareto.iter().chain(&search.best).map(|r| r.step_time_s.get()).chain(highlight.map(|h| h.step_time_s));
    let (div, unit) = time_unit(all.fold(0.0, f64::max));
    let point = |r: &SearchRow| (r.memory_bytes.get() / 1e9, r.step_time_s.get() / div);
    let mut series = vec![
        training_series(
            "Pareto front".into(),
            theme::ORANGE,
            XyStyle::LineAndPoints,
            search.pareto.iter().map(point).collect(),
        ),
        training_series(
            format!("fastest {}", search.best.len()),
            theme::BLUE,
            XyStyle::Points,
            search.best.iter().map(point).collect(),
        ),
    ];
    if let Some(h) = highlight {
        series.push(training_series(
            h.name.clone(),
            theme::VERMILLION,
            XyStyle::Points,
            vec![(h.memory_bytes / 1e9, h.step_time_s / div)],
        ));
    }
    let hbm = hbm_bytes / 1e9;
    let (max_x, max_y) =
        series.iter().flat_map(|s| s.points.iter()).fold((hbm, 0.0f64), |(x, y), p| (x.max(p.0), y.max(p.1)));
    XyChart {
        title: format!("Memory against step time: {} configurations fit", thousands(search.feasible)),
        x: XyAxis::linear_stepped("GB per device (10⁹ bytes)", max_x, 6),
        y: XyAxis::linear_stepped(&format!("{unit} per step"), max_y, 6),
        series,
        rules: vec![Rule {
            value: hbm,
            vertical: true,
            label: format!("HBM {} GB", significant(hbm, 3)),
            color: theme::INK,
        }],
        markers: Vec::new(),
        note: None,
    }
    .drawable()
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::reference_plan;
    use super::*;

    #[test]
    fn the_front_is_sorted_by_memory_and_within_hbm() {
        let r = reference_plan();
        let s = r.search.clone().expect("searched");
        let c = pareto_chart(&s, r.memory.capacity_bytes.get(), None);
        let front = &c.series[0].points;
        assert_eq!(front.len(), s.pareto.len());
        assert!(front.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 >= w[1].1), "{front:?}");
        assert_eq!(c.rules.len(), 1, "HBM is within the x axis");
        assert!(c.rules[0].vertical && c.rules[0].value == r.memory.capacity_bytes.get() / 1e9);
        assert!(front.iter().all(|p| p.0 <= c.rules[0].value));
        // The fastest configuration is on the front.
        let (div, _) = time_unit(s.pareto.iter().chain(&s.best).map(|x| x.step_time_s.get()).fold(0.0, f64::max));
        assert!(front.iter().any(|p| (p.1 - r.step_time_s.get() / div).abs() <= 1e-12 * p.1));
        assert!(c.x.max >= c.rules[0].value && c.y.min == 0.0);
        assert!(c.series[1].style == XyStyle::Points && c.series[0].style == XyStyle::LineAndPoints);
    }
}
