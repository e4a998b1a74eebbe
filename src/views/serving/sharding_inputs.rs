//! How one replica splits the model (book 7.3: 1D or 2D weight-stationary over the model
//! axes, the KV cache by heads then by batch, by sequence or replicated, experts over
//! expert axes), and how prefill runs (utilisation, chunks, attention FLOPs, a separate
//! prefill mesh for disaggregated serving).

use leptos::prelude::*;
use shardcalc_core::flops::AttentionCounting;
use shardcalc_core::inference::options::{KvSharding, WeightSharding};

use shardcalc_core::scenario::Scenario;

use super::fields::{
    axis_list, current_section, optional_positive_count, optional_positive_real, real_text, ChoiceSpec, Field, Group,
    InferenceSpec,
};
use crate::components::{messages_under, parse_shape, shape_of, topology_for};
use crate::state::AppState;

static MODEL_AXES: InferenceSpec = InferenceSpec {
    path: "inference.sharding.model_axes",
    id: "inference-sharding-model_axes",
    label: "Model axes",
    unit: "",
    hint: "Topology axes the model is split over, e.g. x, y; empty = every scale-up axis (the rest hold replicas)",
    input_mode: "text",
    get: |s| s.sharding.model_axes.as_ref().map(|a| a.join(", ")).unwrap_or_default(),
    set: |t, s| {
        let axes = axis_list(t);
        s.sharding.model_axes = (!axes.is_empty()).then_some(axes);
        Ok(())
    },
};

static D_AXES: InferenceSpec = InferenceSpec {
    path: "inference.sharding.d_axes",
    id: "inference-sharding-d_axes",
    label: "D axes (2D)",
    unit: "",
    hint: "Model axes that shard D (the book's X); the others shard F and the heads",
    input_mode: "text",
    get: |s| s.sharding.d_axes.join(", "),
    set: |t, s| {
        s.sharding.d_axes = axis_list(t);
        Ok(())
    },
};

static EXPERT_AXES: InferenceSpec = InferenceSpec {
    path: "inference.sharding.expert_axes",
    id: "inference-sharding-expert_axes",
    label: "Expert axes",
    unit: "",
    hint: "Model axes the experts are split over (expert parallelism); empty = none",
    input_mode: "text",
    get: |s| s.sharding.expert_axes.join(", "),
    set: |t, s| {
        s.sharding.expert_axes = axis_list(t);
        Ok(())
    },
};

static WEIGHTS: ChoiceSpec = ChoiceSpec {
    path: "inference.sharding.weights",
    label: "Weights",
    hint: "1D: one AllReduce of the activations per block; 2D: gather and reduce over D and F axes (book 7.3.2, Exercise 7.7)",
    options: &[("weight_stationary_1d", "1D weight-stationary (Megatron)"), ("weight_stationary_2d", "2D weight-stationary")],
    get: |s| match s.sharding.weights {
        WeightSharding::WeightStationary1d => "weight_stationary_1d".into(),
        WeightSharding::WeightStationary2d => "weight_stationary_2d".into(),
    },
    set: |t, s| {
        s.sharding.weights = if t == "weight_stationary_2d" {
            // 2D needs D axes: start with the first TPU axis (the D axes field appears).
            if s.sharding.d_axes.is_empty() {
                s.sharding.d_axes = vec!["x".into()];
            }
            WeightSharding::WeightStationary2d
        } else {
            s.sharding.d_axes.clear();
            WeightSharding::WeightStationary1d
        };
        Ok(())
    },
};

static KV: ChoiceSpec = ChoiceSpec {
    path: "inference.sharding.kv",
    label: "KV cache past its heads",
    hint: "The cache splits by KV heads first; when the model-parallel degree exceeds them, the rest is split this way (book 7.3.3)",
    options: &[
        ("batch", "by batch (two AllToAlls per layer)"),
        ("sequence", "by sequence (gather Q, reduce outputs)"),
        ("replicate", "replicated (no collective, more memory)"),
    ],
    get: |s| match s.sharding.kv {
        KvSharding::Batch => "batch".into(),
        KvSharding::Sequence => "sequence".into(),
        KvSharding::Replicate => "replicate".into(),
    },
    set: |t, s| {
        s.sharding.kv = match t {
            "sequence" => KvSharding::Sequence,
            "replicate" => KvSharding::Replicate,
            _ => KvSharding::Batch,
        };
        Ok(())
    },
};

fn two_d(s: &Scenario) -> bool {
    s.inference.as_ref().is_some_and(|i| i.sharding.weights == WeightSharding::WeightStationary2d)
}

fn moe(s: &Scenario) -> bool {
    s.model.resolve().is_ok_and(|m| m.moe.is_some())
}

/// Weight sharding, KV sharding past the heads, model and expert axes.
pub static SHARDING: Group = Group {
    legend: "Sharding",
    class: "serving-sharding",
    fields: &[
        Field::Choice(&WEIGHTS),
        Field::TextIf(&D_AXES, two_d),
        Field::Choice(&KV),
        Field::Text(&MODEL_AXES),
        Field::TextIf(&EXPERT_AXES, moe),
    ],
};

static MFU: InferenceSpec = InferenceSpec {
    path: "inference.prefill.mfu",
    id: "inference-prefill-mfu",
    label: "Prefill utilisation (MFU)",
    unit: "0–1",
    hint: "Assumed FLOPs utilisation, e.g. 0.4 (book 8.1.2); empty = the roofline",
    input_mode: "decimal",
    get: |s| real_text(s.prefill.mfu),
    set: |t, s| {
        s.prefill.mfu = optional_positive_real(t)?;
        Ok(())
    },
};

static CHUNK: InferenceSpec = InferenceSpec {
    path: "inference.prefill.chunk",
    id: "inference-prefill-chunk",
    label: "Prefill chunk",
    unit: "tokens",
    hint: "Chunked prefill: tokens per pass, each reloading the weights; empty = the whole prompt",
    input_mode: "numeric",
    get: |s| s.prefill.chunk.map(|c| c.to_string()).unwrap_or_default(),
    set: |t, s| {
        s.prefill.chunk = optional_positive_count(t)?;
        Ok(())
    },
};

static ATTENTION: ChoiceSpec = ChoiceSpec {
    path: "inference.prefill.attention",
    label: "Attention FLOPs",
    hint: "How dot-product attention is counted in the prefill's FLOPs",
    options: &[
        ("causal_half", "causal: half the dense pairs"),
        ("dense", "dense: every query–key pair (book 4.3)"),
        ("ignored", "ignored: 2·N·T (book 8.1.2)"),
    ],
    get: |s| match s.prefill.attention {
        AttentionCounting::CausalHalf => "causal_half".into(),
        AttentionCounting::Dense => "dense".into(),
        AttentionCounting::Ignored => "ignored".into(),
    },
    set: |t, s| {
        s.prefill.attention = match t {
            "dense" => AttentionCounting::Dense,
            "ignored" => AttentionCounting::Ignored,
            _ => AttentionCounting::CausalHalf,
        };
        Ok(())
    },
};

/// Prefill utilisation, chunk, attention FLOPs and the prefill servers' mesh.
pub static PREFILL: Group = Group {
    legend: "Prefill",
    class: "serving-prefill",
    fields: &[Field::Text(&MFU), Field::Text(&CHUNK), Field::Choice(&ATTENTION), Field::Special(&PREFILL_TOPOLOGY)],
};

/// The prefill servers' slice: a shape on the scenario's chip (not a field of the section
/// alone: [`apply_prefill_topology`] reads it).
pub static PREFILL_TOPOLOGY: InferenceSpec = InferenceSpec {
    path: "inference.prefill.topology",
    id: "inference-prefill-topology",
    label: "Prefill server slice",
    unit: "",
    hint: "Disaggregated serving: the prefill servers' shape, e.g. 4x4; empty = prefill on the decode mesh",
    input_mode: "text",
    get: |s| s.prefill.topology.as_ref().map(|t| shape_of(t).0).unwrap_or_default(),
    set: |_, _| Ok(()),
};

/// Reads a shape for the prefill servers on the scenario's chip.
pub fn apply_prefill_topology(state: AppState, text: &str) -> Result<(), String> {
    let path = "inference.prefill.topology";
    let topology = if text.trim().is_empty() {
        None
    } else {
        let shape = parse_shape(text).map_err(|m| format!("{path}: {m}"))?;
        let chip = state
            .scenario
            .with_untracked(|s| s.hardware.clone())
            .ok_or_else(|| format!("{path}: choose a chip first"))?
            .chip
            .resolve()
            .map_err(|e| e.to_string())?;
        Some(topology_for(&chip, &shape, 1, None))
    };
    let mut section = current_section(state);
    section.prefill.topology = topology;
    state.try_update(|s| s.inference = Some(section)).map_err(|e| messages_under(&e, path))
}
