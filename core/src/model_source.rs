//! Where a scenario's model comes from: a bundled preset by id, or a full architecture (a
//! preset edited, an import, a model typed in). Below the scenario, so that the sections
//! that name a model (serving's draft model) need not depend on the scenario.

use crate::error::Invalid;
use crate::model::ModelConfig;
use crate::presets;
use serde::{Deserialize, Serialize};

/// Where the model comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ModelSource {
    /// A bundled preset by id, e.g. `{"preset": "llama-3-8b"}`.
    Preset(String),
    /// A full architecture, e.g. `{"custom": {...}}`.
    Custom(Box<ModelConfig>),
}

impl ModelSource {
    /// The architecture this source names.
    ///
    /// # Errors
    /// An unknown preset id is an error on field `model.preset`.
    pub fn resolve(&self) -> Result<ModelConfig, Invalid> {
        match self {
            ModelSource::Preset(id) => presets::find(id).map(|p| p.config.clone()).ok_or_else(|| {
                let known: Vec<&str> = presets::all().iter().map(|p| p.id.as_str()).collect();
                Invalid::one("model.preset", format!("unknown preset {id:?}; known presets: {}", known.join(", ")))
            }),
            ModelSource::Custom(m) => Ok(m.as_ref().clone()),
        }
    }

    /// The preset this model is, or was edited from: the preset itself, or a custom model
    /// named after a preset (`<name> (edited)` or `<name>`).
    #[must_use]
    pub fn origin(&self) -> Option<&'static presets::Preset> {
        match self {
            ModelSource::Preset(id) => presets::find(id),
            ModelSource::Custom(m) => presets::all()
                .iter()
                .find(|p| m.name == p.config.name || m.name.strip_suffix(EDITED).is_some_and(|n| n == p.config.name)),
        }
    }

    /// Whether this is a preset as published (not edited).
    #[must_use]
    pub fn is_preset(&self) -> bool {
        matches!(self, ModelSource::Preset(_))
    }

    /// Applies `f` to the model. A model edited from a preset is named `<preset's name>
    /// (edited)` (unless `f` renamed it), so no page presents it as the preset; one edited
    /// back to its preset is the preset again (a short link). A preset that does not
    /// resolve is left alone.
    pub fn edit(&mut self, f: impl FnOnce(&mut ModelConfig)) {
        let origin = self.origin();
        let Ok(mut m) = self.resolve() else { return };
        f(&mut m);
        if let Some(p) = origin {
            let mut plain = m.clone();
            if plain.name.strip_suffix(EDITED) == Some(p.config.name.as_str()) {
                plain.name.clone_from(&p.config.name);
            }
            if plain == p.config {
                *self = ModelSource::Preset(p.id.clone());
                return;
            }
            if m.name == p.config.name {
                m.name.push_str(EDITED);
            }
        }
        *self = ModelSource::Custom(Box::new(m));
    }
}

/// What an edited preset's name ends with.
pub const EDITED: &str = " (edited)";
