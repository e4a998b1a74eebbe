//! Typed quantities: FLOPs, bytes, seconds, rates and parameter counts.
//!
//! Every quantity is an `f64` newtype so that a FLOP count cannot be added to a byte
//! count, and so that time is only ever obtained by dividing work by a rate of the same
//! kind (`Flops / FlopsPerSec`, `Bytes / BytesPerSec`). Decimal (GB = 1e9) and binary
//! (GiB = 2^30) byte units are separate, explicitly named accessors.
//!
//! Parameter counts are exact integers while they stay below 2^53 (9.007e15), which
//! covers every model that exists by three orders of magnitude; they serialize as JSON
//! integers in that range.

use serde::{Deserialize, Serialize};
use std::iter::Sum;
use std::ops::{Add, AddAssign, Div, Mul, Sub};

macro_rules! quantity {
    ($(#[$doc:meta])* $name:ident, $unit:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(transparent)]
        pub struct $name(pub f64);

        impl $name {
            /// Zero of this quantity.
            pub const ZERO: Self = Self(0.0);
            /// The unit symbol used when printing this quantity.
            pub const UNIT: &'static str = $unit;
            /// The raw value in base units.
            #[must_use]
            pub fn get(self) -> f64 {
                self.0
            }
            /// True when the value is a finite number.
            #[must_use]
            pub fn is_finite(self) -> bool {
                self.0.is_finite()
            }
            /// The larger of two values.
            #[must_use]
            pub fn max(self, other: Self) -> Self {
                Self(self.0.max(other.0))
            }
            /// The smaller of two values.
            #[must_use]
            pub fn min(self, other: Self) -> Self {
                Self(self.0.min(other.0))
            }
        }

        impl Add for $name {
            type Output = Self;
            fn add(self, rhs: Self) -> Self {
                Self(self.0 + rhs.0)
            }
        }
        impl Sub for $name {
            type Output = Self;
            fn sub(self, rhs: Self) -> Self {
                Self(self.0 - rhs.0)
            }
        }
        impl AddAssign for $name {
            fn add_assign(&mut self, rhs: Self) {
                self.0 += rhs.0;
            }
        }
        impl Mul<f64> for $name {
            type Output = Self;
            fn mul(self, rhs: f64) -> Self {
                Self(self.0 * rhs)
            }
        }
        impl Mul<$name> for f64 {
            type Output = $name;
            fn mul(self, rhs: $name) -> $name {
                $name(self * rhs.0)
            }
        }
        impl Div<f64> for $name {
            type Output = Self;
            fn div(self, rhs: f64) -> Self {
                Self(self.0 / rhs)
            }
        }
        /// Ratio of two quantities of the same kind (dimensionless).
        impl Div for $name {
            type Output = f64;
            fn div(self, rhs: Self) -> f64 {
                self.0 / rhs.0
            }
        }
        impl Sum for $name {
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                Self(iter.map(|q| q.0).sum())
            }
        }
    };
}

quantity!(
    /// Floating-point operations (a count, not a rate).
    Flops,
    "FLOP"
);
quantity!(
    /// Bytes. Use [`Bytes::gb`] for decimal gigabytes and [`Bytes::gib`] for binary.
    Bytes,
    "B"
);
quantity!(
    /// Wall-clock seconds.
    Seconds,
    "s"
);
quantity!(
    /// Compute throughput, FLOP per second.
    FlopsPerSec,
    "FLOP/s"
);
quantity!(
    /// Data throughput, bytes per second, in one direction unless a name says otherwise.
    BytesPerSec,
    "B/s"
);
quantity!(
    /// Bidirectional link throughput: bytes per second summed over both directions of
    /// one link (the book's "bidi" column, section 2.3). A separate type so that it
    /// cannot be passed where a one-way [`BytesPerSec`] is expected.
    BidiBytesPerSec,
    "B/s bidi"
);

/// A number of model parameters.
///
/// Stored as `f64` so arithmetic never overflows or panics; exact for every integer
/// below 2^53. Serializes as a JSON integer when it is an exact integer in that range.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct Params(pub f64);

impl Params {
    /// No parameters.
    pub const ZERO: Self = Self(0.0);
    /// Largest parameter count that is still represented exactly.
    pub const EXACT_LIMIT: f64 = 9_007_199_254_740_992.0;

    /// The count as a float.
    #[must_use]
    pub fn get(self) -> f64 {
        self.0
    }

    /// The count as an integer when it is exact; `None` otherwise.
    #[must_use]
    pub fn exact(self) -> Option<u64> {
        if self.0 >= 0.0 && self.0 < Self::EXACT_LIMIT && self.0.fract() == 0.0 {
            // proof: non-negative integral value below 2^53 fits u64 exactly.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Some(self.0 as u64)
        } else {
            None
        }
    }

    /// Bytes needed to store these parameters at `bytes_per_param`.
    #[must_use]
    pub fn bytes_at(self, bytes_per_param: f64) -> Bytes {
        Bytes(self.0 * bytes_per_param)
    }
}

impl Serialize for Params {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.exact() {
            Some(n) => s.serialize_u64(n),
            None => s.serialize_f64(self.0),
        }
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        f64::deserialize(d).map(Params)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Params {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Params".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "number",
            "minimum": 0,
            "description": "A parameter count; an integer when below 2^53."
        })
    }
}

impl Add for Params {
    type Output = Self;
    fn add(self, rhs: Self) -> Self {
        Self(self.0 + rhs.0)
    }
}
impl Sub for Params {
    type Output = Self;
    fn sub(self, rhs: Self) -> Self {
        Self(self.0 - rhs.0)
    }
}
impl AddAssign for Params {
    fn add_assign(&mut self, rhs: Self) {
        self.0 += rhs.0;
    }
}
impl Mul<f64> for Params {
    type Output = Self;
    fn mul(self, rhs: f64) -> Self {
        Self(self.0 * rhs)
    }
}
impl Sum for Params {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        Self(iter.map(|q| q.0).sum())
    }
}

impl Div<FlopsPerSec> for Flops {
    type Output = Seconds;
    /// Time to do this work at that rate.
    fn div(self, rate: FlopsPerSec) -> Seconds {
        Seconds(self.0 / rate.0)
    }
}
impl Div<BytesPerSec> for Bytes {
    type Output = Seconds;
    /// Time to move these bytes at that rate.
    fn div(self, rate: BytesPerSec) -> Seconds {
        Seconds(self.0 / rate.0)
    }
}
impl Div<Seconds> for Flops {
    type Output = FlopsPerSec;
    fn div(self, t: Seconds) -> FlopsPerSec {
        FlopsPerSec(self.0 / t.0)
    }
}
impl Div<Seconds> for Bytes {
    type Output = BytesPerSec;
    fn div(self, t: Seconds) -> BytesPerSec {
        BytesPerSec(self.0 / t.0)
    }
}
impl Mul<Seconds> for FlopsPerSec {
    type Output = Flops;
    fn mul(self, t: Seconds) -> Flops {
        Flops(self.0 * t.0)
    }
}
impl Mul<Seconds> for BytesPerSec {
    type Output = Bytes;
    fn mul(self, t: Seconds) -> Bytes {
        Bytes(self.0 * t.0)
    }
}

impl Div<BidiBytesPerSec> for Bytes {
    type Output = Seconds;
    /// The book's `V / W_bidi` (section 3.2): time to move these bytes when both
    /// directions of a link are used equally.
    fn div(self, rate: BidiBytesPerSec) -> Seconds {
        Seconds(self.0 / rate.0)
    }
}

impl BytesPerSec {
    /// Both directions of a link whose one-way rate is `self`.
    #[must_use]
    pub fn bidirectional(self) -> BidiBytesPerSec {
        BidiBytesPerSec(2.0 * self.0)
    }
}

impl BidiBytesPerSec {
    /// One direction of a link whose bidirectional rate is `self`.
    #[must_use]
    pub fn one_way(self) -> BytesPerSec {
        BytesPerSec(self.0 / 2.0)
    }
}

/// Arithmetic intensity, FLOP per byte (book section 1.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Intensity(pub f64);

impl Div<Bytes> for Flops {
    type Output = Intensity;
    fn div(self, b: Bytes) -> Intensity {
        Intensity(self.0 / b.0)
    }
}
impl Div<BytesPerSec> for FlopsPerSec {
    type Output = Intensity;
    /// Critical (ridge-point) intensity of an accelerator: peak FLOP/s over bandwidth.
    fn div(self, b: BytesPerSec) -> Intensity {
        Intensity(self.0 / b.0)
    }
}
impl Div<BidiBytesPerSec> for FlopsPerSec {
    type Output = Intensity;
    /// Critical intensity against a bidirectional link rate (the book's `C / W_ici`).
    fn div(self, b: BidiBytesPerSec) -> Intensity {
        Intensity(self.0 / b.0)
    }
}
impl Intensity {
    /// The raw FLOP/byte value.
    #[must_use]
    pub fn get(self) -> f64 {
        self.0
    }
}

/// Bytes in a decimal gigabyte.
pub const GB: f64 = 1e9;
/// Bytes in a binary gibibyte.
pub const GIB: f64 = 1_073_741_824.0;

impl Bytes {
    /// Decimal gigabytes (1 GB = 1e9 bytes).
    #[must_use]
    pub fn gb(self) -> f64 {
        self.0 / GB
    }
    /// Binary gibibytes (1 GiB = 2^30 bytes).
    #[must_use]
    pub fn gib(self) -> f64 {
        self.0 / GIB
    }
    /// From decimal gigabytes.
    #[must_use]
    pub fn from_gb(gb: f64) -> Self {
        Self(gb * GB)
    }
    /// From binary gibibytes.
    #[must_use]
    pub fn from_gib(gib: f64) -> Self {
        Self(gib * GIB)
    }
}

impl Flops {
    /// In TFLOP (1e12), the unit MaxText logs per device and step.
    #[must_use]
    pub fn tflops(self) -> f64 {
        self.0 / 1e12
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_is_work_over_rate() {
        let t = Flops(4.59e14) / FlopsPerSec(4.59e14);
        assert!((t.get() - 1.0).abs() < 1e-12);
        let t = Bytes(8.1e11) / BytesPerSec(8.1e11);
        assert!((t.get() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn critical_intensity_v5e() {
        // Book 1.1: TPU v5e 1.97e14 FLOP/s over 8.2e11 B/s is about 240 FLOP/byte.
        let i = FlopsPerSec(1.97e14) / BytesPerSec(8.2e11);
        assert!((i.0 - 240.2).abs() < 0.1);
    }

    #[test]
    fn params_serialize_as_integers_when_exact() {
        assert_eq!(serde_json::to_string(&Params(8_030_261_248.0)).unwrap(), "8030261248");
        assert_eq!(serde_json::to_string(&Params(0.5)).unwrap(), "0.5");
        let p: Params = serde_json::from_str("6738415616").unwrap();
        assert_eq!(p.exact(), Some(6_738_415_616));
    }

    #[test]
    fn decimal_and_binary_bytes_differ() {
        let b = Bytes(8_589_934_592.0);
        assert!((b.gib() - 8.0).abs() < 1e-12);
        assert!((b.gb() - 8.589_934_592).abs() < 1e-12);
    }
}
