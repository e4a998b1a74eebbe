//! Training state per parameter (book 5.1.1 footnote 3, Appendix A): the weights, their
//! gradients, the optimizer's state and an optional fp32 master copy, each in its own
//! number format, and which of them ZeRO shards over the pure data-parallel axis.

use crate::dtype::DType;
use crate::error::Checker;
use crate::serde_names::fill;
use serde::{Deserialize, Serialize};

// JSON: `{"kind": "adam", "master_weights": false}`, `{"kind": "adafactor", "momentum":
// true}`, `{"kind": "sgd", "momentum": true}` (the flags default to false; any other field
// is refused). Read by a hand-written `Deserialize` (below) rather than serde's internally
// tagged derive, which buffers the object and costs every page ~6 KB of wasm
// (docs/size.md, "Training page, session 13"); `Serialize` and the schema are derived. (A
// plain comment: the doc comment is the schema's description.)
/// The optimizer and what state it keeps per parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Optimizer {
    /// Adam / AdamW: first and second moments, one element each per parameter.
    Adam {
        /// Keep an fp32 copy of the weights (mixed-precision training with low-precision
        /// weights; the ZeRO paper's K = 12 bytes). Off in the book's 10 bytes/param.
        #[serde(default)]
        master_weights: bool,
    },
    /// Adafactor: the second moment of every matrix factored into a row and a column
    /// vector (rows + cols elements instead of rows × cols); no first moment unless
    /// `momentum`.
    Adafactor {
        /// Keep a first moment (β1 > 0).
        #[serde(default)]
        momentum: bool,
    },
    /// SGD, with or without a momentum buffer.
    Sgd {
        /// Keep a momentum buffer.
        #[serde(default)]
        momentum: bool,
    },
}

/// The kinds, as written in JSON.
const OPTIMIZER_KINDS: &[&str] = &["adam", "adafactor", "sgd"];

impl<'de> Deserialize<'de> for Optimizer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(OptimizerVisitor)
    }
}

/// Reads `{"kind": …, "master_weights" | "momentum": bool}` as the derive with
/// `tag = "kind"` and `deny_unknown_fields` did: unknown, duplicate and missing fields and
/// unknown kinds are errors, and a flag of another kind (`momentum` on adam) is unknown.
struct OptimizerVisitor;

impl<'de> serde::de::Visitor<'de> for OptimizerVisitor {
    type Value = Optimizer;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an optimizer object with a \"kind\"")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Optimizer, A::Error> {
        use serde::de::Error;
        let (mut kind, mut master_weights, mut momentum) = (None::<String>, None::<bool>, None::<bool>);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "kind" => fill(&mut map, &mut kind, "kind")?,
                "master_weights" => fill(&mut map, &mut master_weights, "master_weights")?,
                "momentum" => fill(&mut map, &mut momentum, "momentum")?,
                other => return Err(A::Error::unknown_field(other, &["kind", "master_weights", "momentum"])),
            }
        }
        let kind = kind.ok_or_else(|| A::Error::missing_field("kind"))?;
        match kind.as_str() {
            "adam" if momentum.is_none() => Ok(Optimizer::Adam { master_weights: master_weights.unwrap_or(false) }),
            "adam" => Err(A::Error::unknown_field("momentum", &["kind", "master_weights"])),
            "adafactor" | "sgd" if master_weights.is_some() => {
                Err(A::Error::unknown_field("master_weights", &["kind", "momentum"]))
            }
            "adafactor" => Ok(Optimizer::Adafactor { momentum: momentum.unwrap_or(false) }),
            "sgd" => Ok(Optimizer::Sgd { momentum: momentum.unwrap_or(false) }),
            other => Err(A::Error::unknown_variant(other, OPTIMIZER_KINDS)),
        }
    }
}

impl Default for Optimizer {
    fn default() -> Self {
        Optimizer::Adam { master_weights: false }
    }
}

impl Optimizer {
    /// Optimizer-state elements per parameter (in the optimizer's format), given the
    /// factored fraction Σ(rows + cols)/params of the model for Adafactor.
    #[must_use]
    pub fn state_per_param(self, factored_fraction: f64) -> f64 {
        match self {
            Optimizer::Adam { .. } => 2.0,
            Optimizer::Adafactor { momentum } => factored_fraction + if momentum { 1.0 } else { 0.0 },
            Optimizer::Sgd { momentum } => {
                if momentum {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// Whether an fp32 master copy of the weights is kept.
    #[must_use]
    pub fn master_weights(self) -> bool {
        matches!(self, Optimizer::Adam { master_weights: true })
    }
}

/// Number formats of the training state and of the computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TrainingDtypes {
    /// Weights as stored and gathered by FSDP (default bf16, the book's; MaxText
    /// defaults to fp32 `weight_dtype`).
    #[serde(default = "bf16")]
    pub weights: DType,
    /// Gradients, as stored and reduced (default bf16).
    #[serde(default = "bf16")]
    pub gradients: DType,
    /// Optimizer state (default fp32).
    #[serde(default = "fp32")]
    pub optimizer: DType,
    /// Saved activations and the activations TP, EP, CP and PP move (default bf16).
    #[serde(default = "bf16")]
    pub activations: DType,
    /// Matmul format, which picks the chip's peak (default bf16).
    #[serde(default = "bf16")]
    pub compute: DType,
}

fn bf16() -> DType {
    DType::Bf16
}
fn fp32() -> DType {
    DType::Fp32
}

impl Default for TrainingDtypes {
    fn default() -> Self {
        Self {
            weights: DType::Bf16,
            gradients: DType::Bf16,
            optimizer: DType::Fp32,
            activations: DType::Bf16,
            compute: DType::Bf16,
        }
    }
}

/// Which state ZeRO shards over the pure data-parallel axis `dp` (book 5.1.2 and
/// Appendix A): 0 none (plain DP), 1 optimizer state, 2 + gradients, 3 + weights (then
/// `dp` behaves exactly like `fsdp`). The `fsdp` axis is always ZeRO-3.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct ZeroStage(pub u8);

impl ZeroStage {
    /// Whether the optimizer state (and master weights) are sharded over `dp`.
    #[must_use]
    pub fn shards_optimizer(self) -> bool {
        self.0 >= 1
    }
    /// Whether gradients are sharded over `dp`.
    #[must_use]
    pub fn shards_gradients(self) -> bool {
        self.0 >= 2
    }
    /// Whether weights are sharded over `dp` (ZeRO-3 = FSDP).
    #[must_use]
    pub fn shards_weights(self) -> bool {
        self.0 >= 3
    }

    pub(crate) fn check(self, c: &mut Checker, field: &str) {
        c.range(field, u64::from(self.0), 0, 3);
    }
}

/// Bytes of training state per parameter when nothing is sharded: weights, stored
/// gradients, optimizer state and master weights (book 5.1.1: bf16 weights and fp32
/// Adam moments are 2 + 8 = 10 bytes when gradients are not counted).
#[must_use]
pub fn state_bytes_per_param(
    optimizer: Optimizer,
    dtypes: &TrainingDtypes,
    store_gradients: bool,
    factored_fraction: f64,
) -> f64 {
    let grads = if store_gradients { dtypes.gradients.bytes() } else { 0.0 };
    let master = if optimizer.master_weights() { DType::Fp32.bytes() } else { 0.0 };
    dtypes.weights.bytes() + grads + optimizer.state_per_param(factored_fraction) * dtypes.optimizer.bytes() + master
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_and_zero_paper_bytes_per_param() {
        let d = TrainingDtypes::default();
        // Book 5.1.1: bf16 params + fp32 Adam moments = 10 bytes.
        assert_eq!(state_bytes_per_param(Optimizer::default(), &d, false, 0.0), 10.0);
        // ZeRO paper: fp16 params and grads + K = 12 (fp32 master + moments) = 16.
        let adam = Optimizer::Adam { master_weights: true };
        assert_eq!(state_bytes_per_param(adam, &d, true, 0.0), 16.0);
        assert_eq!(state_bytes_per_param(Optimizer::Sgd { momentum: false }, &d, true, 0.0), 4.0);
    }

    #[test]
    fn optimizer_json_is_tagged() {
        let o: Optimizer = serde_json::from_str(r#"{"kind": "adafactor", "momentum": true}"#).unwrap();
        assert_eq!(o, Optimizer::Adafactor { momentum: true });
        assert!(serde_json::from_str::<Optimizer>(r#"{"kind": "adam", "beta": 1}"#).is_err());
        // The hand-written reader reads what the derive read and refuses what it refused.
        for o in [
            Optimizer::Adam { master_weights: true },
            Optimizer::Adam { master_weights: false },
            Optimizer::Adafactor { momentum: false },
            Optimizer::Sgd { momentum: true },
        ] {
            let text = serde_json::to_string(&o).unwrap();
            assert_eq!(serde_json::from_str::<Optimizer>(&text).unwrap(), o, "{text}");
        }
        assert_eq!(
            serde_json::from_str::<Optimizer>(r#"{"momentum": true, "kind": "sgd"}"#).unwrap(),
            Optimizer::Sgd { momentum: true }
        );
        assert_eq!(
            serde_json::from_str::<Optimizer>(r#"{"kind": "adam"}"#).unwrap(),
            Optimizer::Adam { master_weights: false }
        );
        for bad in [
            r#"{"kind": "adam", "momentum": true}"#,
            r#"{"kind": "sgd", "master_weights": true}"#,
            r#"{"kind": "lion"}"#,
            r#"{"momentum": true}"#,
            r#"{"kind": "sgd", "kind": "adam"}"#,
            r#"{"kind": "sgd", "momentum": 1}"#,
            r#""adam""#,
        ] {
            assert!(serde_json::from_str::<Optimizer>(bad).is_err(), "{bad}");
        }
    }
}
