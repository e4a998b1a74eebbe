//! Collective time against array size on the chosen topology (book 3.2, "latency-bound vs
//! bandwidth-bound"): one line per collective and set of mesh axes, log–log, with the point
//! where the latency floor ends marked on each line, and the user's own queries plotted.
//! Data first, drawing below.

use crate::axis::TickedAxis;
use crate::format;
use crate::theme::{self, Rgb};
use crate::ticks::{log_ticks, LogTicks};
use crate::ChartError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use shardcalc_core::collectives::{collective_cost, AxisLink, CollectiveKind, Network};
use shardcalc_core::units::Bytes;

/// Smallest array on the chart, bytes.
pub const MIN_BYTES: f64 = 1e3;
/// Largest array on the chart, bytes.
pub const MAX_BYTES: f64 = 1e11;
/// Samples per decade of array size.
const PER_DECADE: u32 = 8;
/// Axis sets drawn at most.
const MAX_SETS: usize = 4;

/// The collectives drawn: a ReduceScatter costs what an AllGather does (book 3.4), so one
/// line stands for both.
pub const KINDS: [(CollectiveKind, &str, Rgb); 3] = [
    (CollectiveKind::AllGather, "AllGather = ReduceScatter", theme::BLUE),
    (CollectiveKind::AllReduce, "AllReduce", theme::VERMILLION),
    (CollectiveKind::AllToAll, "AllToAll", theme::GREEN),
];

/// One collective over one set of axes.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectiveLine {
    /// Which collective.
    pub kind: CollectiveKind,
    /// Index into [`CollectiveTimesChart::axis_sets`] (the line's dash style).
    pub set: usize,
    /// Stroke colour (by kind).
    pub color: Rgb,
    /// (array bytes V, seconds), increasing in V.
    pub points: Vec<(f64, f64)>,
    /// Where the latency floor ends: the V at which bytes over bandwidth equal hops ×
    /// latency (exact for one network), and the time there. `None` without a latency.
    pub knee: Option<(f64, f64)>,
}

/// A user's query, plotted as a ring.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryPoint {
    /// Which collective.
    pub kind: CollectiveKind,
    /// `V`, bytes.
    pub bytes: f64,
    /// Seconds.
    pub seconds: f64,
}

/// The "collective time vs array size" chart.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectiveTimesChart {
    /// Caption.
    pub title: String,
    /// The axis sets, e.g. `["x", "x+y", "x+y+dcn"]`.
    pub axis_sets: Vec<String>,
    /// Lines, by kind then axis set.
    pub lines: Vec<CollectiveLine>,
    /// The user's queries.
    pub queries: Vec<QueryPoint>,
    /// Array size axis (bytes).
    pub x: LogTicks,
    /// Time axis (seconds).
    pub y: LogTicks,
}

/// Array sizes sampled: 8 per decade from [`MIN_BYTES`] to [`MAX_BYTES`].
#[must_use]
pub fn sample_sizes() -> Vec<f64> {
    let decades = (MAX_BYTES / MIN_BYTES).log10().round() as u32;
    (0..=decades * PER_DECADE)
        .map(|k| MIN_BYTES * 10f64.powf(f64::from(k) / f64::from(PER_DECADE)))
        .collect()
}

/// The axis sets drawn: scale-up axes one by one, then the die-to-die link, then the
/// scale-out network (the order collectives nest in), as growing prefixes, skipping axes of
/// one device; at most four (the first three and all of them).
#[must_use]
pub fn axis_sets(axes: &[AxisLink]) -> Vec<Vec<AxisLink>> {
    let rank = |n: Network| match n {
        Network::ScaleUp => 0,
        Network::DieToDie => 1,
        Network::ScaleOut => 2,
    };
    let mut ordered: Vec<&AxisLink> = axes.iter().filter(|a| a.size > 1).collect();
    ordered.sort_by_key(|a| rank(a.network));
    let mut sets: Vec<Vec<AxisLink>> =
        (1..=ordered.len()).map(|k| ordered.iter().take(k).map(|a| (*a).clone()).collect()).collect();
    if sets.len() > MAX_SETS {
        let all = sets.pop().unwrap_or_default();
        sets.truncate(MAX_SETS - 1);
        sets.push(all);
    }
    sets
}

fn set_name(set: &[AxisLink]) -> String {
    set.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join("+")
}

/// Builds the chart for `axes` (the resolved topology) with `queries` = (kind, V, seconds).
#[must_use]
pub fn collective_times_chart(chip_name: &str, axes: &[AxisLink], queries: &[QueryPoint]) -> CollectiveTimesChart {
    let sets = axis_sets(axes);
    let sizes = sample_sizes();
    let mut lines = Vec::new();
    for &(kind, _, color) in &KINDS {
        for (set, set_axes) in sets.iter().enumerate() {
            let cost = |v: f64| collective_cost(kind, Bytes(v), set_axes).ok();
            // Bandwidth time is linear in V and the floor does not depend on it.
            let knee = cost(1e9).and_then(|c| {
                let per_byte = c.bandwidth_time.get() / 1e9;
                let v = c.latency_floor.get() / per_byte;
                (v.is_finite() && v > 0.0).then(|| (v, c.latency_floor.get()))
            });
            let mut vs = sizes.clone();
            if let Some((v, _)) = knee.filter(|(v, _)| (MIN_BYTES..=MAX_BYTES).contains(v)) {
                vs.push(v);
                vs.sort_by(f64::total_cmp);
            }
            let points: Vec<(f64, f64)> = vs
                .iter()
                .filter_map(|&v| cost(v).map(|c| (v, c.time.get())))
                .filter(|(_, t)| t.is_finite() && *t > 0.0)
                .collect();
            if !points.is_empty() {
                lines.push(CollectiveLine { kind, set, color, points, knee });
            }
        }
    }
    let queries: Vec<QueryPoint> =
        queries.iter().filter(|q| q.bytes > 0.0 && q.seconds > 0.0 && q.bytes.is_finite() && q.seconds.is_finite()).cloned().collect();
    let ys = lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)).chain(queries.iter().map(|q| q.seconds));
    let (lo, hi) = ys.fold((f64::INFINITY, 0.0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let (x_lo, x_hi) = queries.iter().fold((MIN_BYTES, MAX_BYTES), |(lo, hi), q| (lo.min(q.bytes), hi.max(q.bytes)));
    let names: Vec<String> = sets.iter().map(|s| set_name(s)).collect();
    CollectiveTimesChart {
        title: format!("Collective time vs array size — {chip_name}"),
        axis_sets: names,
        lines,
        queries,
        x: log_ticks(x_lo, x_hi, 10.0, 10),
        y: log_ticks(lo, hi, 10.0, 10),
    }
}

impl CollectiveTimesChart {
    /// Pixel size (width × height).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (theme::WIDTH, 480)
    }
}

/// Dash pattern of axis set `i`: solid, dashed, dotted, long dashes.
fn dash(i: usize) -> Option<(u32, u32)> {
    match i {
        0 => None,
        1 => Some((10, 5)),
        2 => Some((3, 4)),
        _ => Some((18, 4)),
    }
}

/// Seconds with a unit that reads: `1 µs`, `250 µs`, `3.2 ms`, `1.5 s`.
#[must_use]
pub fn seconds_label(s: f64) -> String {
    if !s.is_finite() {
        return format::NOT_A_NUMBER.into();
    }
    let (scale, unit) = if s.abs() >= 1.0 {
        (1.0, "s")
    } else if s.abs() >= 1e-3 {
        (1e3, "ms")
    } else if s.abs() >= 1e-6 {
        (1e6, "µs")
    } else {
        (1e9, "ns")
    };
    format!("{} {unit}", format::significant(s * scale, 3))
}

/// Draws a [`CollectiveTimesChart`] on `area` (any plotters backend).
///
/// # Errors
/// [`ChartError::Draw`] when the backend fails.
pub fn draw_collective_times<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &CollectiveTimesChart,
) -> Result<(), ChartError> {
    area.fill(&WHITE).map_err(ChartError::draw)?;
    let (header, body) = area.split_vertically(theme::HEADER_PX + 20);
    let entries: Vec<(&str, Rgb)> = KINDS.iter().map(|k| (k.1, k.2)).collect();
    theme::draw_header(&header, &chart.title, &entries)?;
    let ink = theme::INK.plotters();
    let label_style = (theme::FONT, theme::LABEL_PX).into_font().color(&ink);
    // Second legend row: one line sample per axis set, in its dash style.
    let mut x = 16;
    for (i, name) in chart.axis_sets.iter().enumerate() {
        let y = 60;
        match dash(i) {
            None => header.draw(&PathElement::new([(x, y), (x + 28, y)], ink.stroke_width(2))),
            Some((on, off)) => {
                let mut at = x;
                while at < x + 28 {
                    let end = (at + on as i32).min(x + 28);
                    header.draw(&PathElement::new([(at, y), (end, y)], ink.stroke_width(2))).map_err(ChartError::draw)?;
                    at = end + off as i32;
                }
                Ok(())
            }
        }
        .map_err(ChartError::draw)?;
        let text = format!("over {name}");
        let style = label_style.clone().pos(Pos::new(HPos::Left, VPos::Center));
        header.draw(&Text::new(text.clone(), (x + 34, y), style.clone())).map_err(ChartError::draw)?;
        let (w, _) = header.estimate_text_size(&text, &style).map_err(ChartError::draw)?;
        x += 34 + i32::try_from(w).unwrap_or(0) + 24;
    }
    let mut ctx = ChartBuilder::on(&body)
        .margin(12)
        .margin_top(4)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(
            TickedAxis::log(chart.x.min, chart.x.max, chart.x.values.clone()),
            TickedAxis::log(chart.y.min, chart.y.max, chart.y.values.clone()),
        )
        .map_err(ChartError::draw)?;
    let x_fmt = |v: &f64| format!("{}B", format::si(*v));
    let y_fmt = |v: &f64| seconds_label(*v);
    ctx.configure_mesh()
        .bold_line_style(theme::GRID.plotters())
        .axis_style(ink)
        .label_style(label_style.clone())
        .axis_desc_style(label_style.clone())
        .x_desc("array size V (bytes, log scale)")
        .y_desc("time (log)")
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .draw()
        .map_err(ChartError::draw)?;
    for line in &chart.lines {
        let style = line.color.plotters().stroke_width(2);
        let pts = line.points.iter().copied();
        match dash(line.set) {
            None => ctx.draw_series(LineSeries::new(pts, style)).map(|_| ()),
            Some((on, off)) => ctx.draw_series(DashedLineSeries::new(pts, on, off, style)).map(|_| ()),
        }
        .map_err(ChartError::draw)?;
        if let Some(knee) = line.knee.filter(|(v, _)| *v >= chart.x.min && *v <= chart.x.max) {
            let color = line.color.plotters();
            ctx.draw_series([Circle::new(knee, 4, color.filled())]).map_err(ChartError::draw)?;
        }
    }
    for q in &chart.queries {
        let color = KINDS.iter().find(|k| k.0 == q.kind).map_or(theme::INK, |k| k.2).plotters();
        let at = (q.bytes, q.seconds);
        ctx.draw_series([Circle::new(at, 7, color.stroke_width(2)), Circle::new(at, 2, ink.filled())])
            .map_err(ChartError::draw)?;
    }
    area.present().map_err(ChartError::draw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardcalc_core::hardware::catalog::get;
    use shardcalc_core::hardware::topology::Topology;

    fn axes(chip: &str, t: &Topology) -> Vec<AxisLink> {
        t.resolve(&get(chip).expect("chip")).expect("valid topology")
    }

    #[test]
    fn samples_span_1kb_to_100gb() {
        let s = sample_sizes();
        assert_eq!(s.len(), 65);
        assert_eq!(s.first(), Some(&1e3));
        assert!((s.last().copied().unwrap_or(0.0) / 1e11 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_latency_floor_ends_where_the_book_says() {
        // Book 3.2: on a v5e (4.5e10 B/s one-way, 1 µs per hop) "any buffer under 45 kB"
        // per hop is latency-bound. A full ring of 16 gathers in 8 hops (8 µs) moving
        // V·(8/16) bytes each way per link: the floor ends at V = 8e-6 × 4.5e10 / 0.5 =
        // 720 kB, i.e. 45 kB per shard.
        let t = axes("tpu-v5e", &Topology::tpu_slice(&[16, 16], 1));
        let c = collective_times_chart("TPU v5e", &t, &[]);
        assert_eq!(c.axis_sets, ["x", "x+y"]);
        let ag = c.lines.iter().find(|l| l.kind == CollectiveKind::AllGather && l.set == 0).unwrap();
        let (v, floor) = ag.knee.unwrap();
        assert!((floor - 8e-6).abs() < 1e-15, "{floor}");
        assert!((v - 720e3).abs() < 1e-3, "{v}");
        // Below the knee the line is flat at the floor; above it grows linearly with V.
        let below: Vec<f64> = ag.points.iter().filter(|p| p.0 < v).map(|p| p.1).collect();
        assert!(below.iter().all(|t| (*t - floor).abs() < 1e-15));
        let last = ag.points.last().unwrap();
        assert!((last.1 - last.0 * 0.5 / 4.5e10).abs() / last.1 < 1e-12);
        // The AllReduce costs twice the AllGather wherever both are bandwidth-bound.
        let ar = c.lines.iter().find(|l| l.kind == CollectiveKind::AllReduce && l.set == 0).unwrap();
        assert!((ar.points.last().unwrap().1 / last.1 - 2.0).abs() < 1e-12);
        // Every point inside the axes.
        for l in &c.lines {
            for (x, y) in &l.points {
                assert!(*x >= c.x.min && *x <= c.x.max && *y >= c.y.min && *y <= c.y.max);
            }
        }
    }

    #[test]
    fn sets_nest_scale_up_then_chiplets_then_dcn() {
        let mut t = Topology::tpu_slice(&[4, 4, 4], 2);
        t.axes.push(shardcalc_core::hardware::topology::AxisSpec::new("d2d", 2, Network::DieToDie));
        let a = axes("tpu-v7x", &t);
        let names: Vec<String> = axis_sets(&a).iter().map(|s| set_name(s)).collect();
        assert_eq!(names, ["x", "x+y", "x+y+z", "x+y+z+d2d+dcn"]);
        // Axes of one device carry nothing and are skipped.
        let a = axes("tpu-v5e", &Topology::tpu_slice(&[1, 8], 1));
        assert_eq!(axis_sets(&a).iter().map(|s| set_name(s)).collect::<Vec<_>>(), ["y"]);
    }

    #[test]
    fn gpus_without_published_latency_have_no_knee() {
        let a = axes("h100-sxm", &Topology::gpu_cluster(8, 4));
        let q = QueryPoint { kind: CollectiveKind::AllReduce, bytes: 1e12, seconds: 2.0 };
        let c = collective_times_chart("H100", &a, &[q]);
        assert!(c.lines.iter().all(|l| l.knee.is_none()));
        assert_eq!(c.lines.len(), 6);
        // The query outside the sampled range widens the x axis.
        assert!(c.x.max >= 1e12);
        assert_eq!(seconds_label(2.5e-4), "250 µs");
        assert_eq!(seconds_label(1.5), "1.50 s");
    }
}
