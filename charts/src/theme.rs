//! Colours and type of every chart, in one place. The palette is Okabe–Ito, which stays
//! distinguishable with the common colour-vision deficiencies.

use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::{
    ChartContext, Color, DrawingArea, DrawingBackend, IntoFont, Rectangle, SeriesLabelPosition, Text, WHITE,
};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontFamily, RGBColor};

use crate::ChartError;

/// A colour as data (comparable, so chart data can live in a memo).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// The plotters colour.
    #[must_use]
    pub fn plotters(self) -> RGBColor {
        RGBColor(self.0, self.1, self.2)
    }

    /// `#rrggbb`, for the page's legends and tests.
    #[must_use]
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// Blue: totals, forward passes, attention projections.
pub const BLUE: Rgb = Rgb(0x00, 0x72, 0xb2);
/// Orange: active parameters.
pub const ORANGE: Rgb = Rgb(0xe6, 0x9f, 0x00);
/// Sky blue: backward passes.
pub const SKY: Rgb = Rgb(0x56, 0xb4, 0xe9);
/// Green: the MLP.
pub const GREEN: Rgb = Rgb(0x00, 0x9e, 0x73);
/// Vermillion: dot-product attention.
pub const VERMILLION: Rgb = Rgb(0xd5, 0x5e, 0x00);
/// Reddish purple: the unembedding.
pub const PURPLE: Rgb = Rgb(0xcc, 0x79, 0xa7);
/// Yellow: pipeline sends.
pub const YELLOW: Rgb = Rgb(0xf0, 0xe4, 0x42);
/// Grey: idle time, configurations that do not fit.
pub const GREY: Rgb = Rgb(0x99, 0x99, 0x99);
/// Axis text and marks.
pub const INK: Rgb = Rgb(0x1d, 0x23, 0x30);
/// Grid lines.
pub const GRID: Rgb = Rgb(0xe3, 0xe6, 0xeb);

/// Font family: the browser's or the SVG viewer's sans-serif (no web fonts). A
/// [`FontFamily`] rather than the string `"sans-serif"`: plotters reads a font name with
/// `str::to_lowercase`, which links Rust's Unicode case tables into the page (about 5 KB of
/// gzipped wasm; docs/size.md). The SVG text is the same (`font-family="sans-serif"`).
pub const FONT: FontFamily<'static> = FontFamily::SansSerif;
/// Caption size in pixels.
pub const CAPTION_PX: u32 = 16;
/// Axis labels and legend size in pixels.
pub const LABEL_PX: u32 = 12;
/// Approximate width of one label character at [`LABEL_PX`], for sizing label areas.
pub const LABEL_CHAR_PX: u32 = 7;
/// Width of every chart in pixels.
pub const WIDTH: u32 = 720;

/// Draws the legend of every labelled series at `position`, in the house style.
///
/// Costs the page about 5 KB of gzipped wasm the first time a chart uses it: plotters' series
/// labels name their default font by string, which links Rust's Unicode case tables. Prefer
/// [`draw_header`]'s legend strip (the model view's charts all use it).
///
/// # Errors
/// [`ChartError::Draw`] when the backend fails.
pub fn draw_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    ctx: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), ChartError> {
    ctx.configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.9))
        .border_style(GRID.plotters())
        .label_font((FONT, LABEL_PX).into_font().color(&INK.plotters()))
        .draw()
        .map_err(ChartError::draw)
}

/// Height of the strip [`draw_header`] fills: the caption and one row of legend entries.
pub const HEADER_PX: u32 = 52;

/// Draws the caption centred at the top of `area` and, under it, one legend entry (a colour
/// swatch and its name) per series, left to right, so the legend never covers the data.
///
/// # Errors
/// [`ChartError::Draw`] when the backend fails.
pub fn draw_header<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    entries: &[(&str, Rgb)],
) -> Result<(), ChartError> {
    let ink = INK.plotters();
    let (width, _) = area.dim_in_pixel();
    let centre = i32::try_from(width / 2).unwrap_or(0);
    let caption = (FONT, CAPTION_PX).into_font().color(&ink).pos(Pos::new(HPos::Center, VPos::Top));
    area.draw(&Text::new(title.to_string(), (centre, 8), caption)).map_err(ChartError::draw)?;
    let label = (FONT, LABEL_PX).into_font().color(&ink).pos(Pos::new(HPos::Left, VPos::Center));
    let (y, mut x) = (38, 16);
    for (name, color) in entries {
        area.draw(&Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.plotters().filled()))
            .map_err(ChartError::draw)?;
        area.draw(&Text::new((*name).to_string(), (x + 18, y), label.clone())).map_err(ChartError::draw)?;
        let (w, _) = area.estimate_text_size(name, &label).map_err(ChartError::draw)?;
        x += 18 + i32::try_from(w).unwrap_or(0) + 24;
    }
    Ok(())
}
