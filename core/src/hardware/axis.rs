//! One mesh axis as the cost models see it (book 2.2 and 3.2): the network it runs over,
//! how its chips are wired (ring, line, switch, full mesh, unidirectional ring), the rate of
//! one link and the fixed cost of a hop. What a resolved topology is
//! ([`super::topology::Topology::resolve`]) and what the collectives
//! (`crate::collectives`) and planners consume.

use crate::units::{BytesPerSec, Seconds};
use serde::{Deserialize, Serialize};

/// Largest axis size accepted.
pub const MAX_AXIS_SIZE: u64 = 1 << 30;

/// Which network an axis runs over; collectives nest inner to outer in this order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Network {
    /// Between the chiplets of one package (Ironwood die-to-die).
    DieToDie,
    /// ICI, NVLink, Infinity Fabric.
    #[default]
    ScaleUp,
    /// DCN, InfiniBand, Ethernet.
    ScaleOut,
}
crate::serde_names::deserialize_by_name!(Network { DieToDie => "die_to_die", ScaleUp => "scale_up", ScaleOut => "scale_out" });

impl Network {
    /// Every network, inner to outer (their order).
    pub const ALL: [Network; 3] = [Network::DieToDie, Network::ScaleUp, Network::ScaleOut];
}

/// One mesh axis as the cost model sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AxisLink {
    /// Mesh axis name (`x`, `fsdp`, `dcn`, ...).
    pub name: String,
    /// Chips along the axis.
    pub size: u64,
    /// Network the axis runs over.
    pub network: Network,
    /// Ring, line, switch, full mesh or unidirectional ring.
    pub shape: AxisShape,
    /// One-way bytes per second of one link along the axis (one ICI link; a GPU's
    /// whole NVLink or NIC egress on a switch; one peer link on a full mesh).
    pub link: BytesPerSec,
    /// Fixed cost of one hop.
    pub hop_latency: Seconds,
}

/// How the chips along one mesh axis are connected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AxisShape {
    /// A torus axis with its wraparound link: a bidirectional ring (book 3.2).
    Ring,
    /// A torus axis without wraparound (a slice smaller than the full axis): the end
    /// chips have one neighbour, every link carries both directions. For a gather it costs
    /// what a unidirectional ring costs; for an AllToAll it does not (see
    /// `crate::collectives::ring::busiest_link_fraction`).
    Line,
    /// Every chip reaches every other through a switch (NVLink, DCN); the link is the
    /// chip's whole egress.
    Switch,
    /// Every chip has its own direct link to every other (MI300X Infinity Fabric).
    FullMesh,
    /// A ring whose links carry data one way only (book Exercise 3.10): every shard
    /// travels up to `n-1` hops in the same direction.
    UnidirectionalRing,
}

impl AxisShape {
    /// Every shape, in declaration order (the index is stable: caches key on it).
    pub const ALL: [AxisShape; 5] =
        [AxisShape::Ring, AxisShape::Line, AxisShape::Switch, AxisShape::FullMesh, AxisShape::UnidirectionalRing];

    /// Nearest-neighbour axes (a torus dimension): their links add up across axes, and a
    /// multi-axis AllToAll is bisection-bound (see `crate::collectives`).
    #[must_use]
    pub fn is_torus(self) -> bool {
        matches!(self, AxisShape::Ring | AxisShape::Line | AxisShape::UnidirectionalRing)
    }
}
