//! Collective time against array size on the chosen topology (book 3.2, "latency-bound vs
//! bandwidth-bound"): one line per collective and set of mesh axes, log–log, with the point
//! where the latency floor ends marked on each line, and the user's own queries plotted.
//! Data first, drawing below.

use crate::format;
use crate::scene::{header, Anchor, Baseline, Frame, LegendEntry, Scene, Swatch};
use crate::theme::{self, Rgb};
use crate::ticks::{log_ticks, LogTicks};
use crate::ChartError;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
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
    (0..=decades * PER_DECADE).map(|k| MIN_BYTES * 10f64.powf(f64::from(k) / f64::from(PER_DECADE))).collect()
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
    let mut ordered: Vec<(usize, &AxisLink)> = axes.iter().filter(|a| a.size > 1).enumerate().collect();
    // By network, axes of one network in their order (an unstable sort with the index as the
    // tie-break: the same order as a stable sort, without linking one).
    ordered.sort_unstable_by_key(|(i, a)| (rank(a.network), *i));
    let ordered: Vec<&AxisLink> = ordered.into_iter().map(|(_, a)| a).collect();
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
                vs.sort_unstable_by(f64::total_cmp);
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
    let queries: Vec<QueryPoint> = queries
        .iter()
        .filter(|q| q.bytes > 0.0 && q.seconds > 0.0 && q.bytes.is_finite() && q.seconds.is_finite())
        .cloned()
        .collect();
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
        (theme::WIDTH, 500)
    }

    fn legend(&self) -> Vec<Vec<LegendEntry>> {
        let kinds = KINDS.iter().map(|k| LegendEntry::fill(k.1, k.2)).collect();
        let sets = self
            .axis_sets
            .iter()
            .enumerate()
            .map(|(i, name)| LegendEntry {
                name: format!("over {name}"),
                color: theme::INK,
                swatch: Swatch::Line(dash(i)),
            })
            .collect();
        vec![kinds, sets]
    }

    /// The plot area as laid out in [`CollectiveTimesChart::scene`].
    #[must_use]
    pub fn laid_out_frame(&self) -> Frame {
        let (w, h) = self.size();
        let mut probe = Scene::new(w, h, "");
        let top = header(&mut probe, &self.title, &self.legend()) + 6.0;
        Frame::log_log((w, h), top, &self.x, &self.y)
    }

    /// The chart laid out in pixels.
    #[must_use]
    pub fn scene(&self) -> Scene {
        let (w, h) = self.size();
        let mut s = Scene::new(w, h, &self.title);
        header(&mut s, &self.title, &self.legend());
        let f = self.laid_out_frame();
        f.draw_axes(
            &mut s,
            (&self.x.values, &|v| format!("{}B", format::si(v))),
            (&self.y.values, &seconds_label),
            "array size V (bytes, log scale)",
            "time (log scale)",
        );
        for line in &self.lines {
            let pts = line.points.iter().map(|&(x, y)| f.px(x, y)).collect();
            s.line(pts, line.color, 2.0, dash(line.set));
        }
        for line in &self.lines {
            if let Some(knee) = line.knee.filter(|(v, _)| *v >= self.x.min && *v <= self.x.max) {
                s.circle(f.px(knee.0, knee.1), 4.0, Some(line.color), None);
            }
        }
        for q in &self.queries {
            let color = KINDS.iter().find(|k| k.0 == q.kind).map_or(theme::INK, |k| k.2);
            let at = f.px(q.bytes, q.seconds);
            s.circle(at, 7.0, None, Some((color, 2.0)));
            s.circle(at, 2.0, Some(theme::INK), None);
        }
        if self.lines.is_empty() {
            let mid = ((f.left + f.right) / 2.0, (f.top + f.bottom) / 2.0);
            s.text(mid, "No axis with more than one device: nothing moves.", Anchor::Middle, Baseline::Middle);
        }
        s
    }
}

/// Dash pattern of axis set `i`: solid, dashed, dotted, long dashes.
#[must_use]
pub fn dash(i: usize) -> Option<(f64, f64)> {
    match i {
        0 => None,
        1 => Some((10.0, 5.0)),
        2 => Some((3.0, 4.0)),
        _ => Some((18.0, 4.0)),
    }
}

/// Seconds with a unit that reads: `1 µs`, `250 µs`, `3.2 ms`, `1.5 s` (`0` for none).
#[must_use]
pub fn seconds_label(s: f64) -> String {
    if !s.is_finite() {
        return format::NOT_A_NUMBER.into();
    }
    if s == 0.0 {
        return "0".into();
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
    // Three significant digits without trailing zeros: `1.5 s`, `10 µs`, `559 µs`.
    let digits = format::significant(s * scale, 3);
    let digits =
        if digits.contains('.') { digits.trim_end_matches('0').trim_end_matches('.').to_string() } else { digits };
    format!("{digits} {unit}")
}

/// Draws a [`CollectiveTimesChart`] on `area` (any plotters backend).
///
/// # Errors
/// [`ChartError::Draw`] when the backend fails.
pub fn draw_collective_times<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &CollectiveTimesChart,
) -> Result<(), ChartError> {
    chart.scene().draw(area)
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
    fn gpu_knees_sit_at_nccl_s_published_latency() {
        let a = axes("h100-sxm", &Topology::gpu_cluster(8, 4));
        let q = QueryPoint { kind: CollectiveKind::AllReduce, bytes: 1e12, seconds: 2.0 };
        let c = collective_times_chart("H100", &a, &[q]);
        // NVLink and InfiniBand carry NCCL's per-hop latencies (chips.json), so every line
        // has a knee. An AllGather over the 8-GPU NVLink switch takes 7 steps of 0.6 µs
        // and sends 7/8 of V out of each GPU: the floor ends at V = 4.2 µs × link / (7/8).
        assert!(c.lines.iter().all(|l| l.knee.is_some()));
        let ag = c.lines.iter().find(|l| l.kind == CollectiveKind::AllGather && l.set == 0).unwrap();
        let (v, floor) = ag.knee.unwrap();
        assert!((floor - 4.2e-6).abs() < 1e-15, "{floor}");
        let link = a.iter().find(|x| x.network == Network::ScaleUp).unwrap().link.get();
        assert!((v - 4.2e-6 * link / (7.0 / 8.0)).abs() / v < 1e-12, "{v}");
        assert_eq!(c.lines.len(), 6);
        // The query outside the sampled range widens the x axis.
        assert!(c.x.max >= 1e12);
        assert_eq!(seconds_label(2.5e-4), "250 µs");
        // Every line is drawn inside the plot area.
        let f = c.laid_out_frame();
        for item in &c.scene().items {
            if let crate::scene::Item::Line { points, color, .. } = item {
                if *color != theme::GRID && *color != theme::INK {
                    assert!(points.iter().all(|(x, y)| *x >= f.left - 1e-9
                        && *x <= f.right + 1e-9
                        && *y >= f.top - 1e-9
                        && *y <= f.bottom + 1e-9));
                }
            }
        }
        assert_eq!(seconds_label(1.5), "1.5 s");
        assert_eq!(seconds_label(1e-5), "10 µs");
        assert_eq!(seconds_label(0.0), "0");
    }
}
