//! The roofline of one chip (book 1.1, "Visualizing rooflines"): attainable FLOP/s against
//! arithmetic intensity on log–log axes, one slanted roof per channel data comes through
//! (HBM, ICI over one axis and over every axis, DCN), the flat compute ceiling, the ridge
//! points where they meet (the chip's critical intensities), and the user's op plotted
//! against each channel it uses. Data first, drawing below.

use crate::format;
use crate::scene::{header, Anchor, Baseline, Frame, Item, LegendEntry, Scene, Swatch};
use crate::theme::{self, Rgb};
use crate::ticks::{log_ticks, LogTicks};
use crate::ChartError;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::chip::{Chip, Fabric};
use shardcalc_core::roofline::OpCost;

/// One channel's roof: attainable FLOP/s = intensity × bandwidth, up to the peak.
#[derive(Clone, Debug, PartialEq)]
pub struct Roof {
    /// Legend text, e.g. `ICI, 1 axis (2 links)`.
    pub name: String,
    /// Stroke colour.
    pub color: Rgb,
    /// One-way bytes per second through the channel.
    pub bandwidth: f64,
    /// Critical intensity (FLOP per byte) = peak / bandwidth, where the roof meets the ceiling.
    pub ridge: f64,
}

/// The op against one channel.
#[derive(Clone, Debug, PartialEq)]
pub struct OpPoint {
    /// Which roof (index into [`RooflineChart::roofs`]).
    pub roof: usize,
    /// FLOPs per byte moved over that channel.
    pub intensity: f64,
    /// FLOP/s the op reaches if that channel were its only limit: min(peak, I × bandwidth).
    pub flops_per_sec: f64,
}

/// The roofline chart.
#[derive(Clone, Debug, PartialEq)]
pub struct RooflineChart {
    /// Caption.
    pub title: String,
    /// The compute format whose peak is the ceiling.
    pub dtype: DType,
    /// The ceiling, FLOP/s.
    pub peak: f64,
    /// The chip's other formats' peaks (drawn dashed), e.g. `("int8", 3.94e14)`.
    pub other_peaks: Vec<(String, f64)>,
    /// One roof per channel.
    pub roofs: Vec<Roof>,
    /// The op, one point per channel it moves bytes over.
    pub points: Vec<OpPoint>,
    /// Intensity axis (FLOP per byte).
    pub x: LogTicks,
    /// Attainable FLOP/s axis.
    pub y: LogTicks,
}

const HBM: Rgb = theme::BLUE;
const ICI_ONE: Rgb = theme::ORANGE;
const ICI_ALL: Rgb = theme::VERMILLION;
const ICI_OP: Rgb = theme::SKY;
const DCN: Rgb = theme::PURPLE;

fn positive(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

/// The roofline of `chip` computing in `dtype` (its bf16 peak if it has no `dtype` path),
/// with `op` plotted when given.
#[must_use]
pub fn roofline_chart(chip: &Chip, op: Option<&OpCost>, dtype: DType) -> RooflineChart {
    let (dtype, peak) = match chip.peak_flops.for_dtype(dtype) {
        Some(p) => (dtype, p.get()),
        None => (DType::Bf16, chip.peak_flops.bf16.get()),
    };
    let up = &chip.scale_up;
    let link = up.link.one_way.get();
    let mut channels: Vec<(String, Rgb, f64)> = vec![("HBM".into(), HBM, chip.hbm.bandwidth.get())];
    match up.fabric {
        Fabric::Torus { dims, .. } => {
            channels.push((format!("{}, 1 axis (2 links)", up.name), ICI_ONE, 2.0 * link));
            if dims > 1 {
                channels.push((
                    format!("{}, {dims} axes ({} links)", up.name, 2 * dims),
                    ICI_ALL,
                    (2 * dims) as f64 * link,
                ));
            }
        }
        Fabric::Switch | Fabric::FullMesh => {
            channels.push((
                format!("{}, all {} links", up.name, up.links_per_chip),
                ICI_ALL,
                up.egress_per_chip().get(),
            ));
        }
    }
    // The op's own ICI link count, when it is not one of the roofs above.
    let op_ici = op.filter(|o| positive(o.ici_bytes.get())).map(|o| o.ici_links.clamp(1.0, 1e6));
    let mut ici_roof = None;
    if let Some(k) = op_ici {
        let bw = k * link;
        ici_roof = channels.iter().skip(1).position(|c| (c.2 - bw).abs() <= 1e-9 * bw).map(|i| i + 1);
        if ici_roof.is_none() {
            let links = format::grouped(k, if k.fract() == 0.0 { 0 } else { 2 });
            channels.push((format!("{}, {links} link{}", up.name, if k == 1.0 { "" } else { "s" }), ICI_OP, bw));
            ici_roof = Some(channels.len() - 1);
        }
    }
    channels.push((chip.scale_out.name.clone(), DCN, chip.scale_out.bandwidth_per_chip.get()));
    let dcn_roof = channels.len() - 1;
    let roofs: Vec<Roof> = channels
        .into_iter()
        .filter(|c| positive(c.2))
        .map(|(name, color, bandwidth)| Roof { name, color, bandwidth, ridge: peak / bandwidth })
        .collect();

    let mut points = Vec::new();
    if let Some(op) = op {
        let flops = op.flops.get();
        for (roof, bytes) in
            [(Some(0), op.hbm_bytes.get()), (ici_roof, op.ici_bytes.get()), (Some(dcn_roof), op.dcn_bytes.get())]
        {
            let Some(r) = roof.and_then(|i| roofs.get(i).map(|r| (i, r))) else { continue };
            if positive(bytes) && positive(flops) {
                let intensity = flops / bytes;
                points.push(OpPoint { roof: r.0, intensity, flops_per_sec: peak.min(intensity * r.1.bandwidth) });
            }
        }
    }
    let other_peaks: Vec<(String, f64)> = [DType::Bf16, DType::Fp8, DType::Int8, DType::Int4]
        .into_iter()
        .filter(|d| *d != dtype)
        .filter_map(|d| chip.peak_flops.for_dtype(d).map(|p| (d.name().to_string(), p.get())))
        .filter(|(_, p)| positive(*p) && (*p - peak).abs() > 1e-9 * peak)
        .collect();

    let xs = roofs.iter().map(|r| r.ridge).chain(points.iter().map(|p| p.intensity)).filter(|x| positive(*x));
    let (x_min, x_max) = xs.fold((1.0f64, 1.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let x = log_ticks(x_min / 3.0, x_max * 3.0, 10.0, 10);
    let top = other_peaks.iter().map(|p| p.1).fold(peak, f64::max);
    let bottom = roofs
        .iter()
        .map(|r| x.min * r.bandwidth)
        .chain(points.iter().map(|p| p.flops_per_sec))
        .filter(|y| positive(*y))
        .fold(peak, f64::min);
    let y = log_ticks(bottom, top * 1.5, 10.0, 10);
    RooflineChart {
        title: format!("Roofline — {}, {} compute", chip.name, dtype.name()),
        dtype,
        peak,
        other_peaks,
        roofs,
        points,
        x,
        y,
    }
}

/// Grey for the other formats' ceilings.
const MUTED: Rgb = Rgb(0x7a, 0x80, 0x8a);

impl RooflineChart {
    /// Pixel size (width × height).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (theme::WIDTH, 480)
    }

    /// The corners of roof `i` as drawn: from the left edge up to its ridge on the ceiling,
    /// then along the ceiling to the right edge (a roof whose ridge lies left of the axis
    /// is the ceiling alone).
    #[must_use]
    pub fn roof_polyline(&self, i: usize) -> Vec<(f64, f64)> {
        let Some(r) = self.roofs.get(i) else { return Vec::new() };
        let mut out = Vec::new();
        if r.ridge > self.x.min {
            out.push((self.x.min, self.x.min * r.bandwidth));
            out.push((r.ridge, self.peak));
        } else {
            out.push((self.x.min, self.peak));
        }
        out.push((self.x.max, self.peak));
        out
    }

    fn legend(&self) -> Vec<LegendEntry> {
        let mut out: Vec<LegendEntry> = self.roofs.iter().map(|r| LegendEntry::fill(&r.name, r.color)).collect();
        out.push(LegendEntry {
            name: format!("{} peak", self.dtype.name()),
            color: theme::INK,
            swatch: Swatch::Line(None),
        });
        out
    }

    /// The plot area under a header ending at `top`.
    #[must_use]
    pub fn frame(&self, top: f64) -> Frame {
        Frame::log_log(self.size(), top, &self.x, &self.y)
    }

    /// The plot area as laid out in [`RooflineChart::scene`].
    #[must_use]
    pub fn laid_out_frame(&self) -> Frame {
        let (w, h) = self.size();
        let mut probe = Scene::new(w, h, "");
        self.frame(header(&mut probe, &self.title, &[self.legend()]) + 6.0)
    }

    /// Where the ridge of roof `i` is drawn, in pixels.
    #[must_use]
    pub fn ridge_px(&self, i: usize) -> Option<(f64, f64)> {
        let r = self.roofs.get(i)?;
        Some(self.laid_out_frame().px(r.ridge, self.peak))
    }

    /// The chart laid out in pixels.
    #[must_use]
    pub fn scene(&self) -> Scene {
        let (w, h) = self.size();
        let mut s = Scene::new(w, h, &self.title);
        let top = header(&mut s, &self.title, &[self.legend()]);
        let f = self.frame(top + 6.0);
        let si = |v: f64| format::si(v);
        f.draw_axes(
            &mut s,
            (&self.x.values, &si),
            (&self.y.values, &si),
            "arithmetic intensity (FLOP per byte, log scale)",
            "attainable FLOP/s (log scale)",
        );
        for (name, p) in &self.other_peaks {
            let (a, b) = (f.px(self.x.min, *p), f.px(self.x.max, *p));
            s.line(vec![a, b], MUTED, 1.0, Some((5.0, 4.0)));
            s.text(
                (b.0 - 6.0, b.1 - 3.0),
                format!("{name} peak {}FLOP/s", format::si(*p)),
                Anchor::End,
                Baseline::Bottom,
            );
        }
        for (i, roof) in self.roofs.iter().enumerate() {
            let pts = self.roof_polyline(i).into_iter().map(|(x, y)| f.px(x, y)).collect();
            s.line(pts, roof.color, 2.0, None);
        }
        let (a, b) = (f.px(self.x.min, self.peak), f.px(self.x.max, self.peak));
        s.line(vec![a, b], theme::INK, 2.0, None);
        s.text(
            (a.0 + 6.0, a.1 - 4.0),
            format!("{} peak {}FLOP/s", self.dtype.name(), format::si(self.peak)),
            Anchor::Start,
            Baseline::Bottom,
        );
        // Ridge points, each with a dotted drop to the x axis and its intensity written just
        // above the axis (the lower right of a roofline is empty: roofs rise to the right), in
        // rows where neighbouring ridges would collide; never up among the peak labels.
        let mut rows: Vec<f64> = Vec::new(); // right edge of the last label in each row
        for roof in self.roofs.iter().filter(|r| r.ridge > self.x.min) {
            let at = f.px(roof.ridge, self.peak);
            let floor = f.px(roof.ridge, self.y.min);
            s.line(vec![at, floor], roof.color, 1.0, Some((2.0, 3.0)));
            s.circle(at, 4.0, Some(roof.color), None);
            let text = format::significant(roof.ridge, 3);
            let half = label_width(&text) / 2.0;
            let row = rows.iter().position(|right| *right + 4.0 < at.0 - half).unwrap_or(rows.len());
            match rows.get_mut(row) {
                Some(right) => *right = at.0 + half,
                None => rows.push(at.0 + half),
            }
            s.items.push(Item::Text {
                at: (at.0, floor.1 - 4.0 - 14.0 * row as f64),
                text,
                size: f64::from(theme::LABEL_PX),
                color: roof.color,
                anchor: Anchor::Middle,
                baseline: Baseline::Bottom,
                vertical: false,
            });
        }
        for p in &self.points {
            let Some(roof) = self.roofs.get(p.roof) else { continue };
            let at = f.px(p.intensity, p.flops_per_sec);
            s.circle(at, 6.0, Some(roof.color), Some((theme::INK, 2.0)));
            // Above-left of the point: the roofs rise to the right, so that corner is empty.
            s.text(
                (at.0 - 9.0, at.1 - 8.0),
                format!("op vs {}", short_name(&roof.name)),
                Anchor::End,
                Baseline::Bottom,
            );
        }
        s
    }
}

/// Draws a [`RooflineChart`] on `area` (any plotters backend).
///
/// # Errors
/// [`ChartError::Draw`] when the backend fails.
pub fn draw_roofline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &RooflineChart,
) -> Result<(), ChartError> {
    chart.scene().draw(area)
}

/// About how wide `text` is at the label size (digits and separators), in pixels.
fn label_width(text: &str) -> f64 {
    text.chars().count() as f64 * f64::from(theme::LABEL_PX) * 0.6
}

/// `ICI, 1 axis (2 links)` → `ICI`.
fn short_name(name: &str) -> &str {
    name.split(',').next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardcalc_core::hardware::catalog::get;
    use shardcalc_core::hardware::intensity::{critical_intensities, Channel};
    use shardcalc_core::roofline::matmul::Matmul;
    use shardcalc_core::units::{Bytes, Flops};

    fn chip(id: &str) -> Chip {
        get(id).expect("bundled chip")
    }

    fn core_intensity(c: &Chip, channel: Channel, links: Option<u64>, dtype: DType) -> f64 {
        critical_intensities(c)
            .into_iter()
            .find(|r| r.channel == channel && r.links == links && r.dtype == dtype)
            .map_or(f64::NAN, |r| r.intensity.get())
    }

    /// The ridge labels sit between the ceiling and the x axis, never up among the peak
    /// labels (they once overlapped the int8 peak's), and do not overlap one another: the v5e's
    /// ICI ridges (1,094 and 2,189 FLOP/B) are a label's width apart and take two rows.
    #[test]
    fn ridge_labels_stay_below_the_ceiling_and_apart() {
        for id in ["tpu-v5e", "tpu-v5p", "tpu-v7x", "h100-sxm"] {
            let c = roofline_chart(&chip(id), None, DType::Bf16);
            let f = c.laid_out_frame();
            let ceiling = f.px(c.x.min, c.peak).1;
            let floor = f.px(c.x.min, c.y.min).1;
            let ridges: Vec<String> =
                c.roofs.iter().filter(|r| r.ridge > c.x.min).map(|r| format::significant(r.ridge, 3)).collect();
            let boxes: Vec<(f64, f64, f64)> = c
                .scene()
                .items
                .iter()
                .filter_map(|i| match i {
                    Item::Text { at, text, .. } if ridges.contains(text) => {
                        Some((at.0 - label_width(text) / 2.0, at.0 + label_width(text) / 2.0, at.1))
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(boxes.len(), ridges.len(), "{id}: one label per ridge");
            for (i, a) in boxes.iter().enumerate() {
                assert!(
                    a.2 - f64::from(theme::LABEL_PX) > ceiling && a.2 < floor,
                    "{id}: label at y {} outside ({ceiling}, {floor})",
                    a.2
                );
                for b in boxes.iter().skip(i + 1) {
                    let apart = a.2 != b.2 || a.1 <= b.0 || b.1 <= a.0;
                    assert!(apart, "{id}: ridge labels overlap: {a:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn ridges_are_the_chips_critical_intensities() {
        // Book 1.1: v5e HBM ridge 1.97e14 / 8.1e11 = 243 FLOP/B (the book rounds to 240).
        let v5e = chip("tpu-v5e");
        let c = roofline_chart(&v5e, None, DType::Bf16);
        assert!((c.roofs[0].ridge - 243.2).abs() < 0.1, "{}", c.roofs[0].ridge);
        assert_eq!(c.roofs[0].ridge, core_intensity(&v5e, Channel::Hbm, None, DType::Bf16));
        assert_eq!(c.roofs[1].ridge, core_intensity(&v5e, Channel::ScaleUp, Some(2), DType::Bf16));
        assert_eq!(c.roofs[2].ridge, core_intensity(&v5e, Channel::ScaleUp, Some(4), DType::Bf16));
        assert_eq!(c.roofs[3].ridge, core_intensity(&v5e, Channel::ScaleOut, None, DType::Bf16));
        // Trillium: 5100 over one ICI axis (MaxText guide); Ironwood about 11,500 (its guide).
        let v6e = roofline_chart(&chip("tpu-v6e"), None, DType::Bf16);
        assert!((v6e.roofs[1].ridge - 5111.0).abs() < 1.0, "{}", v6e.roofs[1].ridge);
        let v7x = roofline_chart(&chip("tpu-v7x"), None, DType::Bf16);
        assert!((v7x.roofs[1].ridge - 11_535.0).abs() < 1.0, "{}", v7x.roofs[1].ridge);
        assert_eq!(v7x.roofs[2].name, "ICI, 3 axes (6 links)");
        // int8 compute doubles the v5e's ceiling and its ridges.
        let int8 = roofline_chart(&v5e, None, DType::Int8);
        assert_eq!(int8.peak, 3.94e14);
        assert!((int8.roofs[0].ridge / c.roofs[0].ridge - 2.0).abs() < 1e-12);
        assert_eq!(int8.other_peaks, vec![("bf16".to_string(), 1.97e14), ("int4".to_string(), 7.88e14)]);
    }

    #[test]
    fn every_ridge_and_point_is_inside_the_axes() {
        for c in shardcalc_core::hardware::catalog::all() {
            let op = Matmul::bf16(1.0, 8192.0, 8192.0).op_cost();
            let chart = roofline_chart(c, Some(&op), DType::Bf16);
            assert!(chart.y.max >= chart.peak && chart.y.min > 0.0, "{}", c.id);
            for r in &chart.roofs {
                assert!(r.ridge > chart.x.min && r.ridge < chart.x.max, "{} {}", c.id, r.name);
                let line = chart.roof_polyline(chart.roofs.iter().position(|x| x == r).unwrap());
                assert!(line
                    .iter()
                    .all(|(x, y)| *x >= chart.x.min && *x <= chart.x.max && *y >= chart.y.min && *y <= chart.y.max));
            }
            for p in &chart.points {
                assert!(p.intensity >= chart.x.min && p.intensity <= chart.x.max && p.flops_per_sec >= chart.y.min);
            }
        }
    }

    #[test]
    fn the_op_sits_on_its_roofs() {
        // A batch-1 matmul (a dot product per output): intensity about 1, HBM-bound.
        let v5e = chip("tpu-v5e");
        let op = OpCost {
            flops: Flops(1e12),
            hbm_bytes: Bytes(1e10),
            ici_bytes: Bytes(1e9),
            ici_links: 3.0,
            dcn_bytes: Bytes(1e6),
            ..OpCost::default()
        };
        let c = roofline_chart(&v5e, Some(&op), DType::Bf16);
        assert_eq!(c.points.len(), 3);
        let hbm = &c.points[0];
        assert_eq!(hbm.intensity, 100.0);
        assert!((hbm.flops_per_sec - 100.0 * 8.1e11).abs() < 1.0);
        // Three links is not a drawn roof: it gets its own.
        let ici = &c.roofs[c.points[1].roof];
        assert_eq!(ici.name, "ICI, 3 links");
        assert!((ici.bandwidth - 1.35e11).abs() < 1.0);
        // DCN at 1e6 FLOP/B is far past its ridge: compute-bound, on the ceiling.
        assert_eq!(c.points[2].flops_per_sec, c.peak);
        // Two links reuse the one-axis roof.
        let two = OpCost { ici_links: 2.0, ..op };
        let c2 = roofline_chart(&v5e, Some(&two), DType::Bf16);
        assert_eq!(c2.roofs.len(), 4);
        assert_eq!(c2.points[1].roof, 1);
    }

    #[test]
    fn ridge_points_are_drawn_where_the_numbers_say() {
        // The v5e's HBM ridge (243 FLOP/B) sits log(243.2 / x.min) / log(x.max / x.min) of
        // the way across the plot, on the ceiling line.
        let c = roofline_chart(&chip("tpu-v5e"), None, DType::Bf16);
        let f = c.laid_out_frame();
        let (x, y) = c.ridge_px(0).unwrap();
        let frac = (243.209_876_543_209_87_f64 / c.x.min).ln() / (c.x.max / c.x.min).ln();
        assert!((x - (f.left + frac * (f.right - f.left))).abs() < 1e-6, "{x}");
        let (_, ceiling) = f.px(1.0, c.peak);
        assert_eq!(y, ceiling);
        // The scene has a marker there, in the roof's colour, and the ceiling label.
        let s = c.scene();
        assert!(s.items.iter().any(
            |i| matches!(i, Item::Circle { at, fill: Some(col), .. } if *at == (x, y) && *col == c.roofs[0].color)
        ));
        assert!(s.items.iter().any(|i| matches!(i, Item::Text { text, .. } if text == "bf16 peak 197 TFLOP/s")));
        // Ridges in order of intensity are drawn left to right.
        let xs: Vec<f64> = (0..c.roofs.len()).filter_map(|i| c.ridge_px(i)).map(|p| p.0).collect();
        assert!(xs[0] < xs[1] && xs[2] < xs[1] && xs[1] < xs[3], "{xs:?}");
        assert!(s.to_svg().contains("attainable FLOP/s"));
    }

    #[test]
    fn gpus_have_one_nvlink_roof() {
        let h100 = roofline_chart(&chip("h100-sxm"), None, DType::Bf16);
        let names: Vec<&str> = h100.roofs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["HBM", "NVLink, all 18 links", "InfiniBand"]);
        // Book 1.1.2: a GPU's HBM ridge is "closer to 300".
        assert!((h100.roofs[0].ridge - 295.2).abs() < 0.1);
    }
}
