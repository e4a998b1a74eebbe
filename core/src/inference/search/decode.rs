//! Decode servers of the search: for each server, the batches 1, 2, 3, 4, 6, 8, … up to
//! the largest whose caches fit at the traffic's context, with their step times. A
//! disaggregated decode pool runs one of them at `⌈λ·E[G]·τ(B)/B⌉` servers.

use super::space::ServerConfig;
use super::Problem;
use crate::error::Invalid;
use crate::inference::curves::batch_grid;
use crate::inference::disaggregated::decode_servers_for;
use crate::inference::memory::largest_fitting;
use crate::inference::plan::MAX_PLANNED_BATCH;
use crate::inference::targets::Constraint;
use crate::units::{Bytes, Seconds};

/// One server's decode batches.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeOption {
    /// Index into the server configs.
    pub config: usize,
    /// The largest batch that fits.
    pub max_batch: u64,
    /// (batch, step) for every batch of the grid up to `max_batch`.
    pub batches: Vec<(u64, Seconds)>,
}

impl DecodeOption {
    /// Servers and US dollars per hour for batch `i` of [`Self::batches`].
    #[must_use]
    pub fn cost(&self, i: usize, p: &Problem, config: &ServerConfig) -> (u64, f64) {
        let (b, step) = self.batches[i];
        let n = decode_servers_for(p.rate, p.traffic.mean_output(), step, b as f64);
        (n, n as f64 * config.chips * config.price)
    }

    /// Whether batch `i` meets the time-per-output-token target.
    #[must_use]
    pub fn meets(&self, i: usize, p: &Problem) -> bool {
        p.section.targets.tpot_s.is_none_or(|t| self.batches[i].1.get() <= t * (1.0 + 1e-9))
    }

    /// What keeps batch `i` from being larger: the next batch misses `tpot_s`, or it is
    /// the largest that fits, or nothing (a larger batch would cost as much or more).
    #[must_use]
    pub fn binds(&self, i: usize, p: &Problem) -> Constraint {
        if i + 1 >= self.batches.len() {
            Constraint::Memory
        } else if !self.meets(i + 1, p) {
            Constraint::Tpot
        } else {
            Constraint::Throughput
        }
    }
}

/// The decode options of every server.
///
/// # Errors
/// From the collective model.
pub fn options(p: &Problem, configs: &[ServerConfig]) -> Result<Vec<DecodeOption>, Invalid> {
    let s = p.section;
    configs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let fits = |b: u64| {
                let b = b as f64;
                c.setup
                    .memory(b, p.context, b, 0.0, s.working_memory, s.reserved_hbm_fraction, (Bytes::ZERO, Bytes::ZERO))
                    .fits
            };
            let max_batch = largest_fitting(MAX_PLANNED_BATCH, |b| b == 0 || fits(b));
            let batches = batch_grid(max_batch)
                .into_iter()
                .map(|b| Ok((b, c.setup.decode(b as f64, p.context, 1.0)?.time.step_time_s)))
                .collect::<Result<Vec<_>, Invalid>>()?;
            Ok(DecodeOption { config: i, max_batch, batches })
        })
        .collect()
}
