//! Checks on a chip, bundled or user-defined: every field error names its path.

use super::chip::{Chip, Fabric, LinkBandwidth, WrapRule};
use crate::decimal::shortest;
use crate::error::{Checker, Invalid};

/// Upper bound on any rate or size we accept (far above any real chip, far below
/// overflow), so that sums and products of catalog numbers stay finite.
pub const MAX_QUANTITY: f64 = 1e30;

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10 && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
}

fn link(c: &mut Checker, field: &str, l: &LinkBandwidth) {
    let (one, bidi) = (l.one_way.get(), l.bidirectional.get());
    if one.is_finite() && bidi.is_finite() && one > 0.0 {
        let rel = (bidi - 2.0 * one).abs() / (2.0 * one);
        c.ensure(rel <= 1e-9, &format!("{field}.bidirectional"), || {
            format!("must be twice {field}.one_way ({} != 2 × {})", shortest(bidi), shortest(one))
        });
    }
}

impl Chip {
    /// Check every field.
    ///
    /// # Errors
    /// Every problem, with paths relative to the chip (`hbm.bandwidth`,
    /// `scale_up.link.bidirectional`, `alternatives[2].field`, ...).
    pub fn validate(&self) -> Result<(), Invalid> {
        let mut c = Checker::new();
        c.ensure(!self.id.trim().is_empty() && self.id.len() <= 64, "id", || "must be 1 to 64 characters".into());
        c.ensure(self.name.chars().count() <= 200, "name", || "must be at most 200 characters".into());
        c.ensure(!self.source.trim().is_empty(), "source", || "must name a source".into());
        c.ensure(is_date(&self.as_of), "as_of", || format!("must be a date YYYY-MM-DD (got {:?})", self.as_of));
        let fields = self.numeric_fields();
        for (path, value) in &fields {
            if let Some(v) = value {
                // Latencies and prices may be small; every rate, size and count is at least 1
                // (a rate of 1e-300 B/s would make every time infinite).
                // Latencies stop at 1e6 s, as a topology's override does.
                let latency = path.ends_with("hop_latency");
                let small_ok = latency || path.starts_with("price");
                let lo_ok = if small_ok { *v > 0.0 } else { *v >= 1.0 };
                let hi = if latency { 1e6 } else { MAX_QUANTITY };
                if !v.is_finite() || !lo_ok || *v > hi {
                    let range = match (latency, small_ok) {
                        (true, _) => "a positive number of seconds, at most 1e6",
                        (false, true) => "a positive finite number",
                        (false, false) => "a number from 1 to 1e30",
                    };
                    c.push(*path, format!("must be {range} (got {})", shortest(*v)));
                }
            }
        }
        link(&mut c, "scale_up.link", &self.scale_up.link);
        if let Some(p) = &self.host.pcie {
            link(&mut c, "host.pcie", p);
        }
        if let Some(ch) = &self.chiplets {
            link(&mut c, "chiplets.die_to_die", &ch.die_to_die);
        }
        if let Fabric::Torus { dims, wraparound } = self.scale_up.fabric {
            c.range("scale_up.fabric.torus.dims", dims, 1, 3);
            let side = match wraparound {
                WrapRule::FullAxis(n) | WrapRule::FullCubes(n) => n,
            };
            c.range("scale_up.fabric.torus.wraparound", side, 2, 1 << 20);
        }
        let known = |f: &str| fields.iter().any(|(p, v)| *p == f && v.is_some());
        for (i, s) in self.field_sources.iter().enumerate() {
            c.ensure(known(&s.field), &format!("field_sources[{i}].field"), || {
                format!("{:?} is not a numeric field of this chip", s.field)
            });
            c.ensure(!s.source.trim().is_empty(), &format!("field_sources[{i}].source"), || {
                "must name a source".into()
            });
            // An edit in shardcalc may be undated: a scenario is the same whenever it is made.
            let undated_edit = s.source == super::edit::EDITED_SOURCE && s.as_of.is_empty();
            c.ensure(undated_edit || is_date(&s.as_of), &format!("field_sources[{i}].as_of"), || {
                format!("must be a date YYYY-MM-DD (got {:?})", s.as_of)
            });
        }
        for (i, a) in self.alternatives.iter().enumerate() {
            c.ensure(known(&a.field), &format!("alternatives[{i}].field"), || {
                format!("{:?} is not a numeric field of this chip", a.field)
            });
            c.ensure(a.value.is_finite() && a.value > 0.0, &format!("alternatives[{i}].value"), || {
                format!("must be a positive finite number (got {})", crate::decimal::shortest(a.value))
            });
            c.ensure(!a.source.trim().is_empty(), &format!("alternatives[{i}].source"), || "must name a source".into());
        }
        c.finish()
    }
}
