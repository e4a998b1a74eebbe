//! Critical arithmetic intensities of a chip (book 1.1 "peak arithmetic intensity"):
//! peak FLOP/s over the bandwidth of each channel data can come through.

use super::chip::{Chip, Fabric};
use crate::dtype::DType;
use crate::units::{BytesPerSec, FlopsPerSec, Intensity};
use serde::{Deserialize, Serialize};

/// Critical intensity of a channel (book 1.1): an op with fewer FLOPs per byte moved
/// over it than this is bound by that channel.
#[must_use]
pub fn critical_intensity(peak: FlopsPerSec, bandwidth: BytesPerSec) -> Intensity {
    peak / bandwidth
}

/// The book's β (section 7.3.2): HBM bandwidth over bidirectional ICI bandwidth of one
/// axis, about 8 on v5e and v6e.
#[must_use]
pub fn hbm_over_ici(chip: &Chip) -> f64 {
    chip.hbm.bandwidth.get() / chip.scale_up.link.bidirectional.get()
}

/// Which channel an intensity is measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// HBM to the compute units.
    Hbm,
    /// VMEM / SMEM to the compute units.
    OnChip,
    /// ICI or NVLink, over `links` one-way links.
    ScaleUp,
    /// The die-to-die link between chiplets.
    DieToDie,
    /// PCIe from the host.
    Pcie,
    /// DCN / scale-out, per chip.
    ScaleOut,
}

/// One row of a chip's critical-intensity table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CriticalIntensity {
    /// The channel.
    pub channel: Channel,
    /// One-way links counted for `scale_up` (2 = one torus axis with wraparound, or two
    /// axes without; 4 = two axes with wraparound; on a switch, every port).
    pub links: Option<u64>,
    /// Compute format of the peak.
    pub dtype: DType,
    /// Bytes per second through the channel, one way.
    pub bandwidth: BytesPerSec,
    /// FLOP per byte at which compute and transfer take equal time.
    pub intensity: Intensity,
}

/// One-way ICI bandwidth of `links` links of a torus chip (MaxText's "2 ICI links" for
/// one axis with wraparound).
#[must_use]
pub fn ici_bandwidth(chip: &Chip, links: u64) -> BytesPerSec {
    chip.scale_up.link.one_way * links as f64
}

/// Every channel × every compute format the chip has: the table the UI shows.
#[must_use]
pub fn critical_intensities(chip: &Chip) -> Vec<CriticalIntensity> {
    let mut channels: Vec<(Channel, Option<u64>, BytesPerSec)> = vec![(Channel::Hbm, None, chip.hbm.bandwidth)];
    if let Some(bw) = chip.on_chip.as_ref().and_then(|m| m.bandwidth) {
        channels.push((Channel::OnChip, None, bw));
    }
    match chip.scale_up.fabric {
        Fabric::Torus { dims, .. } => {
            for axes in 1..=dims {
                channels.push((Channel::ScaleUp, Some(2 * axes), ici_bandwidth(chip, 2 * axes)));
            }
        }
        Fabric::Switch | Fabric::FullMesh => {
            let links = chip.scale_up.links_per_chip;
            channels.push((Channel::ScaleUp, Some(links), chip.scale_up.egress_per_chip()));
        }
    }
    if let Some(ch) = &chip.chiplets {
        channels.push((Channel::DieToDie, Some(1), ch.die_to_die.one_way));
    }
    if let Some(p) = &chip.host.pcie {
        channels.push((Channel::Pcie, None, p.one_way));
    }
    channels.push((Channel::ScaleOut, None, chip.scale_out.bandwidth_per_chip));
    let mut rows = Vec::new();
    for dtype in [DType::Bf16, DType::Fp8, DType::Int8, DType::Int4] {
        let Some(peak) = chip.peak_flops.for_dtype(dtype) else { continue };
        for &(channel, links, bandwidth) in &channels {
            rows.push(CriticalIntensity {
                channel,
                links,
                dtype,
                bandwidth,
                intensity: critical_intensity(peak, bandwidth),
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::catalog::get;

    fn find(chip: &str, channel: Channel, links: Option<u64>, dtype: DType) -> f64 {
        critical_intensities(&get(chip).unwrap())
            .into_iter()
            .find(|r| r.channel == channel && r.links == links && r.dtype == dtype)
            .map(|r| r.intensity.get())
            .unwrap()
    }

    #[test]
    fn maxtext_trillium_and_ironwood_intensities() {
        // MaxText custom-model guide: Trillium 5100 with 2 ICI links, 2500 with 4.
        let two = find("tpu-v6e", Channel::ScaleUp, Some(2), DType::Bf16);
        assert!((two - 5100.0).abs() / 5100.0 < 0.01, "{two}");
        let four = find("tpu-v6e", Channel::ScaleUp, Some(4), DType::Bf16);
        assert!((four - 2550.0).abs() / 2550.0 < 0.01, "{four}");
        // Ironwood guide: one-dimensional intensity approximately 11,500.
        let one_d = find("tpu-v7x", Channel::ScaleUp, Some(2), DType::Bf16);
        assert!((one_d - 11_500.0).abs() / 11_500.0 < 0.01, "{one_d}");
    }
}
