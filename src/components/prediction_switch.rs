//! The "roofline (ideal)" / "calibrated" switch: `conventions.prediction`, so it lives in
//! the link. Any view whose numbers come from the training planner or the serving model
//! can show it.

use leptos::prelude::*;
use shardcalc_core::validation::PredictionMode;

use crate::state::use_app_state;

/// Two radio buttons, `#prediction-ideal` and `#prediction-calibrated`, in the fieldset
/// `#prediction-mode`; writing `conventions.prediction` of the scenario (and of the model
/// form's draft, which owns the conventions).
#[component]
pub fn PredictionSwitch() -> impl IntoView {
    let state = use_app_state();
    let current = Memo::new(move |_| state.scenario.with(|s| s.conventions.prediction));
    let choose = move |mode: PredictionMode| {
        state.draft.update(|d| d.conventions.prediction = mode);
        if let Err(e) = state.try_update(|s| s.conventions.prediction = mode) {
            state.notice.set(Some(format!("Cannot switch the prediction: {e}")));
        }
    };
    let radios = PredictionMode::ALL
        .iter()
        .map(|&mode| {
            let id = format!("prediction-{}", mode.id());
            let label_for = id.clone();
            view! {
                <label class="radio" for=label_for>
                    <input
                        type="radio"
                        id=id
                        name="prediction-mode"
                        value=mode.id()
                        prop:checked=move || current.get() == mode
                        on:change=move |_| choose(mode)
                    />
                    {mode.label()}
                </label>
            }
        })
        .collect_view();
    view! {
        <fieldset class="prediction-switch" id="prediction-mode">
            <legend>"Prediction"</legend>
            <div class="radios">{radios}</div>
            <p class="hint">
                "Roofline: every rate at its peak, as the book computes it. Calibrated: the roofline with the \
                 efficiencies fitted on published runs (see the Validation page)."
            </p>
        </fieldset>
    }
}
