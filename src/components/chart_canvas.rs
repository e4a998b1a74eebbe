//! A chart on a `<canvas>`, redrawn only when its data change, with PNG and SVG downloads.

use leptos::html::Canvas;
use leptos::prelude::*;
use shardcalc_charts::ChartError;
use web_sys::HtmlCanvasElement;

use super::chart_backend::DrawableChart;
use crate::dom::{download_text, download_url, log_error};
use crate::state::{use_app_state, AppState};
use crate::worker_client::{self, Reply, Request};

/// Draws `chart` on `canvas`, sizing the canvas to the chart first.
///
/// # Errors
/// [`ChartError`] when the canvas has no 2d context or a drawing call fails.
pub fn draw_chart<T: DrawableChart>(canvas: &HtmlCanvasElement, chart: &T) -> Result<(), ChartError> {
    let (w, h) = chart.size();
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    chart.draw_on(canvas)
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
/// Only the drawing depends on `T`: the figure around it is compiled once.
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
    let failure = RwSignal::new(None::<String>);
    Effect::new(move |draws: Option<u32>| {
        let draws = draws.unwrap_or(0);
        let Some(el) = canvas.get() else { return draws };
        chart.with(|c| match c {
            Some(c) => {
                failure.set(draw_chart(&el, c).err().map(|e| e.to_string()));
                let _ = el.set_attribute("data-draws", &(draws + 1).to_string());
                draws + 1
            }
            None => draws,
        })
    });
    let title = Signal::derive(move || chart.with(|c| c.as_ref().map(DrawableChart::title).unwrap_or_default()));
    figure(id, canvas, title, caption, failure)
}

/// The figure around the canvas, the same for every kind of chart (so compiled once):
/// the caption, a drawing or export failure (`#<id>-export-error`), and the buttons.
fn figure(
    id: &'static str,
    canvas: NodeRef<Canvas>,
    title: Signal<String>,
    caption: Signal<String>,
    failure: RwSignal<Option<String>>,
) -> AnyView {
    let embedded = crate::embed::register(id.strip_prefix("chart-").unwrap_or(id).to_string());
    let state = use_app_state();
    view! {
        <figure class=if embedded { "chart embed-target" } else { "chart" }>
            <canvas id=id node_ref=canvas role="img" aria-label=title width="720" height="360"></canvas>
            <figcaption>{caption}</figcaption>
            {move || failure.get().map(|f| view! { <p class="field-error" id=format!("{id}-export-error") role="alert">{f}</p> })}
            <div class="actions">
                <button type="button" id=format!("{id}-png") on:click=move |_| download_png(id, canvas)>
                    "Download PNG"
                </button>
                <button type="button" id=format!("{id}-svg") on:click=move |_| download_svg(id, state, failure)>
                    "Download SVG"
                </button>
            </div>
        </figure>
    }
    .into_any()
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
fn download_svg(id: &'static str, state: AppState, failure: RwSignal<Option<String>>) {
    let name = id.strip_prefix("chart-").unwrap_or(id).to_string();
    let Some(link) = state.scenario.try_with_untracked(|s| state.permalink(s)) else { return };
    failure.set(None);
    worker_client::call(Request::Svg { name, link }, move |reply| match reply {
        Reply::Svg(svg) => {
            if let Err(e) = download_text(&format!("shardcalc-{id}.svg"), "image/svg+xml", &svg) {
                log_error("SVG download", &e);
            }
        }
        // The reply comes later: the chart may be gone by then.
        Reply::Failed(errors) => {
            failure.try_set(Some(format!("SVG export failed: {}", errors.join("; "))));
        }
        Reply::Imported { .. } | Reply::Run { .. } | Reply::Compared { .. } | Reply::Searched { .. } => {}
    });
}
