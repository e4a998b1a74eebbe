//! Forward FLOPs per token versus sequence length on log–log axes, with the length where
//! dot-product attention overtakes the MLP marked (book 4.3). Data first, drawing below.

use crate::axis::TickedAxis;
use crate::format;
use crate::frame::{Frame, FrameSpec};
use crate::theme::{self, Rgb};
use crate::ticks::{log_ticks, LogTicks};
use crate::ChartError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
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

/// Draws a [`SeqLenChart`] on `area` (any plotters backend).
///
/// # Errors
/// [`ChartError::Draw`] when the backend fails.
pub fn draw_seq_len<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &SeqLenChart) -> Result<(), ChartError> {
    area.fill(&WHITE).map_err(ChartError::draw)?;
    // Caption and legend in a strip above the plot, as for the bar charts (never covering a curve).
    let (header, body) = area.split_vertically(theme::HEADER_PX);
    let entries: Vec<(&str, Rgb)> = chart.lines.iter().map(|l| (l.name.as_str(), l.color)).collect();
    theme::draw_header(&header, &chart.title, &entries)?;
    // Both axes sit on exact ticks, so the labels can be computed from the values.
    let x_fmt = |v: f64| format::tokens(v.round().max(0.0) as u64);
    let y_fmt = |v: f64| format::si(v);
    let frame = Frame::draw(
        &body,
        &FrameSpec {
            margin: (4, 24, 12, 12),
            x_label_area: 44,
            y_label_area: 64,
            x: TickedAxis::log(chart.x.min, chart.x.max, chart.x.values.clone()),
            y: TickedAxis::log(chart.y.min, chart.y.max, chart.y.values.clone()),
            x_desc: "sequence length (tokens, log scale)",
            y_desc: "forward FLOP per token (log)",
            x_label: &x_fmt,
            y_label: &y_fmt,
            x_grid: true,
            y_grid: true,
        },
    )?;
    for line in &chart.lines {
        let points: Vec<(i32, i32)> = line.points.iter().map(|&p| frame.point(p)).collect();
        body.draw(&PathElement::new(points, line.color.plotters().stroke_width(2))).map_err(ChartError::draw)?;
    }
    if let Some(c) = chart.crossover.as_ref().filter(|c| c.on_chart) {
        let x = c.seq_len as f64;
        let mark = theme::VERMILLION.plotters();
        // A dashed vertical line: 6 pixels drawn, 4 left out.
        let (px, top) = frame.point((x, chart.y.max));
        let (_, bottom) = frame.point((x, chart.y.min));
        let mut y = top;
        while y < bottom {
            body.draw(&PathElement::new(vec![(px, y), (px, (y + 6).min(bottom))], mark.stroke_width(1)))
                .map_err(ChartError::draw)?;
            y += 10;
        }
        body.draw(&Circle::new(frame.point((x, c.flops_per_token)), 4, mark.filled())).map_err(ChartError::draw)?;
        // Label on the side with more room.
        let (h, dx) = if c.seq_len > 1 << 15 { (HPos::Right, 0.87) } else { (HPos::Left, 1.15) };
        let text = format!("attention > MLP from {} tokens", format::thousands(c.seq_len));
        let style =
            (theme::FONT, theme::LABEL_PX).into_font().color(&theme::INK.plotters()).pos(Pos::new(h, VPos::Bottom));
        body.draw(&Text::new(text, frame.point((x * dx, c.flops_per_token * 1.3)), style)).map_err(ChartError::draw)?;
    }
    area.present().map_err(ChartError::draw)
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
