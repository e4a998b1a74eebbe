//! Editing a chip one numeric field at a time (the page's custom-chip editor): the inverse
//! of [`Chip::numeric_fields`], keeping each link's one-way and bidirectional rates
//! consistent and recording the edit as the field's source.

use super::chip::{Chip, ChipFamily, Chiplets, FieldSource, LinkBandwidth, Mxu, OnChipMemory, SparseCores};
use crate::units::{BidiBytesPerSec, Bytes, BytesPerSec, FlopsPerSec, Seconds};

/// Source recorded for a field the user changed.
pub const EDITED_SOURCE: &str = "edited in shardcalc";

fn count(path: &str, v: f64) -> Result<u64, String> {
    if v.is_finite() && v >= 1.0 && v.fract() == 0.0 && v <= (1u64 << 53) as f64 {
        // Integral, positive and at most 2^53: the conversion is exact.
        Ok(v as u64)
    } else {
        Err(format!("{path}: must be a whole number of at least 1 (got {})", crate::decimal::shortest(v)))
    }
}

fn link(one_way: f64) -> LinkBandwidth {
    LinkBandwidth::from_one_way(BytesPerSec(one_way))
}

/// The fields that move together with `path` (a link's two directions).
#[must_use]
pub fn paired_fields(path: &str) -> Vec<String> {
    let mut out = vec![path.to_string()];
    for (a, b) in [
        ("scale_up.link.one_way", "scale_up.link.bidirectional"),
        ("host.pcie.one_way", "host.pcie.bidirectional"),
        ("chiplets.die_to_die.one_way", "chiplets.die_to_die.bidirectional"),
    ] {
        if path == a {
            out.push(b.into());
        } else if path == b {
            out.push(a.into());
        }
    }
    out
}

impl Chip {
    /// Sets the numeric field `path` (a path of [`Chip::numeric_fields`], in its base
    /// unit) to `value`; `None` removes an optional number (and, for the first number of an
    /// optional part such as `on_chip.capacity`, the part). Setting one direction of a link
    /// sets the other (bidirectional = 2 × one-way). Range checks are left to
    /// [`Chip::validate`], except that counts must be whole numbers.
    ///
    /// # Errors
    /// An unknown path, `None` for a required field, a fraction for a count, or a number
    /// for a part that needs another first (`on_chip.bandwidth` without a capacity,
    /// `chiplets.die_to_die.one_way` without a count).
    pub fn set_field(&mut self, path: &str, value: Option<f64>) -> Result<(), String> {
        let required = || format!("{path}: is required");
        match (path, value) {
            ("cores_per_chip", Some(v)) => self.cores_per_chip = count(path, v)?,
            ("peak_flops.bf16", Some(v)) => self.peak_flops.bf16 = FlopsPerSec(v),
            ("peak_flops.fp8", v) => self.peak_flops.fp8 = v.map(FlopsPerSec),
            ("peak_flops.int8", v) => self.peak_flops.int8 = v.map(FlopsPerSec),
            ("peak_flops.int4", v) => self.peak_flops.int4 = v.map(FlopsPerSec),
            ("peak_flops.fp4", v) => self.peak_flops.fp4 = v.map(FlopsPerSec),
            ("vector_flops", v) => self.vector_flops = v.map(FlopsPerSec),
            ("hbm.capacity", Some(v)) => self.hbm.capacity = Bytes(v),
            ("hbm.bandwidth", Some(v)) => self.hbm.bandwidth = BytesPerSec(v),
            ("on_chip.capacity", None) => self.on_chip = None,
            ("on_chip.capacity", Some(v)) => match self.on_chip.as_mut() {
                Some(m) => m.capacity = Bytes(v),
                None => {
                    let name = if self.family == ChipFamily::Tpu { "VMEM" } else { "SMEM" };
                    self.on_chip = Some(OnChipMemory { name: name.into(), capacity: Bytes(v), bandwidth: None });
                }
            },
            ("on_chip.bandwidth", v) => match (self.on_chip.as_mut(), v) {
                (Some(m), v) => m.bandwidth = v.map(BytesPerSec),
                (None, None) => {}
                (None, Some(_)) => return Err(format!("{path}: set the on-chip memory's capacity first")),
            },
            ("mxu.size", None) => self.mxu = None,
            ("mxu.size", Some(v)) => {
                let size = count(path, v)?;
                self.mxu = Some(Mxu { size, count: self.mxu.and_then(|m| m.count) });
            }
            ("mxu.count", v) => match (self.mxu.as_mut(), v) {
                (Some(m), v) => m.count = v.map(|v| count(path, v)).transpose()?,
                (None, None) => {}
                (None, Some(_)) => return Err(format!("{path}: set the MXU side first")),
            },
            ("scale_up.links_per_chip", Some(v)) => self.scale_up.links_per_chip = count(path, v)?,
            ("scale_up.link.one_way", Some(v)) => self.scale_up.link = link(v),
            ("scale_up.link.bidirectional", Some(v)) => self.scale_up.link = link(BidiBytesPerSec(v).one_way().get()),
            ("scale_up.hop_latency", v) => self.scale_up.hop_latency = v.map(Seconds),
            ("scale_up.max_chips", Some(v)) => self.scale_up.max_chips = count(path, v)?,
            ("host.chips_per_host", Some(v)) => self.host.chips_per_host = count(path, v)?,
            ("host.pcie.one_way", v) => self.host.pcie = v.map(link),
            ("host.pcie.bidirectional", v) => self.host.pcie = v.map(|v| link(BidiBytesPerSec(v).one_way().get())),
            ("scale_out.bandwidth_per_chip", Some(v)) => self.scale_out.bandwidth_per_chip = BytesPerSec(v),
            ("scale_out.hop_latency", v) => self.scale_out.hop_latency = v.map(Seconds),
            ("chiplets.count", None) => self.chiplets = None,
            ("chiplets.count", Some(v)) => {
                let n = count(path, v)?;
                // A new die-to-die link starts at the scale-up link's rate.
                let die_to_die = self.chiplets.map_or(self.scale_up.link, |c| c.die_to_die);
                self.chiplets = Some(Chiplets { count: n, die_to_die });
            }
            ("chiplets.die_to_die.one_way" | "chiplets.die_to_die.bidirectional", v) => {
                let one_way = if path.ends_with("one_way") { v } else { v.map(|b| BidiBytesPerSec(b).one_way().get()) };
                match (self.chiplets.as_mut(), one_way) {
                    (Some(c), Some(w)) => c.die_to_die = link(w),
                    (Some(_), None) => return Err(format!("{path}: is required while the chip has chiplets")),
                    (None, None) => {}
                    (None, Some(_)) => return Err(format!("{path}: set the number of chiplets first")),
                }
            }
            ("sparse_cores.count", None) => self.sparse_cores = None,
            ("sparse_cores.count", Some(v)) => {
                let count = count(path, v)?;
                let offload_by_default = self.sparse_cores.is_some_and(|s| s.offload_by_default);
                self.sparse_cores = Some(SparseCores { count, offload_by_default });
            }
            ("price_per_chip_hour_usd", v) => self.price_per_chip_hour_usd = v,
            (_, None) if self.numeric_fields().iter().any(|(p, _)| *p == path) => return Err(required()),
            _ => return Err(format!("{path}: not a numeric field of a chip")),
        }
        Ok(())
    }

    /// Records that the user set `path` on `date` (YYYY-MM-DD): its source (and its
    /// paired direction's) becomes [`EDITED_SOURCE`]; other sources' values for it stay
    /// listed as alternatives.
    pub fn mark_edited(&mut self, path: &str, date: &str) {
        let fields = paired_fields(path);
        self.field_sources.retain(|s| !fields.contains(&s.field));
        for field in fields {
            self.field_sources.push(FieldSource { field, source: EDITED_SOURCE.into(), as_of: date.into() });
        }
    }

    /// Drops provenance and alternatives of fields the chip no longer has (after a part
    /// such as `on_chip` or `chiplets` was removed), so the chip still validates.
    pub fn forget_missing_fields(&mut self) {
        let present: Vec<&str> =
            self.numeric_fields().into_iter().filter(|(_, v)| v.is_some()).map(|(p, _)| p).collect();
        let keep = |f: &str| present.contains(&f);
        let sources: Vec<FieldSource> = self.field_sources.iter().filter(|s| keep(&s.field)).cloned().collect();
        let alternatives = self.alternatives.iter().filter(|a| keep(&a.field)).cloned().collect();
        self.field_sources = sources;
        self.alternatives = alternatives;
    }
}

#[cfg(test)]
mod tests {
    use crate::hardware::catalog::with_provenance;

    /// A bundled chip as the hardware page edits it: with its sources.
    fn get(id: &str) -> Option<crate::hardware::Chip> {
        crate::hardware::catalog::get(id).map(with_provenance)
    }

    #[test]
    fn every_numeric_field_round_trips() {
        for chip in crate::hardware::catalog::all_with_provenance() {
            for (path, value) in chip.numeric_fields() {
                let mut c = chip.clone();
                c.set_field(path, value).unwrap_or_else(|e| panic!("{}: {e}", chip.id));
                assert_eq!(c, chip, "{} {path}", chip.id);
            }
        }
    }

    #[test]
    fn links_stay_consistent_and_edits_are_sourced() {
        let mut c = get("tpu-v5e").unwrap();
        c.set_field("scale_up.link.bidirectional", Some(1e11)).unwrap();
        assert_eq!(c.scale_up.link.one_way.get(), 5e10);
        c.mark_edited("scale_up.link.bidirectional", "2026-01-02");
        assert_eq!(c.source_of("scale_up.link.one_way"), (super::EDITED_SOURCE, "2026-01-02"));
        assert_eq!(c.validate(), Ok(()));
        // Removing a part removes its provenance too.
        c.set_field("on_chip.capacity", None).unwrap();
        assert!(c.on_chip.is_none());
        c.forget_missing_fields();
        assert_eq!(c.validate(), Ok(()));
        assert!(c.set_field("on_chip.bandwidth", Some(1e12)).is_err());
        assert!(c.set_field("hbm.bandwidth", None).unwrap_err().contains("required"));
        assert!(c.set_field("mxu.size", Some(127.5)).unwrap_err().contains("whole number"));
        assert!(c.set_field("nope", Some(1.0)).is_err());
        // Chiplets start with a die-to-die link at the ICI rate.
        c.set_field("chiplets.count", Some(2.0)).unwrap();
        assert_eq!(c.chiplets.unwrap().die_to_die, c.scale_up.link);
    }
}
