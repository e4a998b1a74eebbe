//! The training planner (book chapters 5 and 6): memory per device, the collectives of
//! every kind of parallelism on the real topology, step time, MFU and HFU, days and
//! cost, the book's thresholds, and an exhaustive mesh search.
//!
//! **Two predictions, one timeline.** The roofline times the convention's hardware
//! FLOPs at the peak with ideal overlap: a bound no run beats. The calibrated prediction
//! (the default) times every kernel the step runs at the rate its shape allows on the
//! chip, with the calibrated physical parameters of [`crate::efficiency`] ([`kernels`]
//! says which terms and where each comes from). Both go through the same timeline
//! ([`step`]: what overlaps with what); what memory holds is in [`memory`]; which
//! collective each kind of parallelism runs in [`comms`]; how the logical mesh is laid on
//! the physical axes in [`placement`].
//!
//! **Entry points.** [`plan::plan`] turns a model, the resolved hardware and a
//! [`section::TrainingSection`] into a [`report::TrainingReport`] (what
//! `report::evaluate` puts under `training`); [`search::search`] is the search alone;
//! [`thresholds`] holds the book's formulas.
//!
//! | module | concept |
//! |---|---|
//! | [`profile`] | the model's parameters by sharding group, per-layer tensors and FLOPs |
//! | [`tensors`] | remat policies: named tensors kept, recomputed or offloaded (4.4.2) |
//! | [`optimizer`] | optimizer state, number formats, ZeRO stages (5.1.1–5.1.2) |
//! | [`mesh`] | DP, FSDP, TP, EP, CP, PP degrees and their networks |
//! | [`placement`] | logical axes on physical axes; cached collective costs |
//! | [`pipeline`] | GPipe / 1F1B / interleaved bubbles and in-flight microbatches (5.1.5) |
//! | [`memory`] | HBM per device |
//! | [`comms`] | per-microbatch traffic of each kind of parallelism (5.1, 5.2) |
//! | [`shapes`] | the kernels' shapes per token: weight matmuls, attention, elementwise traffic |
//! | [`kernels`] | one microbatch's kernels timed: the roofline, or the physical model (issue 16) |
//! | [`step`] | step time, MFU, HFU, what binds |
//! | [`thresholds`] | the book's critical batches and degrees (5.1.1–5.1.6, App. C) |
//! | [`budget`] | days and cost for a token budget (6.2) |
//! | [`search`] | every valid mesh × ZeRO stage × schedule × microbatches × remat, ranked, Pareto front |
//! | [`space`] | what the search may choose, and its rules as sentences |
//! | [`front`] | the fastest configurations and the Pareto front as the search finds them |
//! | [`section`], [`mod@plan`], [`explain`], [`report`] | scenario section, orchestration, sentences, report types |
//! | [`replan`] | a plan's own configuration (its split over the networks) under other efficiencies, for bands |

pub mod budget;
pub mod comms;
pub mod explain;
pub mod front;
pub mod kernels;
pub mod memory;
pub mod mesh;
pub mod optimizer;
pub mod pipeline;
pub mod placement;
pub mod plan;
pub mod profile;
pub mod replan;
pub mod report;
pub mod search;
pub mod section;
pub mod setup;
pub mod shapes;
pub mod space;
pub mod step;
pub mod tensors;
pub mod thresholds;

pub use plan::plan;
pub use report::TrainingReport;
pub use section::TrainingSection;
