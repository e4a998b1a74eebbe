//! The slice shapes a chip can be rented in, smallest first: the candidates for "the
//! smallest topology that fits" (book 8.1: "7 TPUs, or (rounding to an even size), TPU
//! v5e 4x2"). Published lists are data with their source; other chips get shapes
//! derived from their fabric, marked as derived.

use crate::hardware::chip::{Chip, Fabric};
use crate::hardware::topology::Topology;
use serde::{Deserialize, Serialize};

/// A published list of slice shapes.
struct Published {
    chips: &'static [&'static str],
    shapes: &'static [&'static [u64]],
    source: &'static str,
    as_of: &'static str,
}

const TWO_D: &[&[u64]] = &[&[1, 1], &[2, 2], &[2, 4], &[4, 4], &[4, 8], &[8, 8], &[8, 16], &[16, 16]];

const PUBLISHED: &[Published] = &[
    Published {
        chips: &["tpu-v5e"],
        shapes: TWO_D,
        source: "Cloud TPU documentation, TPU v5e: supported 2D slice shapes 1x1 to 16x16 (https://cloud.google.com/tpu/docs/v5e)",
        as_of: "2025-06-01",
    },
    Published {
        chips: &["tpu-v6e"],
        shapes: TWO_D,
        source: "Cloud TPU documentation, TPU v6e: supported topologies 1x1 to 16x16 (https://cloud.google.com/tpu/docs/v6e)",
        as_of: "2025-06-01",
    },
    Published {
        chips: &["tpu-v5p"],
        shapes: &[
            &[2, 2, 1], &[2, 2, 2], &[2, 4, 4], &[4, 4, 4], &[4, 4, 8], &[4, 8, 8], &[8, 8, 8], &[8, 8, 16],
            &[8, 16, 16], &[16, 16, 16], &[16, 16, 24],
        ],
        source: "Cloud TPU documentation, TPU v5p: most common single-slice shapes (https://cloud.google.com/tpu/docs/v5p)",
        as_of: "2025-06-01",
    },
];

/// One rentable slice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SliceShape {
    /// Chips along each scale-up axis.
    pub shape: Vec<u64>,
    /// Total chips.
    pub chips: u64,
    /// `2x4`, `4x4x4`, `8`.
    pub label: String,
    /// Where the shape comes from, or `derived from the chip's fabric`.
    pub source: String,
}

impl SliceShape {
    fn new(shape: Vec<u64>, source: &str) -> Self {
        let chips = shape.iter().fold(1_u64, |a, n| a.saturating_mul(*n));
        let label = shape.iter().map(u64::to_string).collect::<Vec<_>>().join("x");
        Self { shape, chips, label, source: source.into() }
    }

    /// The topology of this slice on `chip` (axes `x`, `y`, `z`; or `nvlink`).
    #[must_use]
    pub fn topology(&self, chip: &Chip) -> Topology {
        match chip.scale_up.fabric {
            Fabric::Torus { .. } => Topology::tpu_slice(&self.shape, 1),
            Fabric::Switch | Fabric::FullMesh => Topology::gpu_cluster(self.shape.first().copied().unwrap_or(1), 1),
        }
    }
}

const DERIVED: &str = "derived from the chip's fabric (powers of two up to the scale-up domain)";

/// Every slice shape of `chip`, smallest first. Only single scale-up domains: serving
/// splits the model over scale-up axes by default, so more domains add replicas, not
/// room (give a topology and `sharding.model_axes` to split over the scale-out network).
#[must_use]
pub fn slice_shapes(chip: &Chip) -> Vec<SliceShape> {
    if let Some(p) = PUBLISHED.iter().find(|p| p.chips.contains(&chip.id.as_str())) {
        let source = format!("{} (as of {})", p.source, p.as_of);
        return p.shapes.iter().map(|s| SliceShape::new(s.to_vec(), &source)).collect();
    }
    let max = chip.scale_up.max_chips.max(1);
    let mut out = Vec::new();
    match chip.scale_up.fabric {
        Fabric::Torus { dims, .. } => {
            // 1x1(x1), then double the smallest axis: 2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4, ...
            let dims = usize::try_from(dims.clamp(1, 3)).unwrap_or(1);
            let mut shape = vec![1_u64; dims];
            out.push(SliceShape::new(shape.clone(), DERIVED));
            for a in shape.iter_mut().take(2) {
                *a = 2;
            }
            while shape.iter().product::<u64>() <= max {
                out.push(SliceShape::new(shape.clone(), DERIVED));
                let smallest = shape.iter().copied().min().unwrap_or(1);
                let Some(i) = shape.iter().rposition(|&n| n == smallest) else { break };
                if let Some(a) = shape.get_mut(i) {
                    *a = a.saturating_mul(2);
                }
            }
        }
        Fabric::Switch | Fabric::FullMesh => {
            let mut n = 1;
            while n <= max {
                out.push(SliceShape::new(vec![n], DERIVED));
                n *= 2;
            }
            if !max.is_power_of_two() {
                out.push(SliceShape::new(vec![max], DERIVED));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::catalog::{all, get};

    fn labels(id: &str) -> Vec<String> {
        slice_shapes(&get(id).unwrap()).into_iter().map(|s| s.label).collect()
    }

    #[test]
    fn published_and_derived_shapes() {
        assert_eq!(labels("tpu-v5e"), ["1x1", "2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"]);
        assert_eq!(labels("tpu-v4")[..6], ["1x1x1", "2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4"]);
        assert_eq!(labels("h100-sxm"), ["1", "2", "4", "8"]);
        assert!(labels("gb200-nvl72").contains(&"72".to_string()));
    }

    #[test]
    fn every_chip_has_valid_increasing_shapes() {
        for chip in all() {
            let shapes = slice_shapes(chip);
            assert!(!shapes.is_empty(), "{}", chip.id);
            for w in shapes.windows(2) {
                assert!(w[0].chips <= w[1].chips, "{}", chip.id);
            }
            for s in &shapes {
                assert_eq!(s.topology(chip).validate(chip), Ok(()), "{} {}", chip.id, s.label);
            }
        }
    }
}
