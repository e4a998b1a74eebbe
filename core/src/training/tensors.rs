//! Rematerialisation policies (book 4.4.2) exactly as MaxText defines them: every named
//! activation tensor of a decoder layer is kept in HBM (`device`), recomputed in the
//! backward pass (`remat`) or copied to host memory over PCIe (`offload`).
//!
//! **The policies.** `Decoder.get_remat_policy` and `minimal_policy` in
//! `src/maxtext/layers/decoders.py`, and `get_save_and_offload_names` in
//! `src/maxtext/utils/maxtext_utils.py` (MaxText e591f30, 2026-08), map each
//! `remat_policy` to a jax checkpoint policy over these `checkpoint_name`s:
//!
//! | `remat_policy` | saved in HBM | offloaded |
//! |---|---|---|
//! | `none` | everything the backward reads (no `nn.remat`) | — |
//! | `minimal_with_context` (= `minimal_flash`) | q, k, v, `kv_proj`, `qkv_proj`, context, out, `mlpwi_0`, `mlpwi_1`, `mlpwi`, `mlpwo` | — |
//! | `minimal` | the same without context | — |
//! | `save_dot_with_context_except_mlp` | q, k, v, `kv_proj`, `qkv_proj`, context, out | — |
//! | `save_dot_except_mlpwi` | q, k, v, `kv_proj`, `qkv_proj`, out, `mlpwo` | — |
//! | `save_dot_except_mlp` | q, k, v, `kv_proj`, `qkv_proj`, out | — |
//! | `save_qkv_proj` | q, k, v, `kv_proj`, `qkv_proj` | — |
//! | `qkv_proj_offloaded` | — | q, k, v, `kv_proj` |
//! | `save_out_proj` | out | — |
//! | `minimal_offloaded` | — | q, k, v, `kv_proj`, `qkv_proj`, out, `mlpwi_0`, `mlpwi_1`, `mlpwi`, `mlpwo` |
//! | `full` | nothing (`policy = None`) | — |
//! | `custom` | each tensor set to `device` | each set to `offload` |
//!
//! In December 2023 (the v5p runs of the shared CSV) `minimal` was
//! `jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims` (`MaxText/layers/models.py`
//! at 101dcdc): every weight matmul's output, the same set as today's names (attention's
//! own dots carry batch dimensions and run in the flash kernel). Not modelled: the
//! `*_with_quantization` variants (int8 training), MoE-only names (`moe_mlpwi_*` and
//! `moe_mlpwo` double the `mlpwi_*` / `mlpwo` names in `layers/moe.py`, so the presets
//! cover them), MLA's low-rank names (`mla_q`, `mla_kv`, ...) and the log-sum-exp the
//! splash kernel also names `context` (N fp32 values per token, under 2% of the context).
//!
//! **What a saved name costs.** jax keeps only the residuals the backward pass reads:
//! `remat_partial_eval` (jax/_src/ad_checkpoint.py at cec06d1, the "DCE jaxpr_staged" and
//! `used_res` steps) drops every saved value the recompute-and-backward does not use. So a
//! tensor costs memory only where the backward reads it ([`ModelProfile::tensor_elements`]
//! is 0 where it never does):
//! - q, k, v (attention's backward), the context (the out projection's weight gradient)
//!   and `mlpwi_0`/`mlpwi_1` (the activation function's backward) always;
//! - `out_proj` in a sequential block, where the MLP's input is recomputed from the
//!   post-attention residual `x + out`; in a parallel block (MaxText's `default` decoder
//!   block, the 2023 base model) it is only added to the residual stream: never read;
//! - `mlpwo` only in MoE layers (the router's gradient weighs each routed expert's
//!   output) and under a post-FFW norm (Gemma 2/3); a dense layer's down projection only
//!   feeds the residual sum, so `minimal` keeps nothing for it and `full` never
//!   recomputes it: `full` turns 6·N·D into about 7.5·N·D for a LLaMA-shaped model, not
//!   the book's rounded 8·N·D;
//! - the layer input always: under `nn.scan` (`scan_layers: true`, MaxText's default)
//!   each layer is a `nn.remat`'d function of it, and the recompute starts from it, so it
//!   is saved whatever the policy (`decoder_layer_input: 'device'` in `base.yml`: "this
//!   tensor cannot be rematerialized"); only `offload` moves it (to the host).
//!
//! Each tensor not kept is recomputed by its own matmul (or, for the context, by re-running
//! attention) and exists again, with the norm outputs, while its layer's backward runs:
//! [`RematCost::dropped`] is that per-layer working set ([`super::memory`]). The
//! activation function's outputs are not in it: elementwise on the kept or recomputed
//! `mlpwi_*`, XLA fuses them into the matmuls that read them; only `none`, which
//! rematerialises nothing, saves them as residuals.

use super::profile::ModelProfile;
use serde::{Deserialize, Serialize};

/// A named activation tensor of one decoder layer (MaxText `checkpoint_name`s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LayerTensor {
    /// The layer input `[B, T, D]`: the scan carry, the start point of every recompute;
    /// always kept unless offloaded.
    DecoderLayerInput,
    /// Query projection `[B, T, N, H]`.
    QueryProj,
    /// Key projection `[B, T, K, H]`.
    KeyProj,
    /// Value projection `[B, T, K, H]`.
    ValueProj,
    /// Attention output before the out projection `[B, T, N, H]`.
    Context,
    /// Out projection `[B, T, D]`.
    OutProj,
    /// First MLP input projection `[B, T, F]` (k routed + shared experts in MoE layers).
    MlpWi0,
    /// Second (gate) input projection of a gated MLP `[B, T, F]`.
    MlpWi1,
    /// MLP down projection `[B, T, D]` (each routed expert's in MoE layers).
    MlpWo,
    /// Unnamed intermediates: both norm outputs, the post-attention residual and the
    /// activation-function outputs. Only `none` keeps them; recomputing them is free
    /// (elementwise).
    Other,
}

/// Number of [`LayerTensor`]s.
pub const TENSOR_COUNT: usize = 10;

impl LayerTensor {
    /// Every tensor, in layer order.
    pub const ALL: [LayerTensor; TENSOR_COUNT] = [
        LayerTensor::DecoderLayerInput,
        LayerTensor::QueryProj,
        LayerTensor::KeyProj,
        LayerTensor::ValueProj,
        LayerTensor::Context,
        LayerTensor::OutProj,
        LayerTensor::MlpWi0,
        LayerTensor::MlpWi1,
        LayerTensor::MlpWo,
        LayerTensor::Other,
    ];

    /// Whether tensor parallelism splits it over K/V heads (min(TP, K) ways) rather
    /// than TP ways.
    #[must_use]
    pub fn split_by_kv_heads(self) -> bool {
        matches!(self, LayerTensor::KeyProj | LayerTensor::ValueProj)
    }

    /// Whether recomputing it re-runs the attention block's TP collectives.
    fn in_attention_block(self) -> bool {
        matches!(
            self,
            LayerTensor::QueryProj
                | LayerTensor::KeyProj
                | LayerTensor::ValueProj
                | LayerTensor::Context
                | LayerTensor::OutProj
        )
    }
}

/// Where a tensor lives between the forward and the backward pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Kept in HBM.
    Device,
    /// Dropped and recomputed in the backward pass.
    Remat,
    /// Copied to host memory over PCIe in the forward pass and back in the backward.
    Offload,
}
crate::serde_names::deserialize_by_name!(Placement { Device => "device", Remat => "remat", Offload => "offload" });

fn device() -> Placement {
    Placement::Device
}
fn remat() -> Placement {
    Placement::Remat
}

/// MaxText's `remat_policy: custom`: one placement per tensor. Defaults are MaxText's
/// (`decoder_layer_input: device`, everything else `remat`). `remat` for the layer
/// input is accepted, as MaxText accepts it, and changes nothing: the scanned layer's
/// recompute starts from its input, so it stays in HBM (module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CustomRemat {
    /// The layer input.
    #[serde(default = "device")]
    pub decoder_layer_input: Placement,
    /// Query projection.
    #[serde(default = "remat")]
    pub query_proj: Placement,
    /// Key projection.
    #[serde(default = "remat")]
    pub key_proj: Placement,
    /// Value projection.
    #[serde(default = "remat")]
    pub value_proj: Placement,
    /// Fused q/k/v projection; when set it overrides the three above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qkv_proj: Option<Placement>,
    /// Attention output.
    #[serde(default = "remat")]
    pub context: Placement,
    /// Out projection.
    #[serde(default = "remat")]
    pub out_proj: Placement,
    /// First MLP input projection.
    #[serde(default = "remat")]
    pub mlpwi_0: Placement,
    /// Second MLP input projection (gated MLPs).
    #[serde(default = "remat")]
    pub mlpwi_1: Placement,
    /// Plain-MLP input projection; when set it overrides `mlpwi_0` and `mlpwi_1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mlpwi: Option<Placement>,
    /// MLP down projection.
    #[serde(default = "remat")]
    pub mlpwo: Placement,
}

impl Default for CustomRemat {
    fn default() -> Self {
        Self {
            decoder_layer_input: Placement::Device,
            query_proj: Placement::Remat,
            key_proj: Placement::Remat,
            value_proj: Placement::Remat,
            qkv_proj: None,
            context: Placement::Remat,
            out_proj: Placement::Remat,
            mlpwi_0: Placement::Remat,
            mlpwi_1: Placement::Remat,
            mlpwi: None,
            mlpwo: Placement::Remat,
        }
    }
}

/// A remat policy: MaxText's `remat_policy` presets, or a custom per-tensor one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Remat {
    /// No remat: every intermediate the backward reads is kept (the book's ~20 per
    /// layer).
    None,
    /// q, k, v, context, out and every MLP projection kept (MaxText's `minimal_flash`
    /// is the same policy under its older name).
    #[serde(alias = "minimal_flash")]
    MinimalWithContext,
    /// Every weight-matmul output kept (in 2023 `checkpoint_dots_with_no_batch_dims`):
    /// attention is recomputed.
    Minimal,
    /// q, k, v, context and out kept.
    SaveDotWithContextExceptMlp,
    /// q, k, v, out and the MLP down projection kept.
    SaveDotExceptMlpwi,
    /// q, k, v and out kept.
    SaveDotExceptMlp,
    /// q, k and v kept.
    SaveQkvProj,
    /// q, k and v offloaded to the host.
    QkvProjOffloaded,
    /// Only the out projection kept.
    SaveOutProj,
    /// Every weight-matmul output offloaded to the host.
    MinimalOffloaded,
    /// Only the layer input kept (block remat, book 4.4.2). The default.
    #[default]
    Full,
    /// One placement per tensor.
    Custom(CustomRemat),
}

impl Remat {
    /// The presets, from the least to the most recompute (MaxText's order).
    pub const PRESETS: [Remat; 11] = [
        Remat::None,
        Remat::MinimalWithContext,
        Remat::Minimal,
        Remat::SaveDotWithContextExceptMlp,
        Remat::SaveDotExceptMlpwi,
        Remat::SaveDotExceptMlp,
        Remat::SaveQkvProj,
        Remat::QkvProjOffloaded,
        Remat::SaveOutProj,
        Remat::MinimalOffloaded,
        Remat::Full,
    ];

    /// MaxText's name for the policy.
    #[must_use]
    pub fn id(&self) -> &'static str {
        match self {
            Remat::None => "none",
            Remat::MinimalWithContext => "minimal_with_context",
            Remat::Minimal => "minimal",
            Remat::SaveDotWithContextExceptMlp => "save_dot_with_context_except_mlp",
            Remat::SaveDotExceptMlpwi => "save_dot_except_mlpwi",
            Remat::SaveDotExceptMlp => "save_dot_except_mlp",
            Remat::SaveQkvProj => "save_qkv_proj",
            Remat::QkvProjOffloaded => "qkv_proj_offloaded",
            Remat::SaveOutProj => "save_out_proj",
            Remat::MinimalOffloaded => "minimal_offloaded",
            Remat::Full => "full",
            Remat::Custom(_) => "custom",
        }
    }

    /// The preset MaxText calls `id` (`minimal_flash` is `minimal_with_context`).
    #[must_use]
    pub fn preset(id: &str) -> Option<Remat> {
        let id = if id == "minimal_flash" { "minimal_with_context" } else { id };
        Self::PRESETS.iter().find(|r| r.id() == id).cloned()
    }

    /// Where every tensor goes, in [`LayerTensor::ALL`] order.
    #[must_use]
    pub fn placements(&self) -> [Placement; TENSOR_COUNT] {
        use LayerTensor as T;
        let keep = |names: &[LayerTensor], how: Placement| {
            let mut p = [Placement::Remat; TENSOR_COUNT];
            p[T::DecoderLayerInput as usize] = Placement::Device;
            for t in names {
                p[*t as usize] = how;
            }
            p
        };
        const QKV: [LayerTensor; 3] = [T::QueryProj, T::KeyProj, T::ValueProj];
        const DOTS: [LayerTensor; 7] =
            [T::QueryProj, T::KeyProj, T::ValueProj, T::OutProj, T::MlpWi0, T::MlpWi1, T::MlpWo];
        let d = Placement::Device;
        match self {
            Remat::None => [Placement::Device; TENSOR_COUNT],
            Remat::MinimalWithContext => keep(
                &[T::QueryProj, T::KeyProj, T::ValueProj, T::Context, T::OutProj, T::MlpWi0, T::MlpWi1, T::MlpWo],
                d,
            ),
            Remat::Minimal => keep(&DOTS, d),
            Remat::SaveDotWithContextExceptMlp => {
                keep(&[T::QueryProj, T::KeyProj, T::ValueProj, T::Context, T::OutProj], d)
            }
            Remat::SaveDotExceptMlpwi => keep(&[T::QueryProj, T::KeyProj, T::ValueProj, T::OutProj, T::MlpWo], d),
            Remat::SaveDotExceptMlp => keep(&[T::QueryProj, T::KeyProj, T::ValueProj, T::OutProj], d),
            Remat::SaveQkvProj => keep(&QKV, d),
            Remat::QkvProjOffloaded => keep(&QKV, Placement::Offload),
            Remat::SaveOutProj => keep(&[T::OutProj], d),
            Remat::MinimalOffloaded => keep(&DOTS, Placement::Offload),
            Remat::Full => keep(&[], d),
            Remat::Custom(c) => {
                let qkv = |p: Placement| c.qkv_proj.unwrap_or(p);
                let wi = |p: Placement| c.mlpwi.unwrap_or(p);
                [
                    c.decoder_layer_input,
                    qkv(c.query_proj),
                    qkv(c.key_proj),
                    qkv(c.value_proj),
                    c.context,
                    c.out_proj,
                    wi(c.mlpwi_0),
                    wi(c.mlpwi_1),
                    c.mlpwo,
                    Placement::Remat,
                ]
            }
        }
    }

    /// The workload's FLOP-level policy closest to this one (`flops::RematPolicy`, what the
    /// FLOP report's recompute counts): `none`, `full`, or matmul outputs kept.
    #[must_use]
    pub fn flops_policy(&self) -> crate::flops::RematPolicy {
        match self {
            Remat::None => crate::flops::RematPolicy::None,
            Remat::Full => crate::flops::RematPolicy::Full,
            _ => crate::flops::RematPolicy::SaveMatmuls,
        }
    }

    /// Whether any tensor goes to the host.
    #[must_use]
    pub fn offloads(&self) -> bool {
        self.placements().contains(&Placement::Offload)
    }
}

/// What a policy costs on a given model, per token and summed over layers, before
/// sharding: the planner divides by TP (K/V tensors by min(TP, K)) and pipeline stages.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RematCost {
    /// Elements kept in HBM that TP splits TP ways.
    pub kept: f64,
    /// Elements kept in HBM that TP splits min(TP, K) ways (k and v).
    pub kept_kv: f64,
    /// Elements offloaded to the host, TP-split.
    pub offloaded: f64,
    /// Elements offloaded to the host, split min(TP, K) ways.
    pub offloaded_kv: f64,
    /// Elements a layer's backward pass brings back, TP-split: recomputed or fetched
    /// from the host (the unnamed intermediates included), summed over layers. One
    /// layer's share is live at once ([`super::memory`]).
    pub dropped: f64,
    /// The same, split min(TP, K) ways (k and v).
    pub dropped_kv: f64,
    /// Forward matmul FLOPs per token recomputed in the backward pass (attention
    /// itself excluded; see `context_recomputed`).
    pub recompute_flops_per_token: f64,
    /// Whether the backward pass re-runs dot-product attention.
    pub context_recomputed: bool,
    /// Whether it re-runs the attention block (and so its TP collectives).
    pub attention_block_recomputed: bool,
    /// Whether it re-runs the MLP input projections (and their TP collectives, and
    /// the MoE dispatch).
    pub mlp_block_recomputed: bool,
    /// Whether it re-runs the layers' elementwise work (norms, rotary, activations: the
    /// unnamed intermediates, which only `none` keeps).
    pub elementwise_recomputed: bool,
}

impl RematCost {
    /// Whether `self` never costs more than `other` in memory, host traffic or
    /// recompute, so a search never needs `other` (`save_dot_except_mlp` dominates
    /// `save_dot_except_mlpwi`; `minimal_with_context` does not dominate `none`, which
    /// re-runs no elementwise work).
    #[must_use]
    pub fn dominates(&self, other: &RematCost) -> bool {
        self.kept <= other.kept
            && self.kept_kv <= other.kept_kv
            && self.offloaded <= other.offloaded
            && self.offloaded_kv <= other.offloaded_kv
            && self.recompute_flops_per_token <= other.recompute_flops_per_token
            && (!self.context_recomputed || other.context_recomputed)
            && (!self.attention_block_recomputed || other.attention_block_recomputed)
            && (!self.mlp_block_recomputed || other.mlp_block_recomputed)
            && (!self.elementwise_recomputed || other.elementwise_recomputed)
    }

    /// The cost of `placements` on `profile`.
    #[must_use]
    pub fn of(placements: &[Placement; TENSOR_COUNT], profile: &ModelProfile) -> Self {
        let mut c = RematCost::default();
        for (t, p) in LayerTensor::ALL.iter().zip(placements) {
            let elements = profile.tensor_elements[*t as usize];
            if elements <= 0.0 {
                continue;
            }
            // The scanned layer's recompute starts from its input: never rematerialised.
            let p = match (t, p) {
                (LayerTensor::DecoderLayerInput, Placement::Remat) => &Placement::Device,
                _ => p,
            };
            if *p != Placement::Device {
                if t.split_by_kv_heads() {
                    c.dropped_kv += elements;
                } else if *t == LayerTensor::Other {
                    c.dropped += (elements - profile.fused_elements).max(0.0);
                } else {
                    c.dropped += elements;
                }
            }
            match (p, t.split_by_kv_heads()) {
                (Placement::Device, false) => c.kept += elements,
                (Placement::Device, true) => c.kept_kv += elements,
                (Placement::Offload, false) => c.offloaded += elements,
                (Placement::Offload, true) => c.offloaded_kv += elements,
                (Placement::Remat, _) => {
                    c.recompute_flops_per_token += profile.tensor_flops[*t as usize];
                    match t {
                        LayerTensor::Context => c.context_recomputed = true,
                        LayerTensor::MlpWi0 | LayerTensor::MlpWi1 => c.mlp_block_recomputed = true,
                        LayerTensor::Other => c.elementwise_recomputed = true,
                        _ => {}
                    }
                    if t.in_attention_block() {
                        c.attention_block_recomputed = true;
                    }
                }
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn presets_round_trip_by_name() {
        for r in Remat::PRESETS {
            let json = serde_json::to_value(&r).unwrap();
            assert_eq!(json, r.id());
            assert_eq!(serde_json::from_value::<Remat>(json).unwrap(), r);
        }
        let c: Remat = serde_json::from_str(r#"{"custom": {"qkv_proj": "offload"}}"#).unwrap();
        assert!(c.offloads());
        assert_eq!(c.placements()[LayerTensor::KeyProj as usize], Placement::Offload);
        assert!(serde_json::from_str::<Remat>(r#"{"custom": {"qkv": "device"}}"#).is_err());
    }

    #[test]
    fn full_keeps_one_d_per_layer_and_none_keeps_everything() {
        let p = ModelProfile::of(&presets::get("llama-3-70b").unwrap().config);
        let full = RematCost::of(&Remat::Full.placements(), &p);
        assert_eq!(full.kept + full.kept_kv, 8192.0 * 80.0);
        let none = RematCost::of(&Remat::None.placements(), &p);
        assert_eq!(none.recompute_flops_per_token, 0.0);
        // Book 4.4.2: "roughly 20" B·T·D per layer with nothing recomputed.
        let per_layer = (none.kept + none.kept_kv) / (8192.0 * 80.0);
        assert!((18.0..24.0).contains(&per_layer), "{per_layer}");
        assert!(full.context_recomputed && full.attention_block_recomputed && full.mlp_block_recomputed);
    }
}
