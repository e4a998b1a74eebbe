//! Hardware: the chip catalog (book chapter 2), its derived numbers, and topologies.

pub mod catalog;
pub mod chip;
pub mod edit;
pub mod intensity;
pub mod query;
pub mod shape;
pub mod topology;
mod validate;

pub use chip::{
    mxu_peak, Alternative, Chip, ChipFamily, Chiplets, Fabric, FieldSource, Host, LinkBandwidth, Memory, Mxu,
    OnChipMemory, PeakFlops, ScaleOut, ScaleUp, SparseCores, WrapRule,
};
pub use validate::MAX_QUANTITY;
