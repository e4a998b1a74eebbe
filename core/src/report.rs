//! The report computed from a scenario: what `shardcalc eval` prints and what the page
//! exports as JSON. Field names are part of the public contract (see docs/report.md).

use crate::dtype::DType;
use crate::error::Invalid;
use crate::flops::{training_flops, FlopComponent, FlopConvention, FlopsReport, Workload};
use crate::model::ModelConfig;
use crate::notebook::{notebook_tables, NotebookTables};
use crate::params::{count_params, ParamComponent, ParamCounts};
use crate::report_hardware::{hardware_sections, CollectiveReport, HardwareReport, RooflineReport};
use crate::scenario::Scenario;
use crate::units::{Bytes, Params};
use serde::{Deserialize, Serialize};

/// Version of the report format.
pub const REPORT_VERSION: u32 = 1;

/// Everything `shardcalc eval` prints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Report {
    /// Report format version.
    pub report_version: u32,
    /// The model's shape, summarised.
    pub model: ModelSummary,
    /// Parameter counts.
    pub params: ParamsReport,
    /// The workload the FLOPs are for.
    pub workload: Workload,
    /// Training FLOPs per device and step, under every convention.
    pub flops: FlopsByConvention,
    /// The MaxText notebook's tables as it prints them, with corrections.
    pub notebook: NotebookTables,
    /// The serving plan, when the scenario has `inference`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference: Option<crate::inference::InferenceReport>,
    /// The chip and its derived numbers, when the scenario has `hardware`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<HardwareReport>,
    /// One entry per scenario `collectives` query.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collectives: Vec<CollectiveReport>,
    /// The scenario's `roofline` op on one chip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roofline: Option<RooflineReport>,
    /// The training plan, when the scenario has `training`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<crate::training::TrainingReport>,
}

/// The model's shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ModelSummary {
    /// Display name.
    pub name: String,
    /// MHA, GQA, MQA or MLA.
    pub attention: String,
    /// Decoder layers.
    pub layers: u64,
    /// Layers with global attention.
    pub global_attention_layers: u64,
    /// Layers with sliding-window or chunked attention.
    pub local_attention_layers: u64,
    /// Layers whose FFN is a mixture of experts.
    pub moe_layers: u64,
    /// Layers with a dense MLP.
    pub dense_layers: u64,
}

/// Weight memory at each storage format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WeightBytes {
    /// 4 bytes per parameter.
    pub fp32: Bytes,
    /// 2 bytes per parameter.
    pub bf16: Bytes,
    /// 1 byte per parameter.
    pub fp8: Bytes,
    /// 1 byte per parameter.
    pub int8: Bytes,
    /// Half a byte per parameter.
    pub int4: Bytes,
}

impl WeightBytes {
    /// Weight memory of `p` parameters at every format.
    #[must_use]
    pub fn of(p: Params) -> Self {
        Self {
            fp32: p.bytes_at(DType::Fp32.bytes()),
            bf16: p.bytes_at(DType::Bf16.bytes()),
            fp8: p.bytes_at(DType::Fp8.bytes()),
            int8: p.bytes_at(DType::Int8.bytes()),
            int4: p.bytes_at(DType::Int4.bytes()),
        }
    }
}

/// Parameter counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParamsReport {
    /// Every stored parameter (MTP modules included).
    pub total: Params,
    /// Parameters one token touches in the main model.
    pub active: Params,
    /// Total without MTP modules.
    pub total_without_mtp: Params,
    /// Per-component rows.
    pub breakdown: Vec<ParamRowReport>,
    /// Memory of all stored weights at each format.
    pub weight_bytes: WeightBytes,
}

/// One component's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParamRowReport {
    /// Component id.
    pub component: ParamComponent,
    /// Display label.
    pub label: String,
    /// Stored.
    pub total: Params,
    /// Touched per token.
    pub active: Params,
}

/// FLOPs under each convention.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FlopsByConvention {
    /// The convention the scenario picked for headline numbers.
    pub headline: FlopConvention,
    /// MaxText's training-log convention.
    pub maxtext: FlopsSummary,
    /// MaxText's LLM-calculator notebook.
    pub notebook: FlopsSummary,
    /// 6·N·D.
    pub six_nd: FlopsSummary,
    /// How to Scale Your Model, chapter 4.
    pub book: FlopsSummary,
}

impl FlopsByConvention {
    /// The summary for one convention.
    #[must_use]
    pub fn get(&self, c: FlopConvention) -> &FlopsSummary {
        match c {
            FlopConvention::MaxText => &self.maxtext,
            FlopConvention::Notebook => &self.notebook,
            FlopConvention::SixNd => &self.six_nd,
            FlopConvention::Book => &self.book,
        }
    }
}

/// One convention's FLOPs for one device and one optimizer step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FlopsSummary {
    /// Model TFLOPs (forward + backward), what MFU divides by.
    pub total_tflops_per_device_step: f64,
    /// The part that multiplies learnable weights.
    pub learnable_tflops_per_device_step: f64,
    /// The dot-product-attention part.
    pub attention_tflops_per_device_step: f64,
    /// Forward TFLOPs the remat policy recomputes.
    pub remat_recompute_tflops_per_device_step: f64,
    /// Hardware TFLOPs (model + recompute), what HFU divides by.
    pub hardware_tflops_per_device_step: f64,
    /// Tokens per device per step.
    pub tokens_per_device_step: f64,
    /// Training FLOPs per token.
    pub training_flops_per_token: f64,
    /// Per-component rows.
    pub rows: Vec<FlopRowReport>,
}

/// One component's TFLOPs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FlopRowReport {
    /// Component id.
    pub component: FlopComponent,
    /// Display label.
    pub label: String,
    /// Forward pass.
    pub forward_tflops: f64,
    /// Backward pass.
    pub backward_tflops: f64,
    /// Forward plus backward.
    pub total_tflops: f64,
}

impl FlopsSummary {
    /// Summarise a FLOPs report in TFLOPs.
    #[must_use]
    pub fn of(r: &FlopsReport) -> Self {
        Self {
            total_tflops_per_device_step: r.total.tflops(),
            learnable_tflops_per_device_step: r.learnable.tflops(),
            attention_tflops_per_device_step: r.attention.tflops(),
            remat_recompute_tflops_per_device_step: r.remat_recompute.tflops(),
            hardware_tflops_per_device_step: r.hardware_total.tflops(),
            tokens_per_device_step: r.tokens_per_device_step,
            training_flops_per_token: r.per_token().get(),
            rows: r
                .rows
                .iter()
                .map(|row| FlopRowReport {
                    component: row.component,
                    label: row.component.label().into(),
                    forward_tflops: row.forward.tflops(),
                    backward_tflops: row.backward.tflops(),
                    total_tflops: row.total().tflops(),
                })
                .collect(),
        }
    }
}

/// Summarise a model's shape.
#[must_use]
pub fn model_summary(m: &ModelConfig) -> ModelSummary {
    let (global, local) = m.layout.counts(m.num_layers);
    let (moe, dense) = m.moe_and_dense_layers();
    ModelSummary {
        name: m.name.clone(),
        attention: m.attention_label().into(),
        layers: m.num_layers,
        global_attention_layers: global,
        local_attention_layers: local,
        moe_layers: moe,
        dense_layers: dense,
    }
}

/// Build the parameter section.
#[must_use]
pub fn params_report(c: &ParamCounts) -> ParamsReport {
    ParamsReport {
        total: c.total,
        active: c.active,
        total_without_mtp: c.total_without_mtp,
        breakdown: c
            .rows
            .iter()
            .map(|r| ParamRowReport {
                component: r.component,
                label: r.component.label().into(),
                total: r.total,
                active: r.active,
            })
            .collect(),
        weight_bytes: WeightBytes::of(c.total),
    }
}

/// Evaluate a scenario: every section it has.
///
/// # Errors
/// Every validation problem, naming its field.
pub fn evaluate(s: &Scenario) -> Result<Report, Invalid> {
    let m = s.validate()?;
    let resolved = s.validate_hardware()?;
    let mut report = model_report(&m, s);
    if let Some(hw) = &resolved {
        let has_topology = s.hardware.as_ref().is_some_and(|h| h.topology.is_some());
        let (h, c, r) = hardware_sections(hw, has_topology, &s.collectives, s.roofline.as_ref())?;
        report.hardware = Some(h);
        report.collectives = c;
        report.roofline = r;
    }
    report.inference = crate::scenario::inference_report(&m, s)?;
    report.training = crate::scenario::training_report(&m, resolved.as_ref(), s)?;
    Ok(report)
}

/// The model's sections only: `model`, `params`, `workload`, `flops` and `notebook`, with
/// `hardware`, `collectives`, `roofline`, `inference` and `training` left empty. What the
/// page's model view shows; it never runs the serving plan or the training search (and so
/// keeps their code out of pages that do not show them).
///
/// # Errors
/// Every validation problem of the model and workload, naming its field.
pub fn evaluate_model(s: &Scenario) -> Result<Report, Invalid> {
    let m = s.validate()?;
    Ok(model_report(&m, s))
}

fn model_report(m: &ModelConfig, s: &Scenario) -> Report {
    let w = &s.workload;
    let summary = |c| FlopsSummary::of(&training_flops(m, w, c));
    Report {
        report_version: REPORT_VERSION,
        model: model_summary(m),
        params: params_report(&count_params(m)),
        workload: w.clone(),
        flops: FlopsByConvention {
            headline: s.conventions.flops,
            maxtext: summary(FlopConvention::MaxText),
            notebook: summary(FlopConvention::Notebook),
            six_nd: summary(FlopConvention::SixNd),
            book: summary(FlopConvention::Book),
        },
        notebook: notebook_tables(m, w),
        inference: None,
        hardware: None,
        collectives: Vec::new(),
        roofline: None,
        training: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ModelSource;

    #[test]
    fn report_has_the_documented_keys() {
        let s = Scenario { model: ModelSource::Preset("llama-3-8b".into()), ..Scenario::default() };
        let v = serde_json::to_value(evaluate(&s).unwrap()).unwrap();
        assert_eq!(v["params"]["total"], 8_030_261_248_u64);
        assert_eq!(v["params"]["active"], 8_030_261_248_u64);
        for key in
            ["total_tflops_per_device_step", "learnable_tflops_per_device_step", "attention_tflops_per_device_step"]
        {
            assert!(v["flops"]["maxtext"][key].is_f64(), "{key}");
        }
        let total = v["flops"]["maxtext"]["total_tflops_per_device_step"].as_f64().unwrap();
        let parts = v["flops"]["maxtext"]["learnable_tflops_per_device_step"].as_f64().unwrap()
            + v["flops"]["maxtext"]["attention_tflops_per_device_step"].as_f64().unwrap();
        assert!((total - parts).abs() < 1e-9 * total);
    }

    #[test]
    fn hardware_sections_are_reported() {
        let s = Scenario::from_json(
            r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":8},
                "hardware":{"chip":{"preset":"tpu-v5e"},"topology":{"axes":[{"name":"x","size":8},{"name":"y","size":4}]}},
                "collectives":[{"kind":"all_gather","array_bytes":33554432,"axes":["y"]}],
                "roofline":{"matmul":{"b":256,"d":8192,"f":32768}}}"#,
        )
        .unwrap();
        let v = serde_json::to_value(evaluate(&s).unwrap()).unwrap();
        // Book Pop Quiz 2: no wraparound on a v5e axis of 4, about 560 µs.
        let t = v["collectives"][0]["time_s"].as_f64().unwrap();
        assert!((t - 559.2e-6).abs() < 1e-6, "{t}");
        assert_eq!(v["collectives"][0]["regime"], "bandwidth");
        // Book 3.2: below 45 kB per hop a v5e ICI transfer is latency-bound; the line of 4
        // moves V/4 per hop, so arrays under 4 × 45 kB are.
        let crossover = v["collectives"][0]["latency_bound_below_bytes"].as_f64().unwrap();
        assert!((crossover - 4.0 * 4.5e10 * 1e-6).abs() < 1e-3, "{crossover}");
        assert_eq!(v["roofline"]["bound"], "compute");
        assert_eq!(v["hardware"]["chip"]["id"], "tpu-v5e");
        // Scenarios without the sections keep the report unchanged.
        let plain = serde_json::to_value(evaluate(&Scenario::default()).unwrap()).unwrap();
        assert!(plain.get("hardware").is_none() && plain.get("collectives").is_none());
    }

    /// A decode step's all-reduce over 8 H100s on NVLink (Llama 3 8B, batch 8: 8 × 4096
    /// bf16 = 64 KiB) is latency-bound: 2 × 7 ring steps of NCCL's 0.6 µs = 8.4 µs, against
    /// 2 × 7/8 × 64 KiB / 450 GB/s = 0.25 µs of transfer. Multi-node, each of the 2 × 3
    /// steps over InfiniBand adds 2.7 µs.
    #[test]
    fn small_gpu_collectives_have_a_latency_floor() {
        let s = Scenario::from_json(
            r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":8},
                "hardware":{"chip":{"preset":"h100-sxm"},"topology":{"axes":[{"name":"nvlink","size":8},
                  {"name":"ib","size":4,"network":"scale_out"}]}},
                "collectives":[{"kind":"all_reduce","array_bytes":65536,"axes":["nvlink"]},
                               {"kind":"all_reduce","array_bytes":65536,"axes":["ib"]}]}"#,
        )
        .unwrap();
        let v = serde_json::to_value(evaluate(&s).unwrap()).unwrap();
        let c = &v["collectives"];
        assert_eq!(c[0]["regime"], "latency");
        assert!((c[0]["time_s"].as_f64().unwrap() - 14.0 * 0.6e-6).abs() < 1e-12);
        assert!((c[1]["time_s"].as_f64().unwrap() - 6.0 * 2.7e-6).abs() < 1e-12);
        assert_eq!(v["hardware"]["chip"]["scale_out"]["hop_latency"], 2.7e-6);
    }

    #[test]
    fn evaluate_model_is_evaluate_without_the_hardware_sections() {
        let s = Scenario::from_json(
            r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":8},
                "hardware":{"chip":{"preset":"tpu-v5e"},"topology":{"axes":[{"name":"x","size":8},{"name":"y","size":4}]}},
                "roofline":{"matmul":{"b":256,"d":8192,"f":32768}}}"#,
        )
        .unwrap();
        let full = evaluate(&s).unwrap();
        let model = evaluate_model(&s).unwrap();
        assert!(full.hardware.is_some() && full.roofline.is_some());
        assert!(model.hardware.is_none() && model.roofline.is_none() && model.training.is_none());
        let strip = |mut r: Report| {
            r.hardware = None;
            r.roofline = None;
            r.collectives.clear();
            serde_json::to_value(r).unwrap()
        };
        assert_eq!(strip(full), strip(model));
    }

    #[test]
    fn invalid_scenario_names_the_field() {
        let mut s = Scenario::default();
        s.workload.seq_len = 0;
        let e = evaluate(&s).unwrap_err();
        assert_eq!(e.0[0].field, "workload.seq_len");
    }
}
