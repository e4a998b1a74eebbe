//! Laying the logical mesh onto the physical topology (book 2.2, 3.2), and the cost of
//! a collective over the chips one or several logical axes span.
//!
//! Within a network, each logical axis (in [`Parallelism::order_on`] order) takes a
//! whole physical axis of exactly its degree when one is free, and otherwise factors
//! of the physical axes in topology order. A factor of a physical axis is a *piece*
//! with a stride (the product of the factors placed on that axis before it):
//! - the whole axis keeps its shape (a ring when it wraps around);
//! - a contiguous sub-axis (stride 1) is a line: no wraparound link;
//! - a strided piece is a ring when it closes the axis, a line otherwise, and its
//!   `stride` interleaved copies share every physical link, so each sees `link/stride`
//!   (the MaxText custom-model guide measures "0.5 × 1 axis" for the 8×8 rings of a
//!   16×16 Trillium mesh cut into 2×2 sub-rings), and a logical hop is `stride`
//!   physical hops.
//!
//! Switched and fully-connected axes split without penalty.

use super::mesh::{network_index, NetworkSplit, Parallelism, NETWORKS};
use crate::collectives::{collective_cost, AxisLink, AxisShape, CollectiveKind, Network};
use crate::units::{Bytes, BytesPerSec, Seconds};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Most physical axes the planner accepts in a topology.
pub const MAX_PHYSICAL_AXES: usize = 8;

/// A factor of one physical axis. Sizes fit in 32 bits (the planner takes at most 2^24
/// devices), which halves what the search copies per mesh.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Index of the physical axis in the topology.
    pub axis: u8,
    /// Chips along the piece.
    pub size: u32,
    /// Distance between neighbouring chips of the piece, in chips of the axis.
    pub stride: u32,
}

impl Piece {
    fn new(axis: usize, size: u64, stride: u64) -> Option<Self> {
        Some(Self {
            axis: u8::try_from(axis).ok()?,
            size: u32::try_from(size).ok()?,
            stride: u32::try_from(stride).ok()?,
        })
    }
}

/// Where every logical axis sits.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Placement {
    pieces: [[Piece; MAX_PHYSICAL_AXES]; 6],
    counts: [u8; 6],
}

impl Placement {
    /// The pieces of one logical axis.
    #[must_use]
    pub fn pieces(&self, p: Parallelism) -> &[Piece] {
        let i = p as usize;
        let n = usize::from(self.counts.get(i).copied().unwrap_or(0)).min(MAX_PHYSICAL_AXES);
        self.pieces.get(i).map_or(&[], |row| &row[..n])
    }

    fn push(&mut self, p: Parallelism, piece: Piece) {
        let i = p as usize;
        if let (Some(row), Some(n)) = (self.pieces.get_mut(i), self.counts.get_mut(i)) {
            if let Some(slot) = row.get_mut(usize::from(*n)) {
                *slot = piece;
                *n += 1;
            }
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Place a network split on the physical axes; `None` when some degree does not
/// factor into the free parts of the axes.
#[must_use]
pub fn place(split: &NetworkSplit, axes: &[AxisLink]) -> Option<Placement> {
    if axes.len() > MAX_PHYSICAL_AXES {
        return None;
    }
    let mut placement = Placement::default();
    let mut left: [u64; MAX_PHYSICAL_AXES] = [1; MAX_PHYSICAL_AXES];
    let mut used: [u64; MAX_PHYSICAL_AXES] = [1; MAX_PHYSICAL_AXES];
    for (i, a) in axes.iter().enumerate() {
        left[i] = a.size;
    }
    for network in NETWORKS {
        let row = split.get(network_index(network))?;
        let mut on_axes = [0usize; MAX_PHYSICAL_AXES];
        let mut count = 0;
        for (i, a) in axes.iter().enumerate() {
            if a.network == network && a.size > 1 {
                on_axes[count] = i;
                count += 1;
            }
        }
        let on = &on_axes[..count];
        for p in Parallelism::order_on(network) {
            let mut d = row[*p as usize];
            if d <= 1 {
                continue;
            }
            if let Some(&i) = on.iter().find(|&&i| used[i] == 1 && axes[i].size == d) {
                placement.push(*p, Piece::new(i, d, 1)?);
                used[i] = d;
                left[i] = 1;
                continue;
            }
            for &i in on {
                let g = gcd(d, left[i]);
                if g > 1 {
                    placement.push(*p, Piece::new(i, g, used[i])?);
                    used[i] *= g;
                    left[i] /= g;
                    d /= g;
                }
            }
            if d > 1 {
                return None;
            }
        }
    }
    Some(placement)
}

/// The pieces of several logical axes merged per physical axis: sizes multiply, the
/// smallest stride is kept. Sorted by physical axis.
fn merged(placement: &Placement, group: &[Parallelism]) -> ([Piece; MAX_PHYSICAL_AXES], usize) {
    let mut out = [Piece::default(); MAX_PHYSICAL_AXES];
    let mut n = 0;
    for p in group {
        for piece in placement.pieces(*p) {
            if let Some(m) = out[..n].iter_mut().find(|m| m.axis == piece.axis) {
                m.size = m.size.saturating_mul(piece.size);
                m.stride = m.stride.min(piece.stride);
            } else if n < MAX_PHYSICAL_AXES {
                out[n] = *piece;
                n += 1;
            }
        }
    }
    crate::small_sort::by_key(&mut out[..n], |p| p.axis);
    (out, n)
}

/// Shape, one-way link bandwidth and per-hop latency of a piece of `phys` (see the
/// module docs). A piece of a unidirectional ring stays one: its links still run one
/// way, so a piece that does not close the axis is costed as a one-way ring of its size
/// (optimistic: the way back runs through the rest of the axis).
#[must_use]
pub fn piece_shape(phys: &AxisLink, piece: Piece) -> (AxisShape, BytesPerSec, Seconds) {
    let stride = f64::from(piece.stride.max(1));
    let closes = u64::from(piece.size) * u64::from(piece.stride) == phys.size;
    let shape = match phys.shape {
        AxisShape::Ring if closes => AxisShape::Ring,
        AxisShape::Ring | AxisShape::Line => AxisShape::Line,
        other => other,
    };
    if phys.shape.is_torus() {
        (shape, phys.link / stride, phys.hop_latency * stride)
    } else {
        (shape, phys.link, phys.hop_latency)
    }
}

/// The axis a piece of `phys` behaves as, named `x[size/stride]` unless whole.
#[must_use]
pub fn piece_link(phys: &AxisLink, piece: Piece) -> AxisLink {
    let (shape, link, hop_latency) = piece_shape(phys, piece);
    let whole = u64::from(piece.size) == phys.size && piece.stride == 1;
    AxisLink {
        name: if whole { phys.name.clone() } else { format!("{}[{}/{}]", phys.name, piece.size, piece.stride) },
        size: u64::from(piece.size),
        network: phys.network,
        shape,
        link,
        hop_latency,
    }
}

/// The axes one collective over `group` runs on.
#[must_use]
pub fn group_links(axes: &[AxisLink], placement: &Placement, group: &[Parallelism]) -> Vec<AxisLink> {
    let (pieces, n) = merged(placement, group);
    pieces[..n].iter().filter_map(|p| axes.get(usize::from(p.axis)).map(|a| piece_link(a, *p))).collect()
}

/// A collective's time as a function of the array size `V`: exactly
/// `max(latency, V·per_byte)` when its axes are on one network (what
/// [`collective_cost`] computes then); otherwise `collective_cost` is called each time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    latency: f64,
    per_byte: f64,
    exact: Option<usize>,
}

impl CostModel {
    /// Nothing to communicate (every axis of size 1).
    pub const NONE: CostModel = CostModel { latency: 0.0, per_byte: 0.0, exact: None };

    /// Whether the group spans no chips.
    #[must_use]
    pub fn is_none(&self) -> bool {
        *self == Self::NONE
    }
}

/// A small multiply-rotate hasher (FxHash's) for the search's caches: their keys are a few
/// integers, for which SipHash's resistance to adversarial keys buys nothing.
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// What a collective's cost depends on for one piece: the axis it behaves as (network,
/// shape, size, link and hop latency), without its name. Pieces of different physical
/// axes that behave alike share cost models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct LinkKey {
    network: u8,
    shape: u8,
    size: u64,
    link: u64,
    latency: u64,
}

impl LinkKey {
    fn of(phys: &AxisLink, piece: Piece) -> Self {
        let (shape, link, latency) = piece_shape(phys, piece);
        Self {
            network: network_index(phys.network) as u8,
            shape: shape as u8,
            size: u64::from(piece.size),
            link: link.get().to_bits(),
            latency: latency.get().to_bits(),
        }
    }

    /// The axis it describes (unnamed).
    fn link(&self) -> AxisLink {
        let shape = AxisShape::ALL.get(usize::from(self.shape)).copied().unwrap_or(AxisShape::Switch);
        AxisLink {
            name: String::new(),
            size: self.size,
            network: NETWORKS.get(usize::from(self.network)).copied().unwrap_or(Network::ScaleUp),
            shape,
            link: BytesPerSec(f64::from_bits(self.link)),
            hop_latency: Seconds(f64::from_bits(self.latency)),
        }
    }
}

/// A collective kind and the (sorted) links it runs over; the slots past `len` are
/// default and not hashed (most groups span one to three axes).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    kind: u8,
    len: u8,
    links: [LinkKey; MAX_PHYSICAL_AXES],
}

impl std::hash::Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u8(self.kind);
        h.write_u8(self.len);
        for l in self.links.iter().take(usize::from(self.len)) {
            l.hash(h);
        }
    }
}

/// Collective cost models, built with [`collective_cost`] once per distinct set of
/// links and kind, so that the search never allocates per configuration.
pub struct CostCache {
    axes: Vec<AxisLink>,
    models: HashMap<Key, CostModel, BuildHasherDefault<Fx>>,
    multi: Vec<Vec<AxisLink>>,
}

fn kind_index(kind: CollectiveKind) -> u8 {
    match kind {
        CollectiveKind::AllGather => 0,
        CollectiveKind::ReduceScatter => 1,
        CollectiveKind::AllReduce => 2,
        CollectiveKind::AllToAll => 3,
    }
}

impl CostCache {
    /// A cache over the physical `axes` (already scaled by the efficiency hook).
    #[must_use]
    pub fn new(axes: Vec<AxisLink>) -> Self {
        Self { axes, models: HashMap::default(), multi: Vec::new() }
    }

    /// The physical axes.
    #[must_use]
    pub fn axes(&self) -> &[AxisLink] {
        &self.axes
    }

    /// The cost model of `kind` over the chips of `group`. Links are sorted before
    /// [`collective_cost`] sees them, so a model depends only on the set of links.
    pub fn model(&mut self, kind: CollectiveKind, placement: &Placement, group: &[Parallelism]) -> CostModel {
        let (pieces, n) = merged(placement, group);
        if n == 0 {
            return CostModel::NONE;
        }
        let mut key = Key { kind: kind_index(kind), len: n as u8, links: [LinkKey::default(); MAX_PHYSICAL_AXES] };
        for (slot, p) in key.links.iter_mut().zip(pieces.iter().take(n)) {
            let Some(phys) = self.axes.get(usize::from(p.axis)) else { return CostModel::NONE };
            *slot = LinkKey::of(phys, *p);
        }
        // proof: `merged` returns at most MAX_PHYSICAL_AXES pieces.
        crate::small_sort::by_key(&mut key.links[..n], |l| *l);
        if let Some(m) = self.models.get(&key) {
            return *m;
        }
        let links: Vec<AxisLink> = key.links[..n].iter().map(LinkKey::link).collect();
        let single = links.windows(2).all(|w| w[0].network == w[1].network);
        let model = if single {
            match collective_cost(kind, Bytes(1.0), &links) {
                Ok(c) => CostModel { latency: c.latency_floor.get(), per_byte: c.bandwidth_time.get(), exact: None },
                Err(_) => CostModel { latency: 0.0, per_byte: f64::INFINITY, exact: None },
            }
        } else {
            self.multi.push(links);
            CostModel { latency: 0.0, per_byte: 0.0, exact: Some(self.multi.len() - 1) }
        };
        self.models.insert(key, model);
        model
    }

    /// Seconds for `kind` of the full array `bytes` (see [`crate::collectives`]).
    #[must_use]
    pub fn time(&self, model: CostModel, kind: CollectiveKind, bytes: f64) -> f64 {
        if bytes.is_nan() || bytes <= 0.0 || model.is_none() {
            return 0.0;
        }
        match model.exact {
            Some(i) => self
                .multi
                .get(i)
                .and_then(|links| collective_cost(kind, Bytes(bytes), links).ok())
                .map_or(f64::INFINITY, |c| c.time.get()),
            None => model.latency.max(bytes * model.per_byte),
        }
    }

    /// One-way bandwidth and per-hop latency of a neighbour-to-neighbour transfer
    /// along `p` (pipeline stages): the slowest of its pieces.
    #[must_use]
    pub fn neighbour_link(&self, placement: &Placement, p: Parallelism) -> Option<(BytesPerSec, f64, u64)> {
        placement
            .pieces(p)
            .iter()
            .filter_map(|piece| self.axes.get(usize::from(piece.axis)).map(|a| (a, piece)))
            .map(|(a, piece)| {
                let (_, link, _) = piece_shape(a, *piece);
                let hops = if a.shape.is_torus() { u64::from(piece.stride) } else { 1 };
                (link, a.hop_latency.get(), hops)
            })
            .min_by(|x, y| x.0.get().total_cmp(&y.0.get()))
    }
}

/// Scale every link by the achievable fraction of its network's bandwidth.
#[must_use]
pub fn scaled_axes(axes: &[AxisLink], ici: f64, dcn: f64) -> Vec<AxisLink> {
    axes.iter()
        .map(|a| {
            let f = if a.network == Network::ScaleOut { dcn } else { ici };
            AxisLink { link: a.link * f, ..a.clone() }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::catalog::get;
    use crate::hardware::topology::Topology;
    use crate::training::mesh::split_mesh;
    use crate::training::mesh::Mesh;

    fn v5p(shape: &[u64]) -> Vec<AxisLink> {
        Topology::tpu_slice(shape, 1).resolve(&get("tpu-v5p").unwrap()).unwrap()
    }

    #[test]
    fn book_4x4x4_fsdp_on_two_axes_tp_on_one() {
        let axes = v5p(&[4, 4, 4]);
        let mesh = Mesh { fsdp: 16, tp: 4, ..Mesh::default() };
        let p = place(&split_mesh(&mesh, [1, 64, 1]).unwrap(), &axes).unwrap();
        assert_eq!(p.pieces(Parallelism::Tp), &[Piece { axis: 0, size: 4, stride: 1 }]);
        let fsdp = group_links(&axes, &p, &[Parallelism::Fsdp]);
        assert_eq!(fsdp.len(), 2);
        assert!(fsdp.iter().all(|a| a.shape == AxisShape::Ring && a.size == 4));
    }

    #[test]
    fn sub_axes_are_lines_and_strided_pieces_share_links() {
        let axes = v5p(&[16, 20, 28]);
        let mesh = Mesh { fsdp: 1120, tp: 4, cp: 2, ..Mesh::default() };
        let p = place(&split_mesh(&mesh, [1, 8960, 1]).unwrap(), &axes).unwrap();
        let tp = group_links(&axes, &p, &[Parallelism::Tp]);
        assert_eq!((tp[0].size, tp[0].shape), (4, AxisShape::Line));
        let cp = group_links(&axes, &p, &[Parallelism::Cp]);
        assert_eq!(cp[0].link.get(), 9e10 / 4.0);
        // FSDP and CP together close the x axis: a ring of 4 chips 4 apart.
        let g = group_links(&axes, &p, &[Parallelism::Fsdp, Parallelism::Cp]);
        assert_eq!((g[0].size, g[0].shape, g[0].link.get()), (4, AxisShape::Ring, 9e10 / 4.0));
        assert_eq!(g.len(), 3);
    }

    #[test]
    fn the_cache_matches_collective_cost() {
        let axes = v5p(&[4, 4, 4]);
        let mesh = Mesh { fsdp: 64, ..Mesh::default() };
        let p = place(&split_mesh(&mesh, [1, 64, 1]).unwrap(), &axes).unwrap();
        let mut cache = CostCache::new(axes.clone());
        let m = cache.model(CollectiveKind::AllGather, &p, &[Parallelism::Fsdp]);
        for v in [1.0, 1e3, 1e6, 1e9] {
            let exact = collective_cost(CollectiveKind::AllGather, Bytes(v), &axes).unwrap().time.get();
            assert!((cache.time(m, CollectiveKind::AllGather, v) - exact).abs() <= 1e-12 * exact.max(1e-9));
        }
    }

    /// EP over two axes of a v5p cube: the AllToAll the planner charges is the bisection
    /// bound of a 4×4 torus, `4·B/(8W)` for a shard `B` per chip and 9e10 B/s links (not
    /// `16·B/(16W)`, the gather-like sum the planner used before).
    #[test]
    fn expert_parallel_alltoall_over_two_axes_is_bisection_bound() {
        let axes = v5p(&[4, 4, 4]);
        let mesh = Mesh { ep: 16, fsdp: 4, ..Mesh::default() };
        let p = place(&split_mesh(&mesh, [1, 64, 1]).unwrap(), &axes).unwrap();
        let ep = group_links(&axes, &p, &[Parallelism::Ep]);
        assert_eq!(ep.iter().map(|a| (a.size, a.shape)).collect::<Vec<_>>(), [(4, AxisShape::Ring); 2]);
        let mut cache = CostCache::new(axes);
        let model = cache.model(CollectiveKind::AllToAll, &p, &[Parallelism::Ep]);
        let shard = 1e8;
        let t = cache.time(model, CollectiveKind::AllToAll, 16.0 * shard);
        let hand = 4.0 * shard / (8.0 * 9e10);
        assert!((t - hand).abs() < 1e-12 * hand, "{t} vs {hand}");
    }
}
