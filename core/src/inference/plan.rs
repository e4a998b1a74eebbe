//! A serving plan: the decode replica, the prefill server and an optional draft model
//! for one scenario, and the questions asked of them together — what fits in memory,
//! the largest batch, and the smallest slice that holds it (book 8.1, 8.1.1).

use super::memory::{largest_fitting, MemoryPerChip};
use super::options::{InferenceSection, ServingSharding, WeightSharding};
use super::prefill::PrefillTime;
use super::setup::ServingSetup;
use super::slices::{slice_shapes, SliceShape};
use super::speculative::DraftCost;
use crate::collectives::{AxisLink, Network};
use crate::error::{FieldError, Invalid};
use crate::hardware::Chip;
use crate::model::ModelConfig;
use crate::units::Bytes;

/// Largest batch the planner searches.
pub const MAX_PLANNED_BATCH: u64 = super::options::MAX_BATCH;

/// Everything one scenario serves with.
#[derive(Clone, Debug)]
pub struct Plan<'a> {
    /// The scenario's `inference` section.
    pub section: &'a InferenceSection,
    /// The decode replica.
    pub decode: ServingSetup,
    /// A separate prefill server (`prefill.topology` or `prefill.chip`); `None` = prefill
    /// on the decode mesh.
    pub prefill: Option<ServingSetup>,
    /// The decode servers' chip.
    pub decode_chip: Chip,
    /// The prefill servers' chip when it is another (`prefill.chip`).
    pub prefill_chip: Option<Chip>,
    /// The draft model of speculative decoding, on the decode mesh.
    pub draft: Option<ServingSetup>,
}

/// `(name, is scale-up)` of each axis, for validation.
#[must_use]
pub fn axis_names(axes: &[AxisLink]) -> Vec<(String, bool)> {
    axes.iter().map(|a| (a.name.clone(), a.network == Network::ScaleUp)).collect()
}

impl<'a> Plan<'a> {
    /// Resolve the plan on the decode mesh `axes` (`prefill` for a separate prefill
    /// server: its axes and, when it is another, its chip; `draft` the draft model, if any).
    ///
    /// # Errors
    /// Field errors relative to `inference` (unknown axes, a compute format the chip lacks).
    pub fn new(
        model: &ModelConfig,
        chip: &Chip,
        axes: &[AxisLink],
        prefill_mesh: Option<(&[AxisLink], Option<&Chip>)>,
        draft: Option<&ModelConfig>,
        section: &'a InferenceSection,
    ) -> Result<Self, Invalid> {
        let names = axis_names(axes);
        section.validate(&names)?;
        let model_axes = section.model_axes(&names);
        let setup = |m: &ModelConfig, axes: &[AxisLink], model_axes: &[String], sharding: &ServingSharding| {
            ServingSetup::new(m, chip, axes, model_axes, sharding, section.dtypes, section.comms_overlap)
        };
        let decode = setup(model, axes, &model_axes, &section.sharding)?;
        let prefill = match prefill_mesh {
            Some((p, prefill_chip)) => {
                Some(prefill_setup(model, prefill_chip.unwrap_or(chip), p, section).map_err(|e| {
                    match prefill_chip {
                        // The prefill chip lacks the compute format: say so on `prefill.chip`.
                        Some(c) => Invalid(
                            e.0.into_iter()
                                .map(|f| {
                                    FieldError::new("prefill.chip", format!("{} ({}: {})", c.name, f.field, f.message))
                                })
                                .collect(),
                        ),
                        None => e,
                    }
                })?)
            }
            None => None,
        };
        let draft = match draft {
            Some(m) => {
                // The draft has its own shapes: split it 1D like the target's mesh.
                let sharding = ServingSharding {
                    weights: WeightSharding::WeightStationary1d,
                    d_axes: Vec::new(),
                    ..section.sharding.clone()
                };
                Some(setup(m, axes, &model_axes, &sharding)?)
            }
            None => None,
        };
        Ok(Self {
            section,
            decode,
            prefill,
            decode_chip: chip.clone(),
            prefill_chip: prefill_mesh.and_then(|(_, c)| c.cloned()),
            draft,
        })
    }

    /// The setup prefill runs on.
    #[must_use]
    pub fn prefill_setup(&self) -> &ServingSetup {
        self.prefill.as_ref().unwrap_or(&self.decode)
    }

    /// Tokens per sequence a decode step scores: γ + 1 when speculating, else 1.
    #[must_use]
    pub fn tokens_per_step(&self) -> f64 {
        self.section.speculative.as_ref().map_or(1.0, |s| s.draft_len as f64 + 1.0)
    }

    /// The prefill chunk (the whole prompt when unchunked).
    #[must_use]
    pub fn chunk(&self) -> u64 {
        self.section.prefill.chunk.unwrap_or(self.section.prompt_len).min(self.section.prompt_len)
    }

    /// HBM of the busiest decode chip for `batch` sequences at `context`.
    #[must_use]
    pub fn memory(&self, batch: u64, context: u64) -> MemoryPerChip {
        let b = batch as f64;
        let prefill_tokens = if self.prefill.is_none() { self.chunk() as f64 } else { 0.0 };
        let extra = self
            .draft
            .as_ref()
            .map_or((Bytes::ZERO, Bytes::ZERO), |d| (d.weights_stored_per_chip(), d.kv_per_chip(b, context)));
        let s = self.section;
        self.decode.memory(
            b,
            context,
            b * self.tokens_per_step(),
            prefill_tokens,
            s.working_memory,
            s.reserved_hbm_fraction,
            extra,
        )
    }

    /// Largest concurrency of a server doing continuous batching at `context` with a
    /// step of `budget` tokens (the working memory of the whole step, no draft model).
    #[must_use]
    pub fn colocated_max_concurrency(&self, context: u64, budget: u64) -> u64 {
        let s = self.section;
        let fits = |b: u64| {
            let b = b as f64;
            let m = self.decode.memory(
                b,
                context,
                b,
                budget as f64,
                s.working_memory,
                s.reserved_hbm_fraction,
                (Bytes::ZERO, Bytes::ZERO),
            );
            m.fits
        };
        largest_fitting(MAX_PLANNED_BATCH, |b| b == 0 || fits(b))
    }

    /// Largest batch whose memory fits at `context`.
    #[must_use]
    pub fn max_batch(&self, context: u64) -> u64 {
        largest_fitting(MAX_PLANNED_BATCH, |b| b == 0 || self.memory(b, context).fits)
    }

    /// The scenario's prefill (chunked when `prefill.chunk` is set) of `prompt` tokens.
    ///
    /// # Errors
    /// From the collective model.
    pub fn prefill_time(&self, prompt: u64, chunked: bool) -> Result<PrefillTime, Invalid> {
        let p = &self.section.prefill;
        let chunk = if chunked { p.chunk.unwrap_or(prompt) } else { prompt };
        self.prefill_setup().prefill(prompt, chunk, 1.0, p.mfu.unwrap_or(1.0), p.attention)
    }

    /// The draft's cost as a fraction of a decode step, when given that way.
    #[must_use]
    pub fn draft_ratio(&self) -> Option<f64> {
        match self.section.speculative.as_ref().map(|s| &s.draft) {
            Some(DraftCost::CostRatio(r)) => Some(*r),
            _ => None,
        }
    }
}

/// A prefill server of `model` on `chip` over `axes`, split 1D over its scale-up axes.
///
/// # Errors
/// A compute format the chip lacks (`dtypes.compute`).
pub fn prefill_setup(
    model: &ModelConfig,
    chip: &Chip,
    axes: &[AxisLink],
    section: &InferenceSection,
) -> Result<ServingSetup, Invalid> {
    let up: Vec<String> = axis_names(axes).into_iter().filter(|(_, up)| *up).map(|(n, _)| n).collect();
    let sharding = ServingSharding { kv: section.sharding.kv, ..ServingSharding::default() };
    ServingSetup::new(model, chip, axes, &up, &sharding, section.dtypes, section.comms_overlap)
}

/// The smallest slice of `chip` whose prefill server holds the weights, `prefill.batch`
/// caches of the longest prompt and the pass's working memory; `None` when none does.
///
/// # Errors
/// As [`prefill_setup`].
pub fn smallest_prefill_slice(
    model: &ModelConfig,
    chip: &Chip,
    section: &InferenceSection,
) -> Result<Option<(SliceShape, Vec<AxisLink>)>, Invalid> {
    let prompt = section.traffic().max_prompt().max(section.prompt_len);
    let batch = section.prefill.batch.unwrap_or(1) as f64;
    let chunk = section.prefill.chunk.unwrap_or(prompt);
    for shape in slice_shapes(chip) {
        let Ok(axes) = shape.topology(chip).resolve(chip) else { continue };
        let setup = prefill_setup(model, chip, &axes, section)?;
        if setup.prefill_memory(batch, prompt, chunk, section.working_memory, section.reserved_hbm_fraction).fits {
            return Ok(Some((shape, axes)));
        }
    }
    Ok(None)
}

/// Walk `chip`'s slice shapes smallest first and return the first on which `batch`
/// sequences at `context` fit, with its plan; `None` when none does.
///
/// # Errors
/// As [`Plan::new`] on a candidate.
pub fn smallest_fitting<'a>(
    model: &ModelConfig,
    chip: &Chip,
    prefill: Option<(&[AxisLink], Option<&Chip>)>,
    draft: Option<&ModelConfig>,
    section: &'a InferenceSection,
    batch: u64,
) -> Result<Option<(SliceShape, Plan<'a>)>, Invalid> {
    let context = section.decode_context();
    for shape in slice_shapes(chip) {
        let Ok(axes) = shape.topology(chip).resolve(chip) else { continue };
        let plan = Plan::new(model, chip, &axes, prefill, draft, section)?;
        if plan.memory(batch, context).fits {
            return Ok(Some((shape, plan)));
        }
    }
    Ok(None)
}
