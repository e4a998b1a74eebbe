//! What the hardware page computes from the scenario, as memos, one per section of
//! `shardcalc_core::report_hardware` (never `report::evaluate`): an edit to a collective
//! recomputes only the collectives, an edit to the roofline op only the roofline.

use leptos::prelude::*;
use shardcalc_core::collectives::query::CollectiveQuery;
use shardcalc_core::hardware::chip::Chip;
use shardcalc_core::hardware::query::{HardwareSection, ResolvedHardware};
use shardcalc_core::report_hardware::{
    collective_reports, hardware_report, roofline_report, CollectiveReport, HardwareReport, RooflineReport,
};
use shardcalc_core::roofline::query::RooflineQuery;

use crate::state::AppState;

/// Memos over the last valid scenario.
#[derive(Clone, Copy)]
pub struct Derived {
    /// `scenario.hardware`.
    pub section: Memo<Option<HardwareSection>>,
    /// The chip and the topology's axes, resolved.
    pub resolved: Memo<Result<ResolvedHardware, String>>,
    /// The `hardware` section of the report: the chip, its critical intensities, the axes.
    pub report: Memo<Option<HardwareReport>>,
    /// `scenario.collectives`.
    pub queries: Memo<Vec<CollectiveQuery>>,
    /// The `collectives` section.
    pub collectives: Memo<Result<Vec<CollectiveReport>, String>>,
    /// The resolved chip.
    pub chip: Memo<Option<Chip>>,
    /// `scenario.roofline`.
    pub roofline_query: Memo<Option<RooflineQuery>>,
    /// The `roofline` section.
    pub roofline: Memo<Option<Result<RooflineReport, String>>>,
}

/// The chip and axes of `section`.
///
/// # Errors
/// The problem, as text (the scenario is valid, so this is only a guard).
pub fn resolve(section: Option<&HardwareSection>) -> Result<ResolvedHardware, String> {
    let hw = section.ok_or("the scenario has no hardware")?;
    // With its citations: the spec table shows them, and "Edit a copy" keeps them.
    let chip = hw.chip.resolve().map(shardcalc_core::hardware::catalog::with_provenance).map_err(|e| e.to_string())?;
    let axes = match &hw.topology {
        Some(t) => t.resolve(&chip).map_err(|e| e.to_string())?,
        None => Vec::new(),
    };
    Ok(ResolvedHardware { chip, axes })
}

impl Derived {
    /// Memos over `state.scenario`.
    #[must_use]
    pub fn new(state: AppState) -> Self {
        let section = Memo::new(move |_| state.shown.with(|s| s.hardware.clone()));
        let resolved = Memo::new(move |_| section.with(|s| resolve(s.as_ref())));
        let report = Memo::new(move |_| {
            let has_topology = section.with(|s| s.as_ref().is_some_and(|h| h.topology.is_some()));
            resolved.with(|r| r.as_ref().ok().map(|hw| hardware_report(hw, has_topology)))
        });
        let queries = Memo::new(move |_| state.shown.with(|s| s.collectives.clone()));
        let collectives = Memo::new(move |_| {
            resolved.with(|r| match r {
                Ok(hw) => queries.with(|q| collective_reports(q, &hw.axes).map_err(|e| e.to_string())),
                Err(e) => Err(e.clone()),
            })
        });
        let roofline_query = Memo::new(move |_| state.shown.with(|s| s.roofline.clone()));
        let chip = Memo::new(move |_| resolved.with(|r| r.as_ref().ok().map(|hw| hw.chip.clone())));
        let roofline = Memo::new(move |_| {
            roofline_query.with(|q| {
                let q = q.as_ref()?;
                Some(chip.with(|c: &Option<Chip>| match c {
                    Some(c) => roofline_report(c, q).map_err(|e| e.to_string()),
                    None => Err("no chip".into()),
                }))
            })
        });
        Self { section, resolved, report, queries, collectives, chip, roofline_query, roofline }
    }
}
