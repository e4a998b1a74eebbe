//! One serving replica, resolved: a model on a chip, split over a mesh, with its number
//! formats — and the per-chip work of a decode step or a prefill pass on it. The book's
//! formulas live in the sibling modules; this one only feeds them a real model.

use super::comms::{CommsCurve, CommsTime, ServingMesh};
use super::decode::{decode_step_time, StepTime, StepWork};
use super::decode_attention::decode_attention_flops;
use super::kv_sharding::kv_layout;
use super::memory::{working_bytes_per_chip, MemoryPerChip};
use super::moe::expected_experts_touched;
use super::options::{CommsOverlap, DenseSharding, ServingDtypes, ServingSharding, WeightSharding, WorkingMemory};
use super::prefill::{prefill_time, PassWork, PrefillTime};
use crate::collectives::AxisLink;
use crate::error::Invalid;
use crate::flops::{attention_forward_per_sequence, forward_per_token, AttentionCounting};
use crate::hardware::Chip;
use crate::kv_cache::{kv_bytes_per_sequence, kv_heads};
use crate::model::ModelConfig;
use crate::params::{count_params, mlp_weights, ParamComponent};
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec};

/// Parameter counts as serving sees them.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ServingParams {
    /// Every stored parameter (MTP modules too, when the checkpoint has them).
    stored: f64,
    /// Read every step whatever the batch: everything but the routed experts, the MTP
    /// modules and the embedding tables (a lookup reads B rows; a tied table is read
    /// whole as the output head).
    read_fixed: f64,
    /// One routed expert.
    expert: f64,
    /// Every routed expert of every MoE layer (stored).
    routed_total: f64,
    /// MoE layers.
    moe_layers: f64,
    /// E and k.
    experts: u64,
    experts_per_token: u64,
    /// Forward FLOPs per token of every weight matmul but the routed experts and the
    /// output head (attention projections, dense MLPs, shared experts, router).
    dense_flops_per_token: f64,
    /// Forward FLOPs per token of the k routed experts.
    routed_flops_per_token: f64,
    /// Forward FLOPs per token of the output head (once per token that needs logits).
    head_flops_per_token: f64,
}

fn serving_params(m: &ModelConfig) -> ServingParams {
    let p = count_params(m);
    let t = |c| p.get(c).total.get();
    let embedding = if m.embeddings.tied { 0.0 } else { t(ParamComponent::Embedding) };
    let read_fixed = p.total.get()
        - t(ParamComponent::Mtp)
        - t(ParamComponent::PositionEmbedding)
        - embedding
        - t(ParamComponent::RoutedExperts);
    let (moe_layers, _) = m.moe_and_dense_layers();
    let (expert, experts, k) = m.moe.as_ref().map_or((0.0, 0, 0), |moe| {
        (mlp_weights(m.mlp.kind, m.d_model, moe.expert_d_ff), moe.num_experts, moe.experts_per_token)
    });
    let f = forward_per_token(m);
    ServingParams {
        stored: p.total.get(),
        read_fixed,
        expert,
        routed_total: t(ParamComponent::RoutedExperts),
        moe_layers: moe_layers as f64,
        experts,
        experts_per_token: k,
        dense_flops_per_token: f.attention_projections + f.mlp + f.shared + f.router,
        routed_flops_per_token: f.routed,
        head_flops_per_token: f.unembedding,
    }
}

/// A decode step on one replica.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecodePoint {
    /// The step's time and its terms.
    pub time: StepTime,
    /// The collectives.
    pub comms: CommsTime,
    /// What the busiest chip reads and computes.
    pub work: StepWork,
    /// MoE: expected distinct experts touched per MoE layer.
    pub experts_touched: Option<f64>,
}

/// One serving replica.
#[derive(Clone, Debug, PartialEq)]
pub struct ServingSetup {
    /// The model.
    pub model: ModelConfig,
    /// Its mesh.
    pub mesh: ServingMesh,
    /// Replicas of this mesh in the topology (axes that are not model axes).
    pub replicas: f64,
    /// Number formats.
    pub dtypes: ServingDtypes,
    /// Collective overlap.
    pub overlap: CommsOverlap,
    /// HBM bandwidth per chip.
    pub hbm: BytesPerSec,
    /// HBM capacity per chip.
    pub hbm_capacity: Bytes,
    /// Peak FLOP/s per chip in the compute format.
    pub peak: FlopsPerSec,
    params: ServingParams,
    /// The collectives of a decode step (KV resharding included) against its tokens.
    decode_comms: CommsCurve,
    /// Those of a prefill pass.
    prefill_comms: CommsCurve,
}

fn pick(axes: &[AxisLink], names: &[String], inside: bool) -> Vec<AxisLink> {
    axes.iter().filter(|a| names.contains(&a.name) == inside).cloned().collect()
}

impl ServingSetup {
    /// Resolve a replica of `model` on `chip` over the topology `axes`, split over the
    /// axes named `model_axes`.
    ///
    /// # Errors
    /// `dtypes.compute` when the chip has no peak in that format.
    pub fn new(
        model: &ModelConfig,
        chip: &Chip,
        axes: &[AxisLink],
        model_axes: &[String],
        sharding: &ServingSharding,
        dtypes: ServingDtypes,
        overlap: CommsOverlap,
    ) -> Result<Self, Invalid> {
        let peak = chip.peak_flops.for_dtype(dtypes.compute).ok_or_else(|| {
            Invalid::one("dtypes.compute", format!("{} has no published {} peak", chip.name, dtypes.compute.name()))
        })?;
        let model_links = pick(axes, model_axes, true);
        let replicas = pick(axes, model_axes, false).iter().map(|a| a.size as f64).product();
        if sharding.dense == DenseSharding::Data && model.moe.is_none() {
            return Err(Invalid::one("sharding.dense", "`data` (data-parallel attention) applies to MoE models only"));
        }
        let two_d = sharding.weights == WeightSharding::WeightStationary2d;
        let mut mesh = ServingMesh {
            d_axes: if two_d { pick(&model_links, &sharding.d_axes, true) } else { Vec::new() },
            f_axes: if two_d { pick(&model_links, &sharding.d_axes, false) } else { Vec::new() },
            expert: if model.moe.is_some() { pick(&model_links, &sharding.expert_axes, true) } else { Vec::new() },
            non_expert: pick(&model_links, &sharding.expert_axes, false),
            weights: sharding.weights,
            dense: sharding.dense,
            kv: kv_layout(1, 1, sharding.kv),
            model: model_links,
        };
        let attention_chips = mesh.dense_axes().iter().fold(1_u64, |acc, a| acc.saturating_mul(a.size));
        mesh.kv = kv_layout(kv_heads(model), attention_chips, sharding.kv);
        let a = dtypes.activations.bytes();
        let decode_comms = CommsCurve::new(model, &mesh, a, true)?;
        let prefill_comms = CommsCurve::new(model, &mesh, a, false)?;
        Ok(Self {
            decode_comms,
            prefill_comms,
            model: model.clone(),
            mesh,
            replicas,
            dtypes,
            overlap,
            hbm: chip.hbm.bandwidth,
            hbm_capacity: chip.hbm.capacity,
            peak,
            params: serving_params(model),
        })
    }

    /// Y: chips per replica.
    #[must_use]
    pub fn model_parallel(&self) -> f64 {
        self.mesh.model_parallel()
    }

    /// This chip's share of every stored weight: all of them over Y, or with data-parallel
    /// attention the dense ones over Y / E_p and the routed experts over Y.
    #[must_use]
    pub fn weights_stored_per_chip(&self) -> Bytes {
        let p = &self.params;
        let dense = (p.stored - p.routed_total) / self.mesh.dense_parallel();
        Bytes((dense + p.routed_total / self.model_parallel()) * self.dtypes.weights.bytes())
    }

    /// E and k of a MoE model (`None` if dense).
    #[must_use]
    pub fn experts(&self) -> Option<(u64, u64)> {
        (self.params.experts > 0).then_some((self.params.experts, self.params.experts_per_token))
    }

    /// Parameters of one routed expert and the MoE layers.
    #[must_use]
    pub fn expert_params(&self) -> (f64, f64) {
        (self.params.expert, self.params.moe_layers)
    }

    /// Expected distinct experts `tokens` tokens touch per MoE layer (`None` if dense).
    #[must_use]
    pub fn experts_touched(&self, tokens: f64) -> Option<f64> {
        (self.params.experts > 0)
            .then(|| expected_experts_touched(self.params.experts, self.params.experts_per_token, tokens))
    }

    /// Weight bytes one chip reads for a pass over `tokens` tokens: its share of every
    /// dense weight and of the routed experts some token touches, in expectation.
    #[must_use]
    pub fn weights_read_per_chip(&self, tokens: f64) -> Bytes {
        let p = &self.params;
        let routed = p.moe_layers * self.experts_touched(tokens).unwrap_or(0.0) * p.expert;
        let per_chip = p.read_fixed / self.mesh.dense_parallel() + routed / self.model_parallel();
        Bytes(per_chip * self.dtypes.weights.bytes())
    }

    /// Weight-matmul FLOPs on one chip for `tokens` tokens, `logits` of which need the
    /// output head (2 per active weight per token, book 4.1). With data-parallel
    /// attention a chip runs the dense matmuls of its `1/E_p` share of the tokens.
    #[must_use]
    pub fn matmul_flops_per_chip(&self, tokens: f64, logits: f64) -> Flops {
        let p = &self.params;
        let share = self.mesh.dense_token_share();
        let dense = (p.dense_flops_per_token * tokens + p.head_flops_per_token * logits) * share;
        Flops(dense / self.mesh.dense_parallel() + p.routed_flops_per_token * tokens / self.model_parallel())
    }

    /// Sequences of a `batch` whose caches and attention one dense shard holds: all of
    /// them, or with data-parallel attention `⌈B / E_p⌉`.
    fn attention_batch(&self, batch: f64) -> f64 {
        if self.mesh.data_parallel_attention() {
            (batch * self.mesh.dense_token_share()).ceil()
        } else {
            batch
        }
    }

    /// Decode attention FLOPs on the busiest chip for `batch` sequences at `context`
    /// scoring `tokens_per_seq` tokens each: the chip's share of the caches (as
    /// [`Self::kv_per_chip`], copies not counted twice) times the per-sequence FLOPs.
    #[must_use]
    pub fn attention_flops_per_chip(&self, batch: f64, context: u64, tokens_per_seq: f64) -> Flops {
        let l = &self.mesh.kv;
        let sequences = l.bytes_per_chip(Bytes(1.0), self.attention_batch(batch)).get() / l.replication.max(1) as f64;
        Flops(decode_attention_flops(&self.model, context) * tokens_per_seq * sequences)
    }

    /// KV-cache bytes of one sequence of `context` tokens.
    #[must_use]
    pub fn kv_per_sequence(&self, context: u64) -> Bytes {
        kv_bytes_per_sequence(&self.model, context, self.dtypes.kv)
    }

    /// KV-cache bytes the busiest chip holds for `batch` sequences of `context` tokens.
    #[must_use]
    pub fn kv_per_chip(&self, batch: f64, context: u64) -> Bytes {
        self.mesh.kv.bytes_per_chip(self.kv_per_sequence(context), self.attention_batch(batch))
    }

    /// A decode step for `batch` sequences at `context` tokens, each scoring
    /// `tokens_per_seq` tokens (1, or γ + 1 when verifying a speculative draft).
    ///
    /// # Errors
    /// From the collective model (non-finite sizes).
    pub fn decode(&self, batch: f64, context: u64, tokens_per_seq: f64) -> Result<DecodePoint, Invalid> {
        let tokens = batch * tokens_per_seq;
        let comms = self.decode_comms.at(tokens)?;
        let work = StepWork {
            weight_bytes: self.weights_read_per_chip(tokens),
            kv_bytes: self.kv_per_chip(batch, context),
            attention_flops: self.attention_flops_per_chip(batch, context, tokens_per_seq),
            flops: self.matmul_flops_per_chip(tokens, tokens),
            comms: comms.time_s,
        };
        let time = decode_step_time(&work, self.hbm, self.peak, self.overlap);
        Ok(DecodePoint { time, comms, work, experts_touched: self.experts_touched(tokens) })
    }

    /// One step of continuous batching with chunked prefill (Sarathi-Serve, vLLM's
    /// `max_num_batched_tokens`): `batch` decoding sequences at `context` and a prefill
    /// chunk of `chunk` tokens that follows `prior` tokens of its prompt, in one forward
    /// pass. The weights are read once for both; the chunk adds its matmul and attention
    /// FLOPs (at utilisation `mfu`, as prefill's) and reads its prompt's cache so far; the
    /// collectives carry every token of the step. With data-parallel attention the chunk
    /// runs on one shard, the busiest chip's.
    ///
    /// # Errors
    /// From the collective model (non-finite sizes).
    pub fn mixed_step(
        &self,
        batch: f64,
        context: u64,
        chunk: f64,
        prior: u64,
        mfu: f64,
        attention: AttentionCounting,
    ) -> Result<DecodePoint, Invalid> {
        let tokens = batch + chunk;
        let comms = self.decode_comms.at(tokens)?;
        let p = &self.params;
        let dense = self.mesh.dense_parallel();
        let chunk_tokens = chunk.max(0.0).round() as u64;
        let attn = |t: u64| attention_forward_per_sequence(&self.model, t, attention, false);
        let chunk_attention = (attn(prior.saturating_add(chunk_tokens)) - attn(prior)) / dense;
        let chunk_matmul = (p.dense_flops_per_token * chunk + p.head_flops_per_token) / dense
            + p.routed_flops_per_token * chunk / self.model_parallel();
        let mfu = mfu.max(super::options::MIN_FRACTION);
        let work = StepWork {
            weight_bytes: self.weights_read_per_chip(tokens),
            kv_bytes: self.kv_per_chip(batch, context) + self.mesh.kv.bytes_per_chip(self.kv_per_sequence(prior), 1.0),
            attention_flops: self.attention_flops_per_chip(batch, context, 1.0) + Flops(chunk_attention / mfu),
            flops: self.matmul_flops_per_chip(batch, batch) + Flops(chunk_matmul / mfu),
            comms: comms.time_s,
        };
        let time = decode_step_time(&work, self.hbm, self.peak, self.overlap);
        Ok(DecodePoint { time, comms, work, experts_touched: self.experts_touched(tokens) })
    }

    /// Prefill of `batch` prompts of `prompt` tokens together, in chunks of `chunk` tokens
    /// each, at utilisation `mfu` (1 = the roofline), attention FLOPs counted as
    /// `attention`: each pass reads the weights once and every prompt's cache so far, and
    /// does `batch` times one prompt's FLOPs and collectives.
    ///
    /// # Errors
    /// From the collective model (non-finite sizes).
    pub fn prefill(
        &self,
        prompt: u64,
        chunk: u64,
        batch: f64,
        mfu: f64,
        attention: AttentionCounting,
    ) -> Result<PrefillTime, Invalid> {
        let chunk = chunk.clamp(1, prompt.max(1));
        let b = batch.max(1.0);
        let full = self.prefill_comms.at(chunk as f64 * b)?.time_s;
        let last_tokens = prompt.saturating_sub(prompt.div_ceil(chunk).saturating_sub(1) * chunk);
        let last = self.prefill_comms.at(last_tokens as f64 * b)?.time_s;
        let y = self.model_parallel();
        let attn = |t: u64| attention_forward_per_sequence(&self.model, t, attention, false);
        let pass = |tokens: u64, prior: u64| {
            let is_last = prior + tokens >= prompt;
            PassWork {
                flops: self.matmul_flops_per_chip(tokens as f64 * b, if is_last { b } else { 0.0 })
                    + Flops((attn(prior + tokens) - attn(prior)) * b / y),
                hbm_bytes: self.weights_read_per_chip(tokens as f64 * b) + self.kv_per_chip(b, prior),
                comms: if is_last { last } else { full },
            }
        };
        Ok(prefill_time(prompt, chunk, self.peak, mfu, self.hbm, self.overlap, pass))
    }

    /// HBM of one chip of a prefill server holding the weights, `batch` caches of
    /// `prompt` tokens and the working memory of a pass of `batch × chunk` tokens.
    #[must_use]
    pub fn prefill_memory(
        &self,
        batch: f64,
        prompt: u64,
        chunk: u64,
        working: WorkingMemory,
        reserved_fraction: f64,
    ) -> MemoryPerChip {
        let tokens = batch * chunk.min(prompt) as f64;
        let working = match working {
            WorkingMemory::Activations => self.working_per_chip(tokens, batch),
            WorkingMemory::Ignored => Bytes::ZERO,
        };
        MemoryPerChip::new(
            self.hbm_capacity,
            self.hbm_capacity * reserved_fraction,
            self.weights_stored_per_chip(),
            self.kv_per_chip(batch, prompt),
            working,
        )
    }

    /// Working memory of a pass over `tokens` tokens on one chip, `logits` of which
    /// need the output head.
    #[must_use]
    pub fn working_per_chip(&self, tokens: f64, logits: f64) -> Bytes {
        let m = &self.model;
        let width = m.moe.as_ref().map_or(m.mlp.d_ff, |moe| moe.expert_d_ff.saturating_mul(moe.experts_per_token));
        let hidden = m.mlp.kind.matrices().saturating_sub(1) as f64 * width.max(m.mlp.d_ff) as f64;
        working_bytes_per_chip(
            tokens,
            logits,
            m.d_model as f64,
            hidden,
            m.vocab_size as f64,
            self.model_parallel(),
            self.dtypes.activations.bytes(),
        )
    }

    /// HBM of one chip holding `batch` caches of `context` tokens while a decode step
    /// of `decode_tokens` tokens or a prefill pass of `prefill_tokens` (0 on a decode-only
    /// server) is in flight, plus `extra` (weights, KV) of a draft model.
    #[must_use]
    #[allow(clippy::too_many_arguments)]
    pub fn memory(
        &self,
        batch: f64,
        context: u64,
        decode_tokens: f64,
        prefill_tokens: f64,
        working: WorkingMemory,
        reserved_fraction: f64,
        extra: (Bytes, Bytes),
    ) -> MemoryPerChip {
        let working = match working {
            WorkingMemory::Activations => self
                .working_per_chip(decode_tokens, decode_tokens)
                .max(self.working_per_chip(prefill_tokens, prefill_tokens.min(1.0))),
            WorkingMemory::Ignored => Bytes::ZERO,
        };
        MemoryPerChip::new(
            self.hbm_capacity,
            self.hbm_capacity * reserved_fraction,
            self.weights_stored_per_chip() + extra.0,
            self.kv_per_chip(batch, context) + extra.1,
            working,
        )
    }
}
