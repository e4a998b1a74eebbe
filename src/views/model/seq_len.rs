//! Chart (c): forward FLOPs per token against sequence length, with the crossover.

use leptos::prelude::*;
use shardcalc_charts::flops_vs_seq_len_chart;

use super::derived::Derived;
use crate::components::ChartCanvas;

/// Where dot-product attention overtakes the MLP as sequences grow (book 4.3).
#[component]
pub fn SeqLenSection(
    /// The memos the section reads.
    derived: Derived,
) -> impl IntoView {
    let state = crate::state::use_app_state();
    let data = Memo::new(move |_| {
        let conv = derived.convention.get();
        Derived::with_model(state, |m| flops_vs_seq_len_chart(m, conv))
    });
    let caption = Signal::derive(move || {
        data.with(|d| {
            d.as_ref()
                .map(|d| {
                    let note = d.note.as_deref().map(|n| format!(" {n}")).unwrap_or_default();
                    format!(
                        "{} Projections, MLP and unembedding cost the same per token at any length; attention grows with the context (windows and chunks cap it).{note}",
                        d.crossover_text()
                    )
                })
                .unwrap_or_default()
        })
    });
    view! {
        <section class="result-section" aria-labelledby="seq-heading">
            <h3 id="seq-heading">"FLOPs per token vs sequence length"</h3>
            <ChartCanvas id="chart-seq-len" chart=data caption=caption />
        </section>
    }
}
