//! MFU against the batch per device (book 5.1: data and fully-sharded parallelism are
//! compute-bound once the per-device batch passes the critical batch `α / n_axes`),
//! for fixed meshes: each curve is one mesh, remat policy and microbatch count planned
//! at global batches from the smallest the mesh can split upwards, with the book's
//! critical batches and the scenario's own batch marked.

use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::model::ModelConfig;
use shardcalc_core::training::mesh::Mesh;
use shardcalc_core::training::plan;
use shardcalc_core::training::report::ThresholdsReport;
use shardcalc_core::training::section::{GlobalBatch, TrainingSection};
use shardcalc_core::training::tensors::Remat;

use crate::format::{short_count, significant};
use crate::theme::{self, Rgb};
use crate::training::training_series as xy_series;
use crate::xy::{Rule, XyAxis, XyChart, XySeries, XyStyle};

/// Global batches per curve: the smallest the mesh splits, times 2⁰ … 2¹⁰.
pub const DOUBLINGS: u32 = 10;

/// One planned batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MfuPoint {
    /// Tokens per device per step (global batch over devices).
    pub tokens_per_device: f64,
    /// Model FLOPs utilisation.
    pub mfu: f64,
    /// Whether the configuration fits in HBM.
    pub fits: bool,
}

/// A mesh's MFU at global batches of `dp·fsdp·ep × microbatches × 2^k` sequences
/// (k = 0 … [`DOUBLINGS`]), every other setting as in `section`; batches the planner
/// refuses are left out.
#[must_use]
pub fn mfu_sweep(
    model: &ModelConfig,
    hw: &ResolvedHardware,
    section: &TrainingSection,
    convention: FlopConvention,
    mesh: Mesh,
    microbatches: u64,
    remat: &Remat,
) -> Vec<MfuPoint> {
    let mut s = section.clone();
    s.mesh = Some(mesh);
    s.search = None;
    s.microbatches = Some(microbatches.max(1));
    s.remat = remat.clone();
    let base = mesh.data_shards().saturating_mul(microbatches.max(1));
    (0..=DOUBLINGS)
        .filter_map(|k| {
            s.global_batch = GlobalBatch::Sequences(base.checked_mul(1 << k)?);
            let r = plan(model, hw, &s, convention).ok()?;
            Some(MfuPoint {
                tokens_per_device: r.global_batch_tokens / r.devices as f64,
                mfu: r.mfu,
                fits: r.memory.fits,
            })
        })
        .collect()
}

/// A named curve.
#[derive(Clone, Debug, PartialEq)]
pub struct MfuCurve {
    /// Legend text (the mesh).
    pub name: String,
    /// Its points, by batch.
    pub points: Vec<MfuPoint>,
}

const CURVE_COLORS: [Rgb; 2] = [theme::BLUE, theme::VERMILLION];

/// Height of an [`XyChart`]'s plot in pixels: the chart's 400 less the header with one row
/// of legend (`scene::header`: 60) and the plot's bottom padding (`xy.rs`: `PAD`).
const PLOT_PX: f64 = 400.0 - 60.0 - 56.0;

/// The MFU axis, running past its last tick so that the labels of `rules` vertical rules
/// (drawn from the plot's top down, 15 px apart, `XyChart::scene`) sit above every curve
/// instead of on it (they crowded the plateau of the curves, at the top of the plot).
fn mfu_axis(top: f64, rules: usize) -> XyAxis {
    let mut y = XyAxis::linear_stepped("MFU (%)", top.max(1.0), 6);
    let band = ((15 * rules + 10) as f64 / PLOT_PX).min(0.5);
    y.max = y.max.max(top / (1.0 - band));
    y
}

/// The chart: MFU (%) against tokens per device on a log axis; points that do not fit
/// in HBM drawn grey; the critical batches of `t` and `current` (the scenario's tokens
/// per device) as vertical rules.
#[must_use]
pub fn mfu_batch_chart(curves: &[MfuCurve], t: &ThresholdsReport, current: f64) -> XyChart {
    let mut series: Vec<XySeries> = curves
        .iter()
        .zip(CURVE_COLORS.iter().cycle())
        .map(|(c, color)| {
            xy_series(
                c.name.clone(),
                *color,
                XyStyle::LineAndPoints,
                c.points.iter().map(|p| (p.tokens_per_device, 100.0 * p.mfu)).collect(),
            )
        })
        .collect();
    let over: Vec<(f64, f64)> = curves
        .iter()
        .flat_map(|c| c.points.iter().filter(|p| !p.fits).map(|p| (p.tokens_per_device, 100.0 * p.mfu)))
        .collect();
    if !over.is_empty() {
        series.push(xy_series("does not fit in HBM".into(), theme::GREY, XyStyle::Points, over));
    }
    let mut marks = vec![
        Rule {
            value: t.fsdp_critical_batch_all_axes,
            vertical: true,
            label: format!(
                "FSDP compute-bound above α/{} = {}",
                t.ici_axes.max(1),
                significant(t.fsdp_critical_batch_all_axes, 3)
            ),
            color: theme::GREEN,
        },
        Rule {
            value: t.mixed.critical_batch_per_device,
            vertical: true,
            label: format!("FSDP+TP above {}", significant(t.mixed.critical_batch_per_device, 3)),
            color: theme::PURPLE,
        },
    ];
    if let Some(d) = &t.dcn {
        let per_device = d.critical_batch_per_slice / t.devices_per_slice.max(1) as f64;
        marks.push(Rule {
            value: per_device,
            vertical: true,
            label: format!("DCN above {}", significant(per_device, 3)),
            color: theme::ORANGE,
        });
    }
    marks.push(Rule {
        value: current,
        vertical: true,
        label: format!("this batch: {}", significant(current, 3)),
        color: theme::INK,
    });
    // Rightmost first: each label runs right of its rule, so drawn after the rules to its
    // right it lies on top of their dashes instead of under them (the critical batches and
    // this batch are often a few percent apart). Ordered by insertion: at most four rules,
    // and a slice sort costs the page ~1.6 KB gzip.
    let mut ordered: Vec<Rule> = Vec::with_capacity(marks.len());
    for m in marks {
        let at = ordered.iter().position(|o| o.value < m.value).unwrap_or(ordered.len());
        ordered.insert(at, m);
    }
    let marks = ordered;
    let xs = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .chain(marks.iter().map(|m| m.value))
        .filter(|x| x.is_finite() && *x > 0.0);
    let (lo, hi) = xs.fold((f64::INFINITY, 0.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let top = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(0.0, f64::max);
    XyChart {
        title: "MFU against tokens per device (fixed meshes)".into(),
        x: XyAxis::log("tokens per device per step (log scale)", lo, hi, 10.0, short_count),
        y: mfu_axis(top, marks.len()),
        series,
        rules: marks,
        markers: Vec::new(),
        note: None,
    }
    .drawable()
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::{inputs, reference_plan};
    use super::*;

    #[test]
    fn mfu_grows_with_the_batch_and_the_marks_are_the_thresholds() {
        let (m, hw) = inputs();
        let best = reference_plan();
        let section = TrainingSection::default();
        let mesh = Mesh { fsdp: 16, tp: 4, ..Mesh::default() };
        let points = mfu_sweep(&m, &hw, &section, FlopConvention::MaxText, mesh, 1, &Remat::Full);
        assert_eq!(points.len(), DOUBLINGS as usize + 1);
        // 16 sequences of 4096 on 64 devices: 1,024 tokens each, doubling.
        assert_eq!(points[0].tokens_per_device, 1024.0);
        assert!(points.windows(2).all(|w| w[1].tokens_per_device == 2.0 * w[0].tokens_per_device));
        // Weight traffic is per step, compute per token: MFU never falls as the batch grows.
        assert!(points.windows(2).all(|w| w[1].mfu >= w[0].mfu * (1.0 - 1e-12)), "{points:?}");
        // The largest batches' activations overflow HBM.
        assert!(points.last().is_some_and(|p| !p.fits));
        let current = best.global_batch_tokens / best.devices as f64;
        let c = mfu_batch_chart(&[MfuCurve { name: "fsdp 16 × tp 4".into(), points }], &best.thresholds, current);
        assert!(c
            .rules
            .iter()
            .any(|r| r.value == best.thresholds.fsdp_critical_batch_all_axes
                && r.label.starts_with("FSDP compute-bound")));
        assert!(c.rules.iter().any(|r| r.value == current && r.label.starts_with("this batch")));
        assert!(c.rules.windows(2).all(|w| w[0].value >= w[1].value), "rightmost rule first");
        assert!(c.rules.iter().all(|r| r.vertical && c.x.covers(r.value)));
        assert!(c.series.iter().any(|s| s.name == "does not fit in HBM"));
        assert!(c.x.min <= 1024.0 && c.x.max >= 1024.0 * 1024.0);
        assert!(c.y.max >= 100.0 * c.series[0].points.iter().map(|p| p.1 / 100.0).fold(0.0, f64::max));
        // The rules' labels (15 px per rule from the plot's top) clear every point.
        let band = (15 * c.rules.len() + 10) as f64 / PLOT_PX;
        let highest = c.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(0.0, f64::max);
        assert!(highest <= c.y.max * (1.0 - band) + 1e-9, "{highest} reaches the labels under {}", c.y.max);
    }
}
