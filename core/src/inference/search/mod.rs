//! Search under targets (`inference.search`): for a traffic mix, a request rate and
//! latency targets, the cheapest deployments over chips, meshes, sharding, formats,
//! batches and the prefill:decode split — co-located or disaggregated — as a ranked table
//! and a cost–latency Pareto front, with what binds.
//!
//! The space ([`space::server_configs`]): every priced chip, every slice shape up to
//! `max_chips_per_server`, TP (and for MoE models EP, with tensor- or data-parallel
//! attention), the formats asked for. For each server:
//! - **decode** ([`decode`]): batches 1, 2, 3, 4, 6, 8, … up to the largest that fits,
//!   each meeting `tpot_s` or not; `⌈λ·E[G]·τ(B)/B⌉` servers;
//! - **prefill** ([`disagg`]): 1, 2, 4, 8 or 16 prompts per pass;
//! - **co-located** ([`colocated`]): continuous batching, the fewest servers meeting the
//!   targets at λ/n each.
//!
//! A disaggregated deployment pairs a decode option with the cheapest prefill pool of the
//! same weights and KV formats that meets the time-to-first-token targets over the link
//! between them. Every count is the fewest servers that pass a check that more servers
//! only make easier (binary search from a stability bound), and the prefill pools are
//! scanned cheapest-bound first and cut off once the bound exceeds the best found: the
//! result is the exhaustive search's (tested against brute force on small cases in
//! `core/tests/inference_search.rs`).

pub mod colocated;
pub mod decode;
pub mod disagg;
pub mod options;
pub mod pareto;
pub mod report;
pub mod space;

use crate::error::Invalid;
use crate::hardware::Chip;
use crate::inference::options::InferenceSection;
use crate::model::ModelConfig;
pub use options::{ChipPrice, DeploymentMode, SearchOptions};
pub use report::{Deployment, SearchReport};

/// What every part of the search shares.
#[derive(Clone, Debug)]
pub struct Problem<'a> {
    /// The scenario's section: traffic, targets, prefill and KV-transfer options.
    pub section: &'a InferenceSection,
    /// λ.
    pub rate: f64,
    /// The traffic.
    pub traffic: crate::inference::traffic::Traffic,
    /// The context a decoding sequence reads.
    pub context: u64,
}

/// Run the search for `model` (the scenario's chip `own` answers to its id).
///
/// # Errors
/// `search` without `request_rate`; unknown chip ids in `search.chips`; collective-model
/// errors on a candidate (never from a validated scenario).
pub fn search(
    model: &ModelConfig,
    section: &InferenceSection,
    own: &Chip,
    options: &SearchOptions,
    derate: &dyn Fn(&Chip) -> Chip,
) -> Result<SearchReport, Invalid> {
    let Some(rate) = section.request_rate else {
        return Err(Invalid::one("search", "needs `request_rate`: the search sizes deployments for a rate"));
    };
    let traffic = section.traffic();
    let problem = Problem { section, rate, context: traffic.decode_context(section.kv_context), traffic };
    let (configs, excluded) = space::server_configs(model, section, own, options, derate)?;
    let modes = |m: DeploymentMode| options.modes.is_empty() || options.modes.contains(&m);
    let mut candidates = Vec::new();
    let mut evaluated = 0_u64;
    if modes(DeploymentMode::Colocated) {
        for (i, c) in configs.iter().enumerate() {
            evaluated += 1;
            if let Some(x) = colocated::best(&problem, i, c)? {
                candidates.push(x);
            }
        }
    }
    let decodes = decode::options(&problem, &configs)?;
    let mut prefills = Vec::new();
    if modes(DeploymentMode::Disaggregated) {
        evaluated += decodes.iter().map(|d| d.batches.len() as u64).sum::<u64>();
        prefills = disagg::prefill_options(&problem, &configs)?;
        let (found, n) = disagg::pair(&problem, &configs, &decodes, &prefills)?;
        evaluated += n;
        candidates.extend(found);
    }
    let e = report::Evaluated { configs: &configs, decodes: &decodes, prefills: &prefills, count: evaluated };
    report::build(&problem, &e, &candidates, excluded, options)
}
