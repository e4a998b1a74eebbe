//! shardcalc in the browser: a thin Leptos (client-side rendered) shell over `shardcalc-core`.
//!
//! Placeholder page: one input, one result, one chart. It exists so that the build, the
//! wasm-bindgen tests (`tests/web.rs`) and the browser e2e test (`tests/e2e/`) have something
//! real to exercise; the real app replaces it.
#![forbid(unsafe_code)]

use std::fmt;

use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use shardcalc_core::placeholder_describe;
use web_sys::HtmlCanvasElement;

/// Value shown in `#seq-len` when the page loads.
pub const INITIAL_SEQ_LEN: f64 = 4096.0;

/// Mounts [`App`] on `<body>`; called by the `shardcalc-web` binary that trunk builds.
pub fn start() {
    // With panic = "abort" a panic would otherwise surface only as "unreachable" in the console.
    std::panic::set_hook(Box::new(|info| gloo::console::error!(info.to_string())));
    leptos::mount::mount_to_body(App);
}

/// The whole page: a sequence-length input, the text result and a chart of it.
#[component]
pub fn App() -> impl IntoView {
    let (seq_len, set_seq_len) = signal(INITIAL_SEQ_LEN);
    let canvas = NodeRef::<leptos::html::Canvas>::new();

    // Redraw whenever the canvas is mounted or seq_len changes.
    Effect::new(move |_| {
        let seq_len = seq_len.get();
        if let Some(canvas) = canvas.get() {
            if let Err(err) = draw(&canvas, seq_len) {
                gloo::console::error!(err.to_string());
            }
        }
    });

    // Uncontrolled input (`value`, not `prop:value`): writing the property back on every
    // keystroke resets the caret in Chromium.
    let on_input = move |ev| {
        if let Ok(x) = event_target_value(&ev).trim().parse::<f64>() {
            set_seq_len.set(x);
        }
    };

    view! {
        <main class="page">
            <h1>"shardcalc"</h1>
            <div class="field">
                <label for="seq-len">"Sequence length (tokens)"</label>
                <input id="seq-len" type="number" min="1" step="1"
                    value=INITIAL_SEQ_LEN.to_string() on:input=on_input />
            </div>
            <output id="result" for="seq-len">{move || placeholder_describe(seq_len.get())}</output>
            <canvas id="chart" node_ref=canvas width="640" height="360"></canvas>
        </main>
    }
}

/// Why [`draw`] could not draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChartError {
    /// The canvas has no 2d context (e.g. it already has a WebGL one).
    NoContext,
    /// plotters reported an error while drawing.
    Draw(String),
}

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChartError::NoContext => write!(f, "chart: the canvas has no 2d context"),
            ChartError::Draw(msg) => write!(f, "chart: {msg}"),
        }
    }
}

impl std::error::Error for ChartError {}

fn draw_error(err: impl fmt::Display) -> ChartError {
    ChartError::Draw(err.to_string())
}

/// Draws the relative attention cost, `(x / seq_len)²`, for x from 0 to `seq_len` tokens.
///
/// # Errors
/// [`ChartError`] when the canvas has no 2d context or plotters fails to draw.
pub fn draw(canvas: &HtmlCanvasElement, seq_len: f64) -> Result<(), ChartError> {
    const POINTS: u32 = 64;
    let x_max = if seq_len.is_finite() && seq_len >= 1.0 {
        seq_len
    } else {
        1.0
    };

    let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or(ChartError::NoContext)?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(draw_error)?;

    let mut chart = ChartBuilder::on(&root)
        .caption("Attention cost grows with seq_len²", ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0.0..x_max, 0.0..1.0)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc("tokens")
        .y_desc("relative cost")
        .draw()
        .map_err(draw_error)?;
    let curve = (0..=POINTS).map(|i| {
        let x = x_max * f64::from(i) / f64::from(POINTS);
        (x, (x / x_max).powi(2))
    });
    chart
        .draw_series(LineSeries::new(curve, BLUE.stroke_width(2)))
        .map_err(draw_error)?;
    root.present().map_err(draw_error)
}
