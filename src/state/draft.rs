//! The form's working copy of the scenario's model, workload and conventions: every value as
//! last read, the text of every field as typed (so invalid text survives a re-render), and the
//! fields whose text could not be read. The scenario follows [`Draft::scenario_over`] only
//! while [`Draft::errors_over`] is empty; the sections other views own (hardware, ...) are
//! never touched by the draft.

use shardcalc_core::error::{FieldError, Invalid};
use shardcalc_core::flops::Workload;
use shardcalc_core::model::ModelConfig;
use shardcalc_core::presets;
use shardcalc_core::scenario::{Conventions, ModelSource, Scenario};

use super::field_map::FieldMap;
use crate::field_spec::NumberSpec;

/// The form's state. Field paths are scenario paths (`model.d_model`, `workload.seq_len`).
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    /// The architecture, with every field that could be read.
    pub model: ModelConfig,
    /// The preset the model was loaded from, if any (it may have been edited since).
    pub preset: Option<String>,
    /// Batch and sequence.
    pub workload: Workload,
    /// Counting conventions.
    pub conventions: Conventions,
    /// Text of each field as typed, by path.
    pub text: FieldMap,
    /// Why a field's text could not be read, by path.
    pub unreadable: FieldMap,
}

impl Draft {
    /// The draft of a scenario; its model source must resolve.
    ///
    /// # Errors
    /// An unknown preset (field `model.preset`).
    pub fn from_scenario(s: &Scenario) -> Result<Self, Invalid> {
        let model = s.model.resolve()?;
        let preset = match &s.model {
            ModelSource::Preset(id) => Some(id.clone()),
            ModelSource::Custom(_) => None,
        };
        Ok(Self {
            model,
            preset,
            workload: s.workload.clone(),
            conventions: s.conventions.clone(),
            text: FieldMap::new(),
            unreadable: FieldMap::new(),
        })
    }

    /// `base` with the draft's model, workload and conventions: the model by preset id while
    /// it still equals that preset (short links), else in full. A preset edited without a new
    /// name is named "<preset's name> (edited)", so the other pages' chart titles and tables do
    /// not present it as the preset.
    #[must_use]
    pub fn scenario_over(&self, base: &Scenario) -> Scenario {
        Scenario {
            model: match self.unchanged_preset() {
                Some(id) => ModelSource::Preset(id.to_string()),
                None => ModelSource::Custom(Box::new(self.edited_model())),
            },
            workload: self.workload.clone(),
            conventions: self.conventions.clone(),
            ..base.clone()
        }
    }

    /// The model as the scenario holds it when it is not an unchanged preset.
    fn edited_model(&self) -> ModelConfig {
        let mut model = self.model.clone();
        let preset = self.preset.as_deref().and_then(|id| presets::all().iter().find(|p| p.id == id));
        if preset.is_some_and(|p| p.config.name == model.name) {
            model.name.push_str(" (edited)");
        }
        model
    }

    /// The preset id, while the model is still exactly that preset.
    #[must_use]
    pub fn unchanged_preset(&self) -> Option<&str> {
        let id = self.preset.as_deref()?;
        presets::all().iter().any(|p| p.id == id && p.config == self.model).then_some(id)
    }

    /// Every problem: unreadable text first, then core's validation of what could be read,
    /// applied over `base` (leaving out fields whose text is unreadable: their stored value is
    /// stale).
    #[must_use]
    pub fn errors_over(&self, base: &Scenario) -> Vec<FieldError> {
        let mut out: Vec<FieldError> =
            self.unreadable.iter().map(|(path, message)| FieldError::new(path.clone(), message.clone())).collect();
        if let Err(Invalid(errors)) = self.scenario_over(base).validate() {
            out.extend(errors.into_iter().filter(|e| !self.unreadable.contains_key(&e.field)));
        }
        out
    }

    /// The text to show in the field at `path`: as typed, else the current value.
    #[must_use]
    pub fn text_of(&self, path: &str, current: Option<String>) -> String {
        self.text.get(path).cloned().or(current).unwrap_or_default()
    }

    /// Records `text` typed into the number field `spec` and stores its value if it reads.
    pub fn type_number(&mut self, spec: &NumberSpec, text: &str) {
        self.text.insert(spec.path.to_string(), text.to_string());
        match spec.kind.read(text) {
            Ok(value) => {
                self.unreadable.remove(spec.path);
                (spec.set)(self, value);
            }
            Err(message) => {
                self.unreadable.insert(spec.path.to_string(), message);
            }
        }
    }

    /// Forgets typed text and unreadable marks of `path` and every path under it (used when
    /// a section disappears, e.g. MoE switched off, so hidden text cannot block the results).
    pub fn forget(&mut self, path: &str) {
        let under = |p: &String| p == path || p.strip_prefix(path).is_some_and(|r| r.starts_with('.'));
        self.text.retain(|p, _| !under(p));
        self.unreadable.retain(|p, _| !under(p));
    }
}
