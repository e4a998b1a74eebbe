//! The fields of disaggregated serving (`inference::disaggregated`): the prefill pool's chip,
//! mesh, prompts per pass and price, and the link that carries each prompt's KV cache to the
//! decode pool (network, bandwidth per chip, latency, and whether it streams layer by layer).

use super::{read, section};
use crate::field::{Choice, Field, InputMode, Kind, Min, Options};
use crate::hardware::catalog;
use crate::hardware::query::ChipSource;
use crate::hardware::shape::{parse_shape, shape_of, topology_for};
use crate::inference::options::{KvNetwork, KvOverlap};
use crate::scenario::Scenario;
use crate::units::{BytesPerSec, Seconds};

/// The option standing for "the decode servers' chip" (`prefill.chip` absent).
pub const SAME_CHIP: &str = "";
/// The option standing for the custom prefill chip the scenario has.
pub const CUSTOM_PREFILL_CHIP: &str = "custom";

fn prefill_chips(s: &Scenario) -> Vec<Choice> {
    let mut out = vec![Choice { value: SAME_CHIP.into(), label: "the decode servers' chip".into(), group: "" }];
    if let Some(ChipSource::Custom(c)) = read(s, |i| i.prefill.chip.clone()) {
        out.push(Choice { value: CUSTOM_PREFILL_CHIP.into(), label: format!("Custom: {}", c.name), group: "" });
    }
    out.extend(crate::field::hardware::catalog_chips());
    out
}

fn prefill_chip(s: &Scenario) -> String {
    read(s, |i| match &i.prefill.chip {
        None => SAME_CHIP.into(),
        Some(ChipSource::Preset(id)) => id.clone(),
        Some(ChipSource::Custom(_)) => CUSTOM_PREFILL_CHIP.into(),
    })
}

/// Another chip drops the prefill mesh (the smallest slice of it that holds a pass is then
/// chosen); the custom option keeps the scenario's custom prefill chip.
fn set_prefill_chip(s: &mut Scenario, v: &str) -> Result<(), String> {
    let current = prefill_chip(s);
    if v == current {
        return Ok(());
    }
    let chip = match v {
        SAME_CHIP => None,
        CUSTOM_PREFILL_CHIP => return Err("there is no custom prefill chip in this scenario".into()),
        id if catalog::find(id).is_some() => Some(ChipSource::Preset(id.to_string())),
        other => return Err(format!("unknown chip {other:?}")),
    };
    let p = &mut section(s).prefill;
    p.chip = chip;
    p.topology = None;
    Ok(())
}

/// The prefill servers' slice: a shape on the prefill chip (the scenario's chip when it has
/// none); empty = the smallest slice of the prefill chip that holds a pass, or with no
/// prefill chip prefill on the decode mesh.
fn set_prefill_topology(s: &mut Scenario, text: &str) -> Result<(), String> {
    let topology = if text.trim().is_empty() {
        None
    } else {
        let shape = parse_shape(text)?;
        let source = match read(s, |i| i.prefill.chip.clone()) {
            Some(c) => c,
            None => s.hardware.as_ref().ok_or("choose a chip first")?.chip.clone(),
        };
        let chip = source.resolve().map_err(|e| e.to_string())?;
        Some(topology_for(&chip, &shape, 1, None))
    };
    section(s).prefill.topology = topology;
    Ok(())
}

/// The prefill pool of disaggregated serving.
pub static PREFILL_POOL: [Field; 4] = [
    Field::new(
        "inference.prefill.chip",
        "Prefill servers' chip",
        Kind::Choice { options: Options::Computed(prefill_chips), get: prefill_chip, set: set_prefill_chip },
    )
    .hint("Disaggregated serving: prefill on another chip; the decode servers keep the chip above"),
    Field::new(
        "inference.prefill.topology",
        "Prefill server slice",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| read(s, |i| i.prefill.topology.as_ref().map(|t| shape_of(t).0).unwrap_or_default()),
            set: set_prefill_topology,
        },
    )
    .hint("The prefill servers' shape, e.g. 4x4; empty = the smallest slice that holds a pass (another chip) or the decode mesh"),
    Field::new(
        "inference.prefill.batch",
        "Prompts per prefill pass",
        Kind::OptionalCount { get: |s| read(s, |i| i.prefill.batch), set: |s, v| section(s).prefill.batch = v },
    )
    .unit("prompts")
    .hint("A prefill server batches this many prompts per pass (its caches move together); empty = 1"),
    Field::new(
        "inference.prefill.price_per_chip_hour_usd",
        "Prefill price per chip-hour",
        Kind::OptionalReal {
            min: Min::NonNegative,
            get: |s| read(s, |i| i.prefill.price_per_chip_hour_usd),
            set: |s, v| section(s).prefill.price_per_chip_hour_usd = v,
        },
    )
    .unit("USD")
    .hint("Empty = the decode servers' price on the same chip, else the prefill chip's catalog price"),
];

/// Bytes per second in a field: GB/s.
const GB: f64 = 1e9;
/// Seconds in a field: µs.
const MICROSECONDS: f64 = 1e-6;

/// The link between the pools.
pub static KV_TRANSFER: [Field; 4] = [
    enum_choice!(
        "inference.kv_transfer.network",
        "KV transfer network",
        KvNetwork,
        [
            ScaleOut => "scale_out", "scale-out: DCN, InfiniBand or RoCE",
            ScaleUp => "scale_up", "scale-up: ICI or NVLink (one chip type)",
        ],
        |s| read(s, |i| i.kv_transfer.network),
        |s| &mut section(s).kv_transfer.network,
    )
    .hint("Carries each prompt's KV cache from a prefill server to a decode server; its time adds to the time to first token")
    .also(&["inference.kv_transfer"]),
    Field::new(
        "inference.kv_transfer.bandwidth_per_chip",
        "KV bandwidth per chip",
        Kind::OptionalReal {
            min: Min::Positive,
            get: |s| read(s, |i| i.kv_transfer.bandwidth_per_chip.map(|b| b.get() / GB)),
            set: |s, v| section(s).kv_transfer.bandwidth_per_chip = v.map(|x| BytesPerSec(x * GB)),
        },
    )
    .unit("GB/s")
    .hint("One-way, each chip sending or receiving; empty = the chips' own for that network"),
    Field::new(
        "inference.kv_transfer.latency",
        "KV transfer latency",
        Kind::OptionalReal {
            min: Min::NonNegative,
            get: |s| read(s, |i| i.kv_transfer.latency.map(|l| l.get() / MICROSECONDS)),
            set: |s, v| section(s).kv_transfer.latency = v.map(|x| Seconds(x * MICROSECONDS)),
        },
    )
    .unit("µs")
    .hint("Fixed cost of one transfer; empty = the network's published hop latency"),
    enum_choice!(
        "inference.kv_transfer.overlap",
        "KV transfer overlap",
        KvOverlap,
        [None => "none", "after the prefill pass", Layerwise => "layerwise", "layer by layer, beside the pass"],
        |s| read(s, |i| i.kv_transfer.overlap),
        |s| &mut section(s).kv_transfer.overlap,
    )
    .hint("Layer by layer (Mooncake, NIXL): only the part that outlasts the pass adds to the time to first token"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::apply;

    /// Choosing a prefill chip drops a prefill mesh of the old one; a shape then reads on
    /// the prefill chip (a GPU's shape is its NVLink domain).
    #[test]
    fn the_prefill_slice_is_a_shape_of_the_prefill_chip() {
        let mut s = crate::scenario::with_serving_defaults(&Scenario::default());
        apply(&mut s, "inference.prefill.topology", "2x2").unwrap();
        assert!(s.validate().is_ok());
        apply(&mut s, "inference.prefill.chip", "h100-sxm").unwrap();
        assert_eq!(read(&s, |i| i.prefill.topology.clone()), None);
        apply(&mut s, "inference.prefill.topology", "8").unwrap();
        let t = read(&s, |i| i.prefill.topology.clone()).unwrap();
        assert_eq!(t.axes[0].name, "nvlink");
        assert!(s.validate().is_ok(), "{:?}", s.validate());
        apply(&mut s, "inference.prefill.chip", "").unwrap();
        assert_eq!(read(&s, |i| i.prefill.chip.clone()), None);
        assert!(apply(&mut s, "inference.prefill.chip", "tpu-v99").is_err());
    }

    /// 50 GB/s and 5 µs are stored as 5e10 B/s and 5e-6 s.
    #[test]
    fn the_link_reads_in_gigabytes_per_second_and_microseconds() {
        let mut s = Scenario::default();
        apply(&mut s, "inference.kv_transfer.bandwidth_per_chip", "50").unwrap();
        apply(&mut s, "inference.kv_transfer.latency", "5").unwrap();
        let k = read(&s, |i| i.kv_transfer.clone());
        assert_eq!(k.bandwidth_per_chip, Some(BytesPerSec(5e10)));
        assert!((k.latency.unwrap().get() - 5e-6).abs() < 1e-20);
    }
}
