//! What the model page shows, evaluated from a scenario: the model's shape, parameters,
//! FLOPs under every convention, the MaxText notebook's tables, where attention overtakes the
//! MLP, and notes about the inputs. [`crate::report::evaluate_model`]; `shardcalc eval --view
//! model` prints it.

use serde::{Deserialize, Serialize};

use crate::error::Invalid;
use crate::flops::attention_crossover;
use crate::model::{LayerKind, LocalAttention, ModelConfig};
use crate::report::{evaluate_model, Report};
use crate::scenario::Scenario;

/// Everything the model page shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelEval {
    /// The model sections of the report (`model`, `params`, `workload`, `flops`, `notebook`).
    #[serde(flatten)]
    pub report: Report,
    /// The sequence length where dot-product attention outgrows the MLP per token, in the
    /// headline FLOP convention (book 4.3); absent when it never does (or the convention
    /// ignores attention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention_crossover_tokens: Option<u64>,
    /// Remarks about the inputs that are not errors ([`span_note`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Everything the model page shows for `s`.
///
/// # Errors
/// The model's and the workload's problems, each naming its field.
pub fn evaluate(s: &Scenario) -> Result<ModelEval, Invalid> {
    let report = evaluate_model(s)?;
    let m = s.model.resolve()?;
    Ok(ModelEval {
        attention_crossover_tokens: attention_crossover(&m, s.conventions.flops),
        notes: span_note(&m, s.workload.seq_len).into_iter().collect(),
        report,
    })
}

/// A note, not an error, where the sequence length and the local attention span meet: a
/// sliding window or chunk at least as long as the sequence makes local layers attend to the
/// whole sequence, so they cost what global layers cost.
#[must_use]
pub fn span_note(m: &ModelConfig, seq_len: u64) -> Option<String> {
    if !m.layout.pattern.contains(&LayerKind::Local) {
        return None;
    }
    let (what, span) = match m.layout.local? {
        LocalAttention::SlidingWindow { window } => ("sliding window", window),
        LocalAttention::Chunked { chunk } => ("chunk", chunk),
    };
    (seq_len > 0 && span >= seq_len).then(|| {
        format!(
            "Note: the {what} ({} tokens) is at least the sequence length ({} tokens), so local layers \
             attend to the whole sequence and cost what global layers cost. Lengthen the sequence or \
             shorten the {what} to see what local attention saves.",
            crate::text::thousands(span),
            crate::text::thousands(seq_len)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_covering_the_sequence_is_noted() {
        let m = crate::presets::get("gemma-3-27b").unwrap().config;
        let note = span_note(&m, 512).unwrap();
        assert!(note.contains("sliding window (1,024 tokens) is at least the sequence length (512 tokens)"), "{note}");
        assert_eq!(span_note(&m, 4096), None);
    }
}
