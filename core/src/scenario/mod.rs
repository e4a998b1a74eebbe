//! The scenario document: everything a user sets, as one serde type. The page keeps it
//! in the URL, the CLI reads it from a file, and the report is computed from it.

use crate::collectives::query::CollectiveQuery;
use crate::efficiency::PredictionMode;
use crate::error::{Checker, Invalid};
use crate::flops::{FlopConvention, RematPolicy, Workload};
use crate::hardware::query::{self, HardwareSection, ResolvedHardware};
use crate::model::ModelConfig;
use crate::roofline::query::RooflineQuery;
use serde::{Deserialize, Serialize};

mod sections;
pub use sections::{Kept, Sections};

/// The current scenario format version.
pub const SCENARIO_VERSION: u32 = 1;

pub use crate::model_source::{ModelSource, EDITED};
pub use reports::{
    inference_report, inference_report_without_curves, inference_report_without_search, search_report, training_report,
    with_serving_defaults,
};

mod reports;

/// Counting conventions that differ between tools, each an explicit choice.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Conventions {
    /// The FLOP convention used for headline numbers (all four are always reported).
    #[serde(default)]
    pub flops: FlopConvention,
    /// Calibrated physical model (default) or ideal roofline as the headline (training
    /// step time, MFU, and what depends on them; serving's derated hardware); see
    /// `efficiency`. A scenario without it is calibrated (links written before the
    /// default changed included: see `efficiency::mode`).
    #[serde(default, skip_serializing_if = "PredictionMode::is_default")]
    pub prediction: PredictionMode,
}

/// Everything a user sets.
// Written as JSON by its own `Serialize` (in `kept`: the document as derived, with a kept
// section written as the text it came in).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Format version; absent means the current one.
    #[serde(default = "current_version")]
    pub version: u32,
    /// The model.
    pub model: ModelSource,
    /// Batch and sequence per device.
    pub workload: Workload,
    /// Counting conventions.
    #[serde(default)]
    pub conventions: Conventions,
    /// Serving: prompt and output lengths, batch, formats, sharding (book ch. 7–8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference: Option<crate::inference::InferenceSection>,
    /// Chip and topology, for the hardware, collective and roofline sections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<HardwareSection>,
    /// Collective-communication questions over the topology's axes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collectives: Vec<CollectiveQuery>,
    /// A roofline question: an op or a matmul on one chip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roofline: Option<RooflineQuery>,
    /// A training plan on `hardware.topology` (book chapters 5–6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<crate::training::TrainingSection>,
    /// The optional sections this program has not read, as the JSON text they came in
    /// ([`Scenario::from_json_kept`]); empty for a scenario read by [`Scenario::from_json`].
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub kept: Kept,
}

fn current_version() -> u32 {
    SCENARIO_VERSION
}

impl Default for Scenario {
    fn default() -> Self {
        Self {
            version: SCENARIO_VERSION,
            model: ModelSource::Preset("llama-3-8b".into()),
            workload: Workload { per_device_batch: 1.0, seq_len: 4096, grad_accum: 1, remat: RematPolicy::None },
            conventions: Conventions::default(),
            inference: None,
            hardware: None,
            collectives: Vec::new(),
            roofline: None,
            training: None,
            kept: Kept::default(),
        }
    }
}

/// Largest scenario document accepted, in bytes (a full custom model is about 1 KB).
pub const MAX_SCENARIO_BYTES: usize = 256 * 1024;

impl Scenario {
    /// Parse a scenario from JSON text.
    ///
    /// # Errors
    /// Oversized input, JSON syntax errors and unknown fields are reported as an error on
    /// field `scenario` with serde's message (which names the key and position).
    pub fn from_json(text: &str) -> Result<Self, Invalid> {
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(Invalid::one(
                "scenario",
                format!("is {} bytes; the limit is {MAX_SCENARIO_BYTES} bytes", text.len()),
            ));
        }
        crate::json::from_str(text).map_err(|e| Invalid::one("scenario", e.to_string()))
    }

    /// Resolve the model and check everything.
    ///
    /// # Errors
    /// Every problem, with field paths relative to the scenario (`model.d_model`,
    /// `workload.seq_len`, ...).
    pub fn validate(&self) -> Result<ModelConfig, Invalid> {
        self.validate_with(Sections::ALL)
    }

    /// Resolve the model, check what every scenario has (version, model, workload, hardware
    /// and its questions), then the optional sections with `sections`.
    fn validate_common(&self, sections: impl FnOnce(&Self, &mut Checker)) -> Result<ModelConfig, Invalid> {
        let mut c = Checker::new();
        if self.version == 0 || self.version > SCENARIO_VERSION {
            c.push(
                "version",
                format!(
                    "scenario version {} is not supported (this build reads 1 to {SCENARIO_VERSION})",
                    self.version
                ),
            );
        }
        let model = match self.model.resolve() {
            Ok(m) => {
                c.merge("model", m.validate());
                Some(m)
            }
            Err(e) => {
                c.extend(e);
                None
            }
        };
        c.merge("workload", self.workload.validate());
        if let Err(e) = self.validate_hardware() {
            c.extend(e);
        }
        sections(self, &mut c);
        c.finish()?;
        model.ok_or_else(|| Invalid::one("model", "could not be resolved"))
    }
}

impl Scenario {
    /// Resolve and check the `hardware`, `collectives` and `roofline` sections.
    ///
    /// # Errors
    /// Every problem, with paths relative to the scenario
    /// (`hardware.topology.axes[1].size`, `collectives[0].axes[0]`, ...).
    pub fn validate_hardware(&self) -> Result<Option<ResolvedHardware>, Invalid> {
        let mut c = Checker::new();
        let Some(hw) = &self.hardware else {
            c.ensure(self.collectives.is_empty(), "hardware", || "is required by `collectives`".into());
            c.ensure(self.roofline.is_none(), "hardware", || "is required by `roofline`".into());
            c.finish()?;
            return Ok(None);
        };
        let resolved = query::check(hw, &mut c);
        if !self.collectives.is_empty() && hw.topology.is_none() {
            c.push("hardware.topology", "is required by `collectives`");
        }
        crate::collectives::query::check(&self.collectives, hw.topology.as_ref(), &mut c);
        if let Some(q) = &self.roofline {
            q.check(resolved.as_ref().map(|r| &r.chip), &mut c);
        }
        c.finish()?;
        Ok(resolved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scenario_round_trips() {
        let s = Scenario::default();
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(Scenario::from_json(&json).unwrap(), s);
        assert!(s.validate().is_ok());
    }

    /// Issue 7 (no-panic property test): without serde_json's `float_roundtrip`, about
    /// one random batch in thirteen parsed back one ULP off (1813873.4630502206 became
    /// ...209), so a scenario kept in a URL or a file was not the one written.
    #[test]
    fn fractional_batches_survive_a_json_round_trip() {
        for b in [1_813_873.463_050_220_6, 491_807.410_530_034_05, 1.0 / 3.0] {
            let mut s = Scenario::default();
            s.workload.per_device_batch = b;
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(Scenario::from_json(&json).unwrap().workload.per_device_batch, b, "{json}");
        }
    }

    #[test]
    fn minimal_json_is_accepted() {
        let s = Scenario::from_json(
            r#"{"model":{"preset":"llama-3-70b"},"workload":{"per_device_batch":2,"seq_len":8192}}"#,
        )
        .unwrap();
        assert_eq!(s.workload.grad_accum, 1);
        assert_eq!(s.conventions.flops, FlopConvention::MaxText);
        assert_eq!(s.validate().unwrap().d_model, 8192);
    }

    #[test]
    fn an_edited_preset_is_named_as_edited_until_it_is_the_preset_again() {
        let mut m = ModelSource::Preset("llama-3-8b".into());
        m.edit(|c| c.d_model = 8192);
        let name = m.resolve().unwrap().name;
        assert!(name.ends_with(" (edited)") && !m.is_preset(), "{name}");
        assert_eq!(m.origin().map(|p| p.id.as_str()), Some("llama-3-8b"));
        m.edit(|c| c.d_model = 4096);
        assert_eq!(m, ModelSource::Preset("llama-3-8b".into()), "back to the preset: a short link");
        m.edit(|c| c.name = "mine".into());
        assert_eq!((m.resolve().unwrap().name, m.origin()), ("mine".to_string(), None));
    }

    #[test]
    fn a_conflict_names_its_other_field_as_data() {
        let mut s = crate::scenario::with_serving_defaults(&Scenario::default());
        crate::field::apply(&mut s, "inference.sharding.model_axes", "x").unwrap();
        let e = s.validate().unwrap_err();
        let conflict = e.0.iter().find(|e| e.field == "inference.sharding").unwrap();
        assert!(conflict.concerns("hardware.topology"), "{conflict:?}");
        let mut m = Scenario::default();
        crate::field::apply(&mut m, "model.attention.num_kv_heads", "5").unwrap();
        let e = m.validate().unwrap_err();
        assert_eq!(e.0[0].related, ["model.attention.num_heads"], "prefixed like the field");
    }

    #[test]
    fn errors_name_the_field() {
        let s = Scenario::from_json(r#"{"model":{"preset":"nope"},"workload":{"per_device_batch":0,"seq_len":8192}}"#)
            .unwrap();
        let e = s.validate().unwrap_err();
        let fields: Vec<_> = e.0.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["model.preset", "workload.per_device_batch"]);
        let e = Scenario::from_json(r#"{"model":{"preset":"x"},"workload":{"seq_len":1},"extra":1}"#).unwrap_err();
        assert_eq!(e.0[0].field, "scenario");
    }

    #[test]
    fn hardware_errors_name_the_field() {
        let s = Scenario::from_json(
            r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":8},
                "hardware":{"chip":{"preset":"tpu-v5e"},"topology":{"axes":[{"name":"x","size":16},{"name":"y","size":0}]}},
                "collectives":[{"kind":"all_gather","array_bytes":1e6,"axes":["x","q"]}],
                "roofline":{"matmul":{"b":0,"d":8192,"f":8192}}}"#,
        )
        .unwrap();
        let e = s.validate().unwrap_err();
        let fields: Vec<_> = e.0.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["hardware.topology.axes[1].size", "collectives[0].axes[1]", "roofline.matmul.b"]);
        let s = Scenario::from_json(
            r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":8},
                "collectives":[{"kind":"all_reduce","array_bytes":1,"axes":["x"]}]}"#,
        )
        .unwrap();
        assert_eq!(s.validate().unwrap_err().0[0].field, "hardware");
    }

    #[test]
    fn custom_model_errors_are_prefixed() {
        let mut m = crate::presets::get("llama-3-8b").unwrap().config;
        m.d_model = 0;
        let s = Scenario { model: ModelSource::Custom(Box::new(m)), ..Scenario::default() };
        assert_eq!(s.validate().unwrap_err().0[0].field, "model.d_model");
    }
}
