//! Every numeric field of a chip as the page names it: label, display unit and whether the
//! custom-chip editor edits it (a link's bidirectional rate follows its one-way rate). The
//! paths are those of `Chip::numeric_fields` in core.

/// The unit a field is shown and typed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// 1e12 FLOP/s.
    TeraFlops,
    /// 1e9 bytes.
    Gigabytes,
    /// 2^20 bytes.
    Mebibytes,
    /// 1e9 bytes per second.
    GigabytesPerSec,
    /// 1e-6 seconds.
    Microseconds,
    /// A plain count.
    Count,
    /// US dollars per chip-hour.
    UsdPerHour,
}

impl Unit {
    /// Base-unit value of one displayed unit.
    #[must_use]
    pub fn scale(self) -> f64 {
        match self {
            Unit::TeraFlops => 1e12,
            Unit::Gigabytes | Unit::GigabytesPerSec => 1e9,
            Unit::Mebibytes => 1_048_576.0,
            Unit::Microseconds => 1e-6,
            Unit::Count | Unit::UsdPerHour => 1.0,
        }
    }

    /// Unit text after the number.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Unit::TeraFlops => "TFLOP/s",
            Unit::Gigabytes => "GB",
            Unit::Mebibytes => "MiB",
            Unit::GigabytesPerSec => "GB/s",
            Unit::Microseconds => "µs",
            Unit::Count => "",
            Unit::UsdPerHour => "USD / chip-hour",
        }
    }
}

/// One numeric field of a chip.
#[derive(Clone, Copy, Debug)]
pub struct ChipField {
    /// Path in `Chip::numeric_fields`, e.g. `hbm.bandwidth`.
    pub path: &'static str,
    /// Element id of its input in the editor (`chip-` + the path with dots as dashes).
    pub id: &'static str,
    /// What it is.
    pub label: &'static str,
    /// Display unit.
    pub unit: Unit,
    /// May be empty (not published).
    pub optional: bool,
    /// Edited directly (false for a link's bidirectional rate, which follows one-way).
    pub editable: bool,
}

const fn field(path: &'static str, id: &'static str, label: &'static str, unit: Unit, optional: bool) -> ChipField {
    ChipField { path, id, label, unit, optional, editable: true }
}

const fn derived(path: &'static str, id: &'static str, label: &'static str, unit: Unit) -> ChipField {
    ChipField { path, id, label, unit, optional: true, editable: false }
}

/// The fields in the order the spec table and the editor list them.
pub const CHIP_FIELDS: &[ChipField] = &[
    field("peak_flops.bf16", "chip-peak_flops-bf16", "Peak bf16 matmul (dense)", Unit::TeraFlops, false),
    field("peak_flops.fp8", "chip-peak_flops-fp8", "Peak fp8 matmul (dense)", Unit::TeraFlops, true),
    field("peak_flops.int8", "chip-peak_flops-int8", "Peak int8 matmul (dense)", Unit::TeraFlops, true),
    field("peak_flops.int4", "chip-peak_flops-int4", "Peak int4 matmul (dense)", Unit::TeraFlops, true),
    field("vector_flops", "chip-vector_flops", "Vector unit", Unit::TeraFlops, true),
    field("hbm.capacity", "chip-hbm-capacity", "HBM capacity", Unit::Gigabytes, false),
    field("hbm.bandwidth", "chip-hbm-bandwidth", "HBM bandwidth", Unit::GigabytesPerSec, false),
    field("on_chip.capacity", "chip-on_chip-capacity", "On-chip memory (VMEM / SMEM)", Unit::Mebibytes, true),
    field("on_chip.bandwidth", "chip-on_chip-bandwidth", "On-chip memory bandwidth", Unit::GigabytesPerSec, true),
    field("mxu.size", "chip-mxu-size", "MXU side (systolic array)", Unit::Count, true),
    field("mxu.count", "chip-mxu-count", "MXUs per chip", Unit::Count, true),
    field("cores_per_chip", "chip-cores_per_chip", "TensorCores per chip", Unit::Count, false),
    field("scale_up.links_per_chip", "chip-scale_up-links_per_chip", "Scale-up links per chip", Unit::Count, false),
    field("scale_up.link.one_way", "chip-scale_up-link-one_way", "Per link, one-way", Unit::GigabytesPerSec, false),
    derived(
        "scale_up.link.bidirectional",
        "chip-scale_up-link-bidirectional",
        "Per link, bidirectional",
        Unit::GigabytesPerSec,
    ),
    field("scale_up.hop_latency", "chip-scale_up-hop_latency", "Scale-up hop latency", Unit::Microseconds, true),
    field("scale_up.max_chips", "chip-scale_up-max_chips", "Largest slice / NVLink domain", Unit::Count, false),
    field("host.chips_per_host", "chip-host-chips_per_host", "Chips per host", Unit::Count, false),
    field("host.pcie.one_way", "chip-host-pcie-one_way", "PCIe per chip, one-way", Unit::GigabytesPerSec, true),
    derived(
        "host.pcie.bidirectional",
        "chip-host-pcie-bidirectional",
        "PCIe per chip, bidirectional",
        Unit::GigabytesPerSec,
    ),
    field(
        "scale_out.bandwidth_per_chip",
        "chip-scale_out-bandwidth_per_chip",
        "DCN / scale-out per chip, one-way",
        Unit::GigabytesPerSec,
        false,
    ),
    field("scale_out.hop_latency", "chip-scale_out-hop_latency", "DCN / scale-out latency", Unit::Microseconds, true),
    field("chiplets.count", "chip-chiplets-count", "Chiplets per chip", Unit::Count, true),
    field(
        "chiplets.die_to_die.one_way",
        "chip-chiplets-die_to_die-one_way",
        "Die-to-die link, one-way",
        Unit::GigabytesPerSec,
        true,
    ),
    derived(
        "chiplets.die_to_die.bidirectional",
        "chip-chiplets-die_to_die-bidirectional",
        "Die-to-die link, bidirectional",
        Unit::GigabytesPerSec,
    ),
    field("price_per_chip_hour_usd", "chip-price_per_chip_hour_usd", "Price", Unit::UsdPerHour, true),
];

/// The field at `path`.
#[must_use]
pub fn by_path(path: &str) -> Option<&'static ChipField> {
    CHIP_FIELDS.iter().find(|f| f.path == path)
}

/// `value` (base unit) in the field's unit, for a table cell: `810 GB/s`, `4`, `1.20 USD / chip-hour`.
#[must_use]
pub fn display(field: &ChipField, value: f64) -> String {
    let x = value / field.unit.scale();
    let number = match field.unit {
        // Counts are whole numbers below 2^53 (validated), so the cast is exact.
        Unit::Count if x.fract() == 0.0 && (0.0..9e15).contains(&x) => shardcalc_charts::format::thousands(x as u64),
        Unit::UsdPerHour => shardcalc_charts::format::grouped(x, 2),
        _ => shardcalc_charts::format::significant(x, 4),
    };
    let unit = field.unit.label();
    if unit.is_empty() {
        number
    } else {
        format!("{number} {unit}")
    }
}
