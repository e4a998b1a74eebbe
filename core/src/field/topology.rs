//! The fields of the topology's axes (book 2.2): per axis, its wraparound, its link and
//! hop-latency overrides and whether it carries data one way only. (Whether Ironwood's
//! chiplets are devices of their own is `super::hardware::CHIPLETS`.)

use super::input::{ItemField, List};
use super::{InputMode, Kind, Options};
use crate::collectives::Network;
use crate::hardware::chip::Fabric;
use crate::hardware::topology::{AxisSpec, Topology};
use crate::scenario::Scenario;
use crate::text;
use crate::units::{BytesPerSec, Seconds};

fn topology(s: &Scenario) -> Option<&Topology> {
    s.hardware.as_ref()?.topology.as_ref()
}

/// `hardware.topology.axes`.
pub static AXES: List<AxisSpec> = List {
    path: "hardware.topology.axes",
    items: |s| topology(s).map_or(&[], |t| t.axes.as_slice()),
    items_mut: |s| match s.hardware.as_mut().and_then(|h| h.topology.as_mut()) {
        Some(t) => t.axes.as_mut_slice(),
        None => &mut [],
    },
};

/// Whether axis `i` is a scale-up axis of a torus (where wraparound and direction apply).
fn is_torus_axis(s: &Scenario, i: usize) -> bool {
    let torus = s
        .hardware
        .as_ref()
        .and_then(|h| h.chip.resolve().ok())
        .is_some_and(|c| matches!(c.scale_up.fabric, Fabric::Torus { .. }));
    torus && topology(s).and_then(|t| t.axes.get(i)).is_some_and(|a| a.network == Network::ScaleUp)
}

const WRAPAROUND: [(&str, &str); 3] = [("auto", "the chip's rule"), ("off", "off (a line)"), ("on", "on (a ring)")];

/// An optional override read in a display unit `scale` times its base unit.
fn override_text(x: Option<f64>, scale: f64) -> String {
    x.map(|x| text::plain(x / scale)).unwrap_or_default()
}

fn read_override(t: &str, scale: f64, read: fn(&str) -> Result<f64, String>) -> Result<Option<f64>, String> {
    if t.trim().is_empty() {
        Ok(None)
    } else {
        text::scaled(t, scale, read).map(Some)
    }
}

/// The fields of every axis.
pub static AXIS_FIELDS: [ItemField<AxisSpec>; 4] = [
    ItemField::new(
        &AXES,
        "wraparound",
        "Wraparound",
        Kind::Choice {
            options: Options::Fixed(&WRAPAROUND),
            get: |a| {
                match a.wraparound {
                    Some(true) => "on",
                    Some(false) => "off",
                    None => "auto",
                }
                .into()
            },
            set: |a, v| {
                a.wraparound = match v {
                    "auto" => None,
                    "off" => Some(false),
                    "on" => Some(true),
                    other => return Err(format!("unknown option {other:?}; use auto, off or on")),
                };
                Ok(())
            },
        },
    )
    .hint("Book 2.2: only a full axis, or a slice of whole cubes, has one")
    .when(is_torus_axis),
    ItemField::new(
        &AXES,
        "unidirectional",
        "One way only (a unidirectional ring)",
        Kind::Flag { get: |a| a.unidirectional, set: |a, on| a.unidirectional = on },
    )
    .hint("Book Exercise 3.10: the links carry data one way around the ring")
    .when(is_torus_axis),
    ItemField::new(
        &AXES,
        "link_one_way",
        "Link override",
        Kind::Text {
            mode: InputMode::Decimal,
            get: |a| override_text(a.link_one_way.map(BytesPerSec::get), 1e9),
            set: |a, t| {
                a.link_one_way = read_override(t, 1e9, text::positive_real)?.map(BytesPerSec);
                Ok(())
            },
        },
    )
    .unit("GB/s one-way")
    .hint("Empty = the chip's"),
    ItemField::new(
        &AXES,
        "hop_latency",
        "Hop latency override",
        Kind::Text {
            mode: InputMode::Decimal,
            get: |a| override_text(a.hop_latency.map(Seconds::get), 1e-6),
            set: |a, t| {
                a.hop_latency = read_override(t, 1e-6, text::nonnegative_real)?.map(Seconds);
                Ok(())
            },
        },
    )
    .unit("µs")
    .hint("Empty = the chip's"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::apply;

    fn v5e_8x4() -> Scenario {
        crate::view::hardware::with_defaults(&Scenario::default())
    }

    #[test]
    fn overrides_are_read_in_their_units_and_never_stored_as_infinity() {
        let mut s = v5e_8x4();
        apply(&mut s, "hardware.topology.axes[1].link_one_way", "22.5").unwrap();
        assert_eq!(topology(&s).unwrap().axes[1].link_one_way, Some(BytesPerSec(22.5e9)));
        let e = apply(&mut s, "hardware.topology.axes[1].link_one_way", "1e300").unwrap_err();
        assert!(e.message.contains("too large"), "{e}");
        assert_eq!(topology(&s).unwrap().axes[1].link_one_way, Some(BytesPerSec(22.5e9)), "unchanged");
        apply(&mut s, "hardware.topology.axes[0].hop_latency", "").unwrap();
        assert!(apply(&mut s, "hardware.topology.axes[7].hop_latency", "1")
            .unwrap_err()
            .message
            .contains("no element"));
        // Book 2.2: an axis of 8 on a v5e has no wraparound; forcing one is refused by validation.
        apply(&mut s, "hardware.topology.axes[0].wraparound", "on").unwrap();
        let e = s.validate().unwrap_err();
        assert!(e.0.iter().any(|e| e.field == "hardware.topology.axes[0].wraparound"), "{e}");
    }
}
