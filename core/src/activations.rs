//! Saved activations for the backward pass (book 4.4.2), first-order.
//!
//! The book counts activations in units of B·T·D elements per layer: about 20 when
//! nothing is recomputed, about 7 when only the outputs of the big matmuls are saved,
//! and 1 (the layer input) with block remat.

use crate::flops::RematPolicy;
use crate::units::Bytes;

impl RematPolicy {
    /// Saved activations per layer in units of B·T·D elements (book 4.4.2).
    #[must_use]
    pub fn saved_per_layer(self) -> f64 {
        match self {
            RematPolicy::None => 20.0,
            RematPolicy::SaveMatmuls => 7.0,
            RematPolicy::Full => 1.0,
        }
    }
}

/// Bytes of activations saved for the backward pass: `bytes_per_element` ·
/// `saved_per_layer` · tokens · D · L.
#[must_use]
pub fn saved_activation_bytes(
    tokens: f64,
    layers: u64,
    d_model: u64,
    bytes_per_element: f64,
    saved_per_layer: f64,
) -> Bytes {
    Bytes(bytes_per_element * saved_per_layer * tokens * d_model as f64 * layers as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_example_is_84_tb_and_4_tb() {
        // Book 4.4.2: B·T = 4M, L = 64, D = 8192, bf16.
        let full = saved_activation_bytes(4e6, 64, 8192, 2.0, RematPolicy::None.saved_per_layer());
        assert!((full.get() / 1e12 - 83.9).abs() < 0.1);
        let block = saved_activation_bytes(4e6, 64, 8192, 2.0, RematPolicy::Full.saved_per_layer());
        assert!((block.get() / 1e12 - 4.19).abs() < 0.01);
    }
}
