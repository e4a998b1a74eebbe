//! A chart on a `<canvas>`, redrawn only when its data change, with PNG and SVG downloads.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use shardcalc_charts::ChartError;
use web_sys::HtmlCanvasElement;

use super::chart_backend::DrawableChart;
use super::measured_canvas::MeasuredCanvas;
use crate::delegated::{register, show_failure};
use crate::dom::{download_text, download_url, log_error};
use crate::html_text::attr;
use crate::state::{use_app_state, AppState};
use crate::worker_client::{self, Reply, Request};

/// Draws `chart` on `canvas`, sizing the canvas to the chart first.
///
/// # Errors
/// [`ChartError`] when the canvas has no 2d context or plotters fails.
pub fn draw_chart<T: DrawableChart>(canvas: &HtmlCanvasElement, chart: &T) -> Result<(), ChartError> {
    let (w, h) = chart.size();
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    let backend = MeasuredCanvas::new(canvas.clone()).ok_or(ChartError::NoContext)?;
    chart.draw_on(&backend.into_drawing_area())
}

/// A figure with a canvas showing `chart`, a caption, and "Download PNG" / "Download SVG"
/// buttons (`#<id>-png`, `#<id>-svg`: `shardcalc-<id>.png`, `shardcalc-<id>.svg`). The chart
/// is drawn when the canvas mounts and whenever `chart` changes (it is a memo, so equal data
/// never redraws); the canvas's `data-draws` attribute counts the draws. A drawing or SVG
/// export that fails says why under the caption (`#<id>-export-error`). `T` is any [`DrawableChart`]:
/// `shardcalc_charts::Chart`, or one kind of chart alone.
///
/// The SVG is rendered by the background worker (`crate::worker_client`) from the page's
/// scenario and the chart's catalog entry (`shardcalc_charts::catalog`, name = `id` without
/// `chart-`), so the chart must be in the catalog; the page itself links no SVG code.
/// Its embed name is `id` without `chart-` (`?embed=seq-len` shows `#chart-seq-len` alone).
/// The buttons are HTML text handled by the page's one delegated click handler
/// ([`crate::delegated`]); only the drawing depends on `T`.
#[component]
pub fn ChartCanvas<T: DrawableChart>(
    /// Element id of the canvas; also the stem of downloaded file names.
    id: &'static str,
    /// The chart, or `None` while there is nothing to draw.
    chart: Memo<Option<T>>,
    /// Text under the chart (explanations, notes); may change with the chart.
    #[prop(into)]
    caption: Signal<String>,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    Effect::new(move |draws: Option<u32>| {
        let draws = draws.unwrap_or(0);
        let Some(el) = canvas.get() else { return draws };
        chart.with(|c| match c {
            Some(c) => {
                let failed = draw_chart(&el, c).err().map(|e| e.to_string());
                show_chart_failure(id, failed.as_deref());
                let _ = el.set_attribute("data-draws", &(draws + 1).to_string());
                draws + 1
            }
            None => draws,
        })
    });
    let title = Signal::derive(move || chart.with(|c| c.as_ref().map(DrawableChart::title).unwrap_or_default()));
    figure(id, canvas, title, caption)
}

/// The figure around the canvas, the same for every kind of chart (so compiled once).
fn figure(id: &'static str, canvas: NodeRef<Canvas>, title: Signal<String>, caption: Signal<String>) -> AnyView {
    let embedded = crate::embed::register(id.strip_prefix("chart-").unwrap_or(id).to_string());
    let state = use_app_state();
    let (png, svg) = (format!("{id}-png"), format!("{id}-svg"));
    let buttons = format!(
        r#"<button type="button"{}>Download PNG</button><button type="button"{}>Download SVG</button>"#,
        attr("id", &png),
        attr("id", &svg),
    );
    register(vec![png, svg], move |button| {
        if button.id().ends_with("-png") {
            download_png(id, canvas);
        } else {
            download_svg(id, state);
        }
    });
    view! {
        <figure class=if embedded { "chart embed-target" } else { "chart" }>
            <canvas id=id node_ref=canvas role="img" aria-label=title width="720" height="360"></canvas>
            <figcaption>{caption}</figcaption>
            <div class="actions" inner_html=buttons></div>
        </figure>
    }
    .into_any()
}

/// Shows `failure` under the caption of the chart `#<id>` (`#<id>-export-error`, before the
/// buttons), or clears it.
fn show_chart_failure(id: &str, failure: Option<&str>) {
    let actions = document().get_element_by_id(&format!("{id}-png")).and_then(|b| b.parent_node());
    let figure = actions.as_ref().and_then(web_sys::Node::parent_node);
    show_failure(&format!("{id}-export-error"), "p", true, failure, figure, actions);
}

/// Offers the canvas as `shardcalc-<id>.png`.
fn download_png(id: &str, canvas: NodeRef<Canvas>) {
    let Some(el) = canvas.get_untracked() else { return };
    match el.to_data_url() {
        Ok(url) => {
            if let Err(e) = download_url(&format!("shardcalc-{id}.png"), &url) {
                log_error("PNG download", &e);
            }
        }
        Err(e) => log_error("PNG export", &e),
    }
}

/// Asks the worker for the chart `#<id>` of the page's scenario as SVG and offers it as
/// `shardcalc-<id>.svg`; a failure is shown under the chart.
fn download_svg(id: &'static str, state: AppState) {
    let name = id.strip_prefix("chart-").unwrap_or(id).to_string();
    let Some(link) = state.scenario.try_with_untracked(shardcalc_core::permalink::encode) else { return };
    show_chart_failure(id, None);
    worker_client::call(Request::Svg { name, link }, move |reply| match reply {
        Reply::Svg(svg) => {
            if let Err(e) = download_text(&format!("shardcalc-{id}.svg"), "image/svg+xml", &svg) {
                log_error("SVG download", &e);
            }
        }
        Reply::Failed(errors) => show_chart_failure(id, Some(&format!("SVG export failed: {}", errors.join("; ")))),
        Reply::Imported { .. } | Reply::Searched { .. } => {}
    });
}
