//! Rooflines (book 1.1, 2.4): how long an op takes on one chip when each resource
//! works at its peak and they overlap perfectly (lower bound, the max) or not at all
//! (upper bound, the sum), and which resource binds.

pub mod matmul;
pub mod padding;
pub mod query;

use crate::dtype::DType;
use crate::error::{Checker, Invalid};
use crate::hardware::{Chip, MAX_QUANTITY};
use crate::units::{Bytes, BytesPerSec, Flops, FlopsPerSec, Seconds};
use serde::{Deserialize, Serialize};

/// The work one chip does for an op, and what it moves over each channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OpCost {
    /// FLOPs on this chip.
    pub flops: Flops,
    /// Bytes between HBM and the compute units (read + written).
    #[serde(default)]
    pub hbm_bytes: Bytes,
    /// Bytes this chip sends or receives over ICI / NVLink.
    #[serde(default)]
    pub ici_bytes: Bytes,
    /// One-way links the ICI bytes spread over (book Solution 2.6: 2 links of a v5e
    /// corner chip); default 1.
    #[serde(default = "one")]
    pub ici_links: f64,
    /// Bytes over DCN / scale-out.
    #[serde(default)]
    pub dcn_bytes: Bytes,
    /// Bytes over PCIe from the host.
    #[serde(default)]
    pub host_bytes: Bytes,
    /// Compute format, which picks the peak (default bf16).
    #[serde(default = "bf16")]
    pub dtype: DType,
}

fn bf16() -> DType {
    DType::Bf16
}

fn one() -> f64 {
    1.0
}

impl Default for OpCost {
    fn default() -> Self {
        Self {
            flops: Flops::ZERO,
            hbm_bytes: Bytes::ZERO,
            ici_bytes: Bytes::ZERO,
            ici_links: 1.0,
            dcn_bytes: Bytes::ZERO,
            host_bytes: Bytes::ZERO,
            dtype: DType::Bf16,
        }
    }
}

/// Peak rates of each resource of one chip.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Rates {
    /// Matrix FLOP/s in the compute format.
    pub compute: FlopsPerSec,
    /// HBM bandwidth.
    pub hbm: BytesPerSec,
    /// One ICI / NVLink link, one way (multiplied by `OpCost::ici_links`).
    pub ici_link: BytesPerSec,
    /// DCN per chip, one way.
    pub dcn: BytesPerSec,
    /// PCIe per chip, one way (zero when unpublished: host transfers then error).
    pub host: BytesPerSec,
}

impl Rates {
    /// The rates of `chip` computing in `dtype`.
    ///
    /// # Errors
    /// `dtype` when the chip has no peak for it.
    pub fn of(chip: &Chip, dtype: DType) -> Result<Self, Invalid> {
        let compute = chip
            .peak_flops
            .for_dtype(dtype)
            .ok_or_else(|| Invalid::one("dtype", format!("{} has no published {} peak", chip.name, dtype.name())))?;
        Ok(Self {
            compute,
            hbm: chip.hbm.bandwidth,
            ici_link: chip.scale_up.link.one_way,
            dcn: chip.scale_out.bandwidth_per_chip,
            host: chip.host.pcie.map_or(BytesPerSec::ZERO, |p| p.one_way),
        })
    }
}

/// A resource an op can be bound by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    /// Matrix units.
    Compute,
    /// HBM bandwidth.
    Hbm,
    /// ICI / NVLink.
    Ici,
    /// DCN / scale-out.
    Dcn,
    /// PCIe from the host.
    Host,
}

/// Time on each resource.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ResourceTimes {
    /// `T_math` = FLOPs / peak.
    pub compute: Seconds,
    /// HBM bytes / HBM bandwidth.
    pub hbm: Seconds,
    /// ICI bytes / (links × link bandwidth).
    pub ici: Seconds,
    /// DCN bytes / DCN bandwidth.
    pub dcn: Seconds,
    /// Host bytes / PCIe bandwidth.
    pub host: Seconds,
}

/// A roofline estimate (book 1.1: `T_lower = max`, `T_upper = sum`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Roofline {
    /// Time per resource.
    pub times: ResourceTimes,
    /// The slowest resource.
    pub bound: Resource,
    /// Perfect overlap: the slowest resource.
    pub lower: Seconds,
    /// No overlap: every resource in turn.
    pub upper: Seconds,
}

fn time(bytes: Bytes, rate: BytesPerSec, field: &str, c: &mut Checker) -> Seconds {
    if bytes.get() > 0.0 && rate.get() <= 0.0 {
        c.push(field, "needs a bandwidth for this chip, which is not published".to_string());
        return Seconds::ZERO;
    }
    if bytes.get() > 0.0 {
        bytes / rate
    } else {
        Seconds::ZERO
    }
}

impl OpCost {
    /// Check the op's own numbers.
    ///
    /// # Errors
    /// Negative, non-finite or absurdly large FLOPs or bytes (`flops`, `hbm_bytes`, ...),
    /// `ici_links` outside 1 to 1e6.
    pub fn validate(&self) -> Result<(), Invalid> {
        let mut c = Checker::new();
        for (field, v) in [
            ("flops", self.flops.get()),
            ("hbm_bytes", self.hbm_bytes.get()),
            ("ici_bytes", self.ici_bytes.get()),
            ("dcn_bytes", self.dcn_bytes.get()),
            ("host_bytes", self.host_bytes.get()),
        ] {
            c.range_f64(field, v, 0.0, MAX_QUANTITY);
        }
        c.range_f64("ici_links", self.ici_links, 1.0, 1e6);
        c.finish()
    }
}

fn validate(op: &OpCost, rates: &Rates) -> Result<(), Invalid> {
    let mut c = Checker::new();
    if let Err(e) = op.validate() {
        for err in e.0 {
            c.push(err.field, err.message);
        }
    }
    for (field, v) in [
        ("rates.compute", rates.compute.get()),
        ("rates.hbm", rates.hbm.get()),
        ("rates.ici_link", rates.ici_link.get()),
        ("rates.dcn", rates.dcn.get()),
    ] {
        c.range_f64(field, v, 1.0, MAX_QUANTITY);
    }
    c.range_f64("rates.host", rates.host.get(), 0.0, MAX_QUANTITY);
    c.finish()
}

/// The roofline of `op` at `rates` (book 1.1 "Where does the time go?").
///
/// # Errors
/// Negative or non-finite inputs, named by field (`flops`, `hbm_bytes`, ...); host
/// bytes on a chip whose PCIe bandwidth is unpublished (`host_bytes`).
pub fn roofline(op: &OpCost, rates: &Rates) -> Result<Roofline, Invalid> {
    validate(op, rates)?;
    let mut c = Checker::new();
    let ici_links = op.ici_links.clamp(1.0, 1e6);
    let times = ResourceTimes {
        compute: op.flops / rates.compute,
        hbm: time(op.hbm_bytes, rates.hbm, "hbm_bytes", &mut c),
        ici: time(op.ici_bytes, rates.ici_link * ici_links, "ici_bytes", &mut c),
        dcn: time(op.dcn_bytes, rates.dcn, "dcn_bytes", &mut c),
        host: time(op.host_bytes, rates.host, "host_bytes", &mut c),
    };
    c.finish()?;
    let all = [
        (Resource::Compute, times.compute),
        (Resource::Hbm, times.hbm),
        (Resource::Ici, times.ici),
        (Resource::Dcn, times.dcn),
        (Resource::Host, times.host),
    ];
    let (bound, lower) =
        all.iter().fold((Resource::Compute, times.compute), |best, &(r, t)| if t > best.1 { (r, t) } else { best });
    let upper = all.iter().map(|(_, t)| *t).sum();
    Ok(Roofline { times, bound, lower, upper })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_max_and_sum() {
        let rates = Rates {
            compute: FlopsPerSec(1e15),
            hbm: BytesPerSec(1e12),
            ici_link: BytesPerSec(1e11),
            dcn: BytesPerSec(1e10),
            host: BytesPerSec::ZERO,
        };
        let op = OpCost { flops: Flops(1e12), hbm_bytes: Bytes(2e9), ..OpCost::default() };
        let r = roofline(&op, &rates).unwrap();
        assert_eq!(r.bound, Resource::Hbm);
        assert!((r.lower.get() - 2e-3).abs() < 1e-15);
        assert!((r.upper.get() - 3e-3).abs() < 1e-15);
        let op = OpCost { host_bytes: Bytes(1.0), ..op };
        assert_eq!(roofline(&op, &rates).unwrap_err().0[0].field, "host_bytes");
        let op = OpCost { flops: Flops(f64::NAN), ..OpCost::default() };
        assert_eq!(roofline(&op, &rates).unwrap_err().0[0].field, "flops");
    }
}
