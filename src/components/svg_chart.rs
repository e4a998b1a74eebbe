//! A chart shown as inline SVG markup (`shardcalc_charts::markup`), with PNG and SVG
//! downloads: for bar and XY charts on pages that should not link plotters' drawing code
//! (the training page; docs/size.md). The PNG is the same SVG drawn on a canvas by the
//! browser at twice the size.

use leptos::prelude::*;
use shardcalc_charts::markup::chart_markup;
use shardcalc_charts::Chart;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlCanvasElement, HtmlImageElement};

use crate::dom::{download_text, download_url, log_error};

/// Draws `svg` (of `w × h` pixels) on a canvas at twice the size and offers it as
/// `filename`; errors go to the console.
fn download_png(filename: String, svg: String, (w, h): (u32, u32)) -> Result<(), JsValue> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or_else(|| JsValue::from_str("no document"))?;
    let image = HtmlImageElement::new()?;
    let onload_image = image.clone();
    let onload = Closure::once_into_js(move || {
        let result = (|| -> Result<(), JsValue> {
            let canvas: HtmlCanvasElement = document.create_element("canvas")?.dyn_into()?;
            canvas.set_width(2 * w);
            canvas.set_height(2 * h);
            let context: web_sys::CanvasRenderingContext2d =
                canvas.get_context("2d")?.ok_or_else(|| JsValue::from_str("no 2d context"))?.dyn_into()?;
            context.draw_image_with_html_image_element_and_dw_and_dh(&onload_image, 0.0, 0.0, f64::from(2 * w), f64::from(2 * h))?;
            download_url(&filename, &canvas.to_data_url()?)
        })();
        if let Err(e) = result {
            log_error("PNG export", &e);
        }
    });
    image.set_onload(Some(onload.unchecked_ref()));
    let encoded = js_sys::encode_uri_component(&svg);
    image.set_src(&format!("data:image/svg+xml;charset=utf-8,{encoded}"));
    Ok(())
}

/// A figure with `chart` as inline SVG, a caption, and "Download PNG" / "Download SVG"
/// buttons. The markup is rebuilt only when `chart` changes (a memo); the container's
/// `data-draws` attribute counts the renders. Element ids: `id` (the container, role
/// `img`), `{id}-png`, `{id}-svg`.
#[component]
pub fn SvgChart(
    /// Element id of the container; also the stem of downloaded file names.
    id: &'static str,
    /// The chart (a bar or XY chart), or `None` while there is nothing to draw.
    chart: Memo<Option<Chart>>,
    /// Text under the chart.
    #[prop(into)]
    caption: Signal<String>,
) -> impl IntoView {
    // The markup and how many times it was rebuilt (it is rebuilt only when `chart` changes).
    let drawn = Memo::new(move |prev: Option<&(Option<String>, u32)>| {
        let n = prev.map_or(0, |p| p.1);
        chart.with(|c| c.as_ref().and_then(chart_markup)).map_or((None, n), |svg| (Some(svg), n + 1))
    });
    let markup = Memo::new(move |_| drawn.with(|d| d.0.clone()));
    let draws = Memo::new(move |_| drawn.with(|d| d.1));
    let title = move || chart.with(|c| c.as_ref().map(|c| c.title().to_string()).unwrap_or_default());
    let size = move || chart.with_untracked(|c| c.as_ref().map_or((720, 420), Chart::size));
    let on_png = move |_| {
        if let Some(svg) = markup.get_untracked() {
            if let Err(e) = download_png(format!("shardcalc-{id}.png"), svg, size()) {
                log_error("PNG export", &e);
            }
        }
    };
    let on_svg = move |_| {
        if let Some(svg) = markup.get_untracked() {
            if let Err(e) = download_text(&format!("shardcalc-{id}.svg"), "image/svg+xml", &svg) {
                log_error("SVG download", &e);
            }
        }
    };
    view! {
        <figure class="chart">
            <div class="svg-chart" id=id role="img" aria-label=title data-draws=move || draws.get().to_string() inner_html=move || markup.get().unwrap_or_default()></div>
            <figcaption>{move || caption.get()}</figcaption>
            <div class="actions">
                <button type="button" id=format!("{id}-png") on:click=on_png>"Download PNG"</button>
                <button type="button" id=format!("{id}-svg") on:click=on_svg>"Download SVG"</button>
            </div>
        </figure>
    }
}
