//! `inference.moe`: what a decode step of a mixture-of-experts model routes and reads
//! (book 4.4.1, Exercises 7.5–7.6): the routed token copies per expert, the distinct
//! experts the batch touches (`E·(1 − (1 − k/E)^T)`, [`super::moe`]) and so the expert
//! weights the step must read, how the experts spread over the expert-parallel chips, and
//! the dispatch and combine AllToAlls that move the tokens to them.

use super::options::DenseSharding;
use super::setup::{DecodePoint, ServingSetup};
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};

/// `inference.moe`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MoeReport {
    /// E: routed experts per MoE layer.
    pub experts: u64,
    /// k: experts each token routes to.
    pub experts_per_token: u64,
    /// `T·k`: routed token copies per MoE layer in one step (T = batch × tokens per
    /// sequence).
    pub routed_tokens_per_step: f64,
    /// `T·k / E`: tokens each expert receives on average.
    pub tokens_per_expert: f64,
    /// `E·(1 − (1 − k/E)^T)`: distinct experts the step touches per layer (uniform routing).
    pub experts_touched_per_layer: f64,
    /// Weight bytes of those experts, every MoE layer, the whole replica: what the step
    /// reads beyond the dense weights.
    pub expert_weight_bytes_per_step: Bytes,
    /// Of which on the busiest chip (÷ Y).
    pub expert_weight_bytes_per_chip: Bytes,
    /// E_p: chips the experts are split over (1 without expert parallelism).
    pub expert_parallel: f64,
    /// `E / E_p`.
    pub experts_per_chip: f64,
    /// `tensor` or `data` (data-parallel attention).
    pub dense: DenseSharding,
    /// Routed copies the busiest of the E_p chips receives, in expectation:
    /// `μ + σ·√(2·ln E_p)` with `μ = T·k/E_p` and `σ² = T·k·(1/E_p)·(1 − 1/E_p)` (each copy
    /// lands on a chip with probability 1/E_p; the Gaussian bound on the expected maximum
    /// of E_p counts).
    pub busiest_chip_routed_tokens: f64,
    /// Busiest over mean: the grouped matmuls and the AllToAll wait for that chip.
    pub load_imbalance: f64,
    /// The dispatch and combine AllToAlls of one step, every MoE layer.
    pub all_to_all_s: Seconds,
}

/// Expected routed copies on the busiest of `chips` chips for `copies` copies spread
/// uniformly: `μ + σ·√(2·ln n)` (exact mean for one chip).
#[must_use]
pub fn busiest_chip_load(copies: f64, chips: f64) -> f64 {
    if chips <= 1.0 || copies <= 0.0 {
        return copies.max(0.0);
    }
    let p = 1.0 / chips;
    let mean = copies * p;
    let sigma = (copies * p * (1.0 - p)).sqrt();
    (mean + sigma * (2.0 * chips.ln()).sqrt()).min(copies)
}

/// The report for a decode step of `tokens` tokens on `setup` (`None` for a dense model).
#[must_use]
pub fn moe_report(setup: &ServingSetup, tokens: f64, point: &DecodePoint) -> Option<MoeReport> {
    let (experts, k) = setup.experts()?;
    let (expert_params, moe_layers) = setup.expert_params();
    let touched = setup.experts_touched(tokens).unwrap_or(0.0);
    let routed = tokens * k as f64;
    let ep = setup.mesh.expert_parallel();
    let bytes = Bytes(moe_layers * touched * expert_params * setup.dtypes.weights.bytes());
    let busiest = busiest_chip_load(routed, ep);
    let mean = routed / ep;
    Some(MoeReport {
        experts,
        experts_per_token: k,
        routed_tokens_per_step: routed,
        tokens_per_expert: routed / experts as f64,
        experts_touched_per_layer: touched,
        expert_weight_bytes_per_step: bytes,
        expert_weight_bytes_per_chip: bytes / setup.model_parallel(),
        expert_parallel: ep,
        experts_per_chip: experts as f64 / ep,
        dense: setup.mesh.dense,
        busiest_chip_routed_tokens: busiest,
        load_imbalance: if mean > 0.0 { busiest / mean } else { 1.0 },
        all_to_all_s: point.comms.expert_all_to_all_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 256 copies over 32 chips: μ = 8, σ = √(256 · 1/32 · 31/32) = 2.78, √(2 ln 32) =
    /// 2.63: 15.3 on the busiest chip, 1.9× the mean. One chip takes everything.
    #[test]
    fn busiest_chip_by_hand() {
        let b = busiest_chip_load(256.0, 32.0);
        let want = 8.0 + (256.0_f64 / 32.0 * 31.0 / 32.0).sqrt() * (2.0 * 32.0_f64.ln()).sqrt();
        assert!((b - want).abs() < 1e-12 && (b - 15.32).abs() < 0.01, "{b}");
        assert_eq!(busiest_chip_load(256.0, 1.0), 256.0);
        assert_eq!(busiest_chip_load(0.0, 8.0), 0.0);
        assert!(busiest_chip_load(2.0, 1e6) <= 2.0);
    }
}
