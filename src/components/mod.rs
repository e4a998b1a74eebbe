//! Reusable components: one [`Field`] for every input (driven by `shardcalc_core::field`),
//! one [`DataTable`] for every result table and [`TableExports`] for its downloads, the model
//! preset picker, the chip and topology picker, the error summary, a chart canvas with
//! downloads (and [`SceneChart`], an SVG chart that links no plotters), and the
//! ideal/calibrated prediction switch, the uncertainty band line under a headline number and
//! the note over results that are stale.

mod band_line;
mod chart_backend;
mod chart_canvas;
mod data_table;
mod error_summary;
mod field;
mod hardware_picker;
mod measured_canvas;
mod prediction_switch;
mod preset_picker;
mod scene_chart;
mod stale_note;
mod table_exports;

pub use band_line::band_text;
pub use chart_backend::DrawableChart;
pub use chart_canvas::{draw_chart as chart_canvas_draw, ChartCanvas};
pub use data_table::{CellIds, DataTable, RowAction, RowIds};
pub use error_summary::ErrorSummary;
pub use field::{element_id, options_view, Field, Fields, PlanProblems, ProblemBox, SubsetField};
pub use hardware_picker::HardwarePicker;
pub use measured_canvas::MeasuredCanvas;
pub use prediction_switch::PredictionSwitch;
pub use preset_picker::{PresetInfo, PresetPicker, PresetSelect};
pub use scene_chart::{scene_canvas, Figure, SceneChart};
pub use stale_note::StaleNote;
pub use table_exports::TableExports;
