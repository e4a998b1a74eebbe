//! Predicted against measured (issues 8 and 16): published training runs as data, each
//! planned on its own mesh, the error of the prediction, the fit of the physical model's
//! calibrated parameters (which live below the planners, in [`crate::efficiency`]), and
//! grouped splits that refit without the runs they hold back. Above `training` and
//! `inference`: it only fits and reports.
//!
//! | module | concept |
//! |---|---|
//! | [`runs`] | the published runs (`data/published-runs.csv`) |
//! | [`convention`] | the FLOP conventions published MFUs used, in terms of the core's |
//! | [`setups`] | each run's mesh and remat as its scripts set them; the seeds' data points (`data/run-setups.json`) |
//! | [`scenarios`] | a run (or guide point) as a scenario |
//! | [`mode`] | calibrated (default) or ideal roofline: `conventions.prediction` (re-exported from [`crate::efficiency`]) |
//! | [`predict`] | the planner's prediction for a scenario |
//! | [`calibration`] | the calibration as data (`data/calibration.json`); the parameters live in [`crate::efficiency`] |
//! | [`fit`] | the fit of the calibration's parameters |
//! | [`splits`] | grouped validation splits: interleaved groups, leave one chip generation out, leave one model family out |
//! | [`stats`] | median and p90 of absolute errors |
//! | [`table`] | the rows (runs, guide points) and the statistics per generation |
//! | [`case_studies`] | the Ironwood guide's case studies: each measured change planned before and after |
//! | [`bundled_table`] | the table as bundled data (`data/validation-table.json`), what the page shows |
//! | [`bands`] | bands of the training and serving views' headline numbers, and what dominates them |
//! | [`serving_runs`] | the published serving measurements (`data/serving-runs.csv`) |
//! | [`crate::efficiency::serving`] | serving's fitted physical parameters (`data/serving-calibration.json`) |
//! | [`serving`] | a serving run as a scenario, and the serving model's prediction for it |
//! | [`serving_table`] | every serving run predicted, the engine × chip split, the statistics: [`serving_table::serving_validation`] |
//! | [`serving_fit`] | the fit of the serving calibration on the fitted groups |
//! | [`bundled_serving`] | the serving validation as bundled data (`data/serving-validation.json`), what the page shows |

pub mod bands;
pub mod bundled_serving;
pub mod bundled_table;
pub mod calibration;
pub mod case_studies;
pub mod convention;
pub mod fit;
pub mod predict;
pub mod runs;
pub mod scenarios;
pub mod serving;
pub mod serving_fit;
pub mod serving_runs;
pub mod serving_table;
pub mod setups;
pub mod splits;
pub mod stats;
pub mod table;

pub use crate::efficiency::mode;
pub use crate::efficiency::PredictionMode;
