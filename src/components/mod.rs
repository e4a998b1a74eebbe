//! Reusable components: form fields driven by specs (`crate::field_spec`), fields of the
//! sections views edit directly ([`SectionField`]), the model preset picker, the chip and
//! topology picker, field messages, the error summary, a chart canvas with downloads (and
//! [`SceneChart`], an SVG chart that links no plotters), a CSV download button, and the
//! ideal/calibrated prediction switch and the uncertainty band line under a headline number.

mod band_line;
mod chart_backend;
mod chart_canvas;
mod choice;
mod csv_button;
mod error_summary;
mod field_message;
mod hardware_picker;
mod measured_canvas;
mod number_field;
mod prediction_switch;
mod preset_picker;
mod scene_chart;
mod section_field;
mod text_field;

pub use band_line::band_text;
pub use chart_backend::DrawableChart;
pub use chart_canvas::{draw_chart as chart_canvas_draw, ChartCanvas};
pub use choice::{CheckField, SelectField};
pub use csv_button::CsvButton;
pub use error_summary::ErrorSummary;
pub use field_message::{names_field, FieldMessage, FieldMessages};
pub use hardware_picker::{parse_shape, shape_of, topology_for, HardwarePicker};
pub use measured_canvas::MeasuredCanvas;
pub use number_field::NumberField;
pub use prediction_switch::PredictionSwitch;
pub use preset_picker::{PresetInfo, PresetPicker, PresetSelect};
pub use scene_chart::{scene_canvas, Figure, SceneChart};
pub use section_field::{messages_under, SectionField};
pub use text_field::TextField;
