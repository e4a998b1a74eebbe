//! The book's thresholds for this model, chip, topology and batch (book 5.1–5.2, 6.3,
//! Appendix C), with the sentence saying which one binds.

use leptos::prelude::*;

use super::derived::Derived;
use super::tables;
use crate::components::{DataTable, TableExports};

/// The sentence saying which limit binds (`#training-binding`), the table
/// `#training-thresholds` and its downloads.
#[component]
pub fn Thresholds(
    /// The view's memos.
    derived: Derived,
) -> impl IntoView {
    let table =
        Memo::new(move |_| derived.with_shown(|b| b.map(|r| tables::thresholds(&r.thresholds)).unwrap_or_default()));
    let binding = move || derived.with_shown(|b| b.map(|r| r.thresholds.explanation.clone()).unwrap_or_default());
    view! {
        <section class="result-section" aria-labelledby="training-thresholds-heading">
            <h3 id="training-thresholds-heading">"The book's thresholds for this setup"</h3>
            <p class="binding" id="training-binding">{binding}</p>
            <div class="table-wrap">
                <DataTable id="training-thresholds" table=table />
            </div>
            <TableExports name="training-thresholds" table=table />
        </section>
    }
}
