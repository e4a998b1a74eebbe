//! One evaluator per page: everything a page shows, computed from a scenario, and printed by
//! `shardcalc eval --view <page>`. Each is a thin composition of the model's public
//! functions (the training planner, the serving model, the hardware and validation
//! sections), so that what a page shows is what the CLI prints, and the model's internals can
//! change without the pages knowing.
//!
//! Each page has its defaults (`with_defaults`): what it shows when the scenario has no
//! section for it (a chip, a training run, a serving workload). They are shown, never
//! written into the scenario until the user edits something.
//!
//! | page | evaluator | output |
//! |---|---|---|
//! | model | [`model::evaluate`] | [`crate::report::Report`] (model sections) |
//! | hardware & collectives | [`hardware::evaluate`] | [`hardware::HardwareEval`] |
//! | training | [`training::evaluate`] (stages for the page: [`training::TrainingInputs`]) | [`training::TrainingEval`] |
//! | serving | [`serving::evaluate`] | [`serving::ServingEval`] |
//! | validation | [`validation::evaluate`] | [`validation::ValidationEval`] |

pub mod hardware;
pub mod model;
pub mod serving;
pub mod training;
pub mod validation;
