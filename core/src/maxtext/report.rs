//! `shardcalc maxtext`'s output: the report `shardcalc eval` prints for the run's scenario,
//! the import (the scenario and what became of every key), what MaxText's log would print,
//! and, given a log, measured against predicted.

use super::log::MaxTextLog;
use super::log_file::{compare, LogComparison, ParsedLog};
use super::MaxTextRun;
use crate::error::Invalid;
use crate::report::Report;
use serde::Serialize;

/// Everything `shardcalc maxtext` prints.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaxTextReport {
    /// The keys of `shardcalc eval`'s report for [`MaxTextRun::scenario`] (its `training` is
    /// the run's own mesh, with the search's best in `training.search`).
    #[serde(flatten)]
    pub report: Report,
    /// The import: the scenario, devices and slices, and every key.
    pub maxtext: MaxTextRun,
    /// What MaxText's log would print for the plan.
    pub maxtext_log: Option<MaxTextLog>,
    /// A log's steps against the prediction, when a log was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maxtext_measured: Option<LogComparison>,
}

/// Evaluate an imported run, and compare it with a log.
///
/// # Errors
/// The scenario's problems (a mesh that does not divide the model, ...), each naming its
/// field.
pub fn evaluate_run(run: &MaxTextRun, log: Option<ParsedLog>) -> Result<MaxTextReport, Invalid> {
    let report = crate::report::evaluate(&run.scenario)?;
    let maxtext_log = MaxTextLog::of(&run.scenario, &report);
    let maxtext_measured = match (log, &maxtext_log, &report.training) {
        (Some(l), Some(p), Some(t)) => compare(l, p, &t.breakdown),
        _ => None,
    };
    Ok(MaxTextReport { report, maxtext: run.clone(), maxtext_log, maxtext_measured })
}
