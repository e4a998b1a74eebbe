//! What the hardware & collectives page shows, evaluated from a scenario (book chapters
//! 1–3): the chip with its sources and derived numbers (critical intensities, β, FLOPs per
//! dollar), the topology's axes, every collective query and the roofline of one op. A thin
//! composition of [`crate::report_hardware`]; `shardcalc eval --view hardware` prints
//! [`evaluate`].
//!
//! A scenario without hardware or a roofline op is shown with the page's defaults
//! ([`with_defaults`]); they are not written into the scenario until the user edits something.

use serde::{Deserialize, Serialize};

use crate::collectives::query::CollectiveQuery;
use crate::collectives::CollectiveKind;
use crate::error::Invalid;
use crate::hardware::query::{ChipSource, HardwareSection};
use crate::hardware::shape::default_topology;
use crate::hardware::topology::Topology;
use crate::report_hardware::{hardware_sections, CollectiveReport, HardwareReport, RooflineReport};
use crate::roofline::matmul::Matmul;
use crate::roofline::query::RooflineQuery;
use crate::scenario::Scenario;

/// The chip the hardware page starts with (book chapters 1–3 use the v5e throughout).
pub const DEFAULT_CHIP: &str = "tpu-v5e";
/// Its topology: the book's Pop Quiz 2 mesh `{'X': 8, 'Y': 4}` (no wraparound).
pub const DEFAULT_SHAPE: [u64; 2] = [8, 4];

/// `s` with what the hardware page shows when the scenario does not say: the default chip and
/// topology (a chip without a topology gets its [`default_topology`]), the book's
/// `X[256, 8192] · W[8192, 32768]` in bf16 as the roofline op and, for a scenario without
/// hardware, the book's Pop Quiz 2 AllGather (34 MB over `y`, about 560 µs) and an AllReduce
/// of the same array over both axes as collectives.
#[must_use]
pub fn with_defaults(s: &Scenario) -> Scenario {
    let mut s = s.clone();
    if s.hardware.is_none() {
        s.hardware = Some(HardwareSection {
            chip: ChipSource::Preset(DEFAULT_CHIP.into()),
            topology: Some(Topology::tpu_slice(&DEFAULT_SHAPE, 1)),
        });
        if s.collectives.is_empty() {
            let query = |kind, axes: &[&str]| CollectiveQuery {
                kind,
                array_bytes: 2.0 * 2048.0 * 8192.0,
                axes: axes.iter().map(|a| (*a).to_string()).collect(),
            };
            s.collectives =
                vec![query(CollectiveKind::AllGather, &["y"]), query(CollectiveKind::AllReduce, &["x", "y"])];
        }
    }
    if let Some(hw) = s.hardware.as_mut().filter(|h| h.topology.is_none()) {
        hw.topology = hw.chip.resolve().ok().map(|c| default_topology(&c));
    }
    if s.roofline.is_none() {
        s.roofline = Some(RooflineQuery::Matmul(Matmul::bf16(256.0, 8192.0, 32768.0)));
    }
    s
}

/// Everything the hardware page shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HardwareEval {
    /// The chip, its derived numbers and the topology's axes.
    pub hardware: HardwareReport,
    /// One entry per collective query.
    pub collectives: Vec<CollectiveReport>,
    /// The roofline op on one chip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roofline: Option<RooflineReport>,
}

/// The hardware sections of `s` as it is (no defaults): `None` without `hardware`.
///
/// # Errors
/// The scenario's problems, each naming its field.
pub fn for_scenario(s: &Scenario) -> Result<Option<HardwareEval>, Invalid> {
    let Some(hw) = s.validate_hardware()? else { return Ok(None) };
    let has_topology = s.hardware.as_ref().is_some_and(|h| h.topology.is_some());
    let (hardware, collectives, roofline) = hardware_sections(&hw, has_topology, &s.collectives, s.roofline.as_ref())?;
    Ok(Some(HardwareEval { hardware, collectives, roofline }))
}

/// Everything the hardware page shows for `s` (with the page's defaults).
///
/// # Errors
/// The scenario's problems, each naming its field.
pub fn evaluate(s: &Scenario) -> Result<HardwareEval, Invalid> {
    for_scenario(&with_defaults(s))?.ok_or_else(|| Invalid::one("hardware", "is required"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_view_answers_the_book_s_pop_quiz() {
        let eval = evaluate(&Scenario::default()).unwrap();
        assert_eq!(eval.hardware.chip.id, DEFAULT_CHIP);
        // Book Pop Quiz 2: 34 MB gathered over a v5e axis of 4 without wraparound, ~560 µs.
        let t = eval.collectives[0].time_s.get();
        assert!((t - 559.2e-6).abs() < 1e-6, "{t}");
        // FLOPs per dollar (book 8.1): peak × 3600 / price, when the catalog prices the chip.
        let c = &eval.hardware.chip;
        let want = c.peak_flops.bf16.get() * 3600.0 / c.price_per_chip_hour_usd.unwrap();
        assert_eq!(eval.hardware.flops_per_dollar, Some(want));
    }
}
