//! Reusable components: form fields driven by specs (`crate::field_spec`), fields of the
//! sections views edit directly ([`SectionField`]), the model preset picker, the chip and
//! topology picker, field messages, the error summary, a chart canvas with downloads, and a
//! CSV download button.

mod chart_backend;
mod chart_canvas;
mod choice;
mod csv_button;
mod error_summary;
mod field_message;
mod measured_canvas;
mod hardware_picker;
mod number_field;
mod preset_picker;
mod section_field;
mod svg_chart;
mod text_field;

pub use chart_backend::{chart_svg, ChartBackend};
pub use chart_canvas::{draw_chart as chart_canvas_draw, ChartCanvas};
pub use choice::{CheckField, SelectField};
pub use csv_button::CsvButton;
pub use error_summary::ErrorSummary;
pub use field_message::{FieldMessage, FieldMessages};
pub use hardware_picker::HardwarePicker;
pub use number_field::NumberField;
pub use preset_picker::PresetPicker;
pub use section_field::{messages_under, SectionField};
pub use svg_chart::SvgChart;
pub use text_field::TextField;
