//! The "roofline (ideal)" / "calibrated" switch: the field `conventions.prediction`, so it
//! lives in the link. Any view whose numbers come from the training planner or the serving
//! model can show it.

use leptos::prelude::*;
use shardcalc_core::field::conventions::CONVENTION_FIELDS;
use shardcalc_core::validation::PredictionMode;

use crate::state::use_app_state;

/// Two radio buttons, `#prediction-ideal` and `#prediction-calibrated`, in the fieldset
/// `#prediction-mode`.
#[component]
pub fn PredictionSwitch() -> impl IntoView {
    let state = use_app_state();
    let field = &CONVENTION_FIELDS[1];
    let current = Memo::new(move |_| state.draft.with(|d| field.text(&d.scenario)));
    let radios = PredictionMode::ALL
        .iter()
        .map(|&mode| {
            let id = format!("prediction-{}", mode.id());
            let for_id = id.clone();
            view! {
                <label class="radio" for=for_id>
                    <input
                        type="radio"
                        id=id
                        name="prediction-mode"
                        value=mode.id()
                        prop:checked=move || current.with(|c| c == mode.id())
                        on:change=move |_| state.set(field, mode.id())
                    />
                    {mode.label()}
                </label>
            }
        })
        .collect_view();
    view! {
        <fieldset class="prediction-switch" id="prediction-mode">
            <legend>{field.label}</legend>
            <div class="radios">{radios}</div>
            <p class="hint">{field.hint}</p>
        </fieldset>
    }
}
