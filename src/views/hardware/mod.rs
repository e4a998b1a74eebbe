//! The hardware & collectives view (book chapters 1-3): pick or define a chip and a
//! topology on the left; its spec table with sources, derived numbers, the roofline of an
//! op and the cost of collectives on the right. Every input is a field of
//! `shardcalc_core::field` ([`inputs`]); the results are the sections of
//! `shardcalc_core::report_hardware` ([`derived`]: one memo each, so an edit of a collective
//! recomputes only the collectives), each table one `Table` shown and exported ([`tables`]).

mod collectives_section;
pub mod derived;
mod derived_numbers;
mod inputs;
mod roofline_section;
mod spec_table;
pub mod tables;
pub mod units;

pub use derived::Derived;

use leptos::prelude::*;
use shardcalc_core::view::hardware::with_defaults as with_hardware_defaults;

use crate::components::HardwarePicker;
use crate::state::use_app_state;

/// Why a section has no result (`#<id>`), when it has none.
fn problem(id: &'static str, message: Option<String>) -> Option<impl IntoView> {
    message.map(|m| view! { <p class="field-error" id=id>{m}</p> })
}

/// The two-column hardware view (stacked on narrow screens).
#[component]
pub fn HardwareView() -> impl IntoView {
    let state = use_app_state();
    // A scenario without hardware, or without a roofline op, is shown with the page's
    // defaults (the book's v5e examples); they are not shared with other pages until the
    // user edits something (`AppState::use_defaults`).
    state.use_defaults(with_hardware_defaults);
    let derived = Derived::new(state);
    view! {
        <div class="columns hardware-view">
            <section class="inputs" aria-labelledby="hw-inputs-heading">
                <h2 id="hw-inputs-heading">"Chip and topology"</h2>
                <HardwarePicker />
                <inputs::HardwareInputs />
            </section>
            <section class="results" aria-labelledby="hw-results-heading">
                <h2 id="hw-results-heading">"Hardware, rooflines and collectives"</h2>
                <spec_table::SpecSection derived=derived />
                <derived_numbers::DerivedNumbers derived=derived />
                <roofline_section::RooflineSection derived=derived />
                <collectives_section::CollectivesSection derived=derived />
            </section>
        </div>
    }
}
