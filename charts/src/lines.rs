//! Forward FLOPs per token versus sequence length on log–log axes, with the length where
//! dot-product attention overtakes the MLP marked (book 4.3). Data first, then its layout as a [`Scene`].

use crate::axis::TickedAxis;
use crate::format;
use crate::frame::{self, FrameSpec};
use crate::scene::{header, Anchor, Baseline, LegendEntry, Scene, Swatch};
use crate::theme::{self, Rgb};
use crate::ticks::{log_ticks, LogTicks};
use shardcalc_core::flops::{attention_crossover, flops_vs_seq_len, AttentionCounting, FlopConvention, FlopsAtLength};
use shardcalc_core::model::ModelConfig;

/// Reads one quantity of a sample.
type Pick = fn(&FlopsAtLength) -> f64;

/// Shortest sequence on the chart.
pub const MIN_SEQ_LEN: u64 = 256;
/// Longest sequence on the chart (2^20).
pub const MAX_SEQ_LEN: u64 = 1 << 20;
/// Points per doubling of the sequence length.
const POINTS_PER_OCTAVE: u32 = 4;

/// One curve.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Legend text.
    pub name: String,
    /// Stroke colour.
    pub color: Rgb,
    /// (sequence length, forward FLOPs per token); only positive values (log axis).
    pub points: Vec<(f64, f64)>,
}

/// Where dot-product attention first costs more per token than the MLP.
#[derive(Clone, Debug, PartialEq)]
pub struct Crossover {
    /// Sequence length, tokens.
    pub seq_len: u64,
    /// The MLP's forward FLOPs per token there (where the curves meet).
    pub flops_per_token: f64,
    /// Whether it falls inside the chart's x range (else only the caption mentions it).
    pub on_chart: bool,
}

/// The "FLOPs per token vs sequence length" chart.
#[derive(Clone, Debug, PartialEq)]
pub struct SeqLenChart {
    /// Caption.
    pub title: String,
    /// How attention is counted here (the selected convention, or MaxText's for 6·N·D,
    /// which ignores attention).
    pub attention_convention: FlopConvention,
    /// Set when the chart does not use the selected convention, saying why.
    pub note: Option<String>,
    /// Sequence-length axis (log base 4: 256, 1K, 4K, ...).
    pub x: LogTicks,
    /// FLOPs axis (log base 10).
    pub y: LogTicks,
    /// Dot-product attention, attention projections, MLP, unembedding.
    pub lines: Vec<Line>,
    /// Where attention overtakes the MLP, if it ever does (up to 2^30 tokens).
    pub crossover: Option<Crossover>,
}

/// Sequence lengths sampled: 256 · 2^(k/4) up to 2^20.
#[must_use]
pub fn sample_lengths() -> Vec<u64> {
    let octaves = (MAX_SEQ_LEN / MIN_SEQ_LEN).ilog2() * POINTS_PER_OCTAVE;
    (0..=octaves)
        .map(|k| {
            let t = MIN_SEQ_LEN as f64 * 2f64.powf(f64::from(k) / f64::from(POINTS_PER_OCTAVE));
            // Between 256 and 2^20: the cast is exact enough and cannot overflow.
            t.round() as u64
        })
        .collect()
}

/// Builds the chart for model `m`, counting attention as `convention` does.
#[must_use]
pub fn flops_vs_seq_len_chart(m: &ModelConfig, convention: FlopConvention) -> SeqLenChart {
    let (used, note) = if convention.attention_counting() == AttentionCounting::Ignored {
        (
            FlopConvention::MaxText,
            Some(format!(
                "{} ignores dot-product attention, so attention is drawn as {} counts it.",
                convention.label(),
                FlopConvention::MaxText.label()
            )),
        )
    } else {
        (convention, None)
    };
    let samples = flops_vs_seq_len(m, &sample_lengths(), used);
    let mlp_name = if m.moe.is_some() { "MLP (dense + active experts + router)" } else { "MLP" };
    let series: [(&str, Rgb, Pick); 4] = [
        ("dot-product attention", theme::VERMILLION, |p| p.attention_dot),
        ("attention projections", theme::BLUE, |p| p.attention_projections),
        (mlp_name, theme::GREEN, |p| p.mlp),
        ("unembedding", theme::PURPLE, |p| p.unembedding),
    ];
    let lines: Vec<Line> = series
        .iter()
        .map(|(name, color, value)| Line {
            name: (*name).to_string(),
            color: *color,
            points: samples
                .iter()
                .map(|p| (p.seq_len as f64, value(p)))
                .filter(|(_, y)| y.is_finite() && *y > 0.0)
                .collect(),
        })
        .collect();
    let ys = lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
    let (lo, hi) = ys.fold((f64::INFINITY, 0.0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let crossover = attention_crossover(m, used).map(|t| {
        let at = flops_vs_seq_len(m, &[t], used);
        Crossover {
            seq_len: t,
            flops_per_token: at.first().map_or(0.0, |p| p.mlp),
            on_chart: (MIN_SEQ_LEN..=MAX_SEQ_LEN).contains(&t),
        }
    });
    SeqLenChart {
        title: format!("Forward FLOPs per token vs sequence length — {}, attention as {}", m.name, used.label()),
        attention_convention: used,
        note,
        x: log_ticks(MIN_SEQ_LEN as f64, MAX_SEQ_LEN as f64, 4.0, 12),
        y: log_ticks(lo, hi, 10.0, 12),
        lines,
        crossover,
    }
}

impl SeqLenChart {
    /// Pixel size (width × height).
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (theme::WIDTH, 460)
    }

    /// One sentence about the crossover, for the caption under the chart.
    #[must_use]
    pub fn crossover_text(&self) -> String {
        match &self.crossover {
            Some(c) => format!(
                "Dot-product attention costs more per token than the MLP from {} tokens{}.",
                format::thousands(c.seq_len),
                if c.on_chart { "" } else { " (off this chart)" }
            ),
            None => "Dot-product attention never costs more per token than the MLP (up to 2^30 tokens).".into(),
        }
    }
}

impl SeqLenChart {
    /// The chart laid out in pixels: caption and legend above the plot (never covering a
    /// curve), log–log axes, the curves, and the crossover marked with a dashed line.
    #[must_use]
    pub fn scene(&self) -> Scene {
        let (w, h) = self.size();
        let mut scene = Scene::new(w, h, &self.title);
        let legend: Vec<LegendEntry> = self
            .lines
            .iter()
            .map(|l| LegendEntry { name: l.name.clone(), color: l.color, swatch: Swatch::Line(None) })
            .collect();
        let top = header(&mut scene, &self.title, &[legend]);
        // Both axes sit on exact ticks, so the labels can be computed from the values.
        let x_fmt = |v: f64| format::tokens(v.round().max(0.0) as u64);
        let y_fmt = |v: f64| format::si(v);
        let frame = frame::lay_out(
            &mut scene,
            top,
            &FrameSpec {
                margin: (0.0, 24.0, 12.0, 12.0),
                x_label_area: 44.0,
                y_label_area: 64.0,
                x: TickedAxis::log(self.x.min, self.x.max, self.x.values.clone()),
                y: TickedAxis::log(self.y.min, self.y.max, self.y.values.clone()),
                x_desc: "sequence length (tokens, log scale)",
                y_desc: "forward FLOP per token (log)",
                x_label: &x_fmt,
                y_label: &y_fmt,
                x_grid: true,
                y_grid: true,
            },
        );
        for line in &self.lines {
            scene.line(line.points.iter().map(|&(x, y)| frame.px(x, y)).collect(), line.color, 2.0, None);
        }
        if let Some(c) = self.crossover.as_ref().filter(|c| c.on_chart) {
            let x = c.seq_len as f64;
            let ((px, top), (_, bottom)) = (frame.px(x, self.y.max), frame.px(x, self.y.min));
            scene.line(vec![(px, top), (px, bottom)], theme::VERMILLION, 1.0, Some((6.0, 4.0)));
            scene.circle(frame.px(x, c.flops_per_token), 4.0, Some(theme::VERMILLION), None);
            // Label on the side with more room.
            let (anchor, dx) = if c.seq_len > 1 << 15 { (Anchor::End, 0.87) } else { (Anchor::Start, 1.15) };
            let text = format!("attention > MLP from {} tokens", format::thousands(c.seq_len));
            scene.text(frame.px(x * dx, c.flops_per_token * 1.3), text, anchor, Baseline::Bottom);
        }
        scene
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardcalc_core::presets;

    fn model(id: &str) -> ModelConfig {
        presets::get(id).expect("preset exists").config
    }

    #[test]
    fn samples_span_256_to_1m() {
        let s = sample_lengths();
        assert_eq!(s.first(), Some(&256));
        assert_eq!(s.last(), Some(&(1 << 20)));
        assert_eq!(s.len(), 49);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn llama_3_8b_crosses_over_on_the_chart() {
        let c = flops_vs_seq_len_chart(&model("llama-3-8b"), FlopConvention::MaxText);
        let cross = c.crossover.clone().expect("attention overtakes the MLP");
        assert!(cross.on_chart);
        assert_eq!(Some(cross.seq_len), attention_crossover(&model("llama-3-8b"), FlopConvention::MaxText));
        assert_eq!(c.lines.len(), 4);
        assert!(c.lines.iter().all(|l| l.points.len() == 49));
        // Every point is inside the y axis.
        for l in &c.lines {
            for (_, y) in &l.points {
                assert!(*y >= c.y.min && *y <= c.y.max, "{} {y}", l.name);
            }
        }
        assert!(c.crossover_text().contains(&format::thousands(cross.seq_len)));
        assert_eq!(c.x.values.first(), Some(&256.0));
        assert_eq!(c.x.values.last(), Some(&1_048_576.0));
    }

    #[test]
    fn notebook_counts_attention_twice_maxtext() {
        let m = model("llama-3-8b");
        let half = flops_vs_seq_len_chart(&m, FlopConvention::MaxText);
        let full = flops_vs_seq_len_chart(&m, FlopConvention::Notebook);
        let (a, b) = (half.lines[0].points[10].1, full.lines[0].points[10].1);
        assert!((b / a - 2.0).abs() < 1e-9);
        let ch = |c: &SeqLenChart| c.crossover.as_ref().map(|c| c.seq_len);
        assert!(ch(&full) < ch(&half));
    }

    #[test]
    fn six_nd_falls_back_to_maxtext_with_a_note() {
        let c = flops_vs_seq_len_chart(&model("llama-3-8b"), FlopConvention::SixNd);
        assert_eq!(c.attention_convention, FlopConvention::MaxText);
        assert!(c.note.as_deref().is_some_and(|n| n.contains("ignores")));
        assert!(c.lines[0].points.len() == 49);
    }

    #[test]
    fn sliding_windows_flatten_attention() {
        // Every Mistral 7B layer has a W = 4,096-token window. MaxText counts a causal
        // window's area as T·W − W²/2 (maxtext_utils.py), so attention per token is
        // W·(1 − W/2T): past the window it only creeps towards W, by the ratio
        // (1 − 1/512) / (1 − 1/32) from T = 65,536 to T = 1,048,576.
        let c = flops_vs_seq_len_chart(&model("mistral-7b"), FlopConvention::MaxText);
        let dot = &c.lines[0].points;
        let at = |t: f64| dot.iter().find(|p| p.0 == t).map(|p| p.1).unwrap();
        let ratio = (1.0 - 1.0 / 512.0) / (1.0 - 1.0 / 32.0);
        assert!((at(1_048_576.0) / at(65_536.0) - ratio).abs() < 1e-9, "{} {}", at(65_536.0), at(1_048_576.0));
    }
}
