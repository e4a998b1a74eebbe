//! A chart laid out as a `shardcalc_charts::scene::Scene`: shown as inline SVG, downloadable
//! as SVG (the same text) and PNG (the same primitives painted on a canvas); and the painting
//! of a scene on a canvas, which [`super::ChartCanvas`] uses for every chart laid out as one.
//!
//! Neither links plotters (about 40 KB gzip of wasm with its charts; docs/size.md).

use leptos::prelude::*;
use shardcalc_charts::scene::{Anchor, Baseline, Item, Scene};
use shardcalc_charts::ChartError;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::dom::{download_text, download_url, log_error};

/// Paints `scene` on a new canvas of its size and returns the canvas.
///
/// # Errors
/// Whatever the browser reports (no document, no 2d context).
pub fn scene_canvas(scene: &Scene) -> Result<HtmlCanvasElement, JsValue> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or_else(|| JsValue::from_str("no document"))?;
    let canvas: HtmlCanvasElement = document.create_element("canvas")?.dyn_into()?;
    canvas.set_width(scene.width);
    canvas.set_height(scene.height);
    let ctx: CanvasRenderingContext2d =
        canvas.get_context("2d")?.ok_or_else(|| JsValue::from_str("no 2d context"))?.dyn_into()?;
    paint(&ctx, scene)?;
    Ok(canvas)
}

/// Paints `scene` on `canvas` (which should have the scene's size): how [`super::ChartCanvas`]
/// draws every chart laid out as a scene.
///
/// # Errors
/// [`ChartError::NoContext`] without a 2d context, [`ChartError::Draw`] when a call fails.
pub fn paint_scene(canvas: &HtmlCanvasElement, scene: &Scene) -> Result<(), ChartError> {
    let ctx: CanvasRenderingContext2d =
        canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into().ok()).ok_or(ChartError::NoContext)?;
    paint(&ctx, scene).map_err(|e| ChartError::draw(format!("{e:?}")))
}

fn paint(ctx: &CanvasRenderingContext2d, scene: &Scene) -> Result<(), JsValue> {
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, f64::from(scene.width), f64::from(scene.height));
    // The font is set only when its size changes: Chrome parses the font string on every
    // `font =` (0.5 ms of a Training page repaint in a CPU profile, its texts being mostly of
    // one size).
    let mut font_size = None;
    for item in &scene.items {
        match item {
            Item::Line { points, color, width, dash } => {
                let pattern = js_sys::Array::new();
                if let Some((on, off)) = dash {
                    pattern.push(&JsValue::from_f64(*on));
                    pattern.push(&JsValue::from_f64(*off));
                }
                ctx.set_line_dash(&pattern)?;
                ctx.set_stroke_style_str(&color.hex());
                ctx.set_line_width(*width);
                ctx.begin_path();
                for (i, (x, y)) in points.iter().enumerate() {
                    if i == 0 {
                        ctx.move_to(*x, *y);
                    } else {
                        ctx.line_to(*x, *y);
                    }
                }
                ctx.stroke();
            }
            Item::Circle { at, r, fill, stroke } => {
                ctx.set_line_dash(&js_sys::Array::new())?;
                ctx.begin_path();
                ctx.arc(at.0, at.1, *r, 0.0, std::f64::consts::TAU)?;
                if let Some(f) = fill {
                    ctx.set_fill_style_str(&f.hex());
                    ctx.fill();
                }
                if let Some((c, w)) = stroke {
                    ctx.set_stroke_style_str(&c.hex());
                    ctx.set_line_width(*w);
                    ctx.stroke();
                }
            }
            Item::Rect { from, to, fill } => {
                ctx.set_fill_style_str(&fill.hex());
                ctx.fill_rect(from.0, from.1, to.0 - from.0, to.1 - from.1);
            }
            Item::Text { at, text, size, color, anchor, baseline, vertical } => {
                if font_size != Some(*size) {
                    ctx.set_font(&format!("{}px sans-serif", shardcalc_core::decimal::shortest(*size)));
                    font_size = Some(*size);
                }
                ctx.set_fill_style_str(&color.hex());
                ctx.set_text_align(match anchor {
                    Anchor::Start => "left",
                    Anchor::Middle => "center",
                    Anchor::End => "right",
                });
                ctx.set_text_baseline(match baseline {
                    Baseline::Top => "top",
                    Baseline::Middle => "middle",
                    Baseline::Bottom => "alphabetic",
                });
                if *vertical {
                    ctx.save();
                    ctx.translate(at.0, at.1)?;
                    ctx.rotate(-std::f64::consts::FRAC_PI_2)?;
                    ctx.fill_text(text, 0.0, 0.0)?;
                    ctx.restore();
                } else {
                    ctx.fill_text(text, at.0, at.1)?;
                }
            }
        }
    }
    Ok(())
}

/// A laid-out chart and the caption under it (one memo per chart holds both).
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// The chart.
    pub scene: Scene,
    /// Text under the chart.
    pub caption: String,
}

/// A figure showing a scene as inline SVG (in a `<div id=id>`), its caption, and "Download
/// PNG" / "Download SVG" buttons (`{id}-png`, `{id}-svg`). The SVG is replaced only when the
/// figure changes (it is a memo).
#[component]
pub fn SceneChart(
    /// Element id of the chart's container; also the stem of downloaded file names.
    id: &'static str,
    /// The chart and its caption, or `None` while there is nothing to draw.
    figure: Memo<Option<Figure>>,
) -> impl IntoView {
    let scene = figure;
    let svg = move || figure.with(|f| f.as_ref().map(|f| f.scene.to_svg()).unwrap_or_default());
    let title = move || figure.with(|f| f.as_ref().map(|f| f.scene.title.clone()).unwrap_or_default());
    let caption = move || figure.with(|f| f.as_ref().map(|f| f.caption.clone()).unwrap_or_default());
    let download_png = move |_| {
        let Some(result) = scene.with_untracked(|f| f.as_ref().map(|f| scene_canvas(&f.scene))) else { return };
        match result.and_then(|canvas| canvas.to_data_url()) {
            Ok(url) => {
                if let Err(e) = download_url(&format!("shardcalc-{id}.png"), &url) {
                    log_error("PNG download", &e);
                }
            }
            Err(e) => log_error("PNG export", &e),
        }
    };
    let download_svg = move |_| {
        let Some(svg) = scene.with_untracked(|f| f.as_ref().map(|f| f.scene.to_svg())) else { return };
        if let Err(e) = download_text(&format!("shardcalc-{id}.svg"), "image/svg+xml", &svg) {
            log_error("SVG download", &e);
        }
    };
    view! {
        <figure class="chart">
            <div id=id class="scene-chart" role="img" aria-label=title inner_html=svg></div>
            <figcaption>{caption}</figcaption>
            <div class="actions">
                <button type="button" id=format!("{id}-png") on:click=download_png>"Download PNG"</button>
                <button type="button" id=format!("{id}-svg") on:click=download_svg>"Download SVG"</button>
            </div>
        </figure>
    }
}
